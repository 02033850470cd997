// Product search: full text (English stemming, prefix on the last word) over title,
// keywords and description; the filter grammar; facets counted over the whole result.
// Two engines answer the same way: the in-process index (default, SEARCH_INDEX=memory)
// and plain SQL (SEARCH_INDEX=sql), which needs no memory and no start-up load.
import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { searchAnswer, searchQuery } from '../../contract/catalog.ts';
import { type Db, queryRows } from '../../db/index.ts';
import { listItemsByIds } from '../catalog/service.ts';
import { searchWords, tsQuery } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type Clause, parseFilters } from './filters.ts';
import {
  FACET_VALUES,
  fixedFacets,
  type IndexAnswer,
  type IndexQuery,
  type MemorySearchIndex,
  type SortKey,
} from './memory-index.ts';

type Answer = z.infer<typeof searchAnswer>;
type Query = z.infer<typeof searchQuery>;

/** Words whose stems are remembered; past this the memory starts again. */
export const STEM_CACHE_MAX = 10_000;

export type SearchEngine = ReturnType<typeof createSearch>;

export function createSearch(opts: { index: MemorySearchIndex | undefined }) {
  const { index } = opts;
  const stems = new StemCache();

  return {
    /** Loads the index (start-up); a no-op for the SQL engine. */
    async prepare(db: Db) {
      if (!index) return undefined;
      await index.build(db);
      return index.stats();
    },

    async search(ctx: RequestContext, q: Query): Promise<Answer> {
      const clauses = parseFilters(q.filters);
      const words = searchWords(q.q);
      if (q.q.trim() && words.length === 0) return answer(q, emptyAnswer());
      const sort: SortKey = q.sort ?? (words.length ? 'relevance' : 'newest');
      let found: IndexAnswer;
      if (index) {
        const [, terms] = await Promise.all([index.refresh(ctx.db), stems.terms(ctx.db, words)]);
        found = index.search({ terms, clauses, sort, limit: q.limit, offset: q.offset });
      } else {
        found = await sqlSearch(ctx, q, clauses, sort);
      }
      return answer(q, found, await listItemsByIds(ctx, found.ids));
    },
  };
}

function answer(q: Query, found: IndexAnswer, results: Answer['results'] = []): Answer {
  return { results, facets: found.facets, total: found.total, limit: q.limit, offset: q.offset };
}

function emptyAnswer(): IndexAnswer {
  return {
    total: 0,
    ids: [],
    facets: { categoryId: {}, sellerId: {}, isDigital: {}, isPerishable: {}, priceRange: {} },
  };
}

/**
 * Words to index terms, with PostgreSQL's English stemmer (the one that made the stored
 * vectors). Every word but the last must be present (a stopword is dropped, as to_tsquery
 * does); the last is a prefix of a stem or of the word as written.
 */
class StemCache {
  private readonly cache = new Map<string, string[]>();

  async terms(db: Db, words: string[]): Promise<IndexQuery['terms']> {
    if (words.length === 0) return [];
    // This query's stems are gathered in a map of its own: the shared cache may be cleared
    // by another search while this one waits for the database.
    const stems = new Map<string, string[]>();
    for (const w of words) {
      const known = this.cache.get(w);
      if (known) stems.set(w, known);
    }
    const missing = [...new Set(words.filter((w) => !stems.has(w)))];
    if (missing.length) {
      const rows = await queryRows<{ w: string; stems: string[] }>(
        db,
        sql`select w, coalesce((select array_agg(lexeme) from unnest(to_tsvector('english', w))), '{}') as stems
              from unnest(array[${sql.join(
                missing.map((w) => sql`${w}`),
                sql`, `,
              )}]::text[]) as w`,
      );
      if (this.cache.size > STEM_CACHE_MAX) this.cache.clear();
      for (const r of rows) {
        stems.set(r.w, r.stems);
        this.cache.set(r.w, r.stems);
      }
    }
    const of = (w: string) => stems.get(w) ?? [];
    const last = words[words.length - 1]!;
    return [
      ...words
        .slice(0, -1)
        .filter((w) => of(w).length > 0)
        .map((w) => ({ exact: of(w) })),
      { prefixes: [...of(last), last] },
    ];
  }
}

// ---- the SQL engine ---------------------------------------------------------------------

function clauseSql(c: Clause): SQL {
  const anyOf = (column: SQL, values: Array<string | boolean>) =>
    sql`${column} in (${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )})`;
  switch (c.field) {
    case 'categoryId': {
      // `none` is the facet value of products without a category; it filters on them too.
      const ids = c.anyOf.filter((v) => v !== 'none');
      const parts = [
        ...(ids.length ? [anyOf(sql`category_id`, ids)] : []),
        ...(ids.length < c.anyOf.length ? [sql`category_id is null`] : []),
      ];
      return sql`(${sql.join(parts, sql` or `)})`;
    }
    case 'sellerId':
      return anyOf(sql`seller_id`, c.anyOf);
    case 'isDigital':
      return anyOf(sql`is_digital`, c.anyOf);
    case 'isPerishable':
      return anyOf(sql`is_perishable`, c.anyOf);
    case 'priceCents':
      return sql`(${sql.join(
        c.ranges.map((r) =>
          r.min !== undefined && r.max !== undefined
            ? sql`price_cents between ${r.min} and ${r.max}`
            : r.min !== undefined
              ? sql`price_cents >= ${r.min}`
              : sql`price_cents <= ${r.max}`,
        ),
        sql` or `,
      )})`;
    case 'rating':
      return sql`rating >= ${c.min}`;
  }
}

const ORDER: Record<SortKey, SQL> = {
  relevance: sql`rank desc, units_sold_30d desc, id asc`,
  price_asc: sql`price_cents asc, id asc`,
  price_desc: sql`price_cents desc, id asc`,
  newest: sql`created_at desc, id asc`,
  popular: sql`units_sold_30d desc, rating desc, id asc`,
};

interface SqlRow {
  total: number;
  categories: Record<string, number> | null;
  sellers: Record<string, number> | null;
  fixed: Record<string, number>;
  ids: string[] | null;
}

async function sqlSearch(
  ctx: RequestContext,
  q: Query,
  clauses: Clause[],
  sort: SortKey,
): Promise<IndexAnswer> {
  const text = q.q.trim() ? tsQuery(q.q) : null;
  const where = sql.join(
    [sql`status = 'active'`, ...(text ? [sql`search_doc @@ ${text}`] : []), ...clauses.map(clauseSql)],
    sql` and `,
  );
  const rank = text && sort === 'relevance' ? sql`ts_rank(search_doc, ${text})` : sql`0`;
  // One round trip and one pass over the matches: they are materialised with only the
  // small columns that facets and ordering need.
  const [row] = await queryRows<SqlRow>(
    ctx.db,
    sql`with m as materialized (
          select id, category_id, seller_id, price_cents, is_digital, is_perishable, rating,
                 units_sold_30d, created_at, ${rank} as rank
            from products where ${where}
        )
        select
          (select count(*)::int from m) as total,
          (select jsonb_object_agg(k, n) from (
             select coalesce(category_id, 'none') as k, count(*)::int as n from m
              group by 1 order by 2 desc, 1 limit ${FACET_VALUES}) c) as categories,
          (select jsonb_object_agg(k, n) from (
             select seller_id as k, count(*)::int as n from m
              group by 1 order by 2 desc, 1 limit ${FACET_VALUES}) s) as sellers,
          (select jsonb_build_object(
             'digital', count(*) filter (where is_digital),
             'perishable', count(*) filter (where is_perishable),
             'p0', count(*) filter (where price_cents < 2500),
             'p1', count(*) filter (where price_cents >= 2500 and price_cents < 5000),
             'p2', count(*) filter (where price_cents >= 5000 and price_cents < 10000),
             'p3', count(*) filter (where price_cents >= 10000 and price_cents < 25000),
             'p4', count(*) filter (where price_cents >= 25000)) from m) as fixed,
          (select array_agg(id) from (
             select id from m order by ${ORDER[sort]} limit ${q.limit} offset ${q.offset}) p) as ids`,
  );
  if (!row) return emptyAnswer();
  const { total, fixed } = row;
  return {
    total,
    ids: row.ids ?? [],
    facets: {
      categoryId: row.categories ?? {},
      sellerId: row.sellers ?? {},
      ...fixedFacets(
        total,
        fixed.digital!,
        fixed.perishable!,
        [0, 1, 2, 3, 4].map((i) => fixed[`p${i}`]!),
      ),
    },
  };
}
