// Access tokens on the wire: RS256 JWTs with kid, claims sub/email/role/iat/exp/iss/aud,
// `auth_time` (the sign-in the token descends from) and `ver` (the user's token version,
// bumped to revoke). Signing and verifying only; the rules of sessions are in tokens.ts.
// An agent's token (OAuth, for /mcp) is the same JWT with `aud` = `{PUBLIC_BASE_URL}/mcp`,
// `scope`, `client_id` and `gid` (its grant): docs/api.md "OAuth authorization server".
import { compactVerify, errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Role } from '../../contract/common.ts';
import { type AppError, unauthenticated } from '../../contract/errors.ts';
import { type AgentScope, parseScopes } from '../../contract/scopes.ts';
import type { KeyRing } from './keys.ts';

export const ISSUER = 'portage';

/**
 * How far in the future a token's `iat` may lie (clock skew between instances); beyond it
 * the token is invalid (docs/decisions.md "Accounts").
 */
const MAX_CLOCK_SKEW_SECONDS = 60;

export interface TokenClaims {
  sub: string;
  email: string;
  role: Role;
  ver: number;
  iat: number;
  exp: number;
  /** `auth_time`: when the user signed in (Unix seconds); a refreshed token keeps it. */
  authTime: number;
  /** Present on an agent's token only (audience `{PUBLIC_BASE_URL}/mcp`). */
  agent?: AgentClaims;
}

/** What an agent's token adds: the scopes granted, the agent (OAuth client) and the grant. */
export interface AgentClaims {
  scopes: AgentScope[];
  clientId: string;
  grantId: string;
}

/** The audience of agents' tokens: the `/mcp` resource of this deployment (RFC 8707). */
export const agentAudience = (s: Pick<TokenSettings, 'audience'>) => `${s.audience}/mcp`;

export interface TokenSettings {
  keys: KeyRing;
  audience: string;
  ttlSeconds: number;
}

export const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Signs a token for `user`, issued now, descending from the sign-in at `authTime`. It
 * expires after the token lifetime, but never after `notAfter` (the session's end).
 */
export async function signAccessToken(
  s: TokenSettings,
  user: { id: string; email: string; role: Role; tokenVersion: number },
  now: Date,
  session: { authTime: number; notAfter: number },
): Promise<{ token: string; expiresAt: number }> {
  const iat = unixSeconds(now);
  const expiresAt = Math.min(iat + s.ttlSeconds, session.notAfter);
  const token = await new SignJWT({
    email: user.email,
    role: user.role,
    ver: user.tokenVersion,
    auth_time: session.authTime,
  })
    .setProtectedHeader({ alg: 'RS256', kid: s.keys.kid, typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setAudience(s.audience)
    .setIssuedAt(iat)
    .setExpirationTime(expiresAt)
    .sign(s.keys.signingKey);
  return { token, expiresAt };
}

/**
 * Signs an agent's token for `user`: audience `{PUBLIC_BASE_URL}/mcp`, the granted scopes,
 * the client and the grant; it expires after `ttlSeconds`.
 */
export async function signAgentToken(
  s: TokenSettings,
  user: { id: string; email: string; role: Role; tokenVersion: number },
  now: Date,
  agent: AgentClaims & { ttlSeconds: number; authTime: number },
): Promise<{ token: string; expiresAt: number }> {
  const iat = unixSeconds(now);
  const expiresAt = iat + agent.ttlSeconds;
  const token = await new SignJWT({
    email: user.email,
    role: user.role,
    ver: user.tokenVersion,
    auth_time: agent.authTime,
    scope: agent.scopes.join(' '),
    client_id: agent.clientId,
    gid: agent.grantId,
  })
    .setProtectedHeader({ alg: 'RS256', kid: s.keys.kid, typ: 'at+jwt' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setAudience(agentAudience(s))
    .setIssuedAt(iat)
    .setExpirationTime(expiresAt)
    .setJti(crypto.randomUUID())
    .sign(s.keys.signingKey);
  return { token, expiresAt };
}

const keyFor = (s: TokenSettings) => (header: { kid?: string }) => {
  const key = header.kid ? s.keys.verifyKeys.get(header.kid) : undefined;
  if (!key) throw unauthenticated();
  return key;
};

/** True while verified claims still hold at `now`: not expired, not issued in the future. */
export const withinLifetime = (claims: TokenClaims, now: Date) =>
  claims.exp > unixSeconds(now) && !issuedInTheFuture(claims, now);

const issuedInTheFuture = (claims: TokenClaims, now: Date) =>
  claims.iat > unixSeconds(now) + MAX_CLOCK_SKEW_SECONDS;

/**
 * Verifies signature (RS256 only), issuer, audience, expiry, and an `iat` not in the future.
 * The audience is the API's (a user's token) or `/mcp`'s (an agent's token, with its scopes,
 * client and grant); which one the answer's `agent` tells.
 */
export async function verifyAccessToken(s: TokenSettings, token: string, now: Date): Promise<TokenClaims> {
  let claims: TokenClaims;
  try {
    const { payload } = await jwtVerify(token, keyFor(s), {
      algorithms: ['RS256'],
      issuer: ISSUER,
      audience: [s.audience, agentAudience(s)],
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    claims = claimsOf(payload);
    if (payload.aud === agentAudience(s)) claims.agent = agentClaimsOf(payload);
    else if (payload.aud !== s.audience || payload.scope !== undefined || payload.gid !== undefined) {
      throw unauthenticated();
    }
  } catch (err) {
    throw tokenError(err);
  }
  // jose checks `iat` only against a maximum age, never against the future.
  if (issuedInTheFuture(claims, now)) throw unauthenticated();
  return claims;
}

/**
 * For /auth/refresh: the signature, issuer and audience must hold, but the token may have
 * expired, at most `windowSeconds` ago.
 */
export async function verifyForRefresh(
  s: TokenSettings,
  token: string,
  now: Date,
  windowSeconds: number,
): Promise<TokenClaims> {
  let payload: JWTPayload;
  try {
    const { payload: raw } = await compactVerify(token, keyFor(s), { algorithms: ['RS256'] });
    payload = JSON.parse(new TextDecoder().decode(raw));
  } catch (err) {
    throw tokenError(err);
  }
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.iss !== ISSUER || !aud.includes(s.audience)) throw unauthenticated();
  const claims = claimsOf(payload);
  if (issuedInTheFuture(claims, now)) throw unauthenticated();
  if (unixSeconds(now) - claims.exp > windowSeconds) {
    throw unauthenticated('error.auth.refreshTooLate');
  }
  return claims;
}

function claimsOf(p: JWTPayload): TokenClaims {
  const { sub, email, role, ver, iat, exp, auth_time } = p as Record<string, unknown>;
  if (
    typeof sub !== 'string' ||
    typeof email !== 'string' ||
    (role !== 'buyer' && role !== 'seller' && role !== 'admin') ||
    typeof ver !== 'number' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    (auth_time !== undefined && (typeof auth_time !== 'number' || auth_time > iat))
  ) {
    throw unauthenticated();
  }
  // A token signed before auth_time existed counts as a sign-in at its issue: its chain
  // gets one session age from then, like any other.
  return { sub, email, role, ver, iat, exp, authTime: auth_time ?? iat };
}

/** An agent token's own claims: scopes (at least one known), client and grant. */
function agentClaimsOf(p: JWTPayload): AgentClaims {
  const { scope, client_id, gid } = p as Record<string, unknown>;
  const scopes = typeof scope === 'string' ? parseScopes(scope) : [];
  if (!scopes.length || typeof client_id !== 'string' || !client_id || typeof gid !== 'string' || !gid) {
    throw unauthenticated();
  }
  return { scopes, clientId: client_id, grantId: gid };
}

function tokenError(err: unknown): AppError {
  if (err instanceof errors.JWTExpired) return unauthenticated('error.auth.tokenExpired');
  return unauthenticated();
}
