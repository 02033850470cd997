// The search page's query as a person's form sends it, what the search engine is asked for it,
// and the page's own address with a choice changed (a page link, a cleared filter).
import { z } from 'zod';
import { searchQuery } from '../../contract/catalog.ts';
import { foldOption, OPTION_NAME_MAX } from '../../modules/search/filters.ts';

/** An id a facet's checkbox may carry. */
export const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

const list = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).filter((x) => ID.test(x)).slice(0, 50),
  );
const dollars = z
  .string()
  .optional()
  .transform((v) => {
    const n = v === undefined || v.trim() === '' ? Number.NaN : Number(v.replace(',', '.'));
    return Number.isFinite(n) && n >= 0 && n <= 1_000_000 ? Math.round(n * 100) : undefined;
  });

/** Every field optional, lists repeated; the options' filters are read apart (readOptions). */
const storeFields = z.object({
  q: z.string().max(200).optional().default(''),
  category: list,
  seller: list,
  min: dollars,
  max: dollars,
  rating: z.enum(['1', '2', '3', '4']).optional().catch(undefined),
  digital: z.enum(['yes', 'no']).optional().catch(undefined),
  sort: searchQuery.shape.sort.catch(undefined),
  page: z.coerce.number().int().min(1).max(400).optional().catch(undefined),
  // A checkbox's one value; anything else is a bad address, refused (readOptions' rule).
  inStock: z.literal('yes').optional(),
  lang: z.string().optional(),
});

/** Options filtered at once (a product has at most 3; room for spellings across shops). */
export const MAX_OPTION_FILTERS = 5;
/** Values of one option, as the search's alternatives of one clause. */
const MAX_OPTION_VALUES = 50;
/** A value is at most as long as the catalog's (contract/catalog.ts optionText). */
const OPTION_VALUE_MAX = 50;
const PREFIX = 'option.';

/** One option's values chosen: `option.Size=M&option.Size=L`. */
export interface OptionChoice {
  name: string;
  values: string[];
}

/**
 * Whether the search's filter grammar can say this option name or value: `,` ends a clause,
 * `|` separates values, and a name's `:` would end the field. Such a value is not offered.
 */
export const sayable = (s: string, isName = false) => !/[,|]/.test(s) && !(isName && s.includes(':'));

const bad = Symbol('bad');

/**
 * The `option.<Name>` parameters, bounded: a name or value too long, empty or unsayable, too
 * many options or values, is `bad` (the page answers 400); a value repeated (any case) counts once.
 */
function readOptions(raw: Record<string, unknown>): OptionChoice[] | typeof bad {
  const byName = new Map<string, OptionChoice>();
  for (const [key, given] of Object.entries(raw)) {
    if (!key.startsWith(PREFIX)) continue;
    const name = key.slice(PREFIX.length).trim();
    if (!name || name.length > OPTION_NAME_MAX || !sayable(name, true)) return bad;
    const list = Array.isArray(given) ? given : [given];
    if (list.length > MAX_OPTION_VALUES) return bad;
    const choice = byName.get(foldOption(name)) ?? { name, values: [] };
    byName.set(foldOption(name), choice);
    for (const v of list) {
      const value = typeof v === 'string' ? v.trim() : '';
      if (!value || value.length > OPTION_VALUE_MAX || !sayable(value)) return bad;
      if (!choice.values.some((x) => foldOption(x) === foldOption(value))) choice.values.push(value);
    }
    if (byName.size > MAX_OPTION_FILTERS || choice.values.length > MAX_OPTION_VALUES) return bad;
  }
  return [...byName.values()];
}

export type StoreQuery = z.infer<typeof storeFields> & { options: OptionChoice[] };

/** The page's query from its address, or undefined for one the page refuses (400). */
export function readStoreQuery(raw: unknown): StoreQuery | undefined {
  const parsed = storeFields.safeParse(raw);
  if (!parsed.success || typeof raw !== 'object' || raw === null) return undefined;
  const options = readOptions(raw as Record<string, unknown>);
  return options === bad ? undefined : { ...parsed.data, options };
}

/** The search engine's filter clauses for the page's choices (docs/api.md "Search"). */
export function filtersOf(q: StoreQuery): string | undefined {
  const clauses = [
    ...(q.category.length ? [`categoryId:${q.category.join('|')}`] : []),
    ...(q.seller.length ? [`sellerId:${q.seller.join('|')}`] : []),
    ...(q.min !== undefined || q.max !== undefined
      ? [`priceCents:${q.min ?? 0}..${q.max ?? 100_000_000}`]
      : []),
    ...(q.rating ? [`rating:${q.rating}`] : []),
    ...(q.digital ? [`isDigital:${q.digital === 'yes'}`] : []),
    ...(q.inStock ? ['inStock:true'] : []),
    ...q.options.map((o) => `option.${o.name}:${o.values.join('|')}`),
  ];
  return clauses.length ? clauses.join(',') : undefined;
}

/** The page's own address with `change` applied (a page link, a removed filter). */
export function hrefWith(
  q: StoreQuery,
  change: Partial<Record<string, string | string[] | undefined>>,
): string {
  const params = new URLSearchParams();
  const base: Record<string, string | string[] | undefined> = {
    q: q.q || undefined,
    category: q.category,
    seller: q.seller,
    min: q.min === undefined ? undefined : String(q.min / 100),
    max: q.max === undefined ? undefined : String(q.max / 100),
    rating: q.rating,
    digital: q.digital,
    inStock: q.inStock,
    ...Object.fromEntries(q.options.map((o) => [`${PREFIX}${o.name}`, o.values])),
    sort: q.sort,
    page: q.page && q.page > 1 ? String(q.page) : undefined,
  };
  for (const [k, v] of Object.entries({ ...base, ...change })) {
    for (const one of v === undefined ? [] : Array.isArray(v) ? v : [v]) params.append(k, one);
  }
  const s = params.toString();
  return s ? `/?${s}` : '/';
}

/** The page's choices as name and value pairs, but those in `leave` (a form's hidden inputs). */
export function paramsOf(q: StoreQuery, leave: string[]): [string, string][] {
  const url = new URL(hrefWith(q, {}), 'http://page.invalid');
  return [...url.searchParams].filter(([k]) => !leave.includes(k));
}
