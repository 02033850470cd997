// UCP's order capability (docs/ucp.md "Orders"): the orders one checkout became (one per seller's
// parcel) said as UCP's one order, read with GET /ucp/v1/orders/{id} and sent whole in every
// order webhook (webhooks.ts).
import { isoSecond } from '../../contract/common.ts';
import { BASE_LOCALE, type Locale, t } from '../../contract/i18n.ts';
import { UCP_VERSION, type UcpOrder, type UcpTotal } from '../../contract/ucp.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import type { CheckoutOrders } from '../agent-checkout/outbox.ts';
import { ordersOfCallersCheckout } from '../agent-checkout/session-reads.ts';
import { keyOf, lineId, orderIdOf } from '../agent-checkout/status.ts';
import type { RequestContext } from '../context.ts';
import { ORDER } from './profile.ts';

export type { CheckoutOrders };

/** The checkout an order id of ours names (`order_<key>` of `checkouts:<key>`), if it looks like one. */
export const checkoutOfOrderId = (id: string) =>
  /^order_[A-Za-z0-9_-]{1,40}$/.test(id) ? `checkouts:${id.slice('order_'.length)}` : undefined;

/**
 * The UCP order of a checkout's orders. `base` prefixes the permalink: the outbox keeps a path
 * and the job makes it absolute, as for ACP.
 */
export function toUcpOrder(
  base: string,
  sessionId: string,
  checkoutId: string,
  orders: CheckoutOrders,
  /** The language of its descriptions and display texts (a webhook's: the base locale). */
  locale: Locale = BASE_LOCALE,
): UcpOrder {
  const sum = (f: (o: CheckoutOrders[number]) => number) => orders.reduce((n, o) => n + f(o), 0);
  const live = orders.filter((o) => o.status !== 'cancelled');
  const totals: UcpTotal[] = [{ type: 'subtotal', amount: sum((o) => o.subtotalCents) }];
  const discount = sum((o) => o.discountCents);
  if (discount > 0) totals.push({ type: 'discount', amount: -discount });
  totals.push({
    type: 'fulfillment',
    display_text: t(locale, 'ucp.total.shipping'),
    amount: sum((o) => o.shippingCostCents),
  });
  totals.push({
    type: 'tax',
    display_text: t(locale, 'ucp.total.taxes'),
    amount: sum((o) => o.taxAmountCents),
  });
  totals.push({ type: 'total', amount: sum((o) => o.totalAmountCents) });
  const destination = (o: CheckoutOrders[number]) => ({
    street_address: o.shippingAddress.street,
    address_locality: o.shippingAddress.city,
    address_region: o.shippingAddress.province,
    postal_code: o.shippingAddress.postalCode,
    address_country: o.shippingAddress.country,
  });
  const lines = (o: CheckoutOrders[number]) =>
    o.items.map((i) => ({ id: lineId(i.variantId), quantity: i.quantity }));
  return {
    ucp: { version: UCP_VERSION, capabilities: { [ORDER]: [{ version: UCP_VERSION }] } },
    id: orderIdOf(checkoutId),
    checkout_id: sessionId,
    permalink_url: `${base}/account/purchases/${encodeURIComponent(checkoutId)}`,
    line_items: orders.flatMap((o) =>
      o.items.map((i) => {
        const total = o.status === 'cancelled' ? 0 : i.quantity;
        const fulfilled = o.status === 'shipped' || o.status === 'delivered' ? total : 0;
        const amount = i.unitPriceCents * i.quantity;
        return {
          id: lineId(i.variantId),
          item: { id: i.variantId, title: i.name, price: i.unitPriceCents },
          quantity: { original: i.quantity, total, fulfilled },
          totals: [
            { type: 'subtotal', amount },
            { type: 'total', amount },
          ],
          status: total === 0 ? 'removed' : fulfilled === total ? 'fulfilled' : 'processing',
        };
      }),
    ),
    fulfillment: {
      expectations: live.map((o) => ({
        id: `parcel_${keyOf(o.id)}`,
        line_items: lines(o),
        method_type: 'shipping' as const,
        destination: destination(o),
        // The date as ISO 8601 in both locales (the form Quebec's own style guide accepts).
        description: t(locale, 'ucp.order.expected', { date: o.estimatedDelivery }),
      })),
      events: orders.flatMap((o) => [
        ...(o.shippedAt
          ? [
              {
                id: `shipped_${keyOf(o.id)}`,
                occurred_at: isoSecond(o.shippedAt),
                type: 'shipped',
                line_items: lines(o),
                ...(o.trackingNumber ? { tracking_number: o.trackingNumber } : {}),
                ...(o.carrier ? { carrier: o.carrier } : {}),
              },
            ]
          : []),
        ...(o.deliveredAt
          ? [
              {
                id: `delivered_${keyOf(o.id)}`,
                occurred_at: isoSecond(o.deliveredAt),
                type: 'delivered',
                line_items: lines(o),
              },
            ]
          : []),
        ...(o.cancelledAt
          ? [
              {
                id: `canceled_${keyOf(o.id)}`,
                occurred_at: isoSecond(o.cancelledAt),
                type: 'canceled',
                line_items: lines(o),
              },
            ]
          : []),
      ]),
    },
    adjustments: orders
      .filter((o) => o.refundedCents > 0)
      .map((o) => ({
        id: `refund_${keyOf(o.id)}`,
        type: 'refund',
        occurred_at: isoSecond(o.cancelledAt ?? o.deliveredAt ?? o.createdAt),
        status: 'completed' as const,
        totals: [{ type: 'total', amount: -o.refundedCents }],
        description: t(locale, 'ucp.order.refunded', { seller: o.sellerId }),
      })),
    currency: 'CAD',
    totals,
  };
}

/** GET /orders/{id}: the caller's order (a platform's, or a person's own), or undefined. */
export async function getUcpOrder(
  ctx: RequestContext,
  publicBaseUrl: string,
  who: AgentCaller,
  id: string,
): Promise<UcpOrder | undefined> {
  const checkoutId = checkoutOfOrderId(id);
  if (!checkoutId) return undefined;
  const found = await ordersOfCallersCheckout(ctx, who, 'ucp', checkoutId);
  if (!found) return undefined;
  return toUcpOrder(publicBaseUrl, found.sessionId, checkoutId, found.orders, ctx.locale ?? BASE_LOCALE);
}
