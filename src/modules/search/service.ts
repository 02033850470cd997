// Product search: full text (English stemming, prefix on the last word) over title,
// keywords and description; the filter grammar; facets counted over the whole result.
import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { searchAnswer, searchQuery } from '../../contract/catalog.ts';
import { queryRows } from '../../db/index.ts';
import { tsQuery } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type Clause, parseFilters } from './filters.ts';

type Answer = z.infer<typeof searchAnswer>;
type Query = z.infer<typeof searchQuery>;

/** Category and seller facets list at most this many values (the largest counts). */
export const FACET_VALUES = 50;

/** Dollar ranges of the priceRange facet (decisions.md), as cent bounds. */
const PRICE_BUCKETS = ['0-25', '25-50', '50-100', '100-250', '250+'] as const;

function clauseSql(c: Clause): SQL {
  switch (c.field) {
    case 'categoryId': {
      // `none` is the facet value of products without a category; it filters on them too.
      const ids = c.anyOf.filter((v) => v !== 'none');
      const parts = [
        ...(ids.length
          ? [
              sql`category_id in (${sql.join(
                ids.map((v) => sql`${v}`),
                sql`, `,
              )})`,
            ]
          : []),
        ...(ids.length < c.anyOf.length ? [sql`category_id is null`] : []),
      ];
      return sql`(${sql.join(parts, sql` or `)})`;
    }
    case 'sellerId':
      return sql`seller_id in (${sql.join(
        c.anyOf.map((v) => sql`${v}`),
        sql`, `,
      )})`;
    case 'isDigital':
    case 'isPerishable': {
      const column = c.field === 'isDigital' ? sql`is_digital` : sql`is_perishable`;
      return sql`${column} in (${sql.join(
        c.anyOf.map((v) => sql`${v}`),
        sql`, `,
      )})`;
    }
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

function orderBy(sort: Query['sort'], hasText: boolean): SQL {
  switch (sort ?? (hasText ? 'relevance' : 'newest')) {
    case 'price_asc':
      return sql`price_cents asc, id asc`;
    case 'price_desc':
      return sql`price_cents desc, id asc`;
    case 'newest':
      return sql`created_at desc, id asc`;
    case 'popular':
      return sql`units_sold_30d desc, rating desc, id asc`;
    default:
      return hasText ? sql`rank desc, units_sold_30d desc, id asc` : sql`created_at desc, id asc`;
  }
}

interface Row {
  total: number;
  categories: Record<string, number> | null;
  sellers: Record<string, number> | null;
  fixed: Record<string, number>;
  results: Array<Record<string, unknown>> | null;
}

export async function searchProducts(ctx: RequestContext, q: Query, extra: Clause[] = []): Promise<Answer> {
  const clauses = [...parseFilters(q.filters), ...extra];
  const text = q.q.trim() ? tsQuery(q.q) : null;
  const empty = { results: [], facets: emptyFacets(), total: 0, limit: q.limit, offset: q.offset };
  if (q.q.trim() && !text) return empty;

  const where = sql.join(
    [sql`status = 'active'`, ...(text ? [sql`search_doc @@ ${text}`] : []), ...clauses.map(clauseSql)],
    sql` and `,
  );
  const rank = text && (q.sort ?? 'relevance') === 'relevance' ? sql`ts_rank(search_doc, ${text})` : sql`0`;
  // One round trip and one pass over the matches: the matching rows are materialised with
  // only the small columns that facets and ordering need; the page joins back for the rest.
  const [row] = await queryRows<Row>(
    ctx.db,
    sql`with m as materialized (
          select id, category_id, seller_id, price_cents, is_digital, is_perishable, rating,
                 units_sold_30d, created_at, ${rank} as rank
            from products where ${where}
        ),
        page as (
          select id, row_number() over (order by ${orderBy(q.sort, text !== null)}) as pos
            from m order by ${orderBy(q.sort, text !== null)} limit ${q.limit} offset ${q.offset}
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
          (select json_agg(json_build_object(
             'id', p.id, 'title', p.title, 'description', p.description, 'priceCents', p.price_cents,
             'imageUrls', p.image_urls, 'stockQuantity', p.stock_quantity, 'sellerId', p.seller_id,
             'categoryId', p.category_id, 'dateCreated', floor(extract(epoch from p.created_at))::bigint,
             'isPerishable', p.is_perishable, 'isDigital', p.is_digital, 'rating', p.rating,
             'reviewCount', p.review_count) order by page.pos)
             from page join products p on p.id = page.id) as results`,
  );
  if (!row) return empty;
  const total = row.total;
  const fixed = row.fixed;
  return {
    results: (row.results ?? []).map((r) => {
      const imageUrls = r.imageUrls as string[];
      return {
        id: r.id as string,
        title: r.title as string,
        description: r.description as string,
        priceCents: r.priceCents as number,
        imageUrl: imageUrls[0] ?? null,
        imageUrls,
        stockQuantity: r.stockQuantity as number,
        sellerId: r.sellerId as string,
        categoryId: r.categoryId as string | null,
        dateCreated: Number(r.dateCreated),
        isPerishable: r.isPerishable as boolean,
        isDigital: r.isDigital as boolean,
        rating: Number(r.rating),
        reviewCount: r.reviewCount as number,
      };
    }),
    facets: {
      categoryId: row.categories ?? {},
      sellerId: row.sellers ?? {},
      isDigital: nonZero({ true: fixed.digital!, false: total - fixed.digital! }),
      isPerishable: nonZero({ true: fixed.perishable!, false: total - fixed.perishable! }),
      priceRange: nonZero(Object.fromEntries(PRICE_BUCKETS.map((b, i) => [b, fixed[`p${i}`]!]))),
    },
    total,
    limit: q.limit,
    offset: q.offset,
  };
}

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

function emptyFacets(): Answer['facets'] {
  return { categoryId: {}, sellerId: {}, isDigital: {}, isPerishable: {}, priceRange: {} };
}
