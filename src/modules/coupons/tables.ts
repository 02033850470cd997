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
