// The SQL engine (SEARCH_INDEX=sql): the same query in PostgreSQL, with no memory and no
// load at start; slower on broad queries, which visit every matching row.
import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { searchQuery } from '../../contract/catalog.ts';
import { tsQuery } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type EngineAnswer, emptyAnswer, fixedFacets, type SortKey } from './engine.ts';
import type { Clause } from './filters.ts';
import { searchMatches } from './queries.ts';

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
  const row = await searchMatches(ctx.db, {
    where,
    rank,
    order: ORDER[sort],
    limit: q.limit,
    offset: q.offset,
  });
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
