// The `filters` grammar of GET /search/products (docs/api.md "Search"):
// clauses `field:value` separated by
// commas, all combined with AND; `a|b` inside a value is OR; `lo..hi` is an inclusive range.
// The first `:` separates field from value (ids contain colons). `priceCents`, `option.<Name>`
// and `inStock` are variant clauses: one active variant of a product must satisfy them all.
import { invalid, problem } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, type MessageKey, type MessageValues, t } from '../../contract/i18n.ts';

export type Clause =
  | { field: 'categoryId' | 'sellerId'; anyOf: string[] }
  | { field: 'priceCents'; ranges: Array<{ min?: number; max?: number }> }
  | { field: 'isDigital' | 'isPerishable'; anyOf: boolean[] }
  | { field: 'rating'; min: number }
  /** `name` and `anyOf` folded (foldOption): an option is matched whatever its letters' case. */
  | { field: 'option'; name: string; anyOf: string[] }
  | { field: 'inStock'; anyOf: boolean[] };

export type VariantClause = Extract<Clause, { field: 'priceCents' | 'option' | 'inStock' }>;
export const isVariantClause = (c: Clause): c is VariantClause =>
  c.field === 'priceCents' || c.field === 'option' || c.field === 'inStock';

const FIELDS = [
  'categoryId',
  'sellerId',
  'priceCents',
  'isDigital',
  'isPerishable',
  'rating',
  'inStock',
  'option.<name>',
] as const;
/** An option's name is at most this long (as the catalog's, contract/catalog.ts optionText). */
export const OPTION_NAME_MAX = 50;

/**
 * An option name or value as search compares them: trimmed, ASCII letters lowered. Only ASCII:
 * PostgreSQL's lower() under the "C" collation (the SQL engine's) does the same on every
 * database, whatever its locale, so both engines agree.
 */
export const foldOption = (s: string) => s.trim().replace(/[A-Z]+/g, (c) => c.toLowerCase());
const MAX_CLAUSES = 20;
const MAX_ALTERNATIVES = 50;

/** The clauses of `source`; a 400 says what is wrong in `locale` (the reader's). */
export function parseFilters(source: string | undefined, locale: Locale = BASE_LOCALE): Clause[] {
  if (!source?.trim()) return [];
  const parts = source.split(',').map((p) => p.trim());
  // The problems are put into words where they are found: the clause is quoted around them.
  const bad = (clause: string, why: MessageKey, values?: MessageValues) => {
    const reason = t(locale, why, values);
    return invalid('error.search.invalidFilter', { clause, why: reason }, [
      problem('filters', 'validation.filterClause', { clause, why: reason }),
    ]);
  };
  if (parts.length > MAX_CLAUSES)
    throw bad(source, 'error.search.filter.tooManyClauses', { max: MAX_CLAUSES });
  return parts.map((clause) => parseClause(clause, bad));
}

type Bad = (clause: string, why: MessageKey, values?: MessageValues) => Error;

function parseClause(clause: string, bad: Bad): Clause {
  const colon = clause.indexOf(':');
  if (colon <= 0) throw bad(clause, 'error.search.filter.noColon');
  const field = clause.slice(0, colon).trim();
  const value = clause.slice(colon + 1).trim();
  const option = field.startsWith('option.') ? field.slice('option.'.length).trim() : undefined;
  if (option !== undefined && (option === '' || option.length > OPTION_NAME_MAX)) {
    throw bad(clause, 'error.search.filter.optionName', { max: OPTION_NAME_MAX });
  }
  if (option === undefined && !(FIELDS as readonly string[]).includes(field)) {
    throw bad(clause, 'error.search.filter.unknownField', { field, fields: FIELDS.join(', ') });
  }
  if (!value) throw bad(clause, 'error.search.filter.emptyValue');
  const alternatives = value.split('|').map((v) => v.trim());
  if (alternatives.length > MAX_ALTERNATIVES)
    throw bad(clause, 'error.search.filter.tooManyAlternatives', { max: MAX_ALTERNATIVES });
  if (alternatives.some((v) => v === '')) throw bad(clause, 'error.search.filter.emptyAlternative');
  if (option !== undefined)
    return { field: 'option', name: foldOption(option), anyOf: alternatives.map(foldOption) };
  switch (field) {
    case 'categoryId':
    case 'sellerId':
      return { field, anyOf: alternatives };
    case 'isDigital':
    case 'isPerishable':
    case 'inStock':
      return {
        field,
        anyOf: alternatives.map((v) => {
          if (v !== 'true' && v !== 'false') throw bad(clause, 'error.search.filter.boolean');
          return v === 'true';
        }),
      };
    case 'priceCents':
      return { field, ranges: alternatives.map((v) => parseRange(clause, v, bad)) };
    default: {
      if (alternatives.length > 1) throw bad(clause, 'error.search.filter.ratingOneMinimum');
      const min = Number(value);
      if (!/^\d+(\.\d+)?$/.test(value) || min > 5) throw bad(clause, 'error.search.filter.ratingRange');
      return { field: 'rating', min };
    }
  }
}

function parseRange(clause: string, v: string, bad: Bad): { min?: number; max?: number } {
  const int = (s: string) => {
    if (!/^\d{1,9}$/.test(s)) throw bad(clause, 'error.search.filter.priceCents');
    return Number(s);
  };
  const dots = v.indexOf('..');
  if (dots === -1) {
    const exact = int(v);
    return { min: exact, max: exact };
  }
  const lo = v.slice(0, dots);
  const hi = v.slice(dots + 2);
  if (!lo && !hi) throw bad(clause, 'error.search.filter.rangeBound');
  const range = { min: lo ? int(lo) : undefined, max: hi ? int(hi) : undefined };
  if (range.min !== undefined && range.max !== undefined && range.min > range.max) {
    throw bad(clause, 'error.search.filter.rangeOrder');
  }
  return range;
}
