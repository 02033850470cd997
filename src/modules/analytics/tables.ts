import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

// Analytics is a read model: these rollups are kept by the database itself. Triggers on orders
// and checkout_sessions write each change they count to analytics_changes, in the transaction of
// the change (one small insert); portage_analytics_fold() adds pending changes to the rollups, in
// batches, one folder at a time: the `analytics` job every second, and every read before it reads
// (migrations 0013 and 0019). This module reads only these tables (docs/decisions.md "Analytics"). A day is
// a calendar day in America/Toronto; a month starts on its first day.

/** The scope of a totals row: the whole platform, or one seller (their id). */
export const PLATFORM_SCOPE = '*';

/**
 * Counted orders, revenue, units, customers and checkout sessions per scope and per day or month.
 * Platform rows are split in 16 shards (by buyer or session) so that concurrent payments do not
 * queue on one row; a query sums the shards.
 */
export const analyticsTotals = pgTable(
  'analytics_totals',
  {
    scope: text('scope').notNull(),
    grain: text('grain', { enum: ['day', 'month'] }).notNull(),
    start: date('start', { mode: 'string' }).notNull(),
    shard: smallint('shard').notNull(),
    /** Paid orders not cancelled, placed (paid) on that day. */
    orders: integer('orders').notNull().default(0),
    /** Their total_amount_cents less refunded_cents. */
    revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
    /** Their units (item_count). */
    items: integer('items').notNull().default(0),
    /** Buyers with a counted order that day (a month row: the days' sum). */
    customers: integer('customers').notNull().default(0),
    /** Of those, buyers whose first counted order (in this scope) is that day. */
    newCustomers: integer('new_customers').notNull().default(0),
    /** Buyers whose next counted-order day after this day exists (links of the buyer's days). */
    continuedCustomers: integer('continued_customers').notNull().default(0),
    /** Checkout sessions created that day (a seller's: those holding their products). */
    sessionsCreated: integer('sessions_created').notNull().default(0),
    /** Of the sessions created that day, those paid (whenever). */
    sessionsPaid: integer('sessions_paid').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.grain, t.start, t.shard] }),
    index('analytics_totals_grain_start_idx').on(t.grain, t.start),
  ],
);

/** A product's counted units and item revenue (quantity x unit price) per day. */
export const analyticsProductDays = pgTable(
  'analytics_product_days',
  {
    productId: text('product_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    sellerId: text('seller_id').notNull(),
    units: integer('units').notNull().default(0),
    revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.day] })],
);

/** The same per month, indexed by revenue: the candidates of a top-10 come from here. */
export const analyticsProductMonths = pgTable(
  'analytics_product_months',
  {
    productId: text('product_id').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    sellerId: text('seller_id').notNull(),
    units: integer('units').notNull().default(0),
    revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.productId, t.month] }),
    index('analytics_product_months_rank_idx').on(t.month, sql`${t.revenueCents} desc`),
    index('analytics_product_months_seller_rank_idx').on(t.sellerId, t.month, sql`${t.revenueCents} desc`),
  ],
);

/**
 * Each day a buyer has a counted order in a scope, linked to their previous such day: the
 * distinct customers of any window then follow from per-day counters (docs/decisions.md "Analytics").
 */
export const analyticsCustomerDays = pgTable(
  'analytics_customer_days',
  {
    scope: text('scope').notNull(),
    buyerId: text('buyer_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    orders: integer('orders').notNull(),
    prevDay: date('prev_day', { mode: 'string' }),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.buyerId, t.day] }),
    // The platform's links that leave a window (a customer's day inside it whose next day is
    // after it) are counted from here: few rows for a window ending today. Partial, so that the
    // triggers' lookups of one buyer's days (scope, buyer, day) never plan on it.
    index('analytics_customer_days_platform_day_idx').on(t.day, t.prevDay).where(sql`${t.scope} = '*'`),
  ],
);

/**
 * Changes counted but not yet in the rollups, in the order they were written: an order counted
 * (+1) or no longer counted (-1) with its figures as they were then, a refund's revenue, a
 * refunded return's units, a checkout session opened or paid. Written by the triggers, deleted by the fold that adds them.
 */
export const analyticsChanges = pgTable('analytics_changes', {
  seq: bigint('seq', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  kind: text('kind', { enum: ['order', 'refund', 'return', 'session'] }).notNull(),
  /** The order's, the return's or the session's id (the fold reads an order's or a return's items, a session's sellers). */
  ref: text('ref').notNull(),
  /** The Toronto day it counts on: the order's paid moment, the session's creation. */
  day: date('day', { mode: 'string' }).notNull(),
  buyerId: text('buyer_id').notNull(),
  /** An order's or a refund's seller. */
  sellerId: text('seller_id'),
  /** An order: +1 counted, -1 no longer counted. */
  orders: smallint('orders').notNull().default(0),
  /** Signed: an order's total less refunds (x its sign), or a refund's change. */
  revenueCents: bigint('revenue_cents', { mode: 'number' }).notNull().default(0),
  /** Signed: an order's units, or a refunded return's (negative). */
  items: integer('items').notNull().default(0),
  sessionsCreated: smallint('sessions_created').notNull().default(0),
  /** +1 when a session became complete, -1 if it ever stopped being. */
  sessionsPaid: smallint('sessions_paid').notNull().default(0),
});
