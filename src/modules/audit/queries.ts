// The audit log's writes and reads.
import { and, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { adminActions } from './tables.ts';

export type AdminActionRow = typeof adminActions.$inferSelect;

export function insertAdminAction(db: Db, row: Omit<AdminActionRow, 'id'>) {
  return db.insert(adminActions).values(row);
}

/** Newest first, after the record `before` (its id) when given, of one action or subject when given. */
export function adminActionsPage(
  db: Db,
  q: {
    limit: number;
    before?: number | undefined;
    action?: string | undefined;
    subject?: string | undefined;
    /** Any of these subjects (an order and its returns). */
    subjects?: string[] | undefined;
  },
): Promise<AdminActionRow[]> {
  const where: SQL[] = [];
  if (q.before !== undefined) where.push(lt(adminActions.id, q.before));
  if (q.action) where.push(eq(adminActions.action, q.action));
  if (q.subject) where.push(eq(adminActions.subject, q.subject));
  if (q.subjects) where.push(q.subjects.length ? inArray(adminActions.subject, q.subjects) : sql`false`);
  return db
    .select()
    .from(adminActions)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(adminActions.id))
    .limit(q.limit);
}
