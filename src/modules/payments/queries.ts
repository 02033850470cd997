// The payment events' statements: each event recorded once, by its id (named: every payment
// writes one), alone or in one round trip with the lock that follows it.
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { pipeline, query } from '../../db/sql.ts';
import { paymentEvents, refunds } from './tables.ts';

const ph = sql.placeholder;
/** The event recorded once, by its id (prepared: every payment writes one). */
const recordEvent = query('payments_record_event', (db, name) =>
  db
    .insert(paymentEvents)
    .values({
      provider: ph('provider'),
      eventId: ph('eventId'),
      type: ph('type'),
      paymentIntentId: ph('paymentIntentId'),
      checkoutId: ph('checkoutId'),
      receivedAt: ph('now'),
    })
    .onConflictDoNothing()
    .returning({ eventId: paymentEvents.eventId })
    .prepare(name),
);

export type PaymentEventRecord = {
  provider: string;
  eventId: string;
  type: string;
  paymentIntentId: string | null;
  checkoutId: string | null;
  now: Date;
};

/** Records an event known to be new; sent with the transaction's next statement or its commit. */
export const recordNewPaymentEvent = (db: Db, record: PaymentEventRecord) => recordEvent.later(db, record);

/**
 * Records an event, then runs `next` (a lock, sending its statement before it awaits) in the
 * same round trip, in that order. Answers whether the event was new, and what `next` answered.
 */
export async function recordPaymentEventThen<C extends { db: Db }, T>(
  ctx: C,
  record: PaymentEventRecord,
  next: ((c: C) => Promise<T>) | false,
): Promise<{ recorded: boolean; next: T | undefined }> {
  const [rows, answer] = await pipeline(ctx, [(c) => recordEvent(c.db, record), next]);
  return { recorded: rows.length > 0, next: answer as T | undefined };
}

/** A payment's events as received (the desk's history of its orders), oldest first. */
export function paymentEventsOf(db: Db, paymentIntentId: string) {
  return db
    .select({
      type: paymentEvents.type,
      eventId: paymentEvents.eventId,
      receivedAt: paymentEvents.receivedAt,
    })
    .from(paymentEvents)
    .where(eq(paymentEvents.paymentIntentId, paymentIntentId))
    .orderBy(asc(paymentEvents.receivedAt))
    .limit(100);
}

/** An order's refunds, oldest first (refunds_order_idx). */
export function refundsOfOrder(db: Db, orderId: string) {
  return db
    .select({
      id: refunds.id,
      amountCents: refunds.amountCents,
      reason: refunds.reason,
      status: refunds.status,
      returnId: refunds.returnId,
      createdAt: refunds.createdAt,
      completedAt: refunds.completedAt,
    })
    .from(refunds)
    .where(eq(refunds.orderId, orderId))
    .orderBy(asc(refunds.createdAt), asc(refunds.id))
    .limit(100);
}
