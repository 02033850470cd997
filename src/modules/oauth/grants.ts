// Agents' grants: whether one still stands (asked on every request an agent's token makes),
// the agents a person let in (GET /me/agents), and taking them back (DELETE /me/agents/:clientId,
// a reused code, a replayed refresh token).
import { and, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import { toUnix } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import { parseScopes } from '../../contract/scopes.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { agentGrants, oauthRefreshTokens } from './tables.ts';

/** Last use is written at most this often per grant (a write per request would be one per call). */
const TOUCH_EVERY_MS = 60_000;

/** True while the grant exists, belongs to the user, and has not been revoked. */
export async function grantIsLive(ctx: RequestContext, grantId: string, userId: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: agentGrants.id, lastUsedAt: agentGrants.lastUsedAt })
    .from(agentGrants)
    .where(and(eq(agentGrants.id, grantId), eq(agentGrants.userId, userId), isNull(agentGrants.revokedAt)));
  if (!row) return false;
  const now = ctx.now();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
    const before = new Date(now.getTime() - TOUCH_EVERY_MS);
    await ctx.db
      .update(agentGrants)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(agentGrants.id, grantId),
          or(isNull(agentGrants.lastUsedAt), lt(agentGrants.lastUsedAt, before)),
        ),
      );
  }
  return true;
}

/**
 * Revokes grants and every refresh token of theirs: the grants' access tokens are refused from
 * the next request (grantIsLive), their refresh tokens at once.
 */
export async function revokeGrants(ctx: RequestContext, grantIds: string[]): Promise<void> {
  if (!grantIds.length) return;
  const now = ctx.now();
  await inTransaction(ctx, async (tx) => {
    await tx.db
      .update(agentGrants)
      .set({ revokedAt: now })
      .where(and(inArray(agentGrants.id, grantIds), isNull(agentGrants.revokedAt)));
    await tx.db
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(inArray(oauthRefreshTokens.grantId, grantIds), isNull(oauthRefreshTokens.usedAt)));
  });
}

/** The caller's agents with live grants, one entry per agent, most recently authorised first. */
export async function listAgents(ctx: RequestContext) {
  const rows = await ctx.db
    .select()
    .from(agentGrants)
    .where(and(eq(agentGrants.userId, caller(ctx).id), isNull(agentGrants.revokedAt)))
    .orderBy(desc(agentGrants.createdAt));
  const byClient = new Map<
    string,
    { clientId: string; name: string; scopes: Set<string>; grantedAt: Date; lastUsedAt: Date | null }
  >();
  for (const row of rows) {
    const entry = byClient.get(row.clientId);
    if (!entry) {
      byClient.set(row.clientId, {
        clientId: row.clientId,
        name: row.clientName ?? row.clientId,
        scopes: new Set(parseScopes(row.scope)),
        grantedAt: row.createdAt,
        lastUsedAt: row.lastUsedAt,
      });
      continue;
    }
    for (const s of parseScopes(row.scope)) entry.scopes.add(s);
    if (row.lastUsedAt && (!entry.lastUsedAt || row.lastUsedAt > entry.lastUsedAt))
      entry.lastUsedAt = row.lastUsedAt;
  }
  const agents = [...byClient.values()].map((a) => ({
    clientId: a.clientId,
    name: a.name,
    scopes: parseScopes([...a.scopes].join(' ')),
    grantedAt: toUnix(a.grantedAt),
    lastUsedAt: a.lastUsedAt ? toUnix(a.lastUsedAt) : null,
  }));
  return { agents };
}

/** Revokes every grant of one agent for the caller, at once. 404 when it has none standing. */
export async function revokeAgent(ctx: RequestContext, clientId: string): Promise<void> {
  const rows = await ctx.db
    .select({ id: agentGrants.id })
    .from(agentGrants)
    .where(
      and(
        eq(agentGrants.userId, caller(ctx).id),
        eq(agentGrants.clientId, clientId),
        isNull(agentGrants.revokedAt),
      ),
    );
  if (!rows.length) throw notFound('error.oauth.noSuchAgent', { clientId });
  await revokeGrants(
    ctx,
    rows.map((r) => r.id),
  );
}
