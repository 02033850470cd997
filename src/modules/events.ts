// Domain events: how one module learns of another's changes without importing it. An event is
// published in the transaction that makes the change, and its subscribers run in that same
// transaction (so what they write commits or rolls back with it). The events are the
// public record of an order's life: the agent-commerce protocols will send these same events to
// agents as signed webhooks, so an event carries ids and states, never a person's details.
// Who subscribes to what is one list: subscriptions.ts.
import type { OrderStatus } from '../contract/orders.ts';
import { afterCommit, type RequestContext } from './context.ts';
import type { InvoiceLinks } from './invoices/links.ts';

export type DomainEvent =
  | {
      type: 'checkout.completed';
      checkoutId: string;
      buyerId: string;
      orderIds: string[];
    }
  | {
      type: 'order.paid';
      orderId: string;
      checkoutId: string;
      buyerId: string;
      sellerId: string;
      status: OrderStatus;
    }
  | {
      type: 'order.confirmed' | 'order.shipped' | 'order.delivered' | 'order.cancelled';
      orderId: string;
      /** The checkout the order was paid in (a protocol adapter's session is found by it). */
      checkoutId: string;
      buyerId: string;
      sellerId: string;
    }
  | {
      type: 'refund.requested';
      refundId: string;
      orderId: string;
      returnId: string | null;
      amountCents: number;
    }
  | {
      type: 'refund.succeeded';
      refundId: string;
      orderId: string;
      returnId: string | null;
      amountCents: number;
    }
  | { type: 'refund.failed'; refundId: string; orderId: string; returnId: string | null; amountCents: number }
  | {
      type:
        | 'return.requested'
        | 'return.approved'
        | 'return.rejected'
        | 'return.received'
        | 'return.refunded';
      returnId: string;
      orderId: string;
    }
  /** A review became public (posted without a link, or published by moderation). */
  | { type: 'review.published'; reviewId: string; productId: string }
  /** A payout's last transfer ended: what reached the seller's bank and what came back to their balance. */
  | { type: 'payout.ended'; payoutId: string; sellerId: string; paidCents: number; failedCents: number };

export type EventType = DomainEvent['type'];
/** The event of type T (an event whose `type` is one of several is the event of each of them). */
export type EventOf<T extends EventType> = DomainEvent extends infer E
  ? E extends { type: infer U }
    ? T extends U
      ? E
      : never
    : never
  : never;

/**
 * Where a subscriber's email links to: given by the service that publishes (it has the app's
 * settings; an event says ids and states only). Empty for a change no email links from.
 */
export interface Links {
  /** PUBLIC_BASE_URL: an email links each order's page in the buyer's account. */
  publicBaseUrl?: string;
  /** Signed links to invoices (the paid email). */
  invoiceLinks?: InvoiceLinks;
}

type Handler<T extends EventType> = (ctx: RequestContext, event: EventOf<T>, links: Links) => Promise<void>;

// Stored untyped by event type; subscribe keeps each handler with its own type.
type AnyHandler = (ctx: RequestContext, event: DomainEvent, links: Links) => Promise<void>;
const inTransactionHandlers = new Map<EventType, Set<AnyHandler>>();

/** Runs `handler` in the transaction of every `type` event. Subscribing twice is once. */
export function subscribe<T extends EventType>(type: T, handler: Handler<T>): void {
  const set = inTransactionHandlers.get(type) ?? new Set();
  set.add(handler as AnyHandler);
  inTransactionHandlers.set(type, set);
}

type CommittedHandler = (event: DomainEvent) => void;
const committedHandlers = new Map<EventType, Set<CommittedHandler>>();

/**
 * Calls `handler` once the transaction that published a `type` event has committed, outside it
 * (nothing it does can roll the change back; it must not throw): a counter of orders counts each
 * order once, never one a rolled-back transaction made. Answers the unsubscription.
 */
export function subscribeCommitted<T extends EventType>(
  type: T,
  handler: (event: EventOf<T>) => void,
): () => void {
  const set = committedHandlers.get(type) ?? new Set();
  set.add(handler as CommittedHandler);
  committedHandlers.set(type, set);
  return () => set.delete(handler as CommittedHandler);
}

/** Events published while a transaction's subscribers run, to deliver after the current one. */
const delivering = new WeakMap<object, Array<{ event: DomainEvent; links: Links }>>();

/**
 * Publishes an event in ctx's transaction (inTransaction): the one way a module announces a
 * change. An event a subscriber publishes is delivered once every subscriber has the event
 * being handled, so every subscriber sees a transaction's events in the order they happened.
 */
export async function publish(ctx: RequestContext, event: DomainEvent, links: Links = {}): Promise<void> {
  if (!ctx.inTransaction) throw new Error(`publish(${event.type}) outside a transaction`);
  const committed = committedHandlers.get(event.type);
  if (committed?.size) {
    afterCommit(ctx, () => {
      for (const handler of committed) handler(event);
    });
  }
  const queued = delivering.get(ctx.db);
  if (queued) {
    queued.push({ event, links });
    return;
  }
  const queue = [{ event, links }];
  delivering.set(ctx.db, queue);
  try {
    for (let next = queue.shift(); next; next = queue.shift()) {
      for (const handler of inTransactionHandlers.get(next.event.type) ?? []) {
        await handler(ctx, next.event, next.links);
      }
    }
  } finally {
    delivering.delete(ctx.db);
  }
}
