import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/** Each provider event once: a delivery whose id is here changes nothing (docs/api.md "Payments"). */
export const paymentEvents = pgTable(
  'payment_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    paymentIntentId: text('payment_intent_id'),
    checkoutId: text('checkout_id'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
  },
  // The desk's history of an order: its payment's events.
  (t) => [
    primaryKey({ columns: [t.provider, t.eventId] }),
    index('payment_events_intent_idx').on(t.paymentIntentId),
  ],
);

export const REFUND_STATUSES = ['requested', 'succeeded', 'failed'] as const;

/**
 * Why a whole payment that made no order is given back (a second payment of a paid checkout, a
 * checkout that had ended, a coupon used up meanwhile, another amount than quoted): at most one
 * such refund per payment, whatever event or path reported it (refunds_one_per_unused_payment).
 */
export const UNUSED_PAYMENT_REASONS = [
  'duplicate_payment',
  'checkout_closed',
  'coupon_used_up',
  'amount_mismatch',
] as const;
export type UnusedPaymentReason = (typeof UNUSED_PAYMENT_REASONS)[number];

/** The predicate of that index, as a literal (a conflict target must name it so, never by parameters). */
export const UNUSED_PAYMENT_PREDICATE = sql.raw(
  `reason in (${UNUSED_PAYMENT_REASONS.map((r) => `'${r}'`).join(', ')})`,
);

/**
 * A refund: written as an intent in the transaction that decides it (a cancellation, a
 * return), sent to the provider after that commits, then marked with the outcome; a job
 * retries those the provider did not confirm (docs/api.md "Refunds").
 */
export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id').notNull(),
    paymentIntentId: text('payment_intent_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    reason: text('reason').notNull(),
    /** The return whose approval wrote this refund (returns.id); one refund per return at most. */
    returnId: text('return_id'),
    status: text('status', { enum: REFUND_STATUSES }).notNull().default('requested'),
    providerRefundId: text('provider_refund_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    check('refunds_amount_positive', sql`${t.amountCents} > 0`),
    index('refunds_order_idx').on(t.orderId),
    uniqueIndex('refunds_one_per_return').on(t.returnId).where(sql`${t.returnId} is not null`),
    uniqueIndex('refunds_one_per_unused_payment').on(t.paymentIntentId).where(UNUSED_PAYMENT_PREDICATE),
    index('refunds_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'requested'`),
  ],
);
