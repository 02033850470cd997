// The analytics module's statements: the fold, and the reads of the rollups (tables.ts). A scope
// is a seller's id, or undefined for the platform's.
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { rowsOf } from '../../db/sql.ts';
import { PLATFORM_SCOPE } from './tables.ts';

/** A window as rollup rows: whole months (month rows) and the days at its edges (day rows). */
export interface RollupRanges {
  months: string[];
  dayRanges: Array<[string, string]>;
}

export interface ProductFigure {
  product_id: string;
  units: string | number;
  revenue: string | number;
}

const dateArray = (dates: string[]) => sql`${`{${dates.join(',')}}`}::date[]`;

const textArray = (values: string[]) =>
  sql`${`{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`}::text[]`;

/** The rows of analytics_totals covering the window. */
function totalsIn(s: RollupRanges): SQL {
  const parts: SQL[] = [];
  if (s.months.length) parts.push(sql`(grain = 'month' and start = any(${dateArray(s.months)}))`);
  for (const [a, b] of s.dayRanges)
    parts.push(sql`(grain = 'day' and start between ${a}::date and ${b}::date)`);
  return sql.join(parts, sql` or `);
}

/** Folds up to `batch` pending changes into the rollups (database function, migration 0013); answers how many. */
export async function foldAnalyticsBatch(db: Db, batch: number, wait: boolean): Promise<number> {
  const [row] = await rowsOf<{ n: number | null }>(
    db,
    sql`select portage_analytics_fold(${batch}::int, ${wait}::boolean) as n`,
  );
  return Number(row?.n ?? 0);
}

/** A scope's totals over the window (one row, its sums as the driver gives int8). */
export async function windowTotals(db: Db, key: string, s: RollupRanges) {
  const [row] = await rowsOf<Record<string, string | number | null>>(
    db,
    sql`select coalesce(sum(orders), 0)::int8 as orders, coalesce(sum(revenue_cents), 0)::int8 as revenue,
          coalesce(sum(items), 0)::int8 as items, coalesce(sum(customers), 0)::int8 as customers,
          coalesce(sum(new_customers), 0)::int8 as new_customers,
          coalesce(sum(continued_customers), 0)::int8 as continued,
          coalesce(sum(sessions_created), 0)::int8 as created, coalesce(sum(sessions_paid), 0)::int8 as paid
        from analytics_totals where scope = ${key} and (${totalsIn(s)})`,
  );
  return row ?? {};
}

/**
 * How many customers of the scope have a day in the window whose next day falls after it. (The
 * platform's scope written out, so that its partial index serves.)
 */
export async function customersLeaving(
  db: Db,
  sellerId: string | undefined,
  w: { start: string; end: string },
): Promise<number> {
  const [row] = await rowsOf<{ n: string | number }>(
    db,
    sql`select count(*)::int8 as n from analytics_customer_days
        where ${sellerId === undefined ? sql.raw(`scope = '${PLATFORM_SCOPE}'`) : sql`scope = ${sellerId}`}
          and day > ${w.end}::date and prev_day between ${w.start}::date and ${w.end}::date`,
  );
  return Number(row?.n ?? 0);
}

/** The `top` sellers by revenue in the window: every seller's for the platform, else the one's. */
export function topSellerTotals(db: Db, sellerId: string | undefined, s: RollupRanges, top: number) {
  const which = sellerId === undefined ? sql`scope <> ${PLATFORM_SCOPE}` : sql`scope = ${sellerId}`;
  return rowsOf<{ seller_id: string; revenue: string | number; orders: string | number }>(
    db,
    sql`select scope as seller_id, sum(revenue_cents)::int8 as revenue, sum(orders)::int8 as orders
          from analytics_totals where ${which} and (${totalsIn(s)})
          group by scope having sum(orders) > 0
          order by sum(revenue_cents) desc, scope collate "C" limit ${top}`,
  );
}

/** Each month's `n` best products by revenue (a seller's, or everyone's). */
export function monthHeads(db: Db, months: string[], sellerId: string | undefined, n: number) {
  const own = sellerId !== undefined ? sql`and seller_id = ${sellerId}` : sql``;
  return rowsOf<{ month: string; product_id: string; revenue: string | number }>(
    db,
    sql`select m.month::text as month, h.product_id, h.revenue_cents as revenue
          from unnest(${dateArray(months)}) as m(month)
          cross join lateral (
            select product_id, revenue_cents from analytics_product_months
             where month = m.month ${own} order by revenue_cents desc limit ${n}) h`,
  );
}

/**
 * Units and revenue in the window of the `top` best products (units > 0) among these ids, or of
 * a seller, or of everyone.
 */
export function productTotals(
  db: Db,
  s: RollupRanges,
  among: { ids: string[] } | { sellerId: string | undefined },
  top: number,
): Promise<ProductFigure[]> {
  const which =
    'ids' in among
      ? sql`product_id = any(${textArray(among.ids)})`
      : among.sellerId !== undefined
        ? sql`seller_id = ${among.sellerId}`
        : sql`true`;
  const parts: SQL[] = [];
  if (s.months.length) {
    parts.push(
      sql`select product_id, units, revenue_cents from analytics_product_months
           where ${which} and month = any(${dateArray(s.months)})`,
    );
  }
  for (const [a, b] of s.dayRanges) {
    parts.push(
      sql`select product_id, units, revenue_cents from analytics_product_days
           where ${which} and day between ${a}::date and ${b}::date`,
    );
  }
  return rowsOf<ProductFigure>(
    db,
    sql`select product_id, sum(units)::int8 as units, sum(revenue_cents)::int8 as revenue
          from (${sql.join(parts, sql` union all `)}) x
          group by product_id having sum(units) > 0
          order by sum(revenue_cents) desc, product_id collate "C" limit ${top}`,
  );
}

/** A scope's totals by day or month from `from` to `end`, the periods with rows only. */
export function seriesTotals(db: Db, key: string, grain: 'day' | 'month', from: string, end: string) {
  return rowsOf<{ start: string; orders: string; revenue: string; created: string; paid: string }>(
    db,
    sql`select start::text as start, sum(orders)::int8 as orders, sum(revenue_cents)::int8 as revenue,
          sum(sessions_created)::int8 as created, sum(sessions_paid)::int8 as paid
        from analytics_totals where scope = ${key} and grain = ${grain}
          and start between ${from}::date and ${end}::date
        group by start order by start`,
  );
}
