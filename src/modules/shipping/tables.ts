import { sql } from 'drizzle-orm';
import { check, integer, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

/**
 * A seller's shipping profile (docs/shipping.md): one row per seller who set one; a seller
 * without ships at the platform's flat rate. Bounded by its checks: a hostile seller cannot
 * store more than these few values.
 */
export const sellerShipping = pgTable(
  'seller_shipping',
  {
    sellerId: text('seller_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** "M5H 2N2". */
    originPostalCode: text('origin_postal_code').notNull(),
    originProvince: text('origin_province').notNull(),
    handlingDays: integer('handling_days').notNull(),
    rates: text('rates', { enum: ['carrier', 'flat'] }).notNull(),
    /** Carrier service codes offered ('carrier'), in the order given. */
    services: text('services').array().notNull(),
    flatCents: integer('flat_cents'),
    freeOverCents: integer('free_over_cents'),
    parcelLengthCm: numeric('parcel_length_cm', { precision: 4, scale: 1, mode: 'number' }).notNull(),
    parcelWidthCm: numeric('parcel_width_cm', { precision: 4, scale: 1, mode: 'number' }).notNull(),
    parcelHeightCm: numeric('parcel_height_cm', { precision: 4, scale: 1, mode: 'number' }).notNull(),
    parcelWeightKg: numeric('parcel_weight_kg', { precision: 5, scale: 3, mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('seller_shipping_handling_check', sql`${t.handlingDays} between 0 and 10`),
    check('seller_shipping_services_check', sql`cardinality(${t.services}) <= 4`),
    check(
      'seller_shipping_rates_check',
      sql`(${t.rates} = 'flat' and ${t.flatCents} is not null) or (${t.rates} = 'carrier' and cardinality(${t.services}) > 0)`,
    ),
  ],
);
