// The search module's statements: the index's reads of products (index-sync.ts), the stems of
// words in both languages (service.ts), and the SQL engine's one statement (sql-engine.ts builds its clauses).
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { rowsOf } from '../../db/sql.ts';
import { FACET_VALUES } from './engine.ts';
import type { IndexRow } from './index-store.ts';

// changed_at as microseconds in a float8: exact, and parsed much faster than a timestamp. A
// product's stamp is the latest of its row's and its variants' (a sell-out stamps the variant only).
const micros = (at: SQL) => sql`(extract(epoch from ${at}) * 1000000)::float8`;
// A product's variants in one lateral read by product: their latest stamp, and the active ones.
// Not max() alone: PostgreSQL would read that as "the newest stamp of the changed_at index
// whose product is this one", walking that whole index for each product.
const VARIANTS = sql`left join lateral (
    select max(v.changed_at) as changed,
           json_agg(json_build_array(v.price_cents, v.stock_quantity - v.reserved_quantity > 0, v.option_values)
             order by v.position, v.id) filter (where v.status = 'active') as variants
      from product_variants v where v.product_id = p.id) vs on true`;
// What the index reads of a product and its active variants. changed_at moves only when one of
// these (or the text the search document is made of) changes: a column added here must be added
// to the triggers that set it (portage_products_changed, portage_variant_changed).
const COLUMNS = sql`p.id, p.category_id, p.seller_id, p.price_cents, p.is_digital, p.is_perishable, p.rating,
  p.units_sold_30d, extract(epoch from p.created_at)::float8 as created, p.status,
  ${micros(sql`greatest(p.changed_at, vs.changed)`)} as changed, p.search_doc::text as doc,
  array(select o->>'name' from jsonb_array_elements(p.options) o) as option_names,
  coalesce(vs.variants, '[]') as variants, p.agent_channels`;

/** The database's clock, in microseconds since the epoch. */
export async function clockMicros(db: Db): Promise<number> {
  const [start] = await rowsOf<{ now: number }>(
    db,
    sql`select (extract(epoch from clock_timestamp()) * 1000000)::float8 as now`,
  );
  return start!.now;
}

/** Up to `limit` active products after the id `last`, by id. */
export const activeIndexRowsAfter = (db: Db, last: string, limit: number) =>
  rowsOf<IndexRow>(
    db,
    sql`select ${COLUMNS} from products p ${VARIANTS}
          where p.status = 'active' and p.id > ${last} order by p.id limit ${limit}`,
  );

/** The sellers whose products are not on sale (portage_hidden_sellers): a few ids. */
export async function hiddenSellers(db: Db): Promise<string[]> {
  const [row] = await rowsOf<{ hidden: string[] }>(
    db,
    sql`select array(select h from portage_hidden_sellers() h) as hidden`,
  );
  return row?.hidden ?? [];
}

/**
 * The products changed after `since` (Unix seconds), their row or one of their variants, each
 * with its change time and whether it is active; the clock is read before the scan, in the same
 * statement: one row even when nothing changed. Each row also carries the sellers whose shops
 * are not open (`hidden`, a few ids through two partial indexes), read whole every time: a
 * suspension committed anywhere shows at the next refresh of every instance, with no stamp to
 * order against other commits.
 */
export const productsChangedSince = (db: Db, since: number) =>
  rowsOf<{ now: number; hidden: string[]; id: string | null; changed: number; active: boolean }>(
    db,
    sql`select n.now, n.hidden, p.id, p.changed, p.active
          from (select (extract(epoch from clock_timestamp()) * 1000000)::float8 as now,
                       array(select h from portage_hidden_sellers() h) as hidden) n
          left join lateral (
            select p.id, ${micros(sql`greatest(p.changed_at, vs.changed)`)} as changed, p.status = 'active' as active
              from products p
              -- count(*): so that max() is not read as a walk of the changed_at index (VARIANTS).
              left join lateral (
                select max(v.changed_at) as changed, count(*) from product_variants v where v.product_id = p.id
              ) vs on true
             where p.id in (select id from products where changed_at > to_timestamp(${since})
                            union
                            select product_id from product_variants where changed_at > to_timestamp(${since}))
          ) p on true`,
  );

/** The products of these ids (comma-separated: one text parameter however many). */
export const indexRowsByIds = (db: Db, ids: string) =>
  rowsOf<IndexRow>(
    db,
    sql`select ${COLUMNS} from products p ${VARIANTS} where p.id = any(string_to_array(${ids}, ','))`,
  );

/** Each word folded (accents off, as the search document's), with its English and French stems. */
export const stemsOfWords = (db: Db, words: string[]) =>
  rowsOf<{ w: string; folded: string; en: string[]; fr: string[] }>(
    db,
    sql`select w, f as folded,
          coalesce((select array_agg(lexeme) from unnest(to_tsvector('english', f))), '{}') as en,
          coalesce((select array_agg(lexeme) from unnest(to_tsvector('french', f))), '{}') as fr
          from unnest(array[${sql.join(
            words.map((w) => sql`${w}`),
            sql`, `,
          )}]::text[]) as w, portage_fold(w) as f`,
  );

export interface SearchMatches {
  total: number;
  categories: Record<string, number> | null;
  sellers: Record<string, number> | null;
  fixed: Record<string, number>;
  ids: string[] | null;
  /** Per option (folded name): its lowest spelling and how many matches have it. */
  option_names: Array<[string, string, number]> | null;
  /** Per option (folded name) and value: the value's lowest spelling and how many matches have it. */
  option_values: Array<[string, string, number]> | null;
}

/**
 * The matches of `where` (on products) having an active variant that passes `variants` (on
 * `v`, given the product's options) when `needVariant`: their count, facets and one page of ids
 * in `order`. A match's price, price buckets and stock are its matching variants' (without
 * variant clauses, a product with no active variant keeps its own price, out of stock). One
 * round trip; the matches are materialised with only the small columns facets and ordering need.
 */
export async function searchMatches(
  db: Db,
  m: {
    where: SQL;
    variants: (options: SQL) => SQL;
    needVariant: boolean;
    rank: SQL;
    order: SQL;
    limit: number;
    offset: number;
  },
): Promise<SearchMatches | undefined> {
  const { where, variants, rank, order, limit, offset } = m;
  const bucket = (i: number, price: SQL) =>
    [
      sql`${price} < 2500`,
      sql`${price} >= 2500 and ${price} < 5000`,
      sql`${price} >= 5000 and ${price} < 10000`,
      sql`${price} >= 10000 and ${price} < 25000`,
      sql`${price} >= 25000`,
    ][i]!;
  const buckets = [0, 1, 2, 3, 4];
  const [row] = await rowsOf<SearchMatches>(
    db,
    sql`with m as materialized (
        select id, category_id, seller_id, is_digital, is_perishable, rating, units_sold_30d, created_at,
               options, ${rank} as rank, coalesce(mv.lo, price_cents) as price,
               coalesce(mv.in_stock, false) as in_stock,
               ${sql.join(
                 buckets.map(
                   (i) =>
                     sql`coalesce(mv.b${sql.raw(String(i))}, ${bucket(i, sql`price_cents`)}) as b${sql.raw(String(i))}`,
                 ),
                 sql`, `,
               )}
          from products p
          cross join lateral (
            select min(v.price_cents) as lo, bool_or(v.stock_quantity - v.reserved_quantity > 0) as in_stock,
                   ${sql.join(
                     buckets.map(
                       (i) => sql`bool_or(${bucket(i, sql`v.price_cents`)}) as b${sql.raw(String(i))}`,
                     ),
                     sql`, `,
                   )}
              from product_variants v where v.product_id = p.id and ${variants(sql`p.options`)}
          ) mv
         where ${where}${m.needVariant ? sql` and mv.lo is not null` : sql``}
      ), ov as (
        select m.id, o.opt->>'name' as name, coalesce(v.option_values[o.i], '') as val
          from m cross join lateral jsonb_array_elements(m.options) with ordinality o(opt, i)
          join product_variants v on v.product_id = m.id and ${variants(sql`m.options`)}
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
           'inStock', count(*) filter (where in_stock),
           ${sql.join(
             buckets.map((i) => sql`${`p${i}`}::text, count(*) filter (where b${sql.raw(String(i))})`),
             sql`, `,
           )}) from m) as fixed,
        (select json_agg(json_build_array(k, name, n)) from (
           select lower(name collate "C") as k, min(name collate "C") as name, count(distinct id)::int as n
             from ov group by 1) o) as option_names,
        (select json_agg(json_build_array(k, value, n)) from (
           select lower(name collate "C") as k, min(val collate "C") as value, count(distinct id)::int as n
             from ov group by 1, lower(val collate "C")) o) as option_values,
        (select array_agg(id) from (
           select id from m order by ${order} limit ${limit} offset ${offset}) p) as ids`,
  );
  return row;
}
