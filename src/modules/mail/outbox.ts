// Writing an email: one row of the outbox, in the caller's transaction, so the email exists
// exactly when the change that causes it commits (docs/decisions.md "Mail").

import { sql } from 'drizzle-orm';
import { randomKey } from '../../contract/common.ts';
import { query } from '../../db/sql.ts';
import type { RequestContext } from '../context.ts';
import { outbox } from './tables.ts';

export interface MailMessage {
  /** Unique per cause (`order-paid:<checkout id>`): writing the same cause twice writes once. */
  dedupeKey: string;
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Adds the message to the outbox (in ctx's transaction); the worker sends it after commit. */
export async function enqueueMail(ctx: RequestContext, message: MailMessage): Promise<void> {
  const now = ctx.now();
  // No one reads the answer: in a transaction it goes out with the next statement or the commit.
  await insertStatement.later(ctx.db, {
    id: `mail_${randomKey(12)}`,
    dedupeKey: message.dedupeKey,
    kind: message.kind,
    toAddress: message.to,
    subject: message.subject,
    textBody: message.text,
    htmlBody: message.html,
    now,
  });
}

const ph = sql.placeholder;
const insertStatement = query('mail_enqueue', (db, name) =>
  db
    .insert(outbox)
    .values({
      id: ph('id'),
      dedupeKey: ph('dedupeKey'),
      kind: ph('kind'),
      toAddress: ph('toAddress'),
      subject: ph('subject'),
      textBody: ph('textBody'),
      htmlBody: ph('htmlBody'),
      nextAttemptAt: ph('now'),
      createdAt: ph('now'),
    })
    .onConflictDoNothing({ target: outbox.dedupeKey })
    .prepare(name),
);
