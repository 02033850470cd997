// Analytics (get_analytics for admins, GET /sellers/me/analytics for a seller): figures of a
// window of Toronto days, read from rollups the database keeps (tables.ts; migrations 0013 and
// 0019): each change is queued in its own transaction and folded in by the `analytics` job, and
// by every read before it reads, so an answer counts every change committed before it. This
// module reads only its own tables; names come from the catalog's and the sellers' services
// (docs/api.md "Analytics"; docs/decisions.md "Analytics").
import {
  type AnalyticsAnswer,
  type AnalyticsPeriod,
  type AnalyticsQuery,
  MAX_WINDOW_DAYS,
} from '../../contract/analytics.ts';
import { invalid, problem } from '../../contract/errors.ts';
import { shopNames } from '../auth/sellers.ts';
import { listItemsByIds } from '../catalog/service.ts';
import { caller, type RequestContext } from '../context.ts';
import { torontoDate } from '../pricing/dates.ts';
import {
  customersLeaving,
  foldAnalyticsBatch,
  monthHeads,
  type ProductFigure,
  productTotals,
  seriesTotals,
  topSellerTotals,
  windowTotals,
} from './queries.ts';
import { PLATFORM_SCOPE } from './tables.ts';

const TIME_ZONE = 'America/Toronto';
const DEFAULT_PERIOD: AnalyticsPeriod = 'month';
const TOP = 10;

// ---- the window -------------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`);
const toIso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (iso: string, days: number) => toIso(new Date(toDate(iso).getTime() + days * DAY_MS));
const daysBetween = (a: string, b: string) =>
  Math.round((toDate(b).getTime() - toDate(a).getTime()) / DAY_MS);

/** The date `months` months from `iso`, the day clamped to the month's length (Mar 31 - 1 month = Feb 28). */
function addMonths(iso: string, months: number): string {
  const d = toDate(iso);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return toIso(target);
}

/** The first day of the period that ends on `end`. */
function periodStart(period: AnalyticsPeriod, end: string): string {
  switch (period) {
    case 'day':
      return end;
    case 'week':
      return addDays(end, -6);
    case 'month':
      return addDays(addMonths(end, -1), 1);
    case 'year':
      return addDays(addMonths(end, -12), 1);
  }
}

export interface Window {
  period: AnalyticsPeriod | 'custom';
  start: string;
  end: string;
}

/** The window a query asks for (400 when it is upside down or longer than about three years). */
export function windowOf(q: AnalyticsQuery, now: Date): Window {
  const today = torontoDate(now);
  let w: Window;
  if (q.start_date) {
    w = { period: 'custom', start: q.start_date, end: q.end_date ?? today };
  } else {
    const period = q.period ?? DEFAULT_PERIOD;
    const end = q.end_date ?? today;
    w = { period, start: periodStart(period, end), end };
  }
  if (w.start > w.end) {
    throw invalid('error.analytics.startAfterEnd', { start: w.start, end: w.end }, [
      problem('start_date', 'validation.notAfterEndDate', { end: w.end }),
    ]);
  }
  if (daysBetween(w.start, w.end) + 1 > MAX_WINDOW_DAYS) {
    throw invalid('error.analytics.windowTooLong', { max: MAX_WINDOW_DAYS }, [
      problem('start_date', 'validation.atMostDaysBeforeEndDate', { max: MAX_WINDOW_DAYS }),
    ]);
  }
  return w;
}

/**
 * A window as rollup rows: the whole months inside it (month rows) and the days left at its
 * edges (day rows), at most two ranges.
 */
interface Segments {
  months: string[];
  /** Every month the window touches (a partial one bounds its days from above). */
  touched: string[];
  dayRanges: Array<[string, string]>;
}

const firstOfMonth = (iso: string) => `${iso.slice(0, 8)}01`;

export function segmentsOf(w: Window): Segments {
  const firstFull = w.start.endsWith('-01') ? w.start : addMonths(firstOfMonth(w.start), 1);
  const endsMonth = addDays(w.end, 1).endsWith('-01');
  const lastFullEnd = endsMonth ? w.end : addDays(firstOfMonth(w.end), -1);
  const touched: string[] = [];
  for (let m = firstOfMonth(w.start); m <= w.end; m = addMonths(m, 1)) touched.push(m);
  if (firstFull > lastFullEnd) return { months: [], touched, dayRanges: [[w.start, w.end]] };
  const months: string[] = [];
  for (let m = firstFull; m <= lastFullEnd; m = addMonths(m, 1)) months.push(m);
  const dayRanges: Array<[string, string]> = [];
  if (w.start < firstFull) dayRanges.push([w.start, addDays(firstFull, -1)]);
  if (w.end > lastFullEnd) dayRanges.push([addDays(lastFullEnd, 1), w.end]);
  return { months, touched, dayRanges };
}

// ---- the figures ------------------------------------------------------------------------------

type Scope = { kind: 'platform' } | { kind: 'seller'; sellerId: string };

/** GET /admin/analytics (get_analytics): the platform's figures. */
export function platformAnalytics(ctx: RequestContext, q: AnalyticsQuery) {
  return analytics(ctx, q, { kind: 'platform' });
}

/** GET /sellers/me/analytics: the same figures for the caller's own orders and products. */
export function sellerAnalytics(ctx: RequestContext, q: AnalyticsQuery) {
  return analytics(ctx, q, { kind: 'seller', sellerId: caller(ctx).id });
}

/** Changes folded into the rollups per transaction. */
export const FOLD_BATCH = 2_000;

/**
 * Adds up to FOLD_BATCH pending changes to the rollups (the oldest first); answers how many. One
 * fold runs at a time: a read waits for another to end; the `analytics` job (every second) skips
 * its pass instead (`wait: false`), so instances do not queue behind each other.
 */
export async function foldAnalytics(ctx: RequestContext, wait = true): Promise<number> {
  return foldAnalyticsBatch(ctx.db, FOLD_BATCH, wait);
}

/**
 * Everything committed before a read is counted: what the job has not folded yet, the read folds
 * (a batch at a time, so no transaction grows without bound).
 */
async function foldPending(ctx: RequestContext) {
  while ((await foldAnalytics(ctx)) === FOLD_BATCH);
}

async function analytics(ctx: RequestContext, q: AnalyticsQuery, scope: Scope): Promise<AnalyticsAnswer> {
  await foldPending(ctx);
  return figures(ctx, q, scope);
}

/** The figures of the window, from the rollups as they are (folded by the caller). */
async function figures(ctx: RequestContext, q: AnalyticsQuery, scope: Scope): Promise<AnalyticsAnswer> {
  const w = windowOf(q, ctx.now());
  const s = segmentsOf(w);
  const key = scope.kind === 'platform' ? PLATFORM_SCOPE : scope.sellerId;
  const [totals, leaving, sellers, products] = await Promise.all([
    windowTotals(ctx.db, key, s),
    // Customers whose next day falls after the window: their last day inside it links out.
    customersLeaving(ctx.db, scope.kind === 'platform' ? undefined : scope.sellerId, w),
    topSellers(ctx, s, scope),
    topProducts(ctx, s, scope),
  ]);
  const t = totals;
  const n = (v: string | number | null | undefined) => Number(v ?? 0);
  const orders = n(t.orders);
  const revenue = n(t.revenue);
  // Each customer's days inside the window, less the links between two of them, is one per customer.
  const customers = n(t.customers) - n(t.continued) + leaving;
  const newCustomers = n(t.new_customers);
  const created = n(t.created);
  return {
    period: w.period,
    total_revenue_cents: revenue,
    total_orders: orders,
    average_order_value_cents: orders ? Math.round(revenue / orders) : 0,
    total_items_sold: n(t.items),
    top_products: products,
    top_sellers: sellers,
    conversion_rate: created ? Math.round((n(t.paid) / created) * 10_000) / 10_000 : 0,
    returning_customers: customers - newCustomers,
    new_customers: newCustomers,
    start_date: w.start,
    end_date: w.end,
    timezone: TIME_ZONE,
  };
}

/** Sellers by revenue in the window (a seller's own view: only them). */
async function topSellers(ctx: RequestContext, s: Segments, scope: Scope) {
  const rows = await topSellerTotals(ctx.db, scope.kind === 'platform' ? undefined : scope.sellerId, s, TOP);
  const names = await shopNames(
    ctx,
    rows.map((r) => r.seller_id),
  );
  return rows.map((r) => ({
    seller_id: r.seller_id,
    name: names.get(r.seller_id) ?? '',
    revenue_cents: Number(r.revenue),
    orders: Number(r.orders),
  }));
}

/**
 * The ten products with the most item revenue in the window, exactly, without adding up every
 * product's rows. Candidates are the first N products of each month the window touches (by that
 * month's revenue); a product that is not among them earns at most the N-th figure of each month
 * in the window (a partial month's days earn at most its whole month). Once the tenth candidate,
 * totalled exactly, earns more than that sum, no other product can enter; otherwise N grows, and
 * past a limit every product is totalled.
 */
async function topProducts(ctx: RequestContext, s: Segments, scope: Scope) {
  const sellerId = scope.kind === 'seller' ? scope.sellerId : undefined;
  let ranked: ProductFigure[] | undefined;
  for (let n = 40; n <= 2560 && !ranked; n *= 4) {
    const heads = await monthHeads(ctx.db, s.touched, sellerId, n);
    let bound = 0;
    const perMonth = new Map<string, number[]>();
    for (const h of heads) {
      const list = perMonth.get(h.month) ?? [];
      list.push(Number(h.revenue));
      perMonth.set(h.month, list);
    }
    // A month with fewer than N products has them all among the candidates.
    for (const list of perMonth.values()) if (list.length === n) bound += Math.min(...list);
    const candidates = [...new Set(heads.map((h) => h.product_id))];
    const totals = candidates.length ? await productTotals(ctx.db, s, { ids: candidates }, TOP) : [];
    const tenth = totals[TOP - 1];
    if (bound === 0 || (tenth && Number(tenth.revenue) > bound)) ranked = totals;
  }
  ranked ??= await productTotals(ctx.db, s, { sellerId }, TOP);
  const titles = new Map(
    (
      await listItemsByIds(
        ctx,
        ranked.map((r) => r.product_id),
      )
    ).map((p) => [p.id, p.title]),
  );
  return ranked.map((r) => ({
    product_id: r.product_id,
    title: titles.get(r.product_id) ?? '',
    units_sold: Number(r.units),
    revenue_cents: Number(r.revenue),
  }));
}

// ---- over time (the pages' charts) --------------------------------------------------------------

/** One day (or month) of a window: counted orders, revenue and checkout sessions created and paid. */
export interface SeriesPoint {
  /** YYYY-MM-DD: the day, or the first day of the month. */
  start: string;
  orders: number;
  revenueCents: number;
  sessionsCreated: number;
  sessionsPaid: number;
}

/** A point's share of checkout sessions that were paid (0 when none was created). */
export const conversionOf = (p: SeriesPoint) => (p.sessionsCreated ? p.sessionsPaid / p.sessionsCreated : 0);

/** A window's figures and its series, as the admin's desk and the seller's console draw them. */
export interface Dashboard {
  figures: AnalyticsAnswer;
  series: { grain: 'day' | 'month'; start: string; end: string; points: SeriesPoint[] };
}

/** The platform's dashboard: one fold, then the figures and the series read together. */
export async function platformDashboard(ctx: RequestContext, q: AnalyticsQuery): Promise<Dashboard> {
  return dashboard(ctx, q, { kind: 'platform' });
}

/** The caller's (a seller's) dashboard. */
export async function sellerDashboard(ctx: RequestContext, q: AnalyticsQuery): Promise<Dashboard> {
  return dashboard(ctx, q, { kind: 'seller', sellerId: caller(ctx).id });
}

async function dashboard(ctx: RequestContext, q: AnalyticsQuery, scope: Scope): Promise<Dashboard> {
  await foldPending(ctx);
  const [f, s] = await Promise.all([figures(ctx, q, scope), series(ctx, q, scope)]);
  return { figures: f, series: s };
}

/**
 * The window's figures day by day (month by month for a window over 92 days), every day or month
 * present (zeros where nothing happened), from the rollups as they are (folded by the caller).
 */
async function series(ctx: RequestContext, q: AnalyticsQuery, scope: Scope): Promise<Dashboard['series']> {
  const w = windowOf(q, ctx.now());
  const key = scope.kind === 'platform' ? PLATFORM_SCOPE : scope.sellerId;
  const grain = daysBetween(w.start, w.end) > 92 ? 'month' : 'day';
  const from = grain === 'month' ? firstOfMonth(w.start) : w.start;
  const rows = await seriesTotals(ctx.db, key, grain, from, w.end);
  const byStart = new Map(rows.map((r) => [r.start, r]));
  const points: SeriesPoint[] = [];
  for (let d = from; d <= w.end; d = grain === 'month' ? addMonths(d, 1) : addDays(d, 1)) {
    const r = byStart.get(d);
    points.push({
      start: d,
      orders: Number(r?.orders ?? 0),
      revenueCents: Number(r?.revenue ?? 0),
      sessionsCreated: Number(r?.created ?? 0),
      sessionsPaid: Number(r?.paid ?? 0),
    });
  }
  return { grain, start: w.start, end: w.end, points };
}
