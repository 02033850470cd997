// The outbox worker: every instance runs it (docs/decisions.md "Mail" and "Background jobs").
// A pass claims due rows with FOR UPDATE SKIP LOCKED in one short statement that also takes a
// lease (next_attempt_at moves forward, attempts counts the try, lease_token names the pass),
// commits, and only then talks to the mail server: never inside a transaction
// (docs/decisions.md "Database"). While the pass lives it renews the lease of the rows it still
// holds, so the lease can be short: a sender that dies leaves its rows to come back within
// MAIL_LEASE_MS. A message is marked sent the moment the server accepts it: only a death in
// between (one message, at most, per dead pass) sends it again, under the same Message-ID.
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { randomKey } from '../../contract/common.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import type { Job } from '../../jobs/runner.ts';
import type { RequestContext } from '../context.ts';
import { outboxMachine } from './states.ts';
import { outbox } from './tables.ts';
import type { MailTransport } from './transports.ts';

/** Wait after failed attempt 1, 2, 3, 4: 1 min, 5 min, 30 min, 2 h; attempt 5 failing is final. */
const MAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;
export const MAIL_MAX_ATTEMPTS = MAIL_RETRY_DELAYS_MS.length + 1;
/** How long a claim keeps other instances off a row unless renewed: what a dead sender costs its rows. */
export const MAIL_LEASE_MS = 15_000;

export interface MailJobDeps {
  transport: MailTransport;
  /** The sender (MAIL_FROM). */
  from: string;
  /** Rows claimed per pass (20). */
  batch?: number;
  /** Pause between passes that found nothing more (5 s). */
  everyMs?: number;
  leaseMs?: number;
  /** How often a pass renews the lease of the rows it still holds (a third of the lease). */
  renewEveryMs?: number;
}

/** Emails whose body holds a single-use link (account-templates.ts): emptied once sent. */
const CARRIES_LINK = new Set(['email-verify', 'password-reset']);

export function mailJob(deps: MailJobDeps): Job {
  const batch = deps.batch ?? 20;
  const leaseMs = deps.leaseMs ?? MAIL_LEASE_MS;
  const renewEveryMs = deps.renewEveryMs ?? leaseMs / 3;
  const domain = /@([^>\s]+)>?\s*$/.exec(deps.from)?.[1] ?? 'portage.localhost';
  return {
    name: 'mail',
    everyMs: deps.everyMs ?? 5_000,
    batch,
    async run(ctx, stopping) {
      if (ctx.inTransaction) throw new Error('the mail job sends mail: it must not run inside a transaction');
      const token = randomKey(16);
      const lease = { until: ctx.now().getTime() + leaseMs };
      const rows = await claim(ctx, batch, new Date(lease.until), token);
      if (rows.length === 0) return 0;
      let renewal: Promise<void> = Promise.resolve();
      const renewing = setInterval(() => {
        renewal = renew(ctx, token, leaseMs, lease);
      }, renewEveryMs);
      renewing.unref();
      let handled = 0;
      try {
        for (const [i, row] of rows.entries()) {
          // Stopping (SIGTERM), or the lease could not be renewed (the database away): the rows
          // not tried go back, so that no other sender meets them while this one still might.
          if (stopping?.aborted || ctx.now().getTime() > lease.until - leaseMs / 2) {
            await release(ctx, rows.slice(i));
            break;
          }
          try {
            await deps.transport.send({
              id: row.id,
              createdAt: row.createdAt,
              from: deps.from,
              to: row.toAddress,
              subject: row.subject,
              text: row.textBody,
              html: row.htmlBody,
              messageId: `<${row.id}@${domain}>`,
            });
          } catch (err) {
            await recordFailure(ctx, row, (err as Error).message);
            handled++;
            continue;
          }
          await markSent(ctx, row, stopping);
          ctx.log.debug({ mailId: row.id, kind: row.kind, attempt: row.attempts }, 'mail sent');
          handled++;
        }
      } finally {
        clearInterval(renewing);
        await renewal;
      }
      return handled;
    },
  };
}

/** How long a pass keeps trying to record a message sent while the database cannot be reached. */
const MARK_SENT_PATIENCE_MS = 60_000;

/**
 * The message is out: record it, whoever holds the row now (a later claimer then finds it sent).
 * The database away at that moment (the server accepted the message, then a restart) is waited out
 * for a minute, trying every second: the record lands as soon as the database is back, before
 * another instance's pass could claim the row again; past the minute the message may go twice.
 * A sent link email keeps no body: its link stays live until it expires, and the database is no
 * place to read it from.
 */
async function markSent(ctx: RequestContext, row: ClaimedRow, stopping: AbortSignal | undefined) {
  const giveUpAt = Date.now() + MARK_SENT_PATIENCE_MS;
  for (;;) {
    try {
      await ctx.db
        .update(outbox)
        .set({
          status: outboxMachine.to('send'),
          sentAt: ctx.now(),
          lastError: null,
          leaseToken: null,
          ...(CARRIES_LINK.has(row.kind) ? { textBody: '', htmlBody: '' } : {}),
        })
        .where(and(eq(outbox.id, row.id), outboxMachine.where('send', outbox.status)));
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() > giveUpAt || stopping?.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Moves the lease of the rows `token` still holds forward; `lease.until` follows when it did. */
async function renew(ctx: RequestContext, token: string, leaseMs: number, lease: { until: number }) {
  const until = ctx.now().getTime() + leaseMs;
  try {
    await ctx.db
      .update(outbox)
      .set({ nextAttemptAt: new Date(until) })
      .where(and(eq(outbox.leaseToken, token), eq(outbox.status, 'pending')));
    lease.until = until;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not renew the lease of the mail being sent');
  }
}

type ClaimedRow = Pick<
  typeof outbox.$inferSelect,
  'id' | 'kind' | 'toAddress' | 'subject' | 'textBody' | 'htmlBody' | 'attempts' | 'createdAt'
>;

/**
 * One statement, so one short transaction: lock up to `batch` due rows (skipping rows another
 * instance holds), count the attempt and move next_attempt_at to the lease's end.
 */
async function claim(
  ctx: RequestContext,
  batch: number,
  leaseUntil: Date,
  token: string,
): Promise<ClaimedRow[]> {
  const due = ctx.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.status, 'pending'), lte(outbox.nextAttemptAt, ctx.now())))
    .orderBy(asc(outbox.nextAttemptAt), asc(outbox.id))
    .limit(batch)
    .for('update', { skipLocked: true });
  const rows = await ctx.db
    .update(outbox)
    .set({ attempts: sql`${outbox.attempts} + 1`, nextAttemptAt: leaseUntil, leaseToken: token })
    .where(inArray(outbox.id, due))
    .returning({
      id: outbox.id,
      kind: outbox.kind,
      toAddress: outbox.toAddress,
      subject: outbox.subject,
      textBody: outbox.textBody,
      htmlBody: outbox.htmlBody,
      attempts: outbox.attempts,
      createdAt: outbox.createdAt,
    });
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
}

/**
 * The attempt failed: try again after the schedule's wait, or give up after the last attempt.
 * Only while the row is still this claim's (same attempt count): a claimer whose lease ran out
 * must not overwrite the next one's.
 */
async function recordFailure(ctx: RequestContext, row: ClaimedRow, error: string): Promise<void> {
  const final = row.attempts >= MAIL_MAX_ATTEMPTS;
  const now = ctx.now();
  const wait = MAIL_RETRY_DELAYS_MS[Math.min(row.attempts, MAIL_RETRY_DELAYS_MS.length) - 1] ?? 0;
  await ctx.db
    .update(outbox)
    .set(
      final
        ? { status: outboxMachine.to('fail'), lastError: error, leaseToken: null }
        : { nextAttemptAt: new Date(now.getTime() + wait), lastError: error, leaseToken: null },
    )
    .where(and(eq(outbox.id, row.id), eq(outbox.status, 'pending'), eq(outbox.attempts, row.attempts)));
  const details = { mailId: row.id, kind: row.kind, attempt: row.attempts, error };
  if (final) ctx.log.error(details, 'mail failed for good after its last attempt');
  else ctx.log.warn({ ...details, retryInMs: wait }, 'mail attempt failed; will retry');
}

/** Rows claimed but not tried: due again now, the attempt not counted. */
async function release(ctx: RequestContext, rows: ClaimedRow[]): Promise<void> {
  for (const row of rows) {
    await ctx.db
      .update(outbox)
      .set({ attempts: row.attempts - 1, nextAttemptAt: ctx.now(), leaseToken: null })
      .where(and(eq(outbox.id, row.id), eq(outbox.status, 'pending'), eq(outbox.attempts, row.attempts)));
  }
}
