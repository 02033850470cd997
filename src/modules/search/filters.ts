// The `filters` grammar of GET /search/products (docs/api.md "Search"):
// clauses `field:value` separated by
// commas, all combined with AND; `a|b` inside a value is OR; `lo..hi` is an inclusive range.
// The first `:` separates field from value (ids contain colons).
import { invalid } from '../../contract/errors.ts';

export type Clause =
  | { field: 'categoryId' | 'sellerId'; anyOf: string[] }
  | { field: 'priceCents'; ranges: Array<{ min?: number; max?: number }> }
  | { field: 'isDigital' | 'isPerishable'; anyOf: boolean[] }
  | { field: 'rating'; min: number };

const FIELDS = ['categoryId', 'sellerId', 'priceCents', 'isDigital', 'isPerishable', 'rating'] as const;
const MAX_CLAUSES = 20;
const MAX_ALTERNATIVES = 50;

export function parseFilters(source: string | undefined): Clause[] {
  if (!source?.trim()) return [];
  const parts = source.split(',').map((p) => p.trim());
  if (parts.length > MAX_CLAUSES) throw bad(source, `at most ${MAX_CLAUSES} clauses`);
  return parts.map(parseClause);
}

function parseClause(clause: string): Clause {
  const colon = clause.indexOf(':');
  if (colon <= 0) throw bad(clause, 'expected field:value');
  const field = clause.slice(0, colon).trim();
  const value = clause.slice(colon + 1).trim();
  if (!(FIELDS as readonly string[]).includes(field)) {
    throw bad(clause, `unknown field "${field}"; use one of ${FIELDS.join(', ')}`);
  }
  if (!value) throw bad(clause, 'empty value');
  const alternatives = value.split('|').map((v) => v.trim());
  if (alternatives.length > MAX_ALTERNATIVES) throw bad(clause, `at most ${MAX_ALTERNATIVES} alternatives`);
  if (alternatives.some((v) => v === '')) throw bad(clause, 'empty alternative');
  switch (field) {
    case 'categoryId':
    case 'sellerId':
      return { field, anyOf: alternatives };
    case 'isDigital':
    case 'isPerishable':
      return {
        field,
        anyOf: alternatives.map((v) => {
          if (v !== 'true' && v !== 'false') throw bad(clause, 'value must be true or false');
          return v === 'true';
        }),
      };
    case 'priceCents':
      return { field, ranges: alternatives.map((v) => parseRange(clause, v)) };
    default: {
      if (alternatives.length > 1) throw bad(clause, 'rating takes one minimum');
      const min = Number(value);
      if (!/^\d+(\.\d+)?$/.test(value) || min > 5) throw bad(clause, 'rating must be a number from 0 to 5');
      return { field: 'rating', min };
    }
  }
}

function parseRange(clause: string, v: string): { min?: number; max?: number } {
  const int = (s: string) => {
    if (!/^\d{1,9}$/.test(s)) throw bad(clause, 'prices are whole numbers of cents');
    return Number(s);
  };
  const dots = v.indexOf('..');
  if (dots === -1) {
    const exact = int(v);
    return { min: exact, max: exact };
  }
  const lo = v.slice(0, dots);
  const hi = v.slice(dots + 2);
  if (!lo && !hi) throw bad(clause, 'a range needs at least one bound');
  const range = { min: lo ? int(lo) : undefined, max: hi ? int(hi) : undefined };
  if (range.min !== undefined && range.max !== undefined && range.min > range.max) {
    throw bad(clause, 'range start is above its end');
  }
  return range;
}

function bad(clause: string, why: string) {
  return invalid(`Invalid filter "${clause}": ${why}`, [
    { field: 'filters', message: `"${clause}": ${why}` },
  ]);
}
