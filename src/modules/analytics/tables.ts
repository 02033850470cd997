import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

// Analytics is a read model: these rollups are kept by the database itself, in the same
// transaction as the change they count (triggers on orders, order_items and checkout_sessions,
// hand-written at the end of this module's migration). This module reads only these tables
// (README "Analytics"). A day is a calendar day in America/Toronto; a month starts on its
// first day.

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
 * distinct customers of any window then follow from per-day counters (README "Analytics").
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
