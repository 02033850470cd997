// Shared wire formats: record ids, Canadian regions, timestamps.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

export const COLLECTIONS = [
  'products',
  'users',
  'orders',
  'returns',
  'reviews',
  'categories',
  'checkouts',
] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** A new record id `<collection>:<key>`; the key is 20 URL-safe characters of 120 random bits. */
export function newId(collection: Collection): string {
  return `${collection}:${randomBytes(15).toString('base64url')}`;
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
export const province = z.enum(PROVINCES, { message: `must be one of ${PROVINCES.join(', ')}` });

export const ROLES = ['buyer', 'seller', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });

export const unixSeconds = z.number().int().describe('Unix time in seconds');
export const toUnix = (d: Date) => Math.floor(d.getTime() / 1000);
