// The buyer's email about a purchase, written by a subscriber of its events (subscriptions.ts) in
// the transaction that made the orders: queued with them, never for a purchase rolled back.
import { sessionPaidIn } from '../checkout/service.ts';
import type { StoredAddress } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import type { EventOf, Links } from '../events.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { orderPaidEmail } from '../mail/templates.ts';
import { recordedOrdersIn } from '../orders/create.ts';
import { mailOrdersOf } from '../orders/mail.ts';

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
