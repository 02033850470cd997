// The SQL engine (SEARCH_INDEX=sql): the same query in PostgreSQL, with no memory and no
// load at start; slower on broad queries, which visit every matching row.
import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { searchQuery } from '../../contract/catalog.ts';
import { rowsOf } from '../../db/sql.ts';
import { tsQuery } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type EngineAnswer, emptyAnswer, FACET_VALUES, fixedFacets, type SortKey } from './engine.ts';
import type { Clause } from './filters.ts';

type Query = z.infer<typeof searchQuery>;

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

export async function sqlSearch(
  ctx: RequestContext,
  q: Query,
  clauses: Clause[],
  sort: SortKey,
): Promise<EngineAnswer> {
  const text = q.q.trim() ? tsQuery(q.q) : null;
  const where = sql.join(
    [sql`status = 'active'`, ...(text ? [sql`search_doc @@ ${text}`] : []), ...clauses.map(clauseSql)],
    sql` and `,
  );
  const rank = text && sort === 'relevance' ? sql`ts_rank(search_doc, ${text})` : sql`0`;
  // One round trip and one pass over the matches: they are materialised with only the
  // small columns that facets and ordering need.
  const [row] = await rowsOf<SqlRow>(
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
