import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { NotificationKind } from '../../contract/notifications.ts';
import { users } from '../auth/tables.ts';
import { products } from '../catalog/tables.ts';

/** The facts a notification is drawn from (ids, numbers, names as they were): small and flat. */
export type NoticeFacts = Record<string, string | number | boolean | null>;

/**
 * What a change has to tell sellers, written in its transaction with no round trip of its own;
 * the `notices` job turns each row into an inbox row and an email as the seller chose, then
 * deletes it (the two in one transaction). No foreign key: a row is never read by its seller.
 */
export const noticeOutbox = pgTable('notice_outbox', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  sellerId: text('seller_id').notNull(),
  kind: text('kind').$type<NotificationKind>().notNull(),
  subjectId: text('subject_id').notNull(),
  facts: jsonb('facts').$type<NoticeFacts>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

/**
 * A seller's inbox: one row per thing they were told of (unique by kind and subject, so a retry
 * tells once; a variant's low stock is told again by raising its row). Rows older than
 * NOTIFICATION_RETENTION_DAYS go (the cleanup job); facts are bounded here.
 */
export const sellerNotifications = pgTable(
  'seller_notifications',
  {
    id: text('id').primaryKey(),
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<NotificationKind>().notNull(),
    subjectId: text('subject_id').notNull(),
    facts: jsonb('facts').$type<NoticeFacts>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    readAt: timestamp('read_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('seller_notifications_subject').on(t.sellerId, t.kind, t.subjectId),
    index('seller_notifications_inbox').on(t.sellerId, t.createdAt, t.id),
    index('seller_notifications_unread').on(t.sellerId).where(sql`${t.readAt} is null`),
    index('seller_notifications_created').on(t.createdAt),
    check(
      'seller_notifications_bounded',
      sql`length(${t.kind}) <= 40 and length(${t.subjectId}) <= 200 and pg_column_size(${t.facts}) <= 2048`,
    ),
  ],
);

/** What a seller chose for a kind; a kind with no row is on for both. */
export const notificationSettings = pgTable(
  'notification_settings',
  {
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<NotificationKind>().notNull(),
    email: boolean('email').notNull(),
    inbox: boolean('inbox').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sellerId, t.kind] }),
    check('notification_settings_kind', sql`length(${t.kind}) <= 40`),
  ],
);

/** A product's low-stock threshold, set by its seller: a sale leaving a variant at or below it tells them. */
export const lowStockThresholds = pgTable(
  'low_stock_thresholds',
  {
    productId: text('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    threshold: integer('threshold').notNull(),
  },
  (t) => [
    index('low_stock_thresholds_seller').on(t.sellerId),
    check('low_stock_thresholds_range', sql`${t.threshold} between 0 and 1000000`),
  ],
);
