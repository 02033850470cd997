// Access tokens on the wire: RS256 JWTs with kid, claims sub/email/role/iat/exp/iss/aud and
// `ver` (the user's token version, bumped to revoke). Signing and verifying only; the rules
// of sessions are in tokens.ts.
import { compactVerify, errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Role } from '../../contract/common.ts';
import { type AppError, unauthenticated } from '../../contract/errors.ts';
import type { KeyRing } from './keys.ts';

export const ISSUER = 'portage';

export interface TokenClaims {
  sub: string;
  email: string;
  role: Role;
  ver: number;
  iat: number;
  exp: number;
}

export interface TokenSettings {
  keys: KeyRing;
  audience: string;
  ttlSeconds: number;
}

export const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Signs a token for `user`, issued now. */
export async function signAccessToken(
  s: TokenSettings,
  user: { id: string; email: string; role: Role; tokenVersion: number },
  now: Date,
): Promise<{ token: string; expiresAt: number }> {
  const iat = unixSeconds(now);
  const expiresAt = iat + s.ttlSeconds;
  const token = await new SignJWT({ email: user.email, role: user.role, ver: user.tokenVersion })
    .setProtectedHeader({ alg: 'RS256', kid: s.keys.kid, typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setAudience(s.audience)
    .setIssuedAt(iat)
    .setExpirationTime(expiresAt)
    .sign(s.keys.signingKey);
  return { token, expiresAt };
}

const keyFor = (s: TokenSettings) => (header: { kid?: string }) => {
  const key = header.kid ? s.keys.verifyKeys.get(header.kid) : undefined;
  if (!key) throw unauthenticated();
  return key;
};

/** True while verified claims still hold at `now`: not expired. */
export const withinLifetime = (claims: TokenClaims, now: Date) => claims.exp > unixSeconds(now);

/** Verifies signature (RS256 only), issuer, audience and expiry. */
export async function verifyAccessToken(s: TokenSettings, token: string, now: Date): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, keyFor(s), {
      algorithms: ['RS256'],
      issuer: ISSUER,
      audience: s.audience,
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    return claimsOf(payload);
  } catch (err) {
    throw tokenError(err);
  }
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
  if (claims.iat > unixSeconds(now) + 60) throw unauthenticated();
  if (unixSeconds(now) - claims.exp > windowSeconds) {
    throw unauthenticated('AUTH_ERROR: Token expired too long ago to refresh; log in again');
  }
  return claims;
}

function claimsOf(p: JWTPayload): TokenClaims {
  const { sub, email, role, ver, iat, exp } = p as Record<string, unknown>;
  if (
    typeof sub !== 'string' ||
    typeof email !== 'string' ||
    (role !== 'buyer' && role !== 'seller' && role !== 'admin') ||
    typeof ver !== 'number' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number'
  ) {
    throw unauthenticated();
  }
  return { sub, email, role, ver, iat, exp };
}

function tokenError(err: unknown): AppError {
  if (err instanceof errors.JWTExpired) return unauthenticated('AUTH_ERROR: Token expired');
  return unauthenticated();
}
