// The links of account emails: verifying an address (48 hours) and resetting a password
// (30 minutes) (docs/api.md "Account emails", "Mail"). A link carries
// 32 random bytes (base64url); only their SHA-256 is stored, so the table opens no account.
// A link is used once: the one conditional UPDATE ... WHERE used_at IS NULL AND expires_at > now
// settles two uses racing. Emails are outbox rows written in the transaction of their cause.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { resetPasswordBody } from '../../contract/auth.ts';
import { isoSecond } from '../../contract/common.ts';
import { conflict, internal, invalid, problem, rateLimited, unauthenticated } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import type { Job } from '../../jobs/runner.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { passwordResetEmail, verifyBeforeResetEmail, verifyEmailEmail } from '../mail/account-templates.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { randomToken, sha256 } from '../secrets.ts';
import { hashPassword } from './passwords.ts';
import { type EmailTokenPurpose, emailTokens, users } from './tables.ts';
import type { Tokens } from './tokens.ts';
import type { UserRow } from './users.ts';

export const VERIFY_LINK_SECONDS = 48 * 3600;
export const RESET_LINK_SECONDS = 30 * 60;
/**
 * /auth/password/forgot answers no sooner than this after it arrives, whatever the address
 * (known, unknown, unverified): the work it does (or not) cannot be timed from outside.
 */
export const FORGOT_MIN_MS = 250;
/** At most this many verification and reset emails go to one account in an hour. */
export const ACCOUNT_MAILS_PER_HOUR = 3;

const LIFETIME: Record<EmailTokenPurpose, number> = {
  verify: VERIFY_LINK_SECONDS,
  reset: RESET_LINK_SECONDS,
};
const PATH: Record<EmailTokenPurpose, string> = {
  verify: '/auth/email/verify',
  reset: '/auth/password/reset',
};
/** 32 bytes in base64url: exactly 43 characters. Anything else cannot be a link's token. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The answer of /auth/password/forgot, whatever the address, in the language of the request. */
export const forgotAnswer = (locale: Locale = BASE_LOCALE) => ({
  success: true as const,
  message: t(locale, 'mail.answer.forgot'),
});

const INVALID_LINK: Record<EmailTokenPurpose, MessageKey> = {
  verify: 'error.auth.verifyLinkInvalid',
  reset: 'error.auth.resetLinkInvalid',
};

export interface EmailLinkDeps {
  /** Where the links point: `{publicBaseUrl}/auth/email/verify?token=…`. */
  publicBaseUrl: string;
  /** Asks the mail job to send now (after the commit). */
  nudgeMail?: () => void;
}

const hashToken = sha256;

export type EmailLinks = ReturnType<typeof createEmailLinks>;

export function createEmailLinks(tokens: Tokens, deps: EmailLinkDeps | undefined) {
  const baseUrl = () => {
    if (!deps) throw internal('error.auth.emailLinksNotConfigured');
    return deps.publicBaseUrl.replace(/\/+$/, '');
  };
  const nudge = () => deps?.nudgeMail?.();

  /** A new link for `user`, stored hashed (in tx's transaction); answers the row id and the token. */
  async function newLink(tx: RequestContext, userId: string, purpose: EmailTokenPurpose) {
    const token = randomToken();
    const id = `etok_${randomBytes(12).toString('base64url')}`;
    const now = tx.now();
    await tx.db.insert(emailTokens).values({
      id,
      userId,
      purpose,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + LIFETIME[purpose] * 1000),
      createdAt: now,
    });
    return { id, url: `${baseUrl()}${PATH[purpose]}?token=${token}` };
  }

  type Recipient = Pick<UserRow, 'id' | 'email' | 'name'> & Partial<Pick<UserRow, 'locale'>>;

  /**
   * The language of a link email (mail/locale.ts): the person's saved preference, else the
   * request's, since a link email is always asked for by its recipient (registration, resend,
   * forgot password).
   */
  const localeOf = (tx: RequestContext, user: Recipient) => mailLocale(tx, user, { ownRequest: true });

  /**
   * Whether the account may get another link email now: fewer than ACCOUNT_MAILS_PER_HOUR in
   * the last hour. Its user row is locked first, so requests racing for one address count one
   * after the other. Answers when the oldest of the hour's links leaves the window, if not.
   */
  async function mailAllowed(
    tx: RequestContext,
    userId: string,
  ): Promise<{ ok: true } | { ok: false; from: Date }> {
    await tx.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    const since = new Date(tx.now().getTime() - 3600_000);
    const recent = await tx.db
      .select({ createdAt: emailTokens.createdAt })
      .from(emailTokens)
      .where(and(eq(emailTokens.userId, userId), gt(emailTokens.createdAt, since)))
      .orderBy(desc(emailTokens.createdAt))
      .limit(ACCOUNT_MAILS_PER_HOUR);
    if (recent.length < ACCOUNT_MAILS_PER_HOUR) return { ok: true };
    return { ok: false, from: new Date(recent.at(-1)!.createdAt.getTime() + 3600_000) };
  }

  /** Writes a verification email (to the outbox, in tx's transaction). */
  async function mailVerification(tx: RequestContext, user: Recipient, beforeReset = false) {
    const link = await newLink(tx, user.id, 'verify');
    const locale = localeOf(tx, user);
    // The page the link opens speaks the email's language, whatever the browser asks.
    const data = { name: user.name, url: `${link.url}&lang=${locale}`, validForSeconds: VERIFY_LINK_SECONDS };
    const mail = beforeReset ? verifyBeforeResetEmail(data, locale) : verifyEmailEmail(data, locale);
    await enqueueMail(tx, {
      dedupeKey: `email-verify:${link.id}`,
      kind: 'email-verify',
      to: user.email,
      ...mail,
    });
  }

  async function mailReset(tx: RequestContext, user: Recipient) {
    const link = await newLink(tx, user.id, 'reset');
    const locale = localeOf(tx, user);
    const mail = passwordResetEmail(
      { name: user.name, url: `${link.url}&lang=${locale}`, validForSeconds: RESET_LINK_SECONDS },
      locale,
    );
    await enqueueMail(tx, {
      dedupeKey: `password-reset:${link.id}`,
      kind: 'password-reset',
      to: user.email,
      ...mail,
    });
  }

  /**
   * Uses the link once: marks it used if it is unused and unexpired, and answers its user's id
   * (undefined otherwise). Of two uses racing, the second finds used_at set and answers undefined.
   */
  async function useLink(tx: RequestContext, purpose: EmailTokenPurpose, token: string) {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const now = tx.now();
    const [row] = await tx.db
      .update(emailTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(emailTokens.tokenHash, hashToken(token)),
          eq(emailTokens.purpose, purpose),
          isNull(emailTokens.usedAt),
          gt(emailTokens.expiresAt, now),
        ),
      )
      .returning({ userId: emailTokens.userId });
    return row?.userId;
  }

  /** Every other unused link of the user for `purpose` stops working. */
  async function retireLinks(tx: RequestContext, userId: string, purpose: EmailTokenPurpose) {
    await tx.db
      .update(emailTokens)
      .set({ usedAt: tx.now() })
      .where(
        and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt)),
      );
  }

  return {
    /** At registration, in its transaction: the verification email. */
    mailVerification,
    /** After the transaction that wrote mail commits. */
    nudge,

    /** True when the link would work now (read only: the GET of a link never uses it). */
    async linkIsLive(ctx: RequestContext, purpose: EmailTokenPurpose, token: string | undefined) {
      if (!token || !TOKEN_SHAPE.test(token)) return false;
      const [row] = await ctx.db
        .select({ id: emailTokens.id })
        .from(emailTokens)
        .where(
          and(
            eq(emailTokens.tokenHash, hashToken(token)),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, ctx.now()),
          ),
        );
      return row !== undefined;
    },

    /** POST /auth/email/verify: the address is the account's; the link (and its siblings) are used up. */
    async verifyEmail(ctx: RequestContext, token: string) {
      await inTransaction(ctx, async (tx) => {
        const userId = await useLink(tx, 'verify', token);
        if (!userId) throw invalid(INVALID_LINK.verify);
        await tx.db.update(users).set({ emailVerified: true }).where(eq(users.id, userId));
        await retireLinks(tx, userId, 'verify');
      });
      return { success: true as const, emailVerified: true as const };
    },

    /** POST /auth/email/verify/resend: a new verification email for the signed-in caller. */
    async resendVerification(ctx: RequestContext) {
      const me = caller(ctx);
      await inTransaction(ctx, async (tx) => {
        const [user] = await tx.db.select().from(users).where(eq(users.id, me.id));
        if (!user) throw unauthenticated();
        if (user.emailVerified) throw conflict('error.auth.alreadyVerified');
        const allowed = await mailAllowed(tx, user.id);
        if (!allowed.ok) {
          throw rateLimited('error.auth.tooManyEmails', {
            count: ACCOUNT_MAILS_PER_HOUR,
            email: me.email,
            after: isoSecond(allowed.from),
          });
        }
        await mailVerification(tx, user);
      });
      nudge();
      return {
        success: true as const,
        message: t(ctx.locale ?? BASE_LOCALE, 'mail.answer.verificationResent', { email: me.email }),
      };
    },

    /**
     * POST /auth/password/forgot: the same answer, no sooner than FORGOT_MIN_MS, for every
     * address. A verified address gets a reset link; an unverified one a verification link
     * instead (a reset needs a verified address, spec 5.10); an unknown one nothing.
     */
    async forgotPassword(ctx: RequestContext, email: string) {
      const started = performance.now();
      const [user] = await ctx.db
        .select({
          id: users.id,
          email: users.email,
          name: users.name,
          locale: users.locale,
          emailVerified: users.emailVerified,
        })
        .from(users)
        .where(eq(users.email, email));
      if (user) {
        // Past the hourly limit nothing is sent, and the answer stays the same.
        const sent = await inTransaction(ctx, async (tx) => {
          if (!(await mailAllowed(tx, user.id)).ok) return false;
          await (user.emailVerified ? mailReset(tx, user) : mailVerification(tx, user, true));
          return true;
        });
        if (sent) nudge();
      }
      const left = FORGOT_MIN_MS - (performance.now() - started);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
      return forgotAnswer(ctx.locale);
    },

    /**
     * POST /auth/password/reset: sets the password, uses up the link and every other reset link
     * of the user, and bumps the token version: every token issued before stops working.
     */
    async resetPassword(ctx: RequestContext, input: z.infer<typeof resetPasswordBody>) {
      if (input.confirmPassword !== undefined && input.confirmPassword !== input.password) {
        throw invalid('error.auth.passwordsDiffer', undefined, [
          problem('confirmPassword', 'validation.equalsPassword'),
        ]);
      }
      if (!TOKEN_SHAPE.test(input.token)) throw invalid(INVALID_LINK.reset);
      const passwordHash = await hashPassword(input.password);
      const userId = await inTransaction(ctx, async (tx) => {
        const id = await useLink(tx, 'reset', input.token);
        if (!id) throw invalid(INVALID_LINK.reset);
        await tx.db
          .update(users)
          .set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` })
          .where(eq(users.id, id));
        await retireLinks(tx, id, 'reset');
        return id;
      });
      tokens.forget(userId); // after the commit: no instance keeps trusting the old version
      return { success: true as const };
    },
  };
}

/** Deletes link rows a day after they expired (used or not): the table does not grow. */
export function emailTokenCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  return {
    name: 'email-token-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    async run(ctx) {
      const before = new Date(ctx.now().getTime() - 86_400_000);
      const expired = ctx.db
        .select({ id: emailTokens.id })
        .from(emailTokens)
        .where(lte(emailTokens.expiresAt, before))
        .limit(batch);
      const deleted = await ctx.db
        .delete(emailTokens)
        .where(sql`${emailTokens.id} in (${expired})`)
        .returning({ id: emailTokens.id });
      return deleted.length;
    },
  };
}
