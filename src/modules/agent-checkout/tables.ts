import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';
import { platforms } from '../platforms/tables.ts';
import type { SessionProblem } from './problems.ts';
import type { SessionRequest } from './request.ts';
import { SESSION_STATUSES } from './states.ts';

// The tables keep their first names (acp_…): they were ACP's before UCP shared them, and a
// rename would be a migration for nothing a reader sees.

/**
 * An agent checkout session, whichever protocol made it (its id's prefix): what the platform
 * asked for, and the Portage checkout holding its stock. Its states are the machine of states.ts.
 */
export const agentSessions = pgTable(
  'acp_sessions',
  {
    id: text('id').primaryKey(),
    /** The platform that made it; null when an agent's OAuth token made it (then the buyer is that person). */
    platformId: text('platform_id').references(() => platforms.id),
    /** The agent token's person, when an agent made it: only that person may see it. */
    agentUserId: text('agent_user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The account that buys; null until the platform names a buyer. */
    buyerId: text('buyer_id').references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: SESSION_STATUSES }).notNull(),
    request: jsonb('request').$type<SessionRequest>().notNull(),
    /** The Portage checkout holding the stock (null while not ready for payment). */
    checkoutId: text('checkout_id'),
    /**
     * The SHA-256 of the delegated token a payment in progress was asked with: while the session
     * is complete_in_progress, only that token may complete it (another would be a second charge).
     */
    paymentTokenHash: text('payment_token_hash'),
    /** Why the last quote could not hold, or what it says besides (problems.ts), said as each protocol says them. */
    messages: jsonb('messages').$type<SessionProblem[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'acp_sessions_status_check',
      sql`${t.status} in (${sql.raw(SESSION_STATUSES.map((s) => `'${s}'`).join(', '))})`,
    ),
    index('acp_sessions_checkout_idx').on(t.checkoutId),
    // The cleanup's candidates: sessions not known to have made an order, by their end.
    index('acp_sessions_unpaid_end_idx').on(t.expiresAt).where(sql`${t.status} <> 'completed'`),
  ],
);

/**
 * The sandbox payment handler's vault: a delegated token stands for a test card's outcome under
 * its allowance. No card number is kept (docs/acp.md "Payment").
 */
export const vaultTokens = pgTable('acp_vault_tokens', {
  id: text('id').primaryKey(),
  /** Who vaulted it: a platform, or an agent's person (`user:<id>`). */
  owner: text('owner').notNull(),
  /** The test card it stands for (SANDBOX_CARDS): pays, declined, or authenticates (3-D Secure). */
  outcome: text('outcome', { enum: ['pays', 'declined', 'authenticates'] }).notNull(),
  brand: text('brand').notNull(),
  last4: text('last4').notNull(),
  maxAmount: integer('max_amount').notNull(),
  currency: text('currency').notNull(),
  checkoutSessionId: text('checkout_session_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  /** Set when a complete spent it (one time): it pays for nothing else. */
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/**
 * Order events waiting for (or given to) a platform's webhook: the outbox. Rows of one session
 * go out in id order; each keeps its event id across retries.
 */
export const webhookDeliveries = pgTable(
  'acp_webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: text('event_id').notNull().unique(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    sessionId: text('acp_session_id')
      .notNull()
      .references(() => agentSessions.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    /** Set when a day of retries passed without an answer: no more tries. */
    abandonedAt: timestamp('abandoned_at', { withTimezone: true }),
    /**
     * The W3C `traceparent` of the change that wrote the row, when tracing is on: its delivery
     * continues that trace (docs/operations.md "Traces"). 55 characters.
     */
    traceparent: text('traceparent'),
  },
  (t) => [
    index('acp_webhook_deliveries_pending_idx')
      .on(t.sessionId, t.id)
      .where(sql`${t.deliveredAt} is null and ${t.abandonedAt} is null`),
  ],
);
