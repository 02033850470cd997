// Agents' grants: whether one still stands, asked on every request an agent's token makes.
import { and, eq, isNull } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { agentGrants } from './tables.ts';

/** True while the grant exists, belongs to the user, and has not been revoked. */
export async function grantIsLive(ctx: RequestContext, grantId: string, userId: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: agentGrants.id })
    .from(agentGrants)
    .where(and(eq(agentGrants.id, grantId), eq(agentGrants.userId, userId), isNull(agentGrants.revokedAt)));
  return row !== undefined;
}
