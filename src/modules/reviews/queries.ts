// The reviews' reads for the desk's page of a user.
import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { reviews } from './tables.ts';

/** A buyer's reviews counted up to `max` + 1, and their newest `recent` (reviews_buyer_created_idx). */
export async function reviewsOfBuyer(db: Db, buyerId: string, max: number, recent: number) {
  const [[counted], rows] = await Promise.all([
    db.select({ n: sql<number>`count(*)::int` }).from(
      db
        .select({ one: sql`1` })
        .from(reviews)
        .where(eq(reviews.buyerId, buyerId))
        .limit(max + 1)
        .as('x'),
    ),
    db
      .select({
        id: reviews.id,
        productId: reviews.productId,
        rating: reviews.rating,
        title: reviews.title,
        published: reviews.published,
        rejectedAt: reviews.rejectedAt,
        createdAt: reviews.createdAt,
      })
      .from(reviews)
      .where(eq(reviews.buyerId, buyerId))
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(recent),
  ]);
  return { count: counted?.n ?? 0, rows };
}
