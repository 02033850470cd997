// The notifications module's reads and writes: the inbox, the sellers' settings and thresholds,
// and what a notification needs of other modules' rows (a variant's stock, a review's product).
import { and, asc, desc, eq, inArray, isNull, lt, type SQLWrapper, sql } from 'drizzle-orm';
import type { NotificationKind } from '../../contract/notifications.ts';
import type { Db } from '../../db/index.ts';
import { ph, statement } from '../../db/sql.ts';
import { users } from '../auth/tables.ts';
import { products, productVariants } from '../catalog/tables.ts';
import { reviews } from '../reviews/tables.ts';
import {
  lowStockThresholds,
  type NoticeFacts,
  noticeOutbox,
  notificationSettings,
  sellerNotifications,
} from './tables.ts';

export type NotificationRow = typeof sellerNotifications.$inferSelect;

const queueStatement = statement(
  'notice_queue',
  sql`
    insert into ${noticeOutbox} (seller_id, kind, subject_id, facts, created_at)
    select n.seller_id, n.kind, n.subject_id, n.facts, ${ph('now')}::timestamptz
    from json_to_recordset(${ph('notices')}::json) as n(seller_id text, kind text, subject_id text, facts jsonb)
    union all
    select t.seller_id, 'stock_low', v.id,
      jsonb_build_object('productId', v.product_id, 'productTitle', s.title, 'variantTitle', s.variant_title,
        'stock', v.stock_quantity, 'threshold', t.threshold),
      ${ph('now')}::timestamptz
    from json_to_recordset(${ph('sold')}::json) as s(variant_id text, units int, title text, variant_title text)
    join ${productVariants} v on v.id = s.variant_id
    join ${lowStockThresholds} t on t.product_id = v.product_id
    where v.stock_quantity <= t.threshold and v.stock_quantity + s.units > t.threshold`,
);

/** A sale's lines: each variant's units sold, with the names a low-stock notice shows. */
export interface SoldLine {
  variant_id: string;
  units: number;
  title: string;
  variant_title: string;
}

/**
 * Queues `notices`, and a low-stock notice for each line of `sold` whose variant the sale took
 * from above its product's threshold to at or below it (read after the sale's own update, under
 * its row lock): one statement sent with the transaction's next one, no round trip.
 */
export function queueNotices(
  db: Db,
  notices: Array<{ sellerId: string; kind: NotificationKind; subjectId: string; facts: NoticeFacts }>,
  sold: SoldLine[],
  now: Date,
) {
  return queueStatement.later(db, {
    notices: JSON.stringify(
      notices.map((n) => ({ seller_id: n.sellerId, kind: n.kind, subject_id: n.subjectId, facts: n.facts })),
    ),
    sold: JSON.stringify(sold),
    now,
  });
}

/** Takes up to `limit` queued notices, oldest first, skipping those another instance holds: gone at commit. */
export function claimNotices(db: Db, limit: number) {
  return db
    .delete(noticeOutbox)
    .where(
      inArray(
        noticeOutbox.id,
        db
          .select({ id: noticeOutbox.id })
          .from(noticeOutbox)
          .orderBy(asc(noticeOutbox.id))
          .limit(limit)
          .for('update', { skipLocked: true }),
      ),
    )
    .returning();
}

/** The queued notice `id`, taken (gone at commit). */
export function claimNotice(db: Db, id: number) {
  return db.delete(noticeOutbox).where(eq(noticeOutbox.id, id)).returning();
}

/** The ids of up to `limit` queued notices, oldest first. */
export async function queuedIds(db: Db, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: noticeOutbox.id })
    .from(noticeOutbox)
    .orderBy(asc(noticeOutbox.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Deletes the queued notice `id`; answers 1 when it was there. */
export async function dropNotice(db: Db, id: number): Promise<number> {
  return (await db.delete(noticeOutbox).where(eq(noticeOutbox.id, id)).returning({ id: noticeOutbox.id }))
    .length;
}

/** A seller to tell: who they are and, by kind, what they chose ([email, inbox]); absent: both. */
export interface Recipient {
  id: string;
  email: string;
  name: string;
  locale: string | null;
  chosen: Partial<Record<NotificationKind, [boolean, boolean]>> | null;
}

/** The sellers `ids` with their choices, in one statement. */
export function recipients(db: Db, ids: string[]): Promise<Recipient[]> {
  return db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      locale: users.locale,
      chosen: sql<
        Recipient['chosen']
      >`(select json_object_agg(${notificationSettings.kind}, json_build_array(${notificationSettings.email}, ${notificationSettings.inbox})) from ${notificationSettings} where ${notificationSettings.sellerId} = ${users.id})`,
    })
    .from(users)
    .where(inArray(users.id, ids));
}

/**
 * Writes the inbox's rows; a subject told already is not told again, except a variant's low stock,
 * whose row is raised (unread, new facts and time). One row per key: a statement cannot write a
 * row twice.
 */
export function insertNotifications(db: Db, rows: NotificationRow[]) {
  if (rows.length === 0) return Promise.resolve();
  return db
    .insert(sellerNotifications)
    .values(rows)
    .onConflictDoUpdate({
      target: [sellerNotifications.sellerId, sellerNotifications.kind, sellerNotifications.subjectId],
      set: {
        facts: sql`excluded.facts`,
        createdAt: sql`excluded.created_at`,
        readAt: sql`null`,
      },
      setWhere: eq(sellerNotifications.kind, 'stock_low'),
    });
}

/** A page of a seller's inbox, newest first, after the notification `before` (theirs) when given. */
export function inboxPage(db: Db, sellerId: string, q: { limit: number; unread?: boolean; before?: string }) {
  const after = q.before
    ? db
        .select({ createdAt: sellerNotifications.createdAt, id: sellerNotifications.id })
        .from(sellerNotifications)
        .where(and(eq(sellerNotifications.id, q.before), eq(sellerNotifications.sellerId, sellerId)))
    : undefined;
  return db
    .select()
    .from(sellerNotifications)
    .where(
      and(
        eq(sellerNotifications.sellerId, sellerId),
        q.unread ? isNull(sellerNotifications.readAt) : undefined,
        after
          ? sql`(${sellerNotifications.createdAt}, ${sellerNotifications.id}) < (select created_at, id from (${after}) b)`
          : undefined,
      ),
    )
    .orderBy(desc(sellerNotifications.createdAt), desc(sellerNotifications.id))
    .limit(q.limit + 1);
}

/** A seller's unread notifications counted up to `cap`, a bounded read of the partial index: a select's column. */
export const unreadCountSql = (sellerId: SQLWrapper, cap: number) =>
  sql<number>`(select count(*)::int from (select 1 from ${sellerNotifications} where ${sellerNotifications.sellerId} = ${sellerId} and ${sellerNotifications.readAt} is null limit ${sql.raw(String(cap))}) unread)`;

/** The inbox's count stops here (the API says "counted up to 1,000"). */
export const UNREAD_COUNTED = 1000;

export async function unreadCount(db: Db, sellerId: string): Promise<number> {
  const [row] = await db
    .select({ n: unreadCountSql(sql`${sellerId}`, UNREAD_COUNTED) })
    .from(users)
    .where(eq(users.id, sellerId));
  return row?.n ?? 0;
}

/** Marks the seller's notifications `ids` (all of theirs when undefined) read at `now`. */
export function markRead(db: Db, sellerId: string, ids: string[] | undefined, now: Date) {
  return db
    .update(sellerNotifications)
    .set({ readAt: now })
    .where(
      and(
        eq(sellerNotifications.sellerId, sellerId),
        isNull(sellerNotifications.readAt),
        ids ? inArray(sellerNotifications.id, ids) : undefined,
      ),
    )
    .returning({ id: sellerNotifications.id });
}

export function settingsRows(db: Db, sellerId: string) {
  return db.select().from(notificationSettings).where(eq(notificationSettings.sellerId, sellerId));
}

export function saveSettingsRows(db: Db, rows: Array<typeof notificationSettings.$inferInsert>) {
  return db
    .insert(notificationSettings)
    .values(rows)
    .onConflictDoUpdate({
      target: [notificationSettings.sellerId, notificationSettings.kind],
      set: { email: sql`excluded.email`, inbox: sql`excluded.inbox` },
    });
}

export function thresholdsOf(db: Db, sellerId: string, productIds?: string[]) {
  return db
    .select({ productId: lowStockThresholds.productId, threshold: lowStockThresholds.threshold })
    .from(lowStockThresholds)
    .where(
      and(
        eq(lowStockThresholds.sellerId, sellerId),
        productIds ? inArray(lowStockThresholds.productId, productIds) : undefined,
      ),
    )
    .orderBy(asc(lowStockThresholds.productId));
}

/** Sets the threshold of the seller's own product (not deleted); answers false when it is not theirs. */
export async function setThreshold(db: Db, sellerId: string, productId: string, threshold: number | null) {
  const [own] = await db
    .select({ id: products.id })
    .from(products)
    .where(
      and(eq(products.id, productId), eq(products.sellerId, sellerId), sql`${products.status} <> 'deleted'`),
    );
  if (!own) return false;
  if (threshold === null) {
    await db.delete(lowStockThresholds).where(eq(lowStockThresholds.productId, productId));
  } else {
    await db
      .insert(lowStockThresholds)
      .values({ productId, sellerId, threshold })
      .onConflictDoUpdate({ target: lowStockThresholds.productId, set: { threshold } });
  }
  return true;
}

/** A review with its product's title and seller. */
export async function reviewWithProduct(db: Db, reviewId: string) {
  const [row] = await db
    .select({
      reviewId: reviews.id,
      rating: reviews.rating,
      productId: products.id,
      productTitle: products.title,
      sellerId: products.sellerId,
    })
    .from(reviews)
    .innerJoin(products, eq(products.id, reviews.productId))
    .where(eq(reviews.id, reviewId));
  return row;
}

/** Deletes up to `limit` notifications made before `before`; answers how many. */
export async function deleteNotificationsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const gone = await db
    .delete(sellerNotifications)
    .where(
      inArray(
        sellerNotifications.id,
        db
          .select({ id: sellerNotifications.id })
          .from(sellerNotifications)
          .where(lt(sellerNotifications.createdAt, before))
          .limit(limit),
      ),
    )
    .returning({ id: sellerNotifications.id });
  return gone.length;
}

export type { NoticeFacts };
