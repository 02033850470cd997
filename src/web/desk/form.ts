// The desk's forms and queries as sent: a name's one value, what was typed into a field (blank is
// none, numbers and dollars as a person writes them), and the tax profile's fields.
import type { FastifyRequest } from 'fastify';

/** A form as posted: a name's one value, or several. */
export type Form = Record<string, string | string[] | undefined>;

/** A form's or a query's one value (a repeated name counts its first). */
export const one = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;

/** A value typed into a field, or undefined when left blank. */
export const filled = (v: unknown) => {
  const s = one(v)?.trim();
  return s ? s : undefined;
};

/** A number typed into a field (NaN when it is not one: the schema words the problem). */
export const numberOf = (v: unknown) => {
  const s = filled(v);
  return s === undefined ? undefined : Number(s.replace(',', '.'));
};

/** Dollars typed into a field, as cents. */
export const centsOf = (v: unknown) => {
  const n = numberOf(v);
  return n === undefined || !Number.isFinite(n) ? n : Math.round(n * 100);
};

export const queryOf = (req: FastifyRequest, name: string) =>
  one((req.query as Record<string, unknown>)[name]);

/** `v` when it is one of `list`, else `fallback`. */
export const oneOf = <T extends string>(list: readonly T[], v: string | undefined, fallback: T): T =>
  list.includes(v as T) ? (v as T) : fallback;

/** A page number from a query, 1 to 1000. */
export const pageNumber = (v: string | undefined) =>
  Math.max(1, Math.min(1000, Number.parseInt(v ?? '1', 10) || 1));

/** The fields of the platform's tax profile, as PUT /admin/tax-profile takes them. */
export const TAX_FIELDS = [
  'legalName',
  'street',
  'city',
  'province',
  'postalCode',
  'gstHstNumber',
  'qstNumber',
] as const;
export type TaxForm = Record<(typeof TAX_FIELDS)[number], string>;
