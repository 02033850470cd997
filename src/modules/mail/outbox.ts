// Writing an email: one row of the outbox, in the caller's transaction, so the email exists
// exactly when the change that causes it commits (docs/decisions.md "Mail").

import { randomKey } from '../../contract/common.ts';
import type { RequestContext } from '../context.ts';
import { insertOutboxRow } from './queries.ts';

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
  await insertOutboxRow(ctx.db, {
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
