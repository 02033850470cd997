// What both search engines (the in-process index and plain SQL) take and answer.
import type { Clause } from './filters.ts';

export type SortKey = 'relevance' | 'price_asc' | 'price_desc' | 'newest' | 'popular';

export interface IndexQuery {
  /** One entry per word: the lexemes of which a product must contain one (exact), or prefixes. */
  terms: Array<{ exact: string[] } | { prefixes: string[] }>;
  clauses: Clause[];
  sort: SortKey;
  limit: number;
  offset: number;
}

export interface EngineAnswer {
  total: number;
  ids: string[];
  facets: {
    categoryId: Record<string, number>;
    sellerId: Record<string, number>;
    isDigital: Record<string, number>;
    isPerishable: Record<string, number>;
    priceRange: Record<string, number>;
  };
}

/** Category and seller facets list at most this many values (the largest counts). */
export const FACET_VALUES = 50;

const PRICE_BUCKETS = ['0-25', '25-50', '50-100', '100-250', '250+'] as const;

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

/** The facets with fixed values, from counts: values with no product are left out. */
export function fixedFacets(total: number, digital: number, perishable: number, buckets: number[]) {
  return {
    isDigital: nonZero({ true: digital, false: total - digital }),
    isPerishable: nonZero({ true: perishable, false: total - perishable }),
    priceRange: nonZero(Object.fromEntries(PRICE_BUCKETS.map((b, i) => [b, buckets[i] ?? 0]))),
  };
}

export function emptyAnswer(): EngineAnswer {
  return {
    total: 0,
    ids: [],
    facets: { categoryId: {}, sellerId: {}, isDigital: {}, isPerishable: {}, priceRange: {} },
  };
}
