// What the sellers are told of other modules' events (subscribed in subscriptions.ts), queued in
// the transaction that published them: a new order (or one waiting for stock) and low stock at a
// payment, a review made public, a payout's end.
import type { RequestContext } from '../context.ts';
import type { EventOf } from '../events.ts';
import { recordedOrdersIn, variantOf } from '../orders/create.ts';
import { reviewWithProduct, type SoldLine } from './queries.ts';
import { type Notice, notifySellers } from './service.ts';

/**
 * checkout.completed: each order's seller hears of it (waiting for stock when it is pending), and
 * of each variant the sale took to or below its product's threshold. The orders are the ones this
 * transaction wrote (no read); the whole is one statement with the transaction's next.
 */
export async function notifyOrdersPlaced(
  ctx: RequestContext,
  event: EventOf<'checkout.completed'>,
): Promise<void> {
  const created = recordedOrdersIn(ctx, event.checkoutId);
  if (!created) return;
  const notices: Notice[] = created.map((o) => ({
    sellerId: o.sellerId,
    kind: o.status === 'pending' ? 'order_waiting_for_stock' : 'order_placed',
    subjectId: o.id,
    facts: {
      orderNumber: o.number,
      totalCents: o.totalAmountCents,
      units: o.items.reduce((n, i) => n + i.quantity, 0),
    },
  }));
  // A pending order took no stock: only the confirmed orders' lines can cross a threshold.
  const sold = new Map<string, SoldLine>();
  for (const o of created) {
    if (o.status !== 'confirmed') continue;
    for (const item of o.items) {
      const id = variantOf(item);
      const had = sold.get(id);
      if (had) had.units += item.quantity;
      else
        sold.set(id, {
          variant_id: id,
          units: item.quantity,
          title: item.name,
          variant_title: item.variantTitle ?? '',
        });
    }
  }
  await notifySellers(ctx, notices, [...sold.values()]);
}

/** review.published: the product's seller hears of the review (once, whatever moderation does after). */
export async function notifyReviewPublished(
  ctx: RequestContext,
  event: EventOf<'review.published'>,
): Promise<void> {
  const r = await reviewWithProduct(ctx.db, event.reviewId);
  if (!r) return;
  await notifySellers(ctx, [
    {
      sellerId: r.sellerId,
      kind: 'review_posted',
      subjectId: r.reviewId,
      facts: { productId: r.productId, productTitle: r.productTitle, rating: r.rating },
    },
  ]);
}

/** payout.ended: sent (what reached the bank) and, when some transfer failed, failed. */
export async function notifyPayoutEnded(ctx: RequestContext, event: EventOf<'payout.ended'>): Promise<void> {
  const facts = { payoutId: event.payoutId, paidCents: event.paidCents, failedCents: event.failedCents };
  const notices: Notice[] = [];
  if (event.paidCents > 0)
    notices.push({ sellerId: event.sellerId, kind: 'payout_sent', subjectId: event.payoutId, facts });
  if (event.failedCents > 0)
    notices.push({ sellerId: event.sellerId, kind: 'payout_failed', subjectId: event.payoutId, facts });
  await notifySellers(ctx, notices);
}
