// The token endpoint (RFC 6749 sections 4.1.3 and 6, OAuth 2.1) and revocation (RFC 7009).
// Codes are single use: a code presented twice is refused and everything issued from it is
// revoked (RFC 6749 section 4.1.2). Refresh tokens rotate: each use answers a new one and ends
// the old; an ended one presented again revokes the whole grant (the family), since either the
// agent or a thief holds a copy.
import { createHash, timingSafeEqual } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { type AgentScope, parseScopes } from '../../contract/scopes.ts';
import { signAgentToken, type TokenSettings, unixSeconds, verifyAccessToken } from '../auth/jwt.ts';
import { findUser } from '../auth/users.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { randomToken, sha256 } from '../secrets.ts';
import type { MetadataDocuments } from './clients.ts';
import { findClient, OAuthError } from './clients.ts';
import { revokeGrants } from './grants.ts';
import { agentGrants, oauthCodes, oauthRefreshTokens } from './tables.ts';

export interface TokenEndpointSettings {
  tokens: TokenSettings;
  /** Lifetime of an access token (AGENT_TOKEN_TTL_SECONDS). */
  accessTtlSeconds: number;
  /** A grant's refresh tokens end this long after the sign-in (SESSION_MAX_AGE_SECONDS). */
  sessionMaxAgeSeconds: number;
  documents: MetadataDocuments;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Params = Record<string, unknown>;

const param = (p: Params, name: string): string | undefined => {
  const v = p[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};
const required = (p: Params, name: string): string => {
  const v = param(p, name);
  if (!v) throw new OAuthError('invalid_request', `${name} is required`);
  return v;
};
const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** POST /oauth/token. */
export async function token(ctx: RequestContext, s: TokenEndpointSettings, p: Params): Promise<TokenAnswer> {
  const grantType = required(p, 'grant_type');
  if (grantType === 'authorization_code') return exchangeCode(ctx, s, p);
  if (grantType === 'refresh_token') return refresh(ctx, s, p);
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/** A public client names itself; an id that is no client at all is 401 invalid_client. */
async function knownClient(ctx: RequestContext, s: TokenEndpointSettings, clientId: string) {
  if (s.documents.isDocumentUrl(clientId)) return; // the code or token it presents is bound to it
  if (!(await findClient(ctx, s.documents, clientId))) {
    throw new OAuthError('invalid_client', 'Unknown client_id; register the client first', 401);
  }
}

function pkceHolds(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

async function exchangeCode(ctx: RequestContext, s: TokenEndpointSettings, p: Params): Promise<TokenAnswer> {
  const code = required(p, 'code');
  const clientId = required(p, 'client_id');
  const redirectUri = required(p, 'redirect_uri');
  const verifier = required(p, 'code_verifier');
  await knownClient(ctx, s, clientId);
  const now = ctx.now();
  const outcome = await inTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, sha256(code)))
      .for('update');
    if (!row) return { error: invalidGrant('Unknown authorization code') };
    if (row.usedAt) {
      await revokeGrants(tx, [row.grantId]);
      return {
        error: invalidGrant(
          'This authorization code was already used; every token issued from it is revoked',
        ),
      };
    }
    if (row.expiresAt <= now)
      return { error: invalidGrant('This authorization code expired; authorize again') };
    if (row.clientId !== clientId) return { error: invalidGrant('This code was issued to another client') };
    if (row.redirectUri !== redirectUri) {
      return { error: invalidGrant('redirect_uri differs from the one of the authorization request') };
    }
    if (!pkceHolds(verifier, row.codeChallenge)) {
      return { error: invalidGrant('code_verifier does not match the code_challenge (PKCE S256)') };
    }
    await tx.db.update(oauthCodes).set({ usedAt: now }).where(eq(oauthCodes.codeHash, row.codeHash));
    const user = await findUser(tx, row.userId);
    if (!user || user.tokenVersion !== row.tokenVersion) {
      return { error: invalidGrant("The account's sessions ended since the sign-in; authorize again") };
    }
    await tx.db.insert(agentGrants).values({
      id: row.grantId,
      userId: row.userId,
      clientId: row.clientId,
      clientName: row.clientName,
      scope: row.scope,
      createdAt: now,
      lastUsedAt: now,
    });
    const refreshToken = await newRefreshToken(tx, {
      grantId: row.grantId,
      clientId: row.clientId,
      userId: row.userId,
      scope: row.scope,
      tokenVersion: row.tokenVersion,
      authTime: row.authTime,
      expiresAt: new Date(row.authTime.getTime() + s.sessionMaxAgeSeconds * 1000),
    });
    return {
      user,
      refreshToken,
      grantId: row.grantId,
      scopes: parseScopes(row.scope),
      authTime: row.authTime,
    };
  });
  if ('error' in outcome) throw outcome.error;
  return answer(ctx, s, outcome, clientId);
}

async function refresh(ctx: RequestContext, s: TokenEndpointSettings, p: Params): Promise<TokenAnswer> {
  const presented = required(p, 'refresh_token');
  const clientId = param(p, 'client_id');
  const asked = param(p, 'scope');
  const now = ctx.now();
  const outcome = await inTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .select()
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, sha256(presented)))
      .for('update');
    if (!row) return { error: invalidGrant('Unknown refresh token') };
    if (clientId !== undefined && clientId !== row.clientId) {
      return { error: invalidGrant('This refresh token was issued to another client') };
    }
    // A revoked authorization says so first: revoking marks its refresh tokens used too.
    const [grant] = await tx.db
      .select({ revokedAt: agentGrants.revokedAt })
      .from(agentGrants)
      .where(eq(agentGrants.id, row.grantId));
    if (!grant || grant.revokedAt)
      return { error: invalidGrant('This authorization was revoked; authorize again') };
    if (row.usedAt) {
      await revokeGrants(tx, [row.grantId]);
      return {
        error: invalidGrant(
          'This refresh token was already used; the authorization is revoked; authorize again',
        ),
      };
    }
    if (row.expiresAt <= now)
      return { error: invalidGrant('This authorization is too old; authorize again') };
    let scopes = parseScopes(row.scope);
    if (asked !== undefined) {
      const narrower = parseScopes(asked);
      if (
        !narrower.length ||
        narrower.some((x) => !scopes.includes(x)) ||
        asked.split(' ').filter(Boolean).length !== narrower.length
      ) {
        return { error: new OAuthError('invalid_scope', `scope may only narrow the grant's: ${row.scope}`) };
      }
      scopes = narrower;
    }
    const user = await findUser(tx, row.userId);
    if (!user || user.tokenVersion !== row.tokenVersion) {
      await revokeGrants(tx, [row.grantId]);
      return {
        error: invalidGrant(
          "The account's sessions ended (sign-out everywhere, role change); authorize again",
        ),
      };
    }
    const [used] = await tx.db
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.tokenHash, row.tokenHash), isNull(oauthRefreshTokens.usedAt)))
      .returning({ tokenHash: oauthRefreshTokens.tokenHash });
    if (!used) return { error: invalidGrant('This refresh token was already used') };
    await tx.db.update(agentGrants).set({ lastUsedAt: now }).where(eq(agentGrants.id, row.grantId));
    const refreshToken = await newRefreshToken(tx, { ...row, scope: row.scope });
    return { user, refreshToken, grantId: row.grantId, scopes, authTime: row.authTime };
  });
  if ('error' in outcome) throw outcome.error;
  return answer(ctx, s, outcome, outcome.refreshToken.clientId);
}

async function newRefreshToken(
  tx: RequestContext,
  family: {
    grantId: string;
    clientId: string;
    userId: string;
    scope: string;
    tokenVersion: number;
    authTime: Date;
    expiresAt: Date;
  },
) {
  const value = randomToken();
  await tx.db.insert(oauthRefreshTokens).values({
    tokenHash: sha256(value),
    grantId: family.grantId,
    clientId: family.clientId,
    userId: family.userId,
    scope: family.scope,
    tokenVersion: family.tokenVersion,
    authTime: family.authTime,
    createdAt: tx.now(),
    expiresAt: family.expiresAt,
  });
  return { value, clientId: family.clientId };
}

async function answer(
  ctx: RequestContext,
  s: TokenEndpointSettings,
  o: {
    user: { id: string; email: string; role: 'buyer' | 'seller' | 'admin'; tokenVersion: number };
    refreshToken: { value: string };
    grantId: string;
    scopes: AgentScope[];
    authTime: Date;
  },
  clientId: string,
): Promise<TokenAnswer> {
  const { token } = await signAgentToken(s.tokens, o.user, ctx.now(), {
    scopes: o.scopes,
    clientId,
    grantId: o.grantId,
    ttlSeconds: s.accessTtlSeconds,
    authTime: unixSeconds(o.authTime),
  });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: s.accessTtlSeconds,
    refresh_token: o.refreshToken.value,
    scope: o.scopes.join(' '),
  };
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh token revokes its grant (the family); an access token
 * revokes its grant too (a JWT cannot be ended alone; its grant can, and the guard checks it on
 * every request). Unknown or already revoked tokens: the same 200.
 */
export async function revoke(ctx: RequestContext, s: TokenEndpointSettings, p: Params): Promise<void> {
  const value = required(p, 'token');
  const clientId = param(p, 'client_id');
  const [row] = await ctx.db
    .select({ grantId: oauthRefreshTokens.grantId, clientId: oauthRefreshTokens.clientId })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, sha256(value)));
  if (row) {
    if (clientId === undefined || clientId === row.clientId) await revokeGrants(ctx, [row.grantId]);
    return;
  }
  if (value.split('.').length !== 3) return;
  let claims: Awaited<ReturnType<typeof verifyAccessToken>>;
  try {
    claims = await verifyAccessToken(s.tokens, value, ctx.now());
  } catch {
    // An invalid or expired token: nothing to revoke (RFC 7009 section 2.2: still 200).
    return;
  }
  // Past this point a failure (the database unreachable) is no 200: the caller must try again.
  if (claims.agent && (clientId === undefined || clientId === claims.agent.clientId)) {
    const rows = await ctx.db
      .select({ id: agentGrants.id })
      .from(agentGrants)
      .where(and(eq(agentGrants.id, claims.agent.grantId), eq(agentGrants.userId, claims.sub)));
    await revokeGrants(
      ctx,
      rows.map((r) => r.id),
    );
  }
}
