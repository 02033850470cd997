import { clearPurchased } from '../cart/service.ts';
import {
  expireCheckout,
  heldFromCart,
  lockSessionForPayment,
  markCheckoutPaid,
} from '../checkout/service.ts';
import type { StoredAddress } from '../checkout/tables.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { couponLimitReached, redeemCoupon } from '../coupons/service.ts';
import { publish } from '../events.ts';
import { commitParcels, lockVariants } from '../inventory/service.ts';
import { issueInvoices } from '../invoices/service.ts';
import { recordOrders, variantOf } from '../orders/create.ts';
import { type OrdersDeps, orderIdsOfCheckout } from '../orders/service.ts';
import { refundUnusedPayment } from '../payments/refunds.ts';

export type PurchaseDeps = Pick<OrdersDeps, 'platformFeeBps' | 'publicBaseUrl' | 'invoiceLinks'>;

export type PaymentOutcome =
  | { outcome: 'created'; orderIds: string[] }
  /** Paid before: its orders; a second, different payment is refunded (the refund's id). */
  | { outcome: 'already'; orderIds: string[]; refundId?: string }
  /** No order: paid another amount than quoted, for a session that had ended, or past its coupon's limit; the payment refunded. */
  | { outcome: 'refused'; refundId: string | undefined }
  | { outcome: 'unknown_checkout' };

/** A checkout's session locked for its payment (undefined: no such checkout). */
export type LockedSession = Awaited<ReturnType<typeof lockSessionForPayment>>;

/**
 * Turns a paid checkout into its orders: one per seller, `confirmed` with the units taken from
 * the reservation (or `pending` when they cannot be taken any more), the coupon's use counted,
 * what was bought taken out of the cart, the session completed and the order email written to
 * the outbox, all in ctx's transaction. A checkout already paid answers its orders and changes
 * nothing, whatever event reported it; `(checkout_id, seller_id)` is unique besides.
 */
export async function createFromCheckout(
  ctx: RequestContext,
  deps: PurchaseDeps,
  payment: { checkoutId: string; paymentIntentId: string; amountCents: number },
  /** The session, when the caller locked it already (lockSessionForPayment, in ctx's transaction). */
  locked?: { session: LockedSession },
): Promise<PaymentOutcome> {
  return inTransaction(ctx, async (tx) => {
    const session = locked ? locked.session : await lockSessionForPayment(tx, payment.checkoutId);
    if (!session) return { outcome: 'unknown_checkout' };
    if (session.status === 'complete') {
      const orderIds = await orderIdsOfCheckout(tx, session.id);
      if (session.paymentIntentId === payment.paymentIntentId || payment.amountCents <= 0) {
        return { outcome: 'already', orderIds };
      }
      // Another payment for a checkout already paid (paid twice, in two tabs): refunded whole,
      // once per payment, whatever event reports it.
      tx.log.warn(
        { checkoutId: session.id, paid: session.paymentIntentId, again: payment.paymentIntentId },
        'a second payment for a checkout already paid: refunded',
      );
      const refundId = await refundUnusedPayment(
        tx,
        { id: session.id, paymentIntentId: payment.paymentIntentId },
        payment.amountCents,
        'duplicate_payment',
      );
      return { outcome: 'already', orderIds, ...(refundId ? { refundId } : {}) };
    }
    if (session.status !== 'ready_for_payment') {
      // A payment for a session that had ended (replaced by a newer checkout, or expired): its
      // stock and coupon went back, so it makes no order. The session keeps its status; the
      // whole payment is refunded, once per payment, and the buyer told.
      tx.log.warn(
        { checkoutId: session.id, status: session.status, paymentIntentId: payment.paymentIntentId },
        'a payment for a checkout that had ended: no order, refunded',
      );
      return {
        outcome: 'refused',
        refundId: await refundWhole(tx, session, payment, 'checkout_closed'),
      };
    }
    if (session.couponCode && (await couponLimitReached(tx, session.couponCode, session.buyerId))) {
      // Counted again here, under the coupon's lock, where the redemption is written: a use
      // that would pass a limit makes no order, and the payment goes back.
      tx.log.warn(
        { checkoutId: session.id, coupon: session.couponCode },
        'a payment whose coupon reached its limit meanwhile: no order, refunded',
      );
      await expireCheckout(tx, session.id);
      return {
        outcome: 'refused',
        refundId: await refundWhole(tx, session, payment, 'coupon_used_up'),
      };
    }
    if (payment.amountCents !== session.totalCents) {
      // The provider charged something else than the quote the orders would record: no order;
      // the session ends (its stock goes back) and what was paid is refunded.
      tx.log.error(
        { checkoutId: session.id, quoted: session.totalCents, paid: payment.amountCents },
        'the amount paid differs from the quote: no order, the payment is refunded',
      );
      await expireCheckout(tx, session.id);
      const refundId =
        payment.amountCents > 0
          ? await refundUnusedPayment(
              tx,
              { id: session.id, paymentIntentId: payment.paymentIntentId },
              payment.amountCents,
              'amount_mismatch',
            )
          : undefined;
      return { outcome: 'refused', refundId };
    }
    const { phone: _phone, ...address } = session.address as StoredAddress;
    await lockVariants(
      tx,
      session.parcels.flatMap((p) => p.items.map(variantOf)),
    );
    // Each parcel's units first (in parcel order, the variants locked above), then all the
    // orders in one insert and all their items in another.
    const committed = await commitParcels(
      tx,
      session.id,
      session.parcels.map((p) => p.items.map((i) => ({ variantId: variantOf(i), quantity: i.quantity }))),
    );
    const created = await recordOrders(tx, {
      checkoutId: session.id,
      buyerId: session.buyerId,
      paymentIntentId: payment.paymentIntentId,
      address,
      parcels: session.parcels,
      committed,
      platformFeeBps: deps.platformFeeBps,
    });
    // Each order's invoice is issued now: what it names is what the seller and the platform are
    // at payment, whatever they change later.
    await issueInvoices(tx, created, session.mailNames.buyer?.name ?? '');
    // Nothing of the session is held any more: each parcel's reservations were committed, or
    // released when its stock could not be taken.
    if (session.couponCode) await redeemCoupon(tx, session.couponCode, session.buyerId, created[0]!.id);
    // Lines a platform gave were not the cart's: the cart stays as it is.
    if (heldFromCart(session)) {
      await clearPurchased(
        tx,
        session.buyerId,
        session.parcels.flatMap((p) =>
          p.items.map((i) => ({ variantId: variantOf(i), quantity: i.quantity })),
        ),
        session.couponCode,
      );
    }
    await markCheckoutPaid(tx, session.id, payment.paymentIntentId);
    for (const row of created) {
      await publish(tx, {
        type: 'order.paid',
        orderId: row.id,
        checkoutId: session.id,
        buyerId: row.buyerId,
        sellerId: row.sellerId,
        status: row.status,
      });
    }
    // Its subscribers write the buyer's email (purchase/mail.ts), linking the orders' pages and invoices.
    await publish(
      tx,
      {
        type: 'checkout.completed',
        checkoutId: session.id,
        buyerId: session.buyerId,
        orderIds: created.map((o) => o.id),
      },
      {
        publicBaseUrl: deps.publicBaseUrl,
        ...(deps.invoiceLinks ? { invoiceLinks: deps.invoiceLinks } : {}),
      },
    );

    return { outcome: 'created', orderIds: created.map((o) => o.id) };
  });
}

/**
 * The refund of a whole payment that made no order (its checkout had ended, or its coupon was
 * used up); written once per payment, the buyer told by a subscriber of its refund.requested.
 */
async function refundWhole(
  tx: RequestContext,
  session: NonNullable<LockedSession>,
  payment: { paymentIntentId: string; amountCents: number },
  reason: 'checkout_closed' | 'coupon_used_up',
): Promise<string | undefined> {
  if (payment.amountCents <= 0) return undefined;
  // Its refund.requested subscriber tells the buyer (purchase/mail.ts).
  return refundUnusedPayment(
    tx,
    { id: session.id, paymentIntentId: payment.paymentIntentId },
    payment.amountCents,
    reason,
  );
}
