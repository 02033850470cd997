// How one environment variable is read: the schemas, lists and origins every part of the
// configuration uses, and the shape of loadConfig's `pick` (read a variable, or record why not).
import { z } from 'zod';
import { isOrigin } from '../contract/format.ts';

export type Env = Record<string, string | undefined>;

/** Reads variable `name` with `schema`, or records a problem and answers `fallback`. */
export type ReadVariable = <T>(name: string, schema: z.ZodType<T>, fallback: T) => T;

export const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

export const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

export const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function normalOrigin(v: string): string {
  return isOrigin(v) ? new URL(v).origin : v;
}

export function truncate(v: string): string {
  return v.length > 40 ? `${v.slice(0, 37)}...` : v;
}
