import { sql } from 'drizzle-orm';
import { check, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ShopTexts } from '../../contract/shops.ts';
import { users } from '../auth/tables.ts';

/**
 * A shop's page beyond its name and province (seller_profiles): its logo and, in each language
 * the seller writes, its description and its return and shipping policies. No row: nothing
 * written yet (the page shows the platform's policies).
 */
export const shopPages = pgTable(
  'shop_pages',
  {
    sellerId: text('seller_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    logoUrl: text('logo_url'),
    texts: jsonb('texts').$type<ShopTexts>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'shop_pages_bounded',
      sql`coalesce(length(${t.logoUrl}), 0) <= 2048 and pg_column_size(${t.texts}) <= 131072`,
    ),
  ],
);
