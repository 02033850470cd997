// Housekeeping of the agent checkout's tables (every protocol's sessions share them), in bounded
// batches: vault tokens a day after they expired (spent or not, they pay for nothing any more);
// webhook rows a week after they were delivered or given up (long enough to answer a platform
// asking what it was sent); sessions that made no order (canceled, or past their end unpaid) a
// day after their end, as their Idempotency-Keys are. A session that made an order is
// kept: it is how the order's events reach its platform.
import type { Job } from '../../jobs/runner.ts';
import { paidCheckoutIds } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import {
  deleteExpiredTokens,
  deleteFinishedDeliveries,
  deleteSessions,
  endedSessions,
  recordPaid,
} from './queries.ts';

const DAY_MS = 86_400_000;
/** How long a session that ended without an order is kept after its end. */
export const ENDED_SESSION_RETENTION_MS = DAY_MS;

export function agentCheckoutCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  return {
    name: 'acp-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    async run(ctx) {
      const now = ctx.now().getTime();
      const tokens = await deleteExpiredTokens(ctx, new Date(now - DAY_MS), batch);
      const rows = await deleteFinishedDeliveries(ctx, new Date(now - 7 * DAY_MS), batch);
      const sessions = await deleteEndedSessions(ctx, new Date(now - ENDED_SESSION_RETENTION_MS), batch);
      return Math.max(tokens, rows, sessions);
    },
  };
}

/** Deletes up to `batch` sessions that ended without an order before `before`; answers how many. */
async function deleteEndedSessions(ctx: RequestContext, before: Date, batch: number): Promise<number> {
  const ended = await endedSessions(ctx, before, batch);
  if (ended.length === 0) return 0;
  // A session whose checkout was paid made an order (the payment does not write the session's row).
  const paid = await paidCheckoutIds(
    ctx,
    ended.flatMap((e) => (e.checkoutId ? [e.checkoutId] : [])),
  );
  const [kept, gone] = [
    ended.filter((e) => e.checkoutId && paid.has(e.checkoutId)).map((e) => e.id),
    ended.filter((e) => !e.checkoutId || !paid.has(e.checkoutId)).map((e) => e.id),
  ];
  if (kept.length > 0) await recordPaid(ctx, kept);
  if (gone.length > 0) await deleteSessions(ctx, gone);
  return ended.length;
}
