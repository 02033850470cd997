import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

export const PAYOUT_SCHEDULES = ['daily', 'weekly'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/**
 * A seller's payout account (docs/payouts.md "Accounts"): a Stripe connected account, or on the
 * sandbox a test bank account recorded by its onboarding page. Until `payouts_enabled` the
 * seller's balance accrues; `requirements` says what is missing.
 */
export const sellerPayoutAccounts = pgTable(
  'seller_payout_accounts',
  {
    sellerId: text('seller_id')
      .primaryKey()
      .references(() => users.id),
    provider: text('provider', { enum: ['sandbox', 'stripe'] }).notNull(),
    /** Stripe's `acct_…`; the sandbox's `acct_sandbox_…`. */
    accountId: text('account_id').notNull(),
    payoutsEnabled: boolean('payouts_enabled').notNull().default(false),
    /** What the provider still wants before paying out (Stripe's requirements.currently_due). */
    requirements: jsonb('requirements').$type<string[]>().notNull().default([]),
    /** The bank account's last four digits, as the provider tells them. */
    bankLast4: text('bank_last4'),
    schedule: text('schedule', { enum: PAYOUT_SCHEDULES }).notNull().default('weekly'),
    minimumCents: integer('minimum_cents').notNull().default(1000),
    /** When the payout job next looks at this seller (a schedule, not a balance). */
    nextPayoutAt: timestamp('next_payout_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('seller_payout_accounts_account_unique').on(t.accountId),
    index('seller_payout_accounts_due_idx').on(t.nextPayoutAt).where(sql`${t.payoutsEnabled}`),
    check('seller_payout_accounts_minimum', sql`${t.minimumCents} between 100 and 100000000`),
  ],
);

export const TRANSFER_STATUSES = ['requested', 'paid', 'failed'] as const;

/**
 * A payout: a seller's available balance when it was made, sent as one transfer per order (each
 * tied to its charge's `transfer_group`, the checkout). Its status is its transfers'.
 */
export const payouts = pgTable(
  'payouts',
  {
    id: text('id').primaryKey(),
    sellerId: text('seller_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('payouts_amount_positive', sql`${t.amountCents} > 0`),
    index('payouts_seller_created_idx').on(t.sellerId, t.createdAt),
  ],
);

/**
 * One transfer of a payout: an order's money (less what the seller owed, recovered first), sent
 * with the key `<payoutId>:<orderId>`, retried until paid or failed; a failed one returns to the
 * balance.
 */
export const payoutTransfers = pgTable(
  'payout_transfers',
  {
    payoutId: text('payout_id')
      .notNull()
      .references(() => payouts.id),
    orderId: text('order_id').notNull(),
    sellerId: text('seller_id').notNull(),
    /** The charge's transfer_group: the checkout the order was paid in. */
    transferGroup: text('transfer_group').notNull(),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: TRANSFER_STATUSES }).notNull().default('requested'),
    /** Stripe's `tr_…`, once made. */
    transferId: text('transfer_id'),
    /** Taken back by reversals that succeeded. */
    reversedCents: integer('reversed_cents').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.payoutId, t.orderId] }),
    check('payout_transfers_amount_positive', sql`${t.amountCents} > 0`),
    check('payout_transfers_reversed', sql`${t.reversedCents} between 0 and ${t.amountCents}`),
    index('payout_transfers_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'requested'`),
    index('payout_transfers_order_idx').on(t.orderId),
  ],
);

export const REVERSAL_STATUSES = ['requested', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * Money taken back from a transfer after a refund of its order (Stripe's transfer reversal): the
 * seller's share of the refund, commission included, up to what the transfer carried. One per
 * refund and transfer. A reversal that cannot be made leaves the balance negative: recovered
 * from the next sales.
 */
export const transferReversals = pgTable(
  'transfer_reversals',
  {
    id: text('id').primaryKey(),
    payoutId: text('payout_id').notNull(),
    orderId: text('order_id').notNull(),
    sellerId: text('seller_id').notNull(),
    /** What caused it: `refund:<refundId>`. */
    cause: text('cause').notNull(),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: REVERSAL_STATUSES }).notNull().default('requested'),
    providerReversalId: text('provider_reversal_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    check('transfer_reversals_amount_positive', sql`${t.amountCents} > 0`),
    uniqueIndex('transfer_reversals_cause_transfer').on(t.cause, t.payoutId, t.orderId),
    index('transfer_reversals_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'requested'`),
  ],
);

export const DISPUTE_OUTCOMES = ['open', 'won', 'lost'] as const;

/** A buyer's chargeback of a checkout's payment (docs/payouts.md "Disputes"). */
export const disputes = pgTable(
  'disputes',
  {
    /** The provider's `dp_…`. */
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    paymentIntentId: text('payment_intent_id').notNull(),
    checkoutId: text('checkout_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    feeCents: integer('fee_cents').notNull(),
    reason: text('reason').notNull(),
    /** The provider's status (needs_response, under_review, won, lost…). */
    status: text('status').notNull(),
    outcome: text('outcome', { enum: DISPUTE_OUTCOMES }).notNull().default('open'),
    evidenceDueBy: timestamp('evidence_due_by', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [
    check('disputes_amount_positive', sql`${t.amountCents} > 0 and ${t.feeCents} >= 0`),
    index('disputes_checkout_idx').on(t.checkoutId),
    index('disputes_open_idx').on(t.createdAt).where(sql`${t.outcome} = 'open'`),
  ],
);

/** A dispute's share of each order of its checkout (in proportion to what is left of each). */
export const disputeOrders = pgTable(
  'dispute_orders',
  {
    disputeId: text('dispute_id')
      .notNull()
      .references(() => disputes.id),
    orderId: text('order_id').notNull(),
    sellerId: text('seller_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    feeCents: integer('fee_cents').notNull(),
    /** The seller's evidence (text), as last sent to the provider. */
    evidenceText: text('evidence_text'),
    /** The seller's uploaded file, as the provider's `file_…`. */
    evidenceFileId: text('evidence_file_id'),
    evidenceSubmittedAt: timestamp('evidence_submitted_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.disputeId, t.orderId] }),
    index('dispute_orders_seller_idx').on(t.sellerId),
  ],
);
