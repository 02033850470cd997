// Accounts, sign-in, tokens and roles. Every rule of authentication lives here; routes only
// translate HTTP to these calls.
import { createHash } from 'node:crypto';
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { becomeSellerBody, changeRoleBody, loginBody, registerBody } from '../../contract/auth.ts';
import { isRecordId, newId, type Role, toUnix } from '../../contract/common.ts';
import { conflict, invalid, notFound, unauthenticated } from '../../contract/errors.ts';
import { type AuthUser, caller, type RequestContext } from '../context.ts';
import { newLoginSecrets, type OidcClient } from './oidc.ts';
import { checkPassword, hashPassword } from './passwords.ts';
import { oidcLogins, sellerProfiles, userIdentities, users } from './tables.ts';
import { signAccessToken, type TokenSettings, verifyAccessToken, verifyForRefresh } from './tokens.ts';

type UserRow = typeof users.$inferSelect;

export interface AuthDeps {
  tokens: TokenSettings;
  refreshWindowSeconds: number;
  /** Absent when no external identity provider is configured. */
  oidc: OidcClient | undefined;
  /** Origins that /auth/google/start may send the browser back to. */
  redirectOrigins: string[];
  /**
   * How long (ms) an instance may trust what it last read of a user when checking a token.
   * Changes made through this service take effect at once; others (another instance, or
   * a row deleted by hand) within this time. 0 reads the user on every request.
   */
  authCacheMs?: number;
}

const AUTH_CACHE_MAX = 50_000;

const OIDC_LOGIN_TTL_MS = 10 * 60 * 1000;
const OIDC_PROVIDER = 'google';

const publicUser = (u: Pick<UserRow, 'id' | 'email' | 'name' | 'role'>) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
});

const sha256 = (v: string) => createHash('sha256').update(v).digest('base64url');

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthDeps) {
  const issue = (ctx: RequestContext, u: UserRow) => signAccessToken(deps.tokens, u, ctx.now());
  const known = new Map<string, { user: AuthUser; tokenVersion: number; until: number }>();
  // A signature checked once stays valid: tokens already verified skip the RS256 check
  // (the costliest step of an authenticated request); expiry is still checked every time.
  const verified = new Map<string, Awaited<ReturnType<typeof verifyAccessToken>>>();
  /** After a change to a user's role or tokens: this instance reads the user afresh. */
  const forget = (userId: string) => known.delete(userId);

  const findUser = async (ctx: RequestContext, id: string) =>
    isRecordId('users', id) ? (await ctx.db.select().from(users).where(eq(users.id, id)))[0] : undefined;

  /** A new account. Answers 409 when the email is taken (emails are unique, case-insensitively). */
  async function insertUser(
    ctx: RequestContext,
    input: { email: string; name: string; role: Role; passwordHash: string | null; emailVerified: boolean },
  ): Promise<UserRow> {
    const [row] = await ctx.db
      .insert(users)
      .values({ id: newId('users'), ...input })
      .onConflictDoNothing({ target: users.email })
      .returning();
    if (!row) throw conflict(`An account with the email ${input.email} already exists; log in instead`);
    return row;
  }

  return {
    /** Resolves a bearer token to its user: valid signature and claims, user still exists, not revoked. */
    async authenticate(ctx: RequestContext, token: string): Promise<AuthUser> {
      const now = ctx.now();
      let claims = verified.get(token);
      if (!claims || claims.exp * 1000 <= now.getTime()) {
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

    async register(ctx: RequestContext, input: z.infer<typeof registerBody>) {
      const user = await insertUser(ctx, {
        email: input.email,
        name: input.name,
        role: 'buyer',
        passwordHash: await hashPassword(input.password),
        emailVerified: false,
      });
      return { success: true as const, user: publicUser(user), ...(await issue(ctx, user)) };
    },

    /**
     * Used by the command line and the seed: any role, email taken as verified (an operator
     * vouches for it). A seller gets their shop in the same transaction.
     */
    async createUser(
      ctx: RequestContext,
      input: z.infer<typeof registerBody> & { role: Role; shop?: z.infer<typeof becomeSellerBody> },
    ) {
      const passwordHash = await hashPassword(input.password);
      const user = await ctx.db.transaction(async (tx) => {
        const row = await insertUser(
          { ...ctx, db: tx },
          { email: input.email, name: input.name, role: input.role, passwordHash, emailVerified: true },
        );
        if (input.role === 'seller') {
          const shop = input.shop ?? { shopName: `${input.name}'s shop`, province: 'ON' as const };
          await tx.insert(sellerProfiles).values({ userId: row.id, ...shop });
        }
        return row;
      });
      return publicUser(user);
    },

    async login(ctx: RequestContext, input: z.infer<typeof loginBody>) {
      const [user] = await ctx.db.select().from(users).where(eq(users.email, input.email));
      // Same answer, same work, for an unknown email and a wrong password.
      const ok = await checkPassword(user?.passwordHash, input.password);
      if (!user || !ok) throw unauthenticated('AUTH_ERROR: Invalid email or password');
      const t = await issue(ctx, user);
      return { success: true as const, user: publicUser(user), ...t, userId: user.id, role: user.role };
    },

    async refresh(ctx: RequestContext, token: string | undefined) {
      if (!token)
        throw unauthenticated('AUTH_ERROR: Missing token; send Authorization: Bearer <expired token>');
      const claims = await verifyForRefresh(deps.tokens, token, ctx.now(), deps.refreshWindowSeconds);
      const user = await findUser(ctx, claims.sub);
      if (!user || user.tokenVersion !== claims.ver) throw unauthenticated();
      return { success: true as const, ...(await issue(ctx, user)) };
    },

    async me(ctx: RequestContext) {
      const rows = await ctx.db
        .select({ user: users, seller: sellerProfiles })
        .from(users)
        .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
        .where(eq(users.id, caller(ctx).id));
      const row = rows[0];
      if (!row) throw unauthenticated();
      return {
        ...publicUser(row.user),
        emailVerified: row.user.emailVerified,
        createdAt: toUnix(row.user.createdAt),
        seller: row.seller ? { shopName: row.seller.shopName, province: row.seller.province as never } : null,
      };
    },

    /** A buyer opens a shop. Older tokens stop working; the answer carries a fresh one. */
    async becomeSeller(ctx: RequestContext, input: z.infer<typeof becomeSellerBody>) {
      const me = caller(ctx);
      if (me.role === 'seller') throw conflict('You are already a seller');
      if (me.role === 'admin') throw conflict('Admins already have every seller capability');
      const user = await ctx.db.transaction(async (tx) => {
        const [updated] = await tx
          .update(users)
          .set({ role: 'seller', tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(and(eq(users.id, me.id), eq(users.role, 'buyer')))
          .returning();
        if (!updated) throw conflict('You are already a seller');
        await tx
          .insert(sellerProfiles)
          .values({ userId: me.id, shopName: input.shopName, province: input.province })
          .onConflictDoUpdate({
            target: sellerProfiles.userId,
            set: { shopName: input.shopName, province: input.province },
          });
        return updated;
      });
      forget(user.id); // after the commit: a concurrent read cannot cache the old version
      return { success: true as const, user: publicUser(user), ...(await issue(ctx, user)) };
    },

    /**
     * An admin changes a user's role. The user's older tokens stop working (their claims
     * would lie); they sign in again. At least one admin always remains.
     */
    async changeRole(ctx: RequestContext, userId: string, input: z.infer<typeof changeRoleBody>) {
      const target = await findUser(ctx, userId);
      if (!target) throw notFound(`User ${userId} not found`);
      const updated = await ctx.db.transaction(async (tx) => {
        // Lock every admin row in id order: two admins demoting each other cannot both win.
        const admins = await tx
          .select({ id: users.id })
          .from(users)
          .where(eq(users.role, 'admin'))
          .orderBy(asc(users.id))
          .for('update');
        const [current] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
        if (!current) throw notFound(`User ${userId} not found`);
        if (current.role === input.role) return current;
        if (current.role === 'admin' && admins.length <= 1) {
          throw conflict('This is the last admin; make another user admin first');
        }
        if (input.role === 'seller') {
          const [profile] = await tx.select().from(sellerProfiles).where(eq(sellerProfiles.userId, userId));
          if (!profile) {
            if (!input.shopName || !input.province) {
              throw invalid('A new seller needs a shop', [
                ...(input.shopName
                  ? []
                  : [{ field: 'shopName', message: 'required to make this user a seller' }]),
                ...(input.province
                  ? []
                  : [{ field: 'province', message: 'required to make this user a seller' }]),
              ]);
            }
            await tx
              .insert(sellerProfiles)
              .values({ userId, shopName: input.shopName, province: input.province });
          }
        }
        const [row] = await tx
          .update(users)
          .set({ role: input.role, tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(eq(users.id, userId))
          .returning();
        return row!;
      });
      forget(updated.id);
      return { success: true as const, user: publicUser(updated) };
    },

    /** Step 1 of external login: remember state, nonce and PKCE verifier; answer the provider URL. */
    async startExternalLogin(ctx: RequestContext, redirectUri: string): Promise<string> {
      const client = requireOidc();
      let target: URL;
      try {
        target = new URL(redirectUri);
      } catch {
        throw invalid('redirectUri must be an absolute URL', [
          { field: 'redirectUri', message: 'must be a URL' },
        ]);
      }
      if (!deps.redirectOrigins.includes(target.origin)) {
        throw invalid(`redirectUri origin ${target.origin} is not allowed`, [
          { field: 'redirectUri', message: `origin must be one of ${deps.redirectOrigins.join(', ')}` },
        ]);
      }
      const secrets = await newLoginSecrets();
      const now = ctx.now();
      await ctx.db.delete(oidcLogins).where(lt(oidcLogins.expiresAt, now));
      await ctx.db.insert(oidcLogins).values({
        stateHash: sha256(secrets.state),
        codeVerifier: secrets.codeVerifier,
        nonce: secrets.nonce,
        redirectUri: target.href,
        expiresAt: new Date(now.getTime() + OIDC_LOGIN_TTL_MS),
      });
      return client.authorizationUrl(secrets).href;
    },

    /**
     * Step 2: the provider sent the browser back. The state is consumed once; the code is
     * exchanged; the ID token verified; the user signed in (or created) by verified email.
     * Answers where to send the browser: the caller's redirectUri with `#token=` or `#error=`.
     */
    async finishExternalLogin(
      ctx: RequestContext,
      callbackSearch: string,
      query: { state?: string; code?: string; error?: string },
    ): Promise<string> {
      const client = requireOidc();
      if (!query.state) throw invalid('Missing state', [{ field: 'state', message: 'required' }]);
      const [login] = await ctx.db
        .delete(oidcLogins)
        .where(eq(oidcLogins.stateHash, sha256(query.state)))
        .returning();
      if (!login || login.expiresAt < ctx.now()) {
        throw invalid('Unknown or expired login state; start the login again', [
          { field: 'state', message: 'unknown or expired' },
        ]);
      }
      const back = (fragment: Record<string, string>) => {
        const url = new URL(login.redirectUri);
        url.hash = new URLSearchParams(fragment).toString();
        return url.href;
      };
      if (query.error || !query.code) return back({ error: query.error ?? 'missing_code' });
      let identity: Awaited<ReturnType<OidcClient['exchange']>>;
      try {
        identity = await client.exchange(callbackSearch, {
          state: query.state,
          nonce: login.nonce,
          codeVerifier: login.codeVerifier,
        });
      } catch (err) {
        ctx.log.warn({ err }, 'external login: code exchange or ID token verification failed');
        return back({ error: 'login_failed' });
      }
      if (!identity.email || !identity.emailVerified) return back({ error: 'email_not_verified' });
      const email = identity.email;
      const user = await ctx.db.transaction(async (tx) => {
        const [linked] = await tx
          .select({ user: users })
          .from(userIdentities)
          .innerJoin(users, eq(users.id, userIdentities.userId))
          .where(
            and(eq(userIdentities.provider, OIDC_PROVIDER), eq(userIdentities.subject, identity.subject)),
          );
        if (linked) return linked.user;
        await tx
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
        const [row] = await tx
          .update(users)
          .set({
            emailVerified: true,
            passwordHash: sql`case when ${users.emailVerified} then ${users.passwordHash} else null end`,
            tokenVersion: sql`case when ${users.emailVerified} then ${users.tokenVersion} else ${users.tokenVersion} + 1 end`,
          })
          .where(eq(users.email, email))
          .returning();
        await tx
          .insert(userIdentities)
          .values({ provider: OIDC_PROVIDER, subject: identity.subject, userId: row!.id })
          .onConflictDoNothing();
        return row!;
      });
      forget(user.id);
      const { token, expiresAt } = await issue(ctx, user);
      return back({ token, expiresAt: String(expiresAt) });
    },
  };

  function requireOidc(): OidcClient {
    if (!deps.oidc) throw notFound('External login is not configured on this deployment');
    return deps.oidc;
  }
}
