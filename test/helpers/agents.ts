// Agents' tokens for tests: a grant row as the authorization server writes it, and a token for
// it signed with the test app's keys, exactly as /oauth/token issues them (src/modules/auth/jwt.ts).
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { AgentScope } from '../../src/contract/scopes.ts';
import { signAgentToken } from '../../src/modules/auth/jwt.ts';
import { users } from '../../src/modules/auth/tables.ts';
import { agentGrants } from '../../src/modules/oauth/tables.ts';
import type { SignedIn, TestApp } from './app.ts';
import type { TestDatabase } from './db.ts';

export interface AgentToken {
  token: string;
  grantId: string;
  clientId: string;
}

/** Grants `scopes` to a client for `who` and answers an agent's token of that grant. */
export async function agentToken(
  t: TestApp,
  database: TestDatabase,
  who: SignedIn,
  scopes: AgentScope[],
  opts: { clientId?: string; audience?: string; ttlSeconds?: number } = {},
): Promise<AgentToken> {
  const grantId = `grants:${randomBytes(15).toString('base64url')}`;
  const clientId = opts.clientId ?? `client_${randomBytes(8).toString('hex')}`;
  const now = t.clock.now();
  await database.db
    .insert(agentGrants)
    .values({ id: grantId, userId: who.id, clientId, scope: scopes.join(' '), createdAt: now });
  const [user] = await database.db.select().from(users).where(eq(users.id, who.id));
  if (!user) throw new Error(`no user ${who.id}`);
  const { token } = await signAgentToken(
    { keys: t.keys, audience: opts.audience ?? t.config.publicBaseUrl, ttlSeconds: 3600 },
    user,
    now,
    {
      scopes,
      clientId,
      grantId,
      ttlSeconds: opts.ttlSeconds ?? 3600,
      authTime: Math.floor(now.getTime() / 1000),
    },
  );
  return { token, grantId, clientId };
}

/** Revokes a grant as `DELETE /me/agents/:clientId` does. */
export async function revokeGrant(t: TestApp, database: TestDatabase, grantId: string): Promise<void> {
  await database.db.update(agentGrants).set({ revokedAt: t.clock.now() }).where(eq(agentGrants.id, grantId));
}
