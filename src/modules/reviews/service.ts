// Reviews: one per buyer per product, verified when they name the buyer's own paid order of
// the product, held for moderation when they carry a link; published ones listed per product;
// the admin's moderation. The product's and its seller's rating and reviewCount are kept by
// a trigger on this table, in the review's own transaction, over published reviews only
// (migration 0003; docs/api.md "Reviews"; docs/decisions.md "Reviews").
import { and, count, desc, eq, inArray, isNotNull, isNull, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { isRecordId, newId, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, notFound } from '../../contract/errors.ts';
import type {
  adminReviewsQuery,
  moderatedReview,
  productReviewList,
  productReviewsQuery,
  Review,
  ReviewStatus,
  SubmitReviewInput,
} from '../../contract/reviews.ts';
import { recordAdminAction } from '../audit/service.ts';
import { users } from '../auth/tables.ts';
import { visibleProduct } from '../catalog/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { publish } from '../events.ts';
import { orderContainsProduct } from '../orders/purchases.ts';
import { containsLink } from './links.ts';
import { reviews } from './tables.ts';

type ReviewRow = typeof reviews.$inferSelect;
type ModeratedReview = z.infer<typeof moderatedReview>;

export const toReview = (r: ReviewRow): Review => ({
  review_id: r.id,
  product_id: r.productId,
  rating: r.rating,
  title: r.title,
  comment: r.comment,
  verified_purchase: r.verifiedPurchase,
  published: r.published,
  created_at: toUnix(r.createdAt),
});

const statusOf = (r: ReviewRow): ReviewStatus =>
  r.published ? 'published' : r.rejectedAt ? 'rejected' : 'pending';

/**
 * Submits the caller's review of an active product. 404 for a product that is unknown or not
 * on sale; 403 for the product's own seller; 409 for a second review of the same product (the
 * unique (product_id, buyer_id) settles two at once: one is written, the other is refused).
 * `order_id` makes it a verified purchase only when it is the caller's paid, not cancelled
 * order containing the product; any other order id (someone else's, unknown, without the
 * product) gives the same unverified review, so the answer tells nothing about other orders.
 */
export async function submitReview(ctx: RequestContext, input: SubmitReviewInput): Promise<Review> {
  const me = caller(ctx);
  const product = await visibleProduct(ctx, input.product_id);
  if (product.status !== 'active') throw notFound('error.catalog.productNotFound', { id: input.product_id });
  if (product.sellerId === me.id) throw forbidden('error.reviews.ownProduct');
  const verified =
    input.order_id !== undefined && (await orderContainsProduct(ctx, me.id, input.order_id, product.id));
  const held = containsLink(input.title) || containsLink(input.comment);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .insert(reviews)
      .values({
        id: newId('reviews'),
        productId: product.id,
        buyerId: me.id,
        orderId: verified ? input.order_id : null,
        rating: input.rating,
        title: input.title,
        comment: input.comment,
        verifiedPurchase: verified,
        published: !held,
        createdAt: tx.now(),
      })
      .onConflictDoNothing({ target: [reviews.productId, reviews.buyerId] })
      .returning();
    if (!row) throw conflict('error.reviews.alreadyReviewed', { id: product.id });
    tx.log.info({ reviewId: row.id, productId: product.id, published: row.published }, 'review submitted');
    if (row.published)
      await publish(tx, { type: 'review.published', reviewId: row.id, productId: product.id });
    return toReview(row);
  });
}

/** The published reviews of a product the caller may see, newest first. */
export async function listProductReviews(
  ctx: RequestContext,
  productId: string,
  q: z.infer<typeof productReviewsQuery>,
): Promise<z.infer<typeof productReviewList>> {
  const product = await visibleProduct(ctx, productId);
  const where = and(eq(reviews.productId, product.id), eq(reviews.published, true));
  const { rows, total } = await pageOfReviews(ctx, where, q);
  return {
    reviews: rows.map((r) => ({ ...toReview(r.review), author: r.author })),
    total,
    limit: q.limit,
    offset: q.offset,
  };
}

/**
 * The caller's own reviews of `productIds`, whatever moderation decided (the order page shows
 * each with its status instead of a second form).
 */
export async function ownReviewsOf(
  ctx: RequestContext,
  productIds: string[],
): Promise<Array<Review & { status: ReviewStatus }>> {
  if (productIds.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(reviews)
    .where(and(eq(reviews.buyerId, caller(ctx).id), inArray(reviews.productId, productIds)));
  return rows.map((r) => ({ ...toReview(r), status: statusOf(r) }));
}

/** One page of the reviews matching `where`, newest first, with their authors' names, and the count of all. */
async function pageOfReviews(
  ctx: RequestContext,
  where: SQL | undefined,
  q: { limit: number; offset: number },
) {
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ review: reviews, author: users.name })
      .from(reviews)
      .innerJoin(users, eq(users.id, reviews.buyerId))
      .where(where)
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(q.limit)
      .offset(q.offset),
    ctx.db.select({ n: count() }).from(reviews).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

// ---- moderation (admins; the route's guard lets only them in) --------------------------------

const STATUS_FILTER: Record<ReviewStatus, SQL | undefined> = {
  published: eq(reviews.published, true),
  pending: and(eq(reviews.published, false), isNull(reviews.rejectedAt)),
  rejected: isNotNull(reviews.rejectedAt),
};

const toModerated = (r: ReviewRow, author: string): ModeratedReview => ({
  ...toReview(r),
  author,
  buyer_id: r.buyerId,
  status: statusOf(r),
  has_link: containsLink(r.title) || containsLink(r.comment),
});

/**
 * Every review, or those of one status, newest first. `published=false` is the moderation
 * queue (pending: held, not yet rejected); rejected ones are listed with `status=rejected`.
 */
export async function listReviewsForModeration(ctx: RequestContext, q: z.infer<typeof adminReviewsQuery>) {
  const status: ReviewStatus | undefined =
    q.status ?? (q.published === undefined ? undefined : q.published ? 'published' : 'pending');
  const where = status ? STATUS_FILTER[status] : undefined;
  const { rows, total } = await pageOfReviews(ctx, where, q);
  return {
    reviews: rows.map((r) => toModerated(r.review, r.author)),
    total,
    limit: q.limit,
    offset: q.offset,
  };
}

/**
 * Publishes a review (a pending one, or one rejected before): from now on it is listed and
 * counted. Publishing a published review changes nothing and answers it (idempotent). One
 * conditional UPDATE: two admins at once count it once (the trigger sees one transition).
 */
export function publishReview(ctx: RequestContext, reviewId: string): Promise<ModeratedReview> {
  return moderate(ctx, reviewId, { published: true, rejectedAt: null }, eq(reviews.published, false));
}

/**
 * Rejects a review: it stays, unpublished and uncounted (taken down if it was published), so
 * that it still is the buyer's one review of the product. Rejecting a rejected review changes
 * nothing (idempotent).
 */
export function rejectReview(ctx: RequestContext, reviewId: string): Promise<ModeratedReview> {
  return moderate(ctx, reviewId, { published: false, rejectedAt: ctx.now() }, isNull(reviews.rejectedAt));
}

async function moderate(
  ctx: RequestContext,
  reviewId: string,
  change: Pick<ReviewRow, 'published' | 'rejectedAt'>,
  unlessAlready: SQL,
): Promise<ModeratedReview> {
  if (!isRecordId('reviews', reviewId)) throw notFound('error.reviews.notFound', { id: reviewId });
  return inTransaction(ctx, async (tx) => {
    const [changed] = await tx.db
      .update(reviews)
      .set(change)
      .where(and(eq(reviews.id, reviewId), unlessAlready))
      .returning({ id: reviews.id });
    const [row] = await tx.db
      .select({ review: reviews, author: users.name })
      .from(reviews)
      .innerJoin(users, eq(users.id, reviews.buyerId))
      .where(eq(reviews.id, reviewId));
    if (!row) throw notFound('error.reviews.notFound', { id: reviewId });
    if (changed) {
      tx.log.info({ reviewId, published: change.published, by: caller(tx).id }, 'review moderated');
      await recordAdminAction(tx, {
        action: change.published ? 'review.publish' : 'review.reject',
        subject: reviewId,
        after: { published: change.published, rejected: change.rejectedAt !== null },
      });
      if (change.published) {
        await publish(tx, { type: 'review.published', reviewId, productId: row.review.productId });
      }
    }
    return toModerated(row.review, row.author);
  });
}
