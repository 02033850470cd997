// The search page's query as a person's form sends it, what the search engine is asked for it,
// and the page's own address with a choice changed (a page link, a cleared filter).
import { z } from 'zod';
import { searchQuery } from '../../contract/catalog.ts';

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

/** Every field optional, lists repeated. */
export const storeQuery = z.object({
  q: z.string().max(200).optional().default(''),
  category: list,
  seller: list,
  min: dollars,
  max: dollars,
  rating: z.enum(['1', '2', '3', '4']).optional().catch(undefined),
  digital: z.enum(['yes', 'no']).optional().catch(undefined),
  sort: searchQuery.shape.sort.catch(undefined),
  page: z.coerce.number().int().min(1).max(400).optional().catch(undefined),
  lang: z.string().optional(),
});
export type StoreQuery = z.infer<typeof storeQuery>;

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
