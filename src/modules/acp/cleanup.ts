// Housekeeping of the ACP tables, in bounded batches: vault tokens a day after they expired
// (spent or not, they pay for nothing any more) and webhook rows a week after they were delivered
// or given up (long enough to answer a platform asking what it was sent). Sessions are kept, as
// checkout sessions are.
import { sql } from 'drizzle-orm';
import type { Job } from '../../jobs/runner.ts';
import { acpVaultTokens, acpWebhookDeliveries } from './tables.ts';

const DAY_MS = 86_400_000;

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
      return Math.max(tokens.length, rows.length);
    },
  };
}
