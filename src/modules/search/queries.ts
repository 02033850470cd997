// The search module's statements: the index's reads of products (index-sync.ts), the stems of
// words in both languages (service.ts), and the SQL engine's one statement (sql-engine.ts builds its clauses).
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { rowsOf } from '../../db/sql.ts';
import { FACET_VALUES } from './engine.ts';
import type { IndexRow } from './index-store.ts';

// changed_at as microseconds in a float8: exact, and parsed much faster than a timestamp.
const CHANGED = sql`(extract(epoch from changed_at) * 1000000)::float8`;
// What the index reads of a product. changed_at moves only when one of these (or the text the
// search document is made of) changes: a column added here must be added to the trigger that
// sets it (portage_products_changed, migration 0016).
const COLUMNS = sql`id, category_id, seller_id, price_cents, is_digital, is_perishable, rating, units_sold_30d,
  extract(epoch from created_at)::float8 as created, status, ${CHANGED} as changed, search_doc::text as doc`;

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
    sql`select ${COLUMNS} from products where status = 'active' and id > ${last} order by id limit ${limit}`,
  );

/**
 * The products changed after `since` (Unix seconds), each with its change time and whether it is
 * active; the clock is read before the scan, in the same statement: one row even when nothing changed.
 */
export const productsChangedSince = (db: Db, since: number) =>
  rowsOf<{ now: number; id: string | null; changed: number; active: boolean }>(
    db,
    sql`select n.now, p.id, p.changed, p.active
          from (select (extract(epoch from clock_timestamp()) * 1000000)::float8 as now) n
          left join lateral (
            select id, ${CHANGED} as changed, status = 'active' as active
              from products where changed_at > to_timestamp(${since})
          ) p on true`,
  );

/** The products of these ids (comma-separated: one text parameter however many). */
export const indexRowsByIds = (db: Db, ids: string) =>
  rowsOf<IndexRow>(db, sql`select ${COLUMNS} from products where id = any(string_to_array(${ids}, ','))`);

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
}

/**
 * The matches of `where`: their count, facets and one page of ids in `order`. One round trip
 * and one pass over the matches: they are materialised with only the small columns that facets
 * and ordering need.
 */
export async function searchMatches(
  db: Db,
  m: { where: SQL; rank: SQL; order: SQL; limit: number; offset: number },
): Promise<SearchMatches | undefined> {
  const { where, rank, order, limit, offset } = m;
  const [row] = await rowsOf<SearchMatches>(
    db,
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
           select id from m order by ${order} limit ${limit} offset ${offset}) p) as ids`,
  );
  return row;
}
