// Shared wire formats: record ids, Canadian regions, timestamps.
import { randomFillSync } from 'node:crypto';
import { z } from 'zod';

export const COLLECTIONS = [
  'products',
  'users',
  'orders',
  'returns',
  'reviews',
  'categories',
  'checkouts',
  'platforms',
  'addresses',
  'variants',
  'images',
  'notifications',
  'messages',
] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** A new record id `<collection>:<key>`; the key is 20 URL-safe characters of 120 random bits. */
export function newId(collection: Collection): string {
  return `${collection}:${randomKey(15)}`;
}

// Random bytes for ids are drawn from a pool filled from the CSPRNG 4 KiB at a time (as Node's
// own randomUUID does) instead of one call per id: a payment makes about six ids. For ids only:
// secrets (tokens, nonces) keep their own randomBytes call.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `bytes` random bytes (at most 64), base64url: the key of an id. */
export function randomKey(bytes: number): string {
  if (bytes > 64) throw new RangeError('randomKey: at most 64 bytes');
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const key = pool.toString('base64url', used, used + bytes);
  used += bytes;
  return key;
}

const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** True when `value` has the shape of an id of `collection`; anything else is simply not found. */
export function isRecordId(collection: Collection, value: string): boolean {
  const prefix = `${collection}:`;
  return value.startsWith(prefix) && KEY.test(value.slice(prefix.length));
}

export const recordId = (collection: Collection) =>
  z
    .string()
    .describe(`Record id \`${collection}:<key>\``)
    .meta({ example: `${collection}:Xk3p9QaZ2mN7vB1cR8tY` });

export const PROVINCES = [
  'ON',
  'BC',
  'AB',
  'MB',
  'SK',
  'NS',
  'NB',
  'PE',
  'NL',
  'QC',
  'YT',
  'NT',
  'NU',
] as const;
export type Province = (typeof PROVINCES)[number];
export const province = z.enum(PROVINCES);

export const ROLES = ['buyer', 'seller', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const role = z.enum(ROLES);

export const unixSeconds = z.number().int().describe('Unix time in seconds');
export const toUnix = (d: Date) => Math.floor(d.getTime() / 1000);

/** A time to the second, as messages show it: `2026-11-25T03:04:58Z`. */
export const isoSecond = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
