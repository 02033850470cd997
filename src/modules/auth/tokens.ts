// Sessions and their tokens: issuing, checking a bearer token on every request, refreshing,
// and "log out everywhere". A session starts at a sign-in (`auth_time`); every token refreshed
// from it keeps that time, and none outlives SESSION_MAX_AGE_SECONDS after it
// (docs/api.md "Accounts and tokens").
import { eq, sql } from 'drizzle-orm';
import { isRecordId } from '../../contract/common.ts';
import { unauthenticated } from '../../contract/errors.ts';
import { isLocale } from '../../contract/i18n.ts';
import { type AuthUser, caller, type RequestContext } from '../context.ts';
import {
  signAccessToken,
  type TokenClaims,
  type TokenSettings,
  unixSeconds,
  verifyAccessToken,
  verifyForRefresh,
  withinLifetime,
} from './jwt.ts';
import { userOfTokenSubject } from './queries.ts';
import { users } from './tables.ts';
import { findUser } from './users.ts';

export interface TokenDeps {
  tokens: TokenSettings;
  /** How long after its expiry a token may still be exchanged at /auth/refresh. */
  refreshWindowSeconds: number;
  /** How long after its sign-in a session ends: no token of it is issued or valid after. */
  sessionMaxAgeSeconds: number;
  /**
   * How long (ms) an instance may trust what it last read of a user when checking a token.
   * Changes made through this service take effect at once; others (another instance, or
   * a row deleted by hand) within this time. 0 reads the user on every request.
   */
  authCacheMs?: number;
  /**
   * Whether an agent's grant still stands (the user has not revoked the agent): asked on every
   * request an agent's token makes, so a revocation takes effect at once. Without it (no
   * authorization server), agents' tokens are refused.
   */
  agentGrants?: { isLive(ctx: RequestContext, grantId: string, userId: string): Promise<boolean> };
}

/** The caller as authenticate() answers it: with the sign-in its token descends from. */
export interface SessionUser extends AuthUser {
  /** Unix seconds. */
  authTime: number;
}

const AUTH_CACHE_MAX = 50_000;

export type Tokens = ReturnType<typeof createTokens>;

export function createTokens(deps: TokenDeps) {
  const known = new Map<string, { user: AuthUser; tokenVersion: number; until: number }>();
  // A signature checked once stays valid: tokens already verified skip the RS256 check
  // (the costliest step of an authenticated request); the times are still checked every time.
  const verified = new Map<string, TokenClaims>();
  const sessionTooOld = duration(deps.sessionMaxAgeSeconds);

  /**
   * A token for `user`. Without `authTime` it starts a session (a sign-in); with it, the
   * token continues the session that began then.
   */
  const issue = (
    ctx: RequestContext,
    user: { id: string; email: string; role: AuthUser['role']; tokenVersion: number },
    authTime = unixSeconds(ctx.now()),
  ) =>
    signAccessToken(deps.tokens, user, ctx.now(), {
      authTime,
      notAfter: authTime + deps.sessionMaxAgeSeconds,
    });

  /** After a change to a user's role or tokens: this instance reads the user afresh. */
  const forget = (userId: string) => {
    known.delete(userId);
  };

  return {
    issue,
    forget,

    /** The sign-in time of the caller's session (now, for a caller without one). */
    sessionOf(ctx: RequestContext): number {
      const user: Partial<SessionUser> = caller(ctx);
      return user.authTime ?? unixSeconds(ctx.now());
    },

    /** Resolves a bearer token to its user: valid signature and claims, user still exists, not revoked. */
    async authenticate(ctx: RequestContext, token: string): Promise<SessionUser> {
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
        const [row] = isRecordId('users', claims.sub) ? await userOfTokenSubject(ctx.db, claims.sub) : [];
        if (!row) {
          known.delete(claims.sub);
          throw unauthenticated();
        }
        entry = {
          user: {
            id: row.id,
            email: row.email,
            role: row.role,
            ...(isLocale(row.locale) ? { locale: row.locale } : {}),
          },
          tokenVersion: row.tokenVersion,
          until: now.getTime() + (deps.authCacheMs ?? 0),
        };
        if (deps.authCacheMs) {
          if (known.size >= AUTH_CACHE_MAX) known.clear();
          known.set(row.id, entry);
        }
      }
      if (entry.tokenVersion !== claims.ver) throw unauthenticated();
      if (claims.agent) {
        const live = await deps.agentGrants?.isLive(ctx, claims.agent.grantId, claims.sub);
        if (!live) throw unauthenticated();
        return { ...entry.user, authTime: claims.authTime, agent: claims.agent };
      }
      return { ...entry.user, authTime: claims.authTime };
    },

    /**
     * A fresh token for a token of this deployment, expired or not (clients refresh early),
     * expired at most the refresh window ago, of a session younger than the session age.
     */
    async refresh(ctx: RequestContext, token: string | undefined) {
      if (!token) throw unauthenticated('error.auth.missingRefreshToken');
      const now = ctx.now();
      const claims = await verifyForRefresh(deps.tokens, token, now, deps.refreshWindowSeconds);
      if (unixSeconds(now) - claims.authTime > deps.sessionMaxAgeSeconds) {
        throw unauthenticated('error.auth.sessionTooOld', sessionTooOld);
      }
      const user = await findUser(ctx, claims.sub);
      if (!user || user.tokenVersion !== claims.ver) throw unauthenticated();
      return { success: true as const, ...(await issue(ctx, user, claims.authTime)) };
    },

    /** "Log out everywhere": every token of the caller issued so far stops working. */
    async logoutAll(ctx: RequestContext) {
      const me = caller(ctx);
      await ctx.db
        .update(users)
        .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
        .where(eq(users.id, me.id));
      forget(me.id);
      return { success: true as const };
    },
  };
}

/**
 * 2592000 -> 30 days, 600 -> 10 minutes: the session age in its largest whole unit, as the
 * values of error.auth.sessionTooOld (`amount` chooses the plural, `shown` is written as is).
 */
function duration(seconds: number): { amount: number; shown: string; unit: string } {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds % size === 0) return { amount: seconds / size, shown: String(seconds / size), unit };
  }
  return { amount: seconds, shown: String(seconds), unit: 'second' };
}
