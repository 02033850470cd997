import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { productVariants } from '../catalog/tables.ts';

/**
 * Units of a variant held for a checkout session until `expiresAt`. A live reservation (neither
 * released nor committed) is counted in `product_variants.reserved_quantity`; releasing or committing it
 * takes it off that count in the same statement (docs/decisions.md "Checkout and holds").
 */
export const reservations = pgTable(
  'reservations',
  {
    checkoutId: text('checkout_id').notNull(),
    variantId: text('variant_id')
      .notNull()
      .references(() => productVariants.id),
    quantity: integer('quantity').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** Set when the units went back (expiry, a superseded session); never with committedAt. */
    releasedAt: timestamp('released_at', { withTimezone: true }),
    /** Set when the units left the stock for a paid order. */
    committedAt: timestamp('committed_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.checkoutId, t.variantId] }),
    check('reservations_quantity_positive', sql`${t.quantity} > 0`),
    check('reservations_one_end', sql`${t.releasedAt} is null or ${t.committedAt} is null`),
    index('reservations_live_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.releasedAt} is null and ${t.committedAt} is null`),
    // The ended ones, for the job that deletes them a day later.
    index('reservations_ended_idx')
      .on(sql`coalesce(${t.releasedAt}, ${t.committedAt})`)
      .where(sql`${t.releasedAt} is not null or ${t.committedAt} is not null`),
    index('reservations_live_variant_idx')
      .on(t.variantId)
      .where(sql`${t.releasedAt} is null and ${t.committedAt} is null`),
  ],
);
