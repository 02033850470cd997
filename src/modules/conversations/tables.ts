import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';
import { orders } from '../orders/tables.ts';

/**
 * Messages between an order's buyer and its seller (docs/api.md "Messages"), oldest first. At most
 * MAX_MESSAGES_PER_ORDER an order; each body at most 2,000 characters, no link.
 */
export const orderMessages = pgTable(
  'order_messages',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    senderId: text('sender_id')
      .notNull()
      .references(() => users.id),
    /** Which side wrote it: the order's buyer, its seller, or an admin for the platform. */
    side: text('side', { enum: ['buyer', 'seller', 'admin'] }).notNull(),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('order_messages_order_idx').on(t.orderId, t.createdAt, t.id),
    check('order_messages_bounded', sql`length(${t.body}) between 1 and 2000`),
    check('order_messages_side', sql`${t.side} in ('buyer', 'seller', 'admin')`),
  ],
);
