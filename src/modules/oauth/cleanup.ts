// Removes what the authorization server no longer needs: pending authorizations and codes a day
// after they expired (a reused code is still recognised, and its grant revoked, for that day),
// refresh tokens past their family's end, and registered clients no one authorised within 30
// days of registering (anyone may register: unused registrations must not pile up; such a client
// registers again). Rows stay bounded by what is live.
import { lte, sql } from 'drizzle-orm';
import type { Job } from '../../jobs/runner.ts';
import { agentGrants, oauthClients, oauthCodes, oauthRefreshTokens, oauthRequests } from './tables.ts';

const DAY_MS = 86_400_000;
/** How long a registered client may go without any authorization before it is removed. */
const UNUSED_CLIENT_DAYS = 30;

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
      const unusedSince = new Date(now.getTime() - UNUSED_CLIENT_DAYS * DAY_MS);
      const clients = await ctx.db
        .delete(oauthClients)
        .where(
          sql`${oauthClients.id} in (${ctx.db
            .select({ id: oauthClients.id })
            .from(oauthClients)
            .where(
              sql`${oauthClients.createdAt} <= ${unusedSince} and not exists (select 1 from ${agentGrants} where ${agentGrants.clientId} = ${oauthClients.id})`,
            )
            .limit(batch)})`,
        )
        .returning({ id: oauthClients.id });
      return Math.max(requests.length, codes.length, tokens.length, clients.length);
    },
  };
}
