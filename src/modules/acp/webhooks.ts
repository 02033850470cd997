// Order events to the platforms (docs/acp.md "Order events to the platform", docs/ucp.md "Order
// webhooks"): a subscriber of the domain events writes an outbox row in the transaction that made
// the change (the full order as it then is, in the session's protocol, under a stable event id);
// a job POSTs the rows, each session's rows in order, retrying with backoff for a day: ACP's
// signed `Merchant-Signature: t=<unix>,v1=<hex>` here, UCP's by its own deliverer (ucp/webhooks.ts,
// given to the job). A row is claimed by pushing its next attempt a lease ahead, so no
// transaction stays open across the network call.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AcpOrder, AcpWebhookEvent } from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import { BASE_LOCALE, t } from '../../contract/i18n.ts';
import { insertInto, ph, pipeline, rowsOf, statement } from '../../db/sql.ts';
import { postFenced } from '../../http/outbound.ts';
import type { Job } from '../../jobs/runner.ts';
import { holderOfPaidCheckout } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import type { DomainEvent } from '../events.ts';
import { ordersOfOneCheckout, ordersWrittenIn } from '../orders/service.ts';
import { signatureHeader } from '../payments/signature.ts';
import { platforms } from '../platforms/tables.ts';
import { ACP_VERSION, acpOrderId, keyOf, lineId } from './answer.ts';
import { acpSessions, acpWebhookDeliveries } from './tables.ts';

/** How long a row is retried before it is given up. */
const RETRY_FOR_MS = 24 * 60 * 60 * 1000;
/** A claimed row is not claimed again for this long (the POST's own limit is far shorter). */
const LEASE_MS = 60_000;
const POST_TIMEOUT_MS = 5_000;
/** Rows one pass sends, and at most per platform (a slow endpoint never takes a whole pass). */
const BATCH = 20;
const PER_PLATFORM = 5;

type Orders = Awaited<ReturnType<typeof ordersOfOneCheckout>>;

/** The ACP Order of a checkout's orders: one order, one fulfillment per seller's parcel. */
export function toAcpOrder(
  publicBaseUrl: string,
  sessionId: string,
  checkoutId: string,
  orders: Orders,
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
    id: acpOrderId(checkoutId),
    checkout_session_id: sessionId,
    permalink_url: `${publicBaseUrl}/account/purchases/${encodeURIComponent(checkoutId)}`,
    status,
    line_items: orders.flatMap((o) =>
      o.items.map((i) => ({
        id: lineId(i.productId),
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
      line_items: o.items.map((i) => ({ id: lineId(i.productId), quantity: i.quantity })),
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
        description: t(BASE_LOCALE, 'ucp.order.refunded', { seller: o.sellerId }),
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

/** An outbox row's event id and body for one order event, in a protocol's words. */
export type OrderEventBody = (
  event: DomainEvent,
  session: { id: string },
  checkoutId: string,
  orders: Orders,
) => { eventId: string; body: string };

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

/**
 * The subscriber: an order event of a checkout a platform's adapter session made writes that
 * platform's outbox row (in the event's transaction), its body by the session's protocol (the
 * prefix of its id). The row's permalink is a path: the job, which knows the public URL, makes
 * it absolute.
 */
export const orderEventQueue =
  (bodies: Record<string, OrderEventBody>) =>
  (ctx: RequestContext, event: DomainEvent): Promise<void> =>
    queueOrderEvent(ctx, event, bodies);

async function queueOrderEvent(
  ctx: RequestContext,
  event: DomainEvent,
  bodies: Record<string, OrderEventBody>,
): Promise<void> {
  const created = event.type === 'checkout.completed';
  // A purchase costs nothing here unless an adapter's session made it (whom its checkout was
  // held for, read from the session its payment locked: no round trip); an order's change costs
  // a look-up of its checkout's session; a refund's or a return's, a read of the order's checkout first.
  const holder = created ? await holderOfPaidCheckout(ctx, event.checkoutId) : null;
  if (created && !holder) return;
  const known = created || 'checkoutId' in event ? (event as { checkoutId: string }).checkoutId : undefined;
  let orders =
    known === undefined && 'orderId' in event
      ? await ordersOfOneCheckout(ctx, { orderId: event.orderId })
      : undefined;
  const checkoutId = known ?? orders?.[0]?.checkoutId;
  if (!checkoutId) return;
  // In the purchase's own transaction, its orders are the ones just written and its session's
  // platform is its checkout's holder: nothing to read.
  const written = holder
    ? { id: holder.key, owner: holder.owner, orders: ordersWrittenIn(ctx, checkoutId) }
    : undefined;
  let session: SessionOwner | undefined;
  if (written?.orders) {
    session = { id: written.id, platformId: written.owner ?? null };
    orders = written.orders;
  } else {
    // A purchase's session and orders are read in one round trip (its orders were just written).
    const [[found], ordersNow] = await pipeline(ctx, [
      (c) => (holder ? sessionById(c.db, { id: holder.key }) : sessionOfCheckout(c.db, { checkoutId })),
      created && ((c) => ordersOfOneCheckout(c, { checkoutId })),
    ]);
    session = found;
    if (ordersNow) orders ??= ordersNow;
  }
  if (!session?.platformId) return; // not a platform's purchase (an agent's has no webhook)
  const bodyOf = bodies[session.id.slice(0, session.id.indexOf('_'))];
  if (!bodyOf) return;
  orders ??= await ordersOfOneCheckout(ctx, { checkoutId });
  const { eventId, body } = bodyOf(event, session, checkoutId, orders);
  const now = ctx.now();
  // Written with the transaction's next statement (or its commit): nobody reads its answer.
  await insertDelivery.later(ctx.db, [
    {
      eventId,
      platformId: session.platformId,
      acpSessionId: session.id,
      body,
      nextAttemptAt: now,
      createdAt: now,
    },
  ]);
}

type SessionOwner = { id: string; platformId: string | null };
const sessionById = statement<SessionOwner>(
  'acp_session_owner_by_id',
  sql`select id, platform_id as "platformId" from ${acpSessions} where id = ${ph('id')}`,
);
const sessionOfCheckout = statement<SessionOwner>(
  'acp_session_owner_by_checkout',
  sql`select id, platform_id as "platformId" from ${acpSessions} where checkout_id = ${ph('checkoutId')}`,
);
const insertDelivery = insertInto('acp_insert_delivery', acpWebhookDeliveries, {
  onConflictDoNothing: [acpWebhookDeliveries.eventId],
});

/** What makes an event's id unique: the order, refund or return it is about. */
export function eventSubject(event: DomainEvent): string {
  const id =
    event.type === 'refund.succeeded'
      ? event.refundId
      : 'returnId' in event && event.returnId
        ? event.returnId
        : 'orderId' in event
          ? event.orderId
          : event.checkoutId;
  return keyOf(id);
}

/** The order events an ACP platform hears of. */
export const ACP_ORDER_EVENTS = [
  'checkout.completed',
  'order.confirmed',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'refund.succeeded',
  'return.approved',
  'return.rejected',
] as const satisfies ReadonlyArray<DomainEvent['type']>;

/** The wait before the next try after `attempts` failed ones: 30 s doubling, at most an hour. */
export const backoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

export interface Claimed {
  id: number;
  eventId: string;
  /** The adapter session the row is about (its prefix says its protocol). */
  sessionId: string;
  body: string;
  attempts: number;
  createdAt: Date;
  webhookUrl: string;
  webhookSecret: string;
  /** The platform's UCP profile (where a UCP row goes is read from it). */
  ucpProfileUrl: string | null;
  revoked: boolean;
}

/** Sends a row of another protocol's session (UCP's); answers why it failed, or undefined when delivered. */
export type Deliverer = (ctx: RequestContext, row: Claimed) => Promise<string | undefined>;

/** The job: sends due rows, the oldest undelivered row of each session only. */
export function acpWebhookJob(opts: {
  publicBaseUrl: string;
  /** Whether loopback and private addresses may be reached (APP_ENV=development): else refused. */
  development: boolean;
  everyMs?: number;
  /**
   * The deliverers of other protocols' rows, by their sessions' id prefix (`ucp` for `ucp_cs_…`),
   * as the subscriber's bodies are; ACP's own rows are posted here.
   */
  deliverers?: Record<string, Deliverer>;
}): Job {
  return {
    name: 'acp-webhooks',
    everyMs: opts.everyMs ?? 2_000,
    batch: BATCH,
    async run(ctx) {
      const now = ctx.now();
      const d = acpWebhookDeliveries;
      const claimed = await rowsOf<Claimed>(
        ctx.db,
        sql`with due as (
            select d.id, row_number() over (partition by d.platform_id order by d.next_attempt_at, d.id) as n
            from ${d} d
            where d.delivered_at is null and d.abandoned_at is null and d.next_attempt_at <= ${now.toISOString()}::timestamptz
              and not exists (select 1 from ${d} e where e.acp_session_id = d.acp_session_id and e.id < d.id
                and e.delivered_at is null and e.abandoned_at is null)
          ), picked as (
            select id from ${d} where id in (select id from due where n <= ${PER_PLATFORM})
            order by next_attempt_at limit ${BATCH} for update skip locked
          )
          update ${d} set next_attempt_at = ${new Date(now.getTime() + LEASE_MS).toISOString()}::timestamptz,
            attempts = ${d.attempts} + 1
          from picked, ${platforms} p
          where ${d.id} = picked.id and p.id = ${d.platformId}
          returning ${d.id} as id, ${d.eventId} as "eventId", ${d.acpSessionId} as "sessionId", ${d.body} as body,
            ${d.attempts} as attempts, ${d.createdAt} as "createdAt", p.webhook_url as "webhookUrl",
            p.webhook_secret as "webhookSecret", p.ucp_profile_url as "ucpProfileUrl",
            (p.revoked_at is not null) as revoked`,
      );
      await Promise.all(
        claimed.map((row) => {
          const protocol = row.sessionId.slice(0, row.sessionId.indexOf('_'));
          const other = opts.deliverers?.[protocol];
          return deliver(ctx, row, () =>
            other ? other(ctx, row) : postAcp(withBase(row, opts.publicBaseUrl), ctx.now(), opts.development),
          );
        }),
      );
      return claimed.length;
    },
  };
}

/** The row's body with its permalink made absolute (stored as a path: see queueOrderEvent). */
function withBase(row: Claimed, publicBaseUrl: string): Claimed {
  const event = JSON.parse(row.body) as AcpWebhookEvent;
  event.data.permalink_url = `${publicBaseUrl}${event.data.permalink_url}`;
  return { ...row, body: JSON.stringify(event) };
}

/**
 * ACP's POST of a row, signed with the platform's webhook secret, fenced as UCP's are (no private,
 * loopback or link-local address outside development, no redirect): why it failed, or undefined.
 */
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

/** Sends a claimed row with `post`, then records it delivered, retried later, or given up. */
async function deliver(ctx: RequestContext, row: Claimed, post: () => Promise<string | undefined>) {
  const d = acpWebhookDeliveries;
  const now = ctx.now();
  const held = and(eq(d.id, row.id), isNull(d.deliveredAt));
  if (row.revoked) {
    await ctx.db.update(d).set({ abandonedAt: now, lastError: 'the platform was revoked' }).where(held);
    return;
  }
  const failure = await post();
  if (!failure) {
    await ctx.db.update(d).set({ deliveredAt: ctx.now(), lastError: null }).where(held);
    return;
  }
  const giveUp = now.getTime() - new Date(row.createdAt).getTime() >= RETRY_FOR_MS;
  ctx.log.warn(
    { eventId: row.eventId, attempts: row.attempts, failure, giveUp },
    'a platform webhook was not accepted',
  );
  await ctx.db
    .update(d)
    .set(
      giveUp
        ? { abandonedAt: now, lastError: failure }
        : { nextAttemptAt: new Date(now.getTime() + backoffMs(row.attempts)), lastError: failure },
    )
    .where(held);
}
