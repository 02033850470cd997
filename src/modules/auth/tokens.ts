// Tokens: issuing, checking a bearer token on every request, and refreshing.
import { eq } from 'drizzle-orm';
import { isRecordId } from '../../contract/common.ts';
import { unauthenticated } from '../../contract/errors.ts';
import type { AuthUser, RequestContext } from '../context.ts';
import {
  signAccessToken,
  type TokenClaims,
  type TokenSettings,
  verifyAccessToken,
  verifyForRefresh,
  withinLifetime,
} from './jwt.ts';
import { users } from './tables.ts';
import { findUser } from './users.ts';

export interface TokenDeps {
  tokens: TokenSettings;
  /** How long after its expiry a token may still be exchanged at /auth/refresh. */
  refreshWindowSeconds: number;
  /**
   * How long (ms) an instance may trust what it last read of a user when checking a token.
   * Changes made through this service take effect at once; others (another instance, or
   * a row deleted by hand) within this time. 0 reads the user on every request.
   */
  authCacheMs?: number;
}

const AUTH_CACHE_MAX = 50_000;

export type Tokens = ReturnType<typeof createTokens>;

export function createTokens(deps: TokenDeps) {
  const known = new Map<string, { user: AuthUser; tokenVersion: number; until: number }>();
  // A signature checked once stays valid: tokens already verified skip the RS256 check
  // (the costliest step of an authenticated request); the times are still checked every time.
  const verified = new Map<string, TokenClaims>();

  /** A token for `user`, issued now. */
  const issue = (
    ctx: RequestContext,
    user: { id: string; email: string; role: AuthUser['role']; tokenVersion: number },
  ) => signAccessToken(deps.tokens, user, ctx.now());

  /** After a change to a user's role or tokens: this instance reads the user afresh. */
  const forget = (userId: string) => {
    known.delete(userId);
  };

  return {
    issue,
    forget,

    /** Resolves a bearer token to its user: valid signature and claims, user still exists, not revoked. */
    async authenticate(ctx: RequestContext, token: string): Promise<AuthUser> {
      const now = ctx.now();
      let claims = verified.get(token);
      if (!claims || !withinLifetime(claims, now)) {
        verified.delete(token);
        claims = await verifyAccessToken(deps.tokens, token, now);
        if (verified.size >= AUTH_CACHE_MAX) verified.clear();
        verified.set(token, claims);
      }
      let entry = known.get(claims.sub);
      if (!entry || entry.until <= now.getTime()) {
        const [row] = isRecordId('users', claims.sub)
          ? await ctx.db
              .select({
                id: users.id,
                email: users.email,
                role: users.role,
                tokenVersion: users.tokenVersion,
              })
              .from(users)
              .where(eq(users.id, claims.sub))
          : [];
        if (!row) {
          known.delete(claims.sub);
          throw unauthenticated();
        }
        entry = {
          user: { id: row.id, email: row.email, role: row.role },
          tokenVersion: row.tokenVersion,
          until: now.getTime() + (deps.authCacheMs ?? 0),
        };
        if (deps.authCacheMs) {
          if (known.size >= AUTH_CACHE_MAX) known.clear();
          known.set(row.id, entry);
        }
      }
      if (entry.tokenVersion !== claims.ver) throw unauthenticated();
      return entry.user;
    },

    /**
     * A fresh token for a token of this deployment, expired or not (clients refresh early),
     * expired at most the refresh window ago.
     */
    async refresh(ctx: RequestContext, token: string | undefined) {
      if (!token)
        throw unauthenticated('AUTH_ERROR: Missing token; send Authorization: Bearer <expired token>');
      const claims = await verifyForRefresh(deps.tokens, token, ctx.now(), deps.refreshWindowSeconds);
      const user = await findUser(ctx, claims.sub);
      if (!user || user.tokenVersion !== claims.ver) throw unauthenticated();
      return { success: true as const, ...(await issue(ctx, user)) };
    },
  };
}
