// Order events to the platforms (docs/acp.md "Order events to the platform", docs/ucp.md "Order
// webhooks"), for every protocol alike: a subscriber of the domain events writes an outbox row in
// the transaction that made the change (the full order as it then is, built by the session's
// protocol's skin, under a stable event id); a job POSTs the rows through each protocol's
// deliverer (its signer and headers), each session's rows in order, retrying with backoff for a
// day. A row is claimed by pushing its next attempt a lease ahead, so no transaction stays open
// across the network call.

import type { Job } from '../../jobs/runner.ts';
import { currentTraceparent, inSpanFrom, PRODUCER_SPAN } from '../../telemetry/tracing.ts';
import { holderOfPaidCheckout } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import type { DomainEvent, EventOf } from '../events.ts';
import { ordersOfOneCheckout, ordersWrittenIn } from '../orders/service.ts';
import {
  type Claimed,
  claimDueDeliveries,
  queueDelivery,
  recordAttempt,
  type SessionOwner,
  sessionOwnerWith,
} from './queries.ts';
import { keyOf } from './status.ts';

export type { Claimed };

/** How long a row is retried before it is given up. */
const RETRY_FOR_MS = 24 * 60 * 60 * 1000;
/** A claimed row is not claimed again for this long (the POST's own limit is far shorter). */
const LEASE_MS = 60_000;
/** Rows one pass sends, and at most per platform (a slow endpoint never takes a whole pass). */
const BATCH = 20;
const PER_PLATFORM = 5;

/** The orders one checkout became, as a skin's order body reads them. */
export type CheckoutOrders = Awaited<ReturnType<typeof ordersOfOneCheckout>>;

/**
 * An outbox row's event id and body for one order event, in a protocol's words. The body's
 * permalink is a path: the protocol's deliverer, which knows the public URL, makes it absolute.
 */
export type OrderEventBody = (
  event: OrderEvent,
  session: { id: string },
  checkoutId: string,
  orders: CheckoutOrders,
) => { eventId: string; body: string };

/** Sends a claimed row of its protocol's session; answers why it failed, or undefined when delivered. */
export type Deliverer = (ctx: RequestContext, row: Claimed) => Promise<string | undefined>;

/** What a protocol's skin gives the outbox: how its rows are written, and how they are sent. */
export interface OutboxSkin {
  body: OrderEventBody;
  deliver: Deliverer;
}

/** The order events a platform hears of. */
export const ORDER_EVENTS = [
  'checkout.completed',
  'order.confirmed',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'refund.succeeded',
  'return.approved',
  'return.rejected',
  'return.received',
] as const satisfies ReadonlyArray<DomainEvent['type']>;

/** An event a platform hears of. */
export type OrderEvent = EventOf<(typeof ORDER_EVENTS)[number]>;

/** The protocol of a session, by its id's prefix (`acp` for `acp_cs_…`). */
const protocolOf = (sessionId: string) => sessionId.slice(0, sessionId.indexOf('_'));

/**
 * The subscriber: an order event of a checkout a platform's session made writes that platform's
 * outbox row (in the event's transaction), its body by the session's protocol.
 */
export const orderEventQueue =
  (bodies: Record<string, OrderEventBody>) =>
  (ctx: RequestContext, event: OrderEvent): Promise<void> =>
    queueOrderEvent(ctx, event, bodies);

async function queueOrderEvent(
  ctx: RequestContext,
  event: OrderEvent,
  bodies: Record<string, OrderEventBody>,
): Promise<void> {
  const created = event.type === 'checkout.completed';
  // A purchase costs nothing here unless an agent's session made it (whom its checkout was held
  // for, read from the session its payment locked: no round trip); an order's change costs a
  // look-up of its checkout's session; a refund's or a return's, a read of the order's checkout first.
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
    const { owner, also: ordersNow } = await sessionOwnerWith(
      ctx,
      holder ? { sessionId: holder.key } : { checkoutId },
      created ? (c) => ordersOfOneCheckout(c, { checkoutId }) : undefined,
    );
    session = owner;
    if (ordersNow) orders ??= ordersNow;
  }
  if (!session?.platformId) return; // not a platform's purchase (an agent's has no webhook)
  const bodyOf = bodies[protocolOf(session.id)];
  if (!bodyOf) return;
  orders ??= await ordersOfOneCheckout(ctx, { checkoutId });
  const { eventId, body } = bodyOf(event, session, checkoutId, orders);
  const now = ctx.now();
  // Written with the transaction's next statement (or its commit): nobody reads its answer.
  await queueDelivery(ctx, {
    eventId,
    platformId: session.platformId,
    sessionId: session.id,
    body,
    nextAttemptAt: now,
    createdAt: now,
    traceparent: currentTraceparent(),
  });
}

/** What makes an event's id unique: the order, refund or return it is about. */
export function eventSubject(event: OrderEvent): string {
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

/** The wait before the next try after `attempts` failed ones: 30 s doubling, at most an hour. */
export const backoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);

/** The job: sends due rows through their protocol's deliverer, the oldest undelivered row of each session only. */
export function outboxJob(opts: {
  /** The deliverers, by their sessions' id prefix (`ucp` for `ucp_cs_…`), as the subscriber's bodies are. */
  deliverers: Record<string, Deliverer>;
  everyMs?: number;
}): Job {
  return {
    name: 'acp-webhooks',
    everyMs: opts.everyMs ?? 2_000,
    batch: BATCH,
    async run(ctx) {
      const claimed = await claimDueDeliveries(ctx, ctx.now(), {
        leaseMs: LEASE_MS,
        batch: BATCH,
        perPlatform: PER_PLATFORM,
      });
      await Promise.all(
        claimed.map((row) => {
          const protocol = protocolOf(row.sessionId);
          const deliverer = opts.deliverers[protocol];
          // The delivery continues the trace of the change that wrote the row (its purchase, say).
          return inSpanFrom(
            { traceparent: row.traceparent },
            `webhook ${protocol}`,
            () =>
              deliver(ctx, row, () =>
                deliverer ? deliverer(ctx, row) : Promise.resolve('no deliverer for its protocol'),
              ),
            {
              kind: PRODUCER_SPAN,
              attributes: { 'portage.event.id': row.eventId, 'portage.attempt': row.attempts },
            },
          );
        }),
      );
      return claimed.length;
    },
  };
}

/** Sends a claimed row with `post`, then records it delivered, retried later, or given up. */
async function deliver(ctx: RequestContext, row: Claimed, post: () => Promise<string | undefined>) {
  const now = ctx.now();
  if (row.revoked) {
    await recordAttempt(ctx, row.id, { abandonedAt: now, lastError: 'the platform was revoked' });
    return;
  }
  const failure = await post();
  if (!failure) {
    await recordAttempt(ctx, row.id, { deliveredAt: ctx.now(), lastError: null });
    return;
  }
  const giveUp = now.getTime() - new Date(row.createdAt).getTime() >= RETRY_FOR_MS;
  ctx.log.warn(
    { eventId: row.eventId, attempts: row.attempts, failure, giveUp },
    'a platform webhook was not accepted',
  );
  await recordAttempt(
    ctx,
    row.id,
    giveUp
      ? { abandonedAt: now, lastError: failure }
      : { nextAttemptAt: new Date(now.getTime() + backoffMs(row.attempts)), lastError: failure },
  );
}
