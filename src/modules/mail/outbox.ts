// Writing an email: one row of the outbox, in the caller's transaction, so the email exists
// exactly when the change that causes it commits (../shared/design/decisions.md, "Mail").
import { randomBytes } from 'node:crypto';
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
  await ctx.db
    .insert(outbox)
    .values({
      id: `mail_${randomBytes(12).toString('base64url')}`,
      dedupeKey: message.dedupeKey,
      kind: message.kind,
      toAddress: message.to,
      subject: message.subject,
      textBody: message.text,
      htmlBody: message.html,
      nextAttemptAt: now,
      createdAt: now,
    })
    .onConflictDoNothing({ target: outbox.dedupeKey });
}
