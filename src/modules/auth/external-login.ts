// External login (OpenID Connect with the external identity provider): start, then the
// provider's callback. The state is kept hashed in the database (any instance can finish what
// another started), consumed once, and accepted only from the browser that started the login.
import { createHash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import { newId } from '../../contract/common.ts';
import { invalid, notFound, problem } from '../../contract/errors.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import type { KeyRing } from './keys.ts';
import { type CookieToSet, createLoginCookie, type LoginCookie } from './login-cookie.ts';
import { newLoginSecrets, type OidcClient } from './oidc.ts';
import { oidcLogins, userIdentities, users } from './tables.ts';
import type { Tokens } from './tokens.ts';
import type { UserRow } from './users.ts';

export interface ExternalLoginDeps {
  /** Absent when no external identity provider is configured. */
  oidc: OidcClient | undefined;
  /** Origins that /auth/google/start may send the browser back to. */
  redirectOrigins: string[];
  /** The keys the login cookie's key is derived from (only read when `oidc` is set). */
  keys: KeyRing;
}

const LOGIN_TTL_SECONDS = 10 * 60;
const PROVIDER = 'google';
const COOKIE_PURPOSE = 'external-login state cookie';

const sha256 = (v: string) => createHash('sha256').update(v).digest('base64url');

export function createExternalLogin(deps: ExternalLoginDeps, tokens: Tokens) {
  const configured: { oidc: OidcClient; cookie: LoginCookie } | undefined = deps.oidc && {
    oidc: deps.oidc,
    cookie: createLoginCookie({
      callbackUri: deps.oidc.callbackUri,
      key: deps.keys.derive(COOKIE_PURPOSE),
      maxAgeSeconds: LOGIN_TTL_SECONDS,
    }),
  };
  const requireConfigured = () => {
    if (!configured) throw notFound('error.auth.externalLoginOff');
    return configured;
  };

  return {
    /**
     * Step 1: remember state, nonce and PKCE verifier; answer the provider URL to send the
     * browser to, and the cookie that binds the state to this browser.
     */
    async startExternalLogin(
      ctx: RequestContext,
      redirectUri: string,
    ): Promise<{ location: string; cookie: CookieToSet }> {
      const { oidc, cookie } = requireConfigured();
      const target = allowedRedirect(redirectUri, deps.redirectOrigins);
      const secrets = await newLoginSecrets();
      const now = ctx.now();
      await inTransaction(ctx, async (tx) => {
        await tx.db.delete(oidcLogins).where(lt(oidcLogins.expiresAt, now));
        await tx.db.insert(oidcLogins).values({
          stateHash: sha256(secrets.state),
          codeVerifier: secrets.codeVerifier,
          nonce: secrets.nonce,
          redirectUri: target.href,
          expiresAt: new Date(now.getTime() + LOGIN_TTL_SECONDS * 1000),
        });
      });
      return { location: oidc.authorizationUrl(secrets).href, cookie: cookie.bind(secrets.state) };
    },

    /** The cookie that ends the login cookie: every callback answer sets it. */
    clearedLoginCookie: () => requireConfigured().cookie.cleared,

    /**
     * Step 2: the provider sent the browser back. The state is consumed once, whatever comes
     * next; it must come with the cookie set at its start, or the login is refused (400). The
     * code is exchanged; the ID token verified; the user signed in (or created) by verified
     * email. Answers where to send the browser: the caller's redirectUri with `#token=` or
     * `#error=`.
     */
    async finishExternalLogin(
      ctx: RequestContext,
      callback: {
        /** The query string the provider sent back (`?code=…&state=…`). */
        search: string;
        query: { state?: string; code?: string; error?: string };
        /** The request's cookies. */
        cookies: Record<string, string | undefined>;
      },
    ): Promise<string> {
      const { oidc, cookie } = requireConfigured();
      const { query } = callback;
      if (!query.state)
        throw invalid('error.auth.missingState', undefined, [problem('state', 'validation.requiredShort')]);
      const [login] = await ctx.db
        .delete(oidcLogins)
        .where(eq(oidcLogins.stateHash, sha256(query.state)))
        .returning();
      if (!login || login.expiresAt < ctx.now()) {
        throw invalid('error.auth.unknownState', undefined, [
          problem('state', 'validation.unknownOrExpired'),
        ]);
      }
      if (!cookie.fits(callback.cookies, query.state)) {
        ctx.log.warn('external login: a state came back without the cookie of its start (login CSRF?)');
        throw invalid('error.auth.otherBrowser', undefined, [problem('state', 'validation.otherBrowser')]);
      }
      const back = (fragment: Record<string, string>) => {
        const url = new URL(login.redirectUri);
        url.hash = new URLSearchParams(fragment).toString();
        return url.href;
      };
      if (query.error || !query.code) return back({ error: query.error ?? 'missing_code' });
      let identity: Awaited<ReturnType<OidcClient['exchange']>>;
      try {
        identity = await oidc.exchange(callback.search, {
          state: query.state,
          nonce: login.nonce,
          codeVerifier: login.codeVerifier,
        });
      } catch (err) {
        ctx.log.warn({ err }, 'external login: code exchange or ID token verification failed');
        return back({ error: 'login_failed' });
      }
      if (!identity.email || !identity.emailVerified) return back({ error: 'email_not_verified' });
      const user = await signInIdentity(ctx, { ...identity, email: identity.email });
      if (user.suspendedAt) return back({ error: 'account_suspended' });
      tokens.forget(user.id);
      const { token, expiresAt } = await tokens.issue(ctx, user);
      return back({ token, expiresAt: String(expiresAt) });
    },
  };
}

function allowedRedirect(redirectUri: string, origins: string[]): URL {
  let target: URL;
  try {
    target = new URL(redirectUri);
  } catch {
    throw invalid('error.auth.redirectNotUrl', undefined, [
      problem('redirectUri', 'validation.format', { format: 'url' }),
    ]);
  }
  if (!origins.includes(target.origin)) {
    throw invalid('error.auth.redirectOrigin', { origin: target.origin }, [
      problem('redirectUri', 'validation.originOneOf', { origins: origins.join(', ') }),
    ]);
  }
  return target;
}

/** The account of a verified identity: the one linked to it, else the one with its email, else a new buyer. */
function signInIdentity(
  ctx: RequestContext,
  identity: { subject: string; email: string; name: string | undefined },
): Promise<UserRow> {
  const { email } = identity;
  return inTransaction(ctx, async (tx) => {
    const [linked] = await tx.db
      .select({ user: users })
      .from(userIdentities)
      .innerJoin(users, eq(users.id, userIdentities.userId))
      .where(and(eq(userIdentities.provider, PROVIDER), eq(userIdentities.subject, identity.subject)));
    if (linked) return linked.user;
    await tx.db
      .insert(users)
      .values({
        id: newId('users'),
        email,
        name: identity.name ?? email.split('@')[0]!,
        role: 'buyer',
        passwordHash: null,
        emailVerified: true,
      })
      .onConflictDoNothing({ target: users.email });
    // The provider vouched for this email: the account with it is this person's. If that
    // account's email was never verified, whoever set its password may not own the email:
    // the password is dropped and older tokens revoked (the owner can reset it later).
    const [row] = await tx.db
      .update(users)
      .set({
        emailVerified: true,
        passwordHash: sql`case when ${users.emailVerified} then ${users.passwordHash} else null end`,
        tokenVersion: sql`case when ${users.emailVerified} then ${users.tokenVersion} else ${users.tokenVersion} + 1 end`,
      })
      .where(eq(users.email, email))
      .returning();
    await tx.db
      .insert(userIdentities)
      .values({ provider: PROVIDER, subject: identity.subject, userId: row!.id })
      .onConflictDoNothing();
    return row!;
  });
}
