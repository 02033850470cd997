// The buyer's emails about an order after it exists (shipped, cancelled, refunded), each written
// by a subscriber of the order's event (subscriptions.ts) in the transaction of the change: queued
// with it, never for a change rolled back. In the buyer's language (mail/locale.ts): their
// preference, else French for an order shipped to Quebec, else their own request's, else the
// platform's.
import { BASE_LOCALE, type Locale, t } from '../../contract/i18n.ts';
import type { RequestContext } from '../context.ts';
import type { EventOf, Links } from '../events.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import {
  type OrderMailOrder,
  orderCancelledEmail,
  orderRefundedEmail,
  orderShippedEmail,
} from '../mail/templates.ts';
import { orderForMail } from './queries.ts';
import type { orderItems, orders } from './tables.ts';

type OrderRow = typeof orders.$inferSelect;
type ItemRow = typeof orderItems.$inferSelect;

/** What an order's email shows of it. */
type MailedOrder = Pick<
  OrderRow,
  | 'id'
  | 'number'
  | 'sellerId'
  | 'subtotalCents'
  | 'discountCents'
  | 'shippingCostCents'
  | 'taxLines'
  | 'taxAmountCents'
  | 'totalAmountCents'
  | 'estimatedDelivery'
  | 'trackingNumber'
  | 'carrier'
  | 'shippingAddress'
> & { items: Array<Pick<ItemRow, 'name' | 'quantity' | 'unitPriceCents' | 'position'>> };

/** Orders as their emails show them (each seller named by its shop). */
export function mailOrdersOf(
  list: MailedOrder[],
  /** The sellers' shop names. */
  shops: Map<string, string>,
  links: {
    /** Each order's invoice link, when the email gives one (the paid email). */
    invoiceUrlOf?: (orderId: string) => string;
    /** PUBLIC_BASE_URL: the email links each order's page in the buyer's account. */
    publicBaseUrl?: string;
  } = {},
): OrderMailOrder[] {
  const { invoiceUrlOf, publicBaseUrl } = links;
  return list.map((o) => ({
    id: o.id,
    number: o.number,
    // Unknown (the account is gone): the email says "Portage seller" in the reader's words.
    sellerName: shops.get(o.sellerId) ?? '',
    items: [...o.items]
      .sort((a, b) => a.position - b.position)
      .map((i) => ({ name: i.name, quantity: i.quantity, unitPriceCents: i.unitPriceCents })),
    subtotalCents: o.subtotalCents,
    discountCents: o.discountCents,
    shippingCostCents: o.shippingCostCents,
    taxLines: o.taxLines,
    taxAmountCents: o.taxAmountCents,
    totalAmountCents: o.totalAmountCents,
    estimatedDelivery: o.estimatedDelivery,
    trackingNumber: o.trackingNumber,
    carrier: o.carrier,
    shippingAddress: o.shippingAddress,
    ...(invoiceUrlOf ? { invoiceUrl: invoiceUrlOf(o.id) } : {}),
    ...(publicBaseUrl ? { pageUrl: `${publicBaseUrl}/account/orders/${encodeURIComponent(o.id)}` } : {}),
  }));
}

type Built = { subject: string; text: string; html: string };
type MailedRow = NonNullable<Awaited<ReturnType<typeof orderForMail>>>;

/**
 * Writes the buyer's email about order `orderId` as it is now in ctx's transaction (the order,
 * its items and its people's names read in one statement), the message made by `build`.
 */
async function buyerMail(
  ctx: RequestContext,
  orderId: string,
  dedupeKey: string,
  build: (buyerName: string, order: OrderMailOrder, locale: Locale, row: MailedRow) => Built,
  publicBaseUrl?: string,
) {
  const row = await orderForMail(ctx, orderId);
  const buyer = row?.mailNames.buyer;
  if (!row || !buyer) return;
  const locale = mailLocale(
    ctx,
    { id: row.buyerId, locale: buyer.locale },
    { shippingProvince: (row.shippingAddress as { province?: string }).province },
  );
  const shops = new Map(Object.entries(row.mailNames.shops));
  const [order] = mailOrdersOf([row], shops, publicBaseUrl ? { publicBaseUrl } : {});
  await enqueueMail(ctx, {
    dedupeKey,
    kind: dedupeKey.split(':')[0]!,
    to: buyer.email,
    ...build(buyer.name, order!, locale, row),
  });
}

/** order.shipped: the buyer's email with its tracking number. */
export async function mailOrderShipped(
  ctx: RequestContext,
  event: EventOf<'order.shipped'>,
  links: Links,
): Promise<void> {
  await buyerMail(
    ctx,
    event.orderId,
    `order-shipped:${event.orderId}`,
    (buyerName, order, locale) => orderShippedEmail({ buyerName, order }, locale),
    links.publicBaseUrl,
  );
}

/** The reason stored for an order the service cancelled unconfirmed (in the base locale); said in the reader's. */
export const UNCONFIRMED_REASON = t(BASE_LOCALE, 'mail.orderCancelled.unconfirmed');

/** order.cancelled: the buyer's email with the reason and what is refunded (all that was not yet). */
export async function mailOrderCancelled(
  ctx: RequestContext,
  event: EventOf<'order.cancelled'>,
  links: Links,
): Promise<void> {
  await buyerMail(
    ctx,
    event.orderId,
    `order-cancelled:${event.orderId}`,
    (buyerName, order, locale, row) =>
      orderCancelledEmail(
        {
          buyerName,
          order,
          reason:
            row.cancelReason === UNCONFIRMED_REASON
              ? t(locale, 'mail.orderCancelled.unconfirmed')
              : (row.cancelReason ?? ''),
          refundCents: row.totalAmountCents - row.refundedCents,
        },
        locale,
      ),
    links.publicBaseUrl,
  );
}

/** refund.succeeded of an order (not a return's, whose own email tells): the buyer's email. */
export async function mailOrderRefunded(
  ctx: RequestContext,
  event: EventOf<'refund.succeeded'>,
): Promise<void> {
  if (event.returnId) return;
  await buyerMail(ctx, event.orderId, `refund:${event.refundId}`, (buyerName, mailed, locale) =>
    orderRefundedEmail({ buyerName, order: mailed, refundCents: event.amountCents }, locale),
  );
}
