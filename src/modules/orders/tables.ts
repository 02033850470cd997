import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';
import { ORDER_STATUSES } from '../../contract/orders.ts';
import { users } from '../auth/tables.ts';
import type { StoredParcel } from '../checkout/tables.ts';

/**
 * One order per seller of a paid checkout. `(checkout_id, seller_id)` is unique: however often
 * the payment is reported, a checkout's orders exist once (docs/api.md "Payments").
 */
export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    /** What people read: `2026-000123`, sequential per year (orderNumbers), unique; the id stays in the API. */
    number: text('number').notNull(),
    checkoutId: text('checkout_id').notNull(),
    buyerId: text('buyer_id')
      .notNull()
      .references(() => users.id),
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: ORDER_STATUSES }).notNull(),
    subtotalCents: integer('subtotal_cents').notNull(),
    discountCents: integer('discount_cents').notNull(),
    shippingCostCents: integer('shipping_cost_cents').notNull(),
    taxAmountCents: integer('tax_amount_cents').notNull(),
    taxLines: jsonb('tax_lines').$type<StoredParcel['taxLines']>().notNull(),
    platformFeeCents: integer('platform_fee_cents').notNull(),
    totalAmountCents: integer('total_amount_cents').notNull(),
    /** The checkout's address without its phone; the pages' form adds `recipientName` and `line2`. */
    shippingAddress: jsonb('shipping_address')
      .$type<{
        street: string;
        city: string;
        province: string;
        postalCode: string;
        country: string;
        recipientName?: string;
        line2?: string;
      }>()
      .notNull(),
    paymentIntentId: text('payment_intent_id').notNull(),
    /** Whether the order's units have left the stock (false while `pending`). */
    stockCommitted: boolean('stock_committed').notNull(),
    itemCount: integer('item_count').notNull(),
    estimatedDelivery: date('estimated_delivery', { mode: 'string' }).notNull(),
    /** The option the buyer chose ("canada_post:DOM.EP", "portage:standard"); null on orders made before options. */
    shippingOption: text('shipping_option'),
    trackingNumber: text('tracking_number'),
    carrier: text('carrier'),
    refundRequested: boolean('refund_requested').notNull().default(false),
    refundedCents: integer('refunded_cents').notNull().default(0),
    cancelReason: text('cancel_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    shippedAt: timestamp('shipped_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
  },
  (t) => [
    unique('orders_one_per_checkout_seller').on(t.checkoutId, t.sellerId),
    unique('orders_number_unique').on(t.number),
    check(
      'orders_status_check',
      sql`${t.status} in (${sql.raw(ORDER_STATUSES.map((s) => `'${s}'`).join(', '))})`,
    ),
    check('orders_refund_within_total', sql`${t.refundedCents} between 0 and ${t.totalAmountCents}`),
    index('orders_buyer_created_idx').on(t.buyerId, t.createdAt, t.id),
    index('orders_seller_created_idx').on(t.sellerId, t.createdAt, t.id),
    index('orders_payment_intent_idx').on(t.paymentIntentId),
    index('orders_pending_created_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
  ],
);

/** The items of an order as they were sold (title and price at the time). */
export const orderItems = pgTable(
  'order_items',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    productId: text('product_id').notNull(),
    /** What was sold; the product's id for an order made before variants (migration 0037). */
    variantId: text('variant_id').notNull(),
    /** The variant's option values as sold ("Cedar / 150 cm"); '' for a product sold one way. */
    variantTitle: text('variant_title').notNull().default(''),
    sku: text('sku'),
    /** The product's title and the variant's, as sold ("Canoe paddle, Cedar / 150 cm"). */
    name: text('name').notNull(),
    quantity: integer('quantity').notNull(),
    unitPriceCents: integer('unit_price_cents').notNull(),
    imageUrl: text('image_url'),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orderId, t.variantId] }),
    index('order_items_product_idx').on(t.productId),
  ],
);

/**
 * The last order number given in each year (the year of the order's creation in Eastern Time).
 * Incremented in the transaction that writes the orders: its row lock makes concurrent payments
 * take distinct numbers; a payment rolled back leaves a gap, which nothing requires to be filled.
 */
export const orderNumberYears = pgTable('order_number_years', {
  year: integer('year').primaryKey(),
  last: integer('last').notNull(),
});
