import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
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
    // Who pays the discount (they add up to discountCents): the shop (its automatic discount and
    // its own coupon: the seller is paid for the items less it) and the platform (its coupons:
    // the seller is paid as if sold at full price). Orders made before: the seller (so the ledger had it).
    sellerDiscountCents: integer('seller_discount_cents').notNull().default(0),
    platformDiscountCents: integer('platform_discount_cents').notNull().default(0),
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
    check(
      'orders_discount_payers',
      sql`${t.sellerDiscountCents} >= 0 and ${t.platformDiscountCents} >= 0 and ${t.sellerDiscountCents} + ${t.platformDiscountCents} = ${t.discountCents}`,
    ),
    index('orders_buyer_created_idx').on(t.buyerId, t.createdAt, t.id),
    index('orders_seller_created_idx').on(t.sellerId, t.createdAt, t.id),
    index('orders_payment_intent_idx').on(t.paymentIntentId),
    index('orders_pending_created_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
    // The desk's list (GET /admin/orders), newest first: unfiltered, by status, by province, by
    // province and status, by shop and status or province (the shop alone: orders_seller_created_idx).
    index('orders_created_idx').on(t.createdAt, t.id),
    index('orders_status_created_idx').on(t.status, t.createdAt, t.id),
    index('orders_province_created_idx').on(sql`(${t.shippingAddress}->>'province')`, t.createdAt, t.id),
    index('orders_province_status_created_idx').on(
      sql`(${t.shippingAddress}->>'province')`,
      t.status,
      t.createdAt,
      t.id,
    ),
    index('orders_seller_status_created_idx').on(t.sellerId, t.status, t.createdAt, t.id),
    index('orders_seller_province_created_idx').on(
      t.sellerId,
      sql`(${t.shippingAddress}->>'province')`,
      t.createdAt,
      t.id,
    ),
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

/** PostgreSQL's bytea as a Buffer (PGlite answers a Uint8Array, pg a Buffer). */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});

/**
 * An order's carrier label (docs/shipping.md "Labels"): at most one per order, its primary key.
 * The row is claimed (`buying`) in a transaction that holds the order's row, before the carrier is
 * called outside any transaction; then it is `bought`, with the order shipped, in one transaction.
 * A purchase Canada Post refused or never received deletes its claim; one whose outcome is unknown
 * (the request sent, no answer) keeps it `uncertain`; a claim older than the purchase's time limit
 * may be taken again (the instance that held it stopped). Either way the next purchase looks for
 * the shipment Canada Post may have made before buying (`uncertain_since`).
 */
export const orderLabels = pgTable(
  'order_labels',
  {
    orderId: text('order_id')
      .primaryKey()
      .references(() => orders.id),
    sellerId: text('seller_id').notNull(),
    /**
     * `buying`: a request is buying it (its claim holds LABEL_CLAIM_SECONDS); `uncertain`: Canada Post
     * was asked and did not say whether it sold it (a timeout, a broken answer); `bought`.
     */
    state: text('state', { enum: ['buying', 'uncertain', 'bought'] }).notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull(),
    /**
     * Since when Canada Post may hold a shipment of this order that we did not hear of: set by an
     * uncertain outcome or a lapsed claim; while it is set, a purchase first looks for that shipment
     * (its customer-request-id is the order's number) and adopts it, and buys only once Canada Post
     * said it has none.
     */
    uncertainSince: timestamp('uncertain_since', { withTimezone: true }),
    /** Made by the sandbox (no carrier credentials): no postage, a made-up tracking number. */
    sandbox: boolean('sandbox').notNull(),
    /** The Canada Post service bought ("DOM.EP"). */
    service: text('service').notNull(),
    shipmentId: text('shipment_id'),
    trackingPin: text('tracking_pin'),
    /** The carrier's link to the label, kept until its PDF is stored. */
    labelUrl: text('label_url'),
    /** The label as the carrier drew it; null while it could not be fetched (fetched again when asked for). */
    pdf: bytea('pdf'),
    boughtAt: timestamp('bought_at', { withTimezone: true }),
  },
  (t) => [
    check(
      'order_labels_bought_check',
      sql`${t.state} in ('buying', 'uncertain') or (${t.trackingPin} is not null and ${t.shipmentId} is not null and ${t.boughtAt} is not null)`,
    ),
  ],
);

/**
 * A shipped parcel the tracking job follows (docs/shipping.md "Tracking"): one row per order, from
 * its label's purchase until the carrier says it is delivered (or it is given up). `next_check_at`
 * is when it is next asked about; a failure moves it later and later (`failures`).
 */
export const orderTracking = pgTable(
  'order_tracking',
  {
    orderId: text('order_id')
      .primaryKey()
      .references(() => orders.id),
    pin: text('pin').notNull(),
    sandbox: boolean('sandbox').notNull(),
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
    failures: integer('failures').notNull().default(0),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    lastEvent: text('last_event'),
    lastError: text('last_error'),
  },
  (t) => [index('order_tracking_next_check_idx').on(t.nextCheckAt)],
);
