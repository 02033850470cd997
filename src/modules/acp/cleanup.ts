// Housekeeping of the protocols' tables (ACP's and UCP's sessions share them), in bounded
// batches: vault tokens a day after they expired (spent or not, they pay for nothing any more);
// webhook rows a week after they were delivered or given up (long enough to answer a platform
// asking what it was sent); sessions that made no order (canceled, or past their end unpaid) a
// day after their end, as their Idempotency-Keys are. A session that made an order is
// kept: it is how the order's events reach its platform.
import { and, inArray, lte, sql } from 'drizzle-orm';
import type { Job } from '../../jobs/runner.ts';
import { paidCheckoutIds } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import { acpSessionMachine } from './states.ts';
import { acpSessions, acpVaultTokens, acpWebhookDeliveries } from './tables.ts';

const DAY_MS = 86_400_000;
/** How long a session that ended without an order is kept after its end. */
export const ENDED_SESSION_RETENTION_MS = DAY_MS;

export function acpCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  const v = acpVaultTokens;
  const d = acpWebhookDeliveries;
  return {
    name: 'acp-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    async run(ctx) {
      const now = ctx.now().getTime();
      const tokens = await ctx.db
        .delete(v)
        .where(
          sql`${v.id} in (select id from ${v} where ${v.expiresAt} <= ${new Date(now - DAY_MS).toISOString()}::timestamptz limit ${batch})`,
        )
        .returning({ id: v.id });
      const rows = await ctx.db
        .delete(d)
        .where(
          sql`${d.id} in (select id from ${d} where coalesce(${d.deliveredAt}, ${d.abandonedAt}) <= ${new Date(now - 7 * DAY_MS).toISOString()}::timestamptz limit ${batch})`,
        )
        .returning({ id: d.id });
      const sessions = await deleteEndedSessions(ctx, new Date(now - ENDED_SESSION_RETENTION_MS), batch);
      return Math.max(tokens.length, rows.length, sessions);
    },
  };
}

/** Deletes up to `batch` sessions that ended without an order before `before`; answers how many. */
async function deleteEndedSessions(ctx: RequestContext, before: Date, batch: number): Promise<number> {
  const s = acpSessions;
  const ended = await ctx.db
    .select({ id: s.id, checkoutId: s.checkoutId })
    .from(s)
    // Canceled or not, a session ends by its expiry at the latest: a day after that it goes.
    .where(and(sql`${s.status} <> 'completed'`, lte(s.expiresAt, before)))
    .limit(batch);
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
  // A paid one is written down as completed: never a candidate again.
  if (kept.length > 0) {
    await ctx.db
      .update(s)
      .set({ status: acpSessionMachine.to('record_payment') })
      .where(and(inArray(s.id, kept), acpSessionMachine.where('record_payment', s.status)));
  }
  if (gone.length > 0) await ctx.db.delete(s).where(inArray(s.id, gone));
  return ended.length;
}
