// A person's sign-in to the pages (src/web), separate from the API's tokens: the browser holds
// a random id (256 bits) in an HttpOnly cookie, the database its SHA-256. A session ends at
// sign-out, at its expiry (SESSION_MAX_AGE_SECONDS after the sign-in, as a token's session),
// or as soon as the user's tokenVersion moves on (log out everywhere, a new password, a role
// change): it is read with the user on every page, so an ended session is never honoured.
import { createHash, randomBytes } from 'node:crypto';
import { eq, lte, sql } from 'drizzle-orm';
import type { Role } from '../../contract/common.ts';
import { isLocale, type Locale } from '../../contract/i18n.ts';
import type { Job } from '../../jobs/runner.ts';
import type { AuthUser, RequestContext } from '../context.ts';
import { userOfWebSession } from './queries.ts';
import { webSessions } from './tables.ts';

/** The signed-in person of a page, with what the pages show of them. */
export interface WebUser extends AuthUser {
  name: string;
  emailVerified: boolean;
  /** Units in the person's cart as the page was asked for (the header shows it). */
  cartUnits: number;
  /** A seller's unread notifications, counted up to 100 (the header and the console's tab show them). */
  unreadNotices: number;
  /** A seller's shop when it is not open (the console says so on every page): its state and reason. */
  shopClosed?: { status: 'pending' | 'suspended'; reason: string | null };
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('base64url');

/** Starts a session for a user who just proved who they are; answers the cookie's id. */
export async function startWebSession(
  ctx: RequestContext,
  user: { id: string; tokenVersion: number },
  maxAgeSeconds: number,
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + maxAgeSeconds * 1000);
  await ctx.db.insert(webSessions).values({
    idHash: hashOf(id),
    userId: user.id,
    tokenVersion: user.tokenVersion,
    createdAt: now,
    expiresAt,
  });
  return { id, expiresAt };
}

/** The person a session cookie names, while the session stands. */
export async function webSessionUser(ctx: RequestContext, id: string): Promise<WebUser | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const [row] = await userOfWebSession(ctx.db, hashOf(id), ctx.now());
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.email,
    role: row.role as Role,
    name: row.name,
    emailVerified: row.emailVerified,
    cartUnits: row.cartUnits,
    unreadNotices: row.unreadNotices,
    ...(row.shopStatus === 'pending' || row.shopStatus === 'suspended'
      ? { shopClosed: { status: row.shopStatus, reason: row.shopReason } }
      : {}),
    ...(isLocale(row.locale) ? { locale: row.locale as Locale } : {}),
  };
}

/** Ends the session the cookie names (sign-out). */
export async function endWebSession(ctx: RequestContext, id: string): Promise<void> {
  await ctx.db.delete(webSessions).where(eq(webSessions.idHash, hashOf(id)));
}

/** Deletes expired sessions, a bounded batch per pass. */
export function webSessionCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  return {
    name: 'web-session-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    async run(ctx) {
      const expired = ctx.db
        .select({ id: webSessions.idHash })
        .from(webSessions)
        .where(lte(webSessions.expiresAt, ctx.now()))
        .limit(batch);
      const deleted = await ctx.db
        .delete(webSessions)
        .where(sql`${webSessions.idHash} in (${expired})`)
        .returning({ id: webSessions.idHash });
      return deleted.length;
    },
  };
}
