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
  /** Only products offered to AI agents (products.agent_channels): the UCP catalog's search. */
  agents?: boolean;
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
    /** Products with a matching variant that has free units, and those without. */
    inStock: Record<string, number>;
    /** `option.<Name>`: per value, the products with a matching variant of that value. */
    [option: `option.${string}`]: Record<string, number>;
  };
}

/** Category, seller and option facets list at most this many values (the largest counts), and at most this many options. */
export const FACET_VALUES = 50;

const PRICE_BUCKETS = ['0-25', '25-50', '50-100', '100-250', '250+'] as const;

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

/**
 * The facets with fixed values, from counts: values with no product are left out. A product
 * counts in every price bucket one of its matching variants is priced in.
 */
export function fixedFacets(
  total: number,
  digital: number,
  perishable: number,
  buckets: number[],
  inStock: number,
) {
  return {
    isDigital: nonZero({ true: digital, false: total - digital }),
    isPerishable: nonZero({ true: perishable, false: total - perishable }),
    priceRange: nonZero(Object.fromEntries(PRICE_BUCKETS.map((b, i) => [b, buckets[i] ?? 0]))),
    inStock: nonZero({ true: inStock, false: total - inStock }),
  };
}

/** The priceRange facet's bucket of a price: 0-25, 25-50, 50-100, 100-250, 250+ dollars. */
export const priceBucket = (cents: number) =>
  cents < 2500 ? 0 : cents < 5000 ? 1 : cents < 10000 ? 2 : cents < 25000 ? 3 : 4;

/** Option facets in order: the options with most products first (then by name), their values likewise, FACET_VALUES of each. */
export function optionFacets(
  options: Array<{ name: string; n: number; values: Array<{ value: string; n: number }> }>,
): Record<`option.${string}`, Record<string, number>> {
  const byCount =
    <T extends { n: number }>(key: (x: T) => string) =>
    (a: T, b: T) =>
      b.n - a.n || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return Object.fromEntries(
    options
      .sort(byCount((o) => o.name))
      .slice(0, FACET_VALUES)
      .map((o) => [
        `option.${o.name}`,
        Object.fromEntries(
          o.values
            .sort(byCount((v) => v.value))
            .slice(0, FACET_VALUES)
            .map((v) => [v.value, v.n]),
        ),
      ]),
  );
}

export function emptyAnswer(): EngineAnswer {
  return {
    total: 0,
    ids: [],
    facets: { categoryId: {}, sellerId: {}, isDigital: {}, isPerishable: {}, priceRange: {}, inStock: {} },
  };
}
