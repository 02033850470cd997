// The returns' reads for the desk's pages of an order and of a user.
import { asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { returns } from './tables.ts';

/** An order's returns, oldest first. */
export function returnsOfOrder(db: Db, orderId: string) {
  return db
    .select()
    .from(returns)
    .where(eq(returns.orderId, orderId))
    .orderBy(asc(returns.createdAt), asc(returns.id))
    .limit(100);
}

/** A buyer's returns counted up to `max` + 1, and their newest `recent` (returns_buyer_created_idx). */
export async function returnsOfBuyer(db: Db, buyerId: string, max: number, recent: number) {
  const [[counted], rows] = await Promise.all([
    db.select({ n: sql<number>`count(*)::int` }).from(
      db
        .select({ one: sql`1` })
        .from(returns)
        .where(eq(returns.buyerId, buyerId))
        .limit(max + 1)
        .as('x'),
    ),
    db
      .select({
        id: returns.id,
        orderId: returns.orderId,
        status: returns.status,
        reason: returns.reason,
        createdAt: returns.createdAt,
      })
      .from(returns)
      .where(eq(returns.buyerId, buyerId))
      .orderBy(desc(returns.createdAt), desc(returns.id))
      .limit(recent),
  ]);
  return { count: counted?.n ?? 0, rows };
}
