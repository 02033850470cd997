import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

/**
 * A buyer's saved shipping addresses (the account's and the checkout's pages), at most
 * MAX_ADDRESSES each, one of them the default. Every text is bounded here as in the form.
 */
export const savedAddresses = pgTable(
  'saved_addresses',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    recipientName: text('recipient_name').notNull(),
    street: text('street').notNull(),
    line2: text('line2'),
    city: text('city').notNull(),
    province: text('province').notNull(),
    postalCode: text('postal_code').notNull(),
    phone: text('phone').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('saved_addresses_user_idx').on(t.userId, t.createdAt),
    uniqueIndex('saved_addresses_one_default').on(t.userId).where(sql`${t.isDefault}`),
    check(
      'saved_addresses_bounded',
      sql`length(${t.recipientName}) <= 100 and length(${t.street}) <= 200 and coalesce(length(${t.line2}), 0) <= 100 and length(${t.city}) <= 100 and length(${t.province}) = 2 and length(${t.postalCode}) = 7 and length(${t.phone}) = 12`,
    ),
  ],
);
