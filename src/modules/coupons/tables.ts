import { sql } from 'drizzle-orm';
import { check, date, doublePrecision, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

export const coupons = pgTable(
  'coupons',
  {
    // Stored upper-case: codes are case-insensitive.
    code: text('code').primaryKey(),
    discountPercent: doublePrecision('discount_percent'),
    discountCents: integer('discount_cents'),
    minSubtotalCents: integer('min_subtotal_cents').notNull().default(0),
    // Last day the code works, in America/Toronto.
    expiresOn: date('expires_on', { mode: 'string' }),
    maxRedemptions: integer('max_redemptions'),
    maxRedemptionsPerCustomer: integer('max_redemptions_per_customer'),
    terms: text('terms').notNull().default(''),
    // A shop's own coupon: it takes off that seller's items only, and the seller pays for it;
    // null: the platform's (on every item, paid by the platform). Codes are one namespace.
    sellerId: text('seller_id').references(() => users.id),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('coupons_one_discount', sql`(${t.discountPercent} is null) <> (${t.discountCents} is null)`),
    check(
      'coupons_percent_range',
      sql`${t.discountPercent} is null or (${t.discountPercent} > 0 and ${t.discountPercent} <= 100)`,
    ),
    check('coupons_cents_positive', sql`${t.discountCents} is null or ${t.discountCents} > 0`),
    index('coupons_seller_created_idx').on(t.sellerId, t.createdAt).where(sql`${t.sellerId} is not null`),
  ],
);

/**
 * A shop's automatic discount (one a shop): `percent` off the shop's items in a purchase whose
 * items from the shop add up to `min_subtotal_cents`, between its first and last day (Toronto
 * days, either open). No code: every buyer gets it; the seller pays for it.
 */
export const shopDiscounts = pgTable(
  'shop_discounts',
  {
    sellerId: text('seller_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    percent: integer('percent').notNull(),
    minSubtotalCents: integer('min_subtotal_cents').notNull(),
    startsOn: date('starts_on', { mode: 'string' }),
    endsOn: date('ends_on', { mode: 'string' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('shop_discounts_percent_range', sql`${t.percent} between 1 and 90`),
    check('shop_discounts_min_range', sql`${t.minSubtotalCents} between 0 and 100000000`),
    check(
      'shop_discounts_dates',
      sql`${t.startsOn} is null or ${t.endsOn} is null or ${t.startsOn} <= ${t.endsOn}`,
    ),
  ],
);

/** One row per paid order that used a coupon (written by the payment step). */
export const couponRedemptions = pgTable(
  'coupon_redemptions',
  {
    code: text('code')
      .notNull()
      .references(() => coupons.code),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orderId: text('order_id').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('coupon_redemptions_code_user_idx').on(t.code, t.userId)],
);
