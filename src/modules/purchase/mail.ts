// The buyer's email about a purchase, written by a subscriber of its events (subscriptions.ts) in
// the transaction that made the orders: queued with them, never for a purchase rolled back.
import { isRecordId } from '../../contract/common.ts';
import { sessionPaidIn } from '../checkout/service.ts';
import type { StoredAddress } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import type { EventOf, Links } from '../events.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { orderPaidEmail, paymentRefundedEmail } from '../mail/templates.ts';
import { recordedOrdersIn } from '../orders/create.ts';
import { mailOrdersOf } from '../orders/mail.ts';
import { refundReasonOf } from './queries.ts';

/** checkout.completed: the buyer's order email, its orders and names as the payment's transaction wrote and read them. */
export async function mailOrderPaid(
  ctx: RequestContext,
  event: EventOf<'checkout.completed'>,
  links: Links,
): Promise<void> {
  const session = await sessionPaidIn(ctx, event.checkoutId);
  const created = recordedOrdersIn(ctx, event.checkoutId);
  const buyer = session?.mailNames.buyer;
  if (!session || !created || !buyer) return;
  const locale = mailLocale(
    ctx,
    { id: session.buyerId, locale: buyer.locale },
    { shippingProvince: (session.address as StoredAddress).province },
  );
  const invoices = links.invoiceLinks;
  const mailOrders = mailOrdersOf(created, new Map(Object.entries(session.mailNames.shops)), {
    invoiceUrlOf:
      invoices && ((orderId) => invoices.urlOf({ orderId, buyerId: session.buyerId }, locale, ctx.now())),
    ...(links.publicBaseUrl ? { publicBaseUrl: links.publicBaseUrl } : {}),
  });
  await enqueueMail(ctx, {
    dedupeKey: `order-paid:${session.id}`,
    kind: 'order-paid',
    to: buyer.email,
    ...orderPaidEmail({ buyerName: buyer.name, orders: mailOrders, totalCents: session.totalCents }, locale),
  });
}

/** The refunds of a payment that made no order whose buyer is told (flow.ts refundWhole). */
const TOLD: ReadonlySet<string> = new Set(['checkout_closed', 'coupon_used_up']);

/**
 * refund.requested of a payment that made no order (its "order" is the checkout): the buyer's
 * email, when its checkout had ended or its coupon was used up, once per payment.
 */
export async function mailPaymentRefunded(
  ctx: RequestContext,
  event: EventOf<'refund.requested'>,
): Promise<void> {
  if (!isRecordId('checkouts', event.orderId)) return;
  const refund = await refundReasonOf(ctx, event.refundId);
  if (!refund || !TOLD.has(refund.reason)) return;
  const session = await sessionPaidIn(ctx, event.orderId);
  const buyer = session?.mailNames.buyer;
  if (!session || !buyer) return;
  const locale = mailLocale(
    ctx,
    { id: session.buyerId, locale: buyer.locale },
    { shippingProvince: (session.address as StoredAddress).province },
  );
  await enqueueMail(ctx, {
    dedupeKey: `payment-refunded:${refund.paymentIntentId}`,
    kind: 'payment-refunded',
    to: buyer.email,
    ...paymentRefundedEmail(
      {
        buyerName: buyer.name,
        amountCents: event.amountCents,
        reason: refund.reason as 'checkout_closed' | 'coupon_used_up',
      },
      locale,
    ),
  });
}
