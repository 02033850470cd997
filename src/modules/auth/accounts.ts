// Accounts: registration, password sign-in, accounts made by an operator, the signed-in
// user, becoming a seller and role changes.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { becomeSellerBody, changeRoleBody, loginBody, registerBody } from '../../contract/auth.ts';
import { type Role, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, invalid, notFound, problem, unauthenticated } from '../../contract/errors.ts';
import type { Locale } from '../../contract/i18n.ts';
import { recordAdminAction } from '../audit/service.ts';
import { shopVisibilityChanged } from '../catalog/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import type { EmailLinks } from './email-links.ts';
import { checkPassword, hashPassword } from './passwords.ts';
import { sellerProfiles, users, webSessions } from './tables.ts';
import type { Tokens } from './tokens.ts';
import { insertUser, publicUser } from './users.ts';

export function createAccounts(tokens: Tokens, links: EmailLinks, opts: { shopApproval: boolean }) {
  /**
   * The account an email and password open (the pages' sign-in starts a web session with it);
   * 401 otherwise, with the same answer and the same work for an unknown email and a wrong
   * password.
   */
  async function checkCredentials(ctx: RequestContext, input: z.infer<typeof loginBody>) {
    const [user] = await ctx.db.select().from(users).where(eq(users.email, input.email));
    const ok = await checkPassword(user?.passwordHash, input.password);
    if (!user || !ok) throw unauthenticated('error.auth.badCredentials');
    // Said only to the one who knows the password: a suspension is no secret from its person.
    if (user.suspendedAt) throw forbidden('error.auth.suspended');
    return user;
  }

  /**
   * A buyer account and its verification email, committed together; `locale` is the language
   * it keeps (the pages register in the one they were read in).
   */
  async function createBuyer(ctx: RequestContext, input: z.infer<typeof registerBody>, locale?: Locale) {
    const passwordHash = await hashPassword(input.password);
    const user = await inTransaction(ctx, async (tx) => {
      const row = await insertUser(tx, {
        email: input.email,
        name: input.name,
        role: 'buyer',
        passwordHash,
        emailVerified: false,
        ...(locale ? { locale } : {}),
      });
      await links.mailVerification(tx, row);
      return row;
    });
    links.nudge();
    return user;
  }

  return {
    /** A buyer account and its verification email, committed together, and a token of it. */
    async register(ctx: RequestContext, input: z.infer<typeof registerBody>) {
      const user = await createBuyer(ctx, input);
      return { success: true as const, user: publicUser(user), ...(await tokens.issue(ctx, user)) };
    },

    createBuyer,

    /**
     * Used by the command line and the seed: any role, email taken as verified (an operator
     * vouches for it). A seller gets their shop in the same transaction.
     */
    async createUser(
      ctx: RequestContext,
      input: z.infer<typeof registerBody> & { role: Role; shop?: z.infer<typeof becomeSellerBody> },
    ) {
      const passwordHash = await hashPassword(input.password);
      const user = await inTransaction(ctx, async (tx) => {
        const row = await insertUser(tx, {
          email: input.email,
          name: input.name,
          role: input.role,
          passwordHash,
          emailVerified: true,
        });
        if (input.role === 'seller') {
          const shop = input.shop ?? { shopName: `${input.name}'s shop`, province: 'ON' as const };
          await tx.db.insert(sellerProfiles).values({ userId: row.id, ...shop });
        }
        return row;
      });
      return publicUser(user);
    },

    checkCredentials,

    async login(ctx: RequestContext, input: z.infer<typeof loginBody>) {
      const user = await checkCredentials(ctx, input);
      const t = await tokens.issue(ctx, user);
      return { success: true as const, user: publicUser(user), ...t, userId: user.id, role: user.role };
    },

    /**
     * A signed-in person's new password, given the current one. Every session and token of
     * theirs ends (tokenVersion moves on): the caller starts the one it goes on with.
     */
    async changePassword(ctx: RequestContext, input: { currentPassword: string; newPassword: string }) {
      const me = caller(ctx);
      const [user] = await ctx.db.select().from(users).where(eq(users.id, me.id));
      if (!user) throw unauthenticated();
      if (!(await checkPassword(user.passwordHash, input.currentPassword))) {
        throw invalid('error.auth.wrongPassword', undefined, [
          problem('currentPassword', 'validation.wrongPassword'),
        ]);
      }
      const passwordHash = await hashPassword(input.newPassword);
      const updated = await inTransaction(ctx, async (tx) => {
        // Only over the password that was checked: two changes at once do not both win.
        const [row] = await tx.db
          .update(users)
          .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(and(eq(users.id, me.id), eq(users.tokenVersion, user.tokenVersion)))
          .returning();
        if (!row) throw conflict('error.auth.passwordChangedMeanwhile');
        // Ended by the new token version already; their rows go now rather than at their expiry.
        await tx.db.delete(webSessions).where(eq(webSessions.userId, me.id));
        return row;
      });
      tokens.forget(me.id);
      return updated;
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

    /**
     * A buyer opens a shop. Older tokens stop working; the answer carries a fresh one, in the
     * same session (opening a shop is not a sign-in).
     */
    async becomeSeller(ctx: RequestContext, input: z.infer<typeof becomeSellerBody>) {
      const me = caller(ctx);
      if (me.role === 'seller') throw conflict('error.auth.alreadySeller');
      if (me.role === 'admin') throw conflict('error.auth.adminIsSeller');
      const user = await inTransaction(ctx, async (tx) => {
        const [updated] = await tx.db
          .update(users)
          .set({ role: 'seller', tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(and(eq(users.id, me.id), eq(users.role, 'buyer')))
          .returning();
        if (!updated) throw conflict('error.auth.alreadySeller');
        // With SHOP_APPROVAL=on a new shop waits for an admin; a shop kept from before (a seller
        // demoted, then a seller again) keeps its state: a suspension is not undone by reopening.
        await tx.db
          .insert(sellerProfiles)
          .values({
            userId: me.id,
            shopName: input.shopName,
            province: input.province,
            ...(opts.shopApproval ? { status: 'pending' as const } : {}),
          })
          .onConflictDoUpdate({
            target: sellerProfiles.userId,
            set: { shopName: input.shopName, province: input.province },
          });
        return updated;
      });
      tokens.forget(user.id); // after the commit: a concurrent read cannot cache the old version
      const token = await tokens.issue(ctx, user, tokens.sessionOf(ctx));
      return { success: true as const, user: publicUser(user), ...token };
    },

    /**
     * An admin suspends a user (`suspend`) or reinstates them: suspended, they cannot sign in, and
     * every token and page session of theirs ends (their token version moves on). An admin cannot
     * suspend themself or another admin (demote them first). Recorded in the audit log.
     */
    async setSuspended(ctx: RequestContext, userId: string, suspend: boolean) {
      const me = caller(ctx);
      const updated = await inTransaction(ctx, async (tx) => {
        const [current] = await tx.db.select().from(users).where(eq(users.id, userId)).for('update');
        if (!current) throw notFound('error.auth.userNotFound', { id: userId });
        if (suspend && (current.id === me.id || current.role === 'admin')) {
          throw conflict('error.auth.suspendAdmin');
        }
        if (Boolean(current.suspendedAt) === suspend) return current;
        const [row] = await tx.db
          .update(users)
          .set(
            suspend
              ? { suspendedAt: tx.now(), tokenVersion: sql`${users.tokenVersion} + 1` }
              : { suspendedAt: null },
          )
          .where(eq(users.id, userId))
          .returning();
        // A seller's products leave with them (and come back unless their shop is suspended itself).
        await shopVisibilityChanged(tx);
        await recordAdminAction(tx, {
          action: suspend ? 'user.suspend' : 'user.reinstate',
          subject: userId,
          before: { suspended: Boolean(current.suspendedAt) },
          after: { suspended: suspend },
        });
        return row!;
      });
      tokens.forget(updated.id);
      return { success: true as const, user: publicUser(updated), suspended: updated.suspendedAt !== null };
    },

    /**
     * An admin changes a user's role. The user's older tokens stop working (their claims
     * would lie); they sign in again. At least one admin always remains.
     */
    async changeRole(ctx: RequestContext, userId: string, input: z.infer<typeof changeRoleBody>) {
      const updated = await inTransaction(ctx, async (tx) => {
        // Lock every admin row in id order: two admins demoting each other cannot both win.
        const admins = await tx.db
          .select({ id: users.id })
          .from(users)
          .where(eq(users.role, 'admin'))
          .orderBy(asc(users.id))
          .for('update');
        const [current] = await tx.db.select().from(users).where(eq(users.id, userId)).for('update');
        if (!current) throw notFound('error.auth.userNotFound', { id: userId });
        if (current.role === input.role) return current;
        if (current.role === 'admin' && admins.length <= 1) {
          throw conflict('error.auth.lastAdmin');
        }
        if (input.role === 'seller') await ensureShop(tx, userId, input);
        const [row] = await tx.db
          .update(users)
          .set({ role: input.role, tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(eq(users.id, userId))
          .returning();
        await recordAdminAction(tx, {
          action: 'user.role',
          subject: userId,
          before: { role: current.role },
          after: { role: input.role },
        });
        return row!;
      });
      tokens.forget(updated.id);
      return { success: true as const, user: publicUser(updated) };
    },
  };
}

/** A user made a seller by an admin keeps their shop, or gets the one the admin names. */
async function ensureShop(tx: RequestContext, userId: string, input: z.infer<typeof changeRoleBody>) {
  const [profile] = await tx.db.select().from(sellerProfiles).where(eq(sellerProfiles.userId, userId));
  if (profile) return;
  if (!input.shopName || !input.province) {
    throw invalid('error.auth.sellerNeedsShop', undefined, [
      ...(input.shopName ? [] : [problem('shopName', 'validation.requiredForSeller')]),
      ...(input.province ? [] : [problem('province', 'validation.requiredForSeller')]),
    ]);
  }
  await tx.db.insert(sellerProfiles).values({ userId, shopName: input.shopName, province: input.province });
}
