import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;

/**
 * The transactional outbox: every email is a row written in the same transaction as the change
 * that causes it; the worker of any instance claims due rows and sends them
 * (docs/decisions.md "Mail").
 */
export const outbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    /** What caused it, unique (e.g. `order-paid:orders:…`): the same cause never mails twice. */
    dedupeKey: text('dedupe_key').notNull().unique(),
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    status: text('status', { enum: MAIL_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** When it may next be tried (a claim moves it forward: a lease, so a crashed sender's row comes back). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    /** The claim holding it (the worker's pass renews its lease while it lives); null when none does. */
    leaseToken: text('lease_token'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    check('mail_outbox_status_check', sql`${t.status} in ('pending', 'sent', 'failed')`),
    index('mail_outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  ],
);
