// ACP's order events (docs/acp.md "Order events to the platform"): the outbox row's body (the
// ACP Order as it then is, `order_create` once per checkout, then `order_update`) and its
// deliverer (the POST signed with `Merchant-Signature: t=<unix>,v1=<hex>`). The outbox itself,
// its subscriber and its job are the core's (agent-checkout/outbox.ts).
import type { AcpOrder, AcpWebhookEvent } from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import { BASE_LOCALE, t } from '../../contract/i18n.ts';
import { postFenced } from '../../http/outbound.ts';
import {
  type CheckoutOrders,
  type Claimed,
  type Deliverer,
  eventSubject,
  type OrderEventBody,
} from '../agent-checkout/outbox.ts';
import { keyOf, lineId, orderIdOf } from '../agent-checkout/status.ts';
import { signatureHeader } from '../payments/signature.ts';
import { ACP_VERSION } from './answer.ts';

const POST_TIMEOUT_MS = 5_000;

/** The ACP Order of a checkout's orders: one order, one fulfillment per seller's parcel. */
export function toAcpOrder(
  publicBaseUrl: string,
  sessionId: string,
  checkoutId: string,
  orders: CheckoutOrders,
): AcpOrder & { type: 'order'; status: string } {
  const rank = { pending: 0, confirmed: 1, shipped: 2, delivered: 3 } as const;
  const live = orders.filter((o) => o.status !== 'cancelled');
  const least = live.reduce<keyof typeof rank | undefined>(
    (min, o) =>
      min === undefined || rank[o.status as keyof typeof rank] < rank[min]
        ? (o.status as keyof typeof rank)
        : min,
    undefined,
  );
  const status =
    least === undefined
      ? 'canceled'
      : { pending: 'created', confirmed: 'confirmed', shipped: 'shipped', delivered: 'completed' }[least];
  const refunded = orders.reduce((n, o) => n + o.refundedCents, 0);
  return {
    type: 'order',
    id: orderIdOf(checkoutId),
    checkout_session_id: sessionId,
    permalink_url: `${publicBaseUrl}/account/purchases/${encodeURIComponent(checkoutId)}`,
    status,
    line_items: orders.flatMap((o) =>
      o.items.map((i) => ({
        id: lineId(i.variantId),
        title: i.name,
        product_id: i.productId,
        quantity: {
          ordered: i.quantity,
          current: o.status === 'cancelled' ? 0 : i.quantity,
          fulfilled: o.status === 'shipped' || o.status === 'delivered' ? i.quantity : 0,
        },
        unit_price: i.unitPriceCents,
        subtotal: i.unitPriceCents * i.quantity,
        status: o.status,
      })),
    ),
    fulfillments: orders.map((o) => ({
      id: `fulfillment_${keyOf(o.id)}`,
      type: 'shipping' as const,
      status: o.status,
      line_items: o.items.map((i) => ({ id: lineId(i.variantId), quantity: i.quantity })),
      ...(o.carrier ? { carrier: o.carrier } : {}),
      ...(o.trackingNumber ? { tracking_number: o.trackingNumber } : {}),
    })),
    adjustments: orders
      .filter((o) => o.refundedCents > 0)
      .map((o) => ({
        id: `refund_${keyOf(o.id)}`,
        type: 'refund',
        occurred_at: isoSecond(o.cancelledAt ?? o.deliveredAt ?? o.createdAt),
        status: 'completed',
        amount: o.refundedCents,
        currency: 'cad',
        description: t(BASE_LOCALE, 'acp.order.refunded', { seller: o.sellerId }),
      })),
    totals: [
      {
        type: 'total',
        display_text: t(BASE_LOCALE, 'acp.total.total'),
        amount: orders.reduce((n, o) => n + o.totalAmountCents, 0),
      },
      ...(refunded > 0
        ? [
            {
              type: 'amount_refunded' as const,
              display_text: t(BASE_LOCALE, 'acp.total.refunded'),
              amount: refunded,
            },
          ]
        : []),
    ],
  };
}

/** ACP's: `order_create` once per checkout, then `order_update`, the permalink a path. */
export const acpOrderEventBody: OrderEventBody = (event, session, checkoutId, orders) => {
  const created = event.type === 'checkout.completed';
  const key = keyOf(checkoutId);
  const eventId = created
    ? `evt_${key}_created`
    : `evt_${key}_${event.type.replace('.', '_')}_${eventSubject(event)}`;
  const data = toAcpOrder('', session.id, checkoutId, orders);
  const body: AcpWebhookEvent = { type: created ? 'order_create' : 'order_update', data };
  return { eventId, body: JSON.stringify(body) };
};

/** The row's body with its permalink made absolute (stored as a path: see queueOrderEvent). */
function withBase(row: Claimed, publicBaseUrl: string): Claimed {
  const event = JSON.parse(row.body) as AcpWebhookEvent;
  event.data.permalink_url = `${publicBaseUrl}${event.data.permalink_url}`;
  return { ...row, body: JSON.stringify(event) };
}

/**
 * ACP's deliverer: a row POSTed with its permalink made absolute, signed with the platform's
 * webhook secret, fenced as every outbound call is (no private, loopback or link-local address
 * outside development, no redirect): why it failed, or undefined.
 */
export function acpDeliverer(opts: { publicBaseUrl: string; development: boolean }): Deliverer {
  return (ctx, row) => postAcp(withBase(row, opts.publicBaseUrl), ctx.now(), opts.development);
}

async function postAcp(row: Claimed, now: Date, development: boolean): Promise<string | undefined> {
  try {
    const headers = {
      'content-type': 'application/json',
      'merchant-signature': signatureHeader(row.body, row.webhookSecret, Math.floor(now.getTime() / 1000)),
      'idempotency-key': row.eventId,
      'api-version': ACP_VERSION,
      'user-agent': 'Portage-ACP-Webhooks',
    };
    const status = await postFenced(row.webhookUrl, headers, row.body, development, POST_TIMEOUT_MS);
    return status < 200 || status >= 300 ? `answered ${status}` : undefined;
  } catch (err) {
    return err instanceof Error ? err.message.slice(0, 200) : 'failed';
  }
}
