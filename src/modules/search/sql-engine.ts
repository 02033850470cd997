// The SQL engine (SEARCH_INDEX=sql): the same query in PostgreSQL, with no memory and no
// load at start; slower on broad queries, which visit every matching row.
import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { searchQuery } from '../../contract/catalog.ts';
import { tsQuery } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type EngineAnswer, emptyAnswer, fixedFacets, optionFacets, type SortKey } from './engine.ts';
import { type Clause, isVariantClause, type VariantClause } from './filters.ts';
import { searchMatches } from './queries.ts';

type Query = z.infer<typeof searchQuery>;

const anyOf = (column: SQL, values: Array<string | boolean>) =>
  sql`${column} in (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;

/** A product clause, on products' columns. */
function clauseSql(c: Exclude<Clause, VariantClause>): SQL {
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
    case 'rating':
      return sql`rating >= ${c.min}`;
  }
}

/**
 * A variant clause, on variant `v` of a product whose options are `options`. Option names and
 * values compare lowered under the "C" collation: ASCII letters only, as foldOption.
 */
function variantClauseSql(c: VariantClause, options: SQL): SQL {
  switch (c.field) {
    case 'priceCents':
      return sql`(${sql.join(
        c.ranges.map((r) =>
          r.min !== undefined && r.max !== undefined
            ? sql`v.price_cents between ${r.min} and ${r.max}`
            : r.min !== undefined
              ? sql`v.price_cents >= ${r.min}`
              : sql`v.price_cents <= ${r.max}`,
        ),
        sql` or `,
      )})`;
    case 'inStock':
      return anyOf(sql`(v.stock_quantity - v.reserved_quantity > 0)`, c.anyOf);
    case 'option':
      return sql`exists (select 1 from jsonb_array_elements(${options}) with ordinality o(opt, i)
        where lower((o.opt->>'name') collate "C") = ${c.name}
          and ${anyOf(sql`lower(coalesce(v.option_values[o.i], '') collate "C")`, c.anyOf)})`;
  }
}

const ORDER: Record<SortKey, SQL> = {
  relevance: sql`rank desc, units_sold_30d desc, id asc`,
  price_asc: sql`price asc, id asc`,
  price_desc: sql`price desc, id asc`,
  newest: sql`created_at desc, id asc`,
  popular: sql`units_sold_30d desc, rating desc, id asc`,
};

export async function sqlSearch(
  ctx: RequestContext,
  q: Query,
  clauses: Clause[],
  sort: SortKey,
  /** Only products offered to AI agents (the UCP catalog's search). */
  agents = false,
): Promise<EngineAnswer> {
  const text = q.q.trim() ? tsQuery(q.q) : null;
  const productClauses = clauses.filter((c): c is Exclude<Clause, VariantClause> => !isVariantClause(c));
  const variantClauses = clauses.filter(isVariantClause);
  const where = sql.join(
    [
      sql`status = 'active'`,
      sql`seller_id not in (select h from portage_hidden_sellers() h)`,
      ...(agents ? [sql`agent_channels`] : []),
      ...(text ? [sql`search_doc @@ ${text}`] : []),
      ...productClauses.map(clauseSql),
    ],
    sql` and `,
  );
  const variants = (options: SQL) =>
    sql.join(
      [sql`v.status = 'active'`, ...variantClauses.map((c) => variantClauseSql(c, options))],
      sql` and `,
    );
  const rank = text && sort === 'relevance' ? sql`ts_rank(search_doc, ${text})` : sql`0`;
  const row = await searchMatches(ctx.db, {
    where,
    variants,
    needVariant: variantClauses.length > 0,
    rank,
    order: ORDER[sort],
    limit: q.limit,
    offset: q.offset,
  });
  if (!row) return emptyAnswer();
  const { total, fixed } = row;
  // The option facets' rows, by folded name: its spelling and count, then its values'.
  const options = new Map(
    (row.option_names ?? []).map(([key, name, n]) => [
      key,
      { name, n, values: [] as Array<{ value: string; n: number }> },
    ]),
  );
  for (const [key, value, n] of row.option_values ?? []) options.get(key)?.values.push({ value, n });
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
        fixed.inStock!,
      ),
      ...optionFacets([...options.values()]),
    },
  };
}
