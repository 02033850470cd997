// Removes what the authorization server no longer needs: pending authorizations and codes a day
// after they expired (a reused code is still recognised, and its grant revoked, for that day),
// and refresh tokens past their family's end. Rows stay bounded by what is live.
import { lte, sql } from 'drizzle-orm';
import type { Job } from '../../jobs/runner.ts';
import { oauthCodes, oauthRefreshTokens, oauthRequests } from './tables.ts';

const DAY_MS = 86_400_000;

export function oauthCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  return {
    name: 'oauth-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    async run(ctx) {
      const now = ctx.now();
      const dayAgo = new Date(now.getTime() - DAY_MS);
      const requests = await ctx.db
        .delete(oauthRequests)
        .where(
          sql`${oauthRequests.idHash} in (${ctx.db
            .select({ id: oauthRequests.idHash })
            .from(oauthRequests)
            .where(lte(oauthRequests.expiresAt, dayAgo))
            .limit(batch)})`,
        )
        .returning({ id: oauthRequests.idHash });
      const codes = await ctx.db
        .delete(oauthCodes)
        .where(
          sql`${oauthCodes.codeHash} in (${ctx.db
            .select({ id: oauthCodes.codeHash })
            .from(oauthCodes)
            .where(lte(oauthCodes.expiresAt, dayAgo))
            .limit(batch)})`,
        )
        .returning({ id: oauthCodes.codeHash });
      const tokens = await ctx.db
        .delete(oauthRefreshTokens)
        .where(
          sql`${oauthRefreshTokens.tokenHash} in (${ctx.db
            .select({ id: oauthRefreshTokens.tokenHash })
            .from(oauthRefreshTokens)
            .where(lte(oauthRefreshTokens.expiresAt, now))
            .limit(batch)})`,
        )
        .returning({ id: oauthRefreshTokens.tokenHash });
      return Math.max(requests.length, codes.length, tokens.length);
    },
  };
}
