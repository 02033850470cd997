// The account rows that accounts, tokens and external login share: reading one, creating one,
// and the public shape of a user.
import { eq } from 'drizzle-orm';
import { isRecordId, newId, type Role } from '../../contract/common.ts';
import { conflict } from '../../contract/errors.ts';
import type { RequestContext } from '../context.ts';
import { emailVerifiedOf, insertGuestUser } from './queries.ts';
import { users } from './tables.ts';

export type UserRow = typeof users.$inferSelect;

export const publicUser = (u: Pick<UserRow, 'id' | 'email' | 'name' | 'role'>) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
});

/** The user with this id; undefined for an unknown or malformed id. */
export const findUser = async (ctx: RequestContext, id: string): Promise<UserRow | undefined> =>
  isRecordId('users', id) ? (await ctx.db.select().from(users).where(eq(users.id, id)))[0] : undefined;

/** The user with this email (compared lower-cased, as stored); undefined when none. */
export const findUserByEmail = async (ctx: RequestContext, email: string): Promise<UserRow | undefined> =>
  (await ctx.db.select().from(users).where(eq(users.email, email.trim().toLowerCase())))[0];

/** The user named by an id or, when it has an `@`, by an email (the admin's desk finds either); undefined when none. */
export const findUserByIdOrEmail = (ctx: RequestContext, idOrEmail: string): Promise<UserRow | undefined> =>
  idOrEmail.includes('@') ? findUserByEmail(ctx, idOrEmail) : findUser(ctx, idOrEmail);

/** A new account. Answers 409 when the email is taken (emails are unique, case-insensitively). */
export async function insertUser(
  ctx: RequestContext,
  input: {
    email: string;
    name: string;
    role: Role;
    passwordHash: string | null;
    emailVerified: boolean;
    locale?: string;
  },
): Promise<UserRow> {
  const row = await insertIfNew(ctx, input);
  if (!row) throw conflict('error.auth.emailTaken', { email: input.email });
  return row;
}

/** The account inserted, or undefined when the email is taken. */
async function insertIfNew(ctx: RequestContext, input: Parameters<typeof insertUser>[1]) {
  const [row] = await ctx.db
    .insert(users)
    .values({ id: newId('users'), ...input })
    .onConflictDoNothing({ target: users.email })
    .returning();
  return row;
}

/**
 * The account of an email address, made as a guest's when there is none: no password,
 * unverified. Its person claims it by verifying the address, then setting a password through
 * the reset link (docs/acp.md "Guest buyers"). Two platforms naming one new email get one account.
 *
 * An account whose address was never verified may have been registered by someone else than its
 * owner, waiting for the owner's purchases: its password is dropped and its sign-ins ended
 * (tokenVersion moves on) in the same statement, so what is bought for the address is readable
 * only by whoever proves it (as external login does). `signedOut` says so: the caller makes this
 * instance forget the account's tokens once its transaction commits.
 */
export async function accountForEmail(
  ctx: RequestContext,
  email: string,
  name: string,
): Promise<{ account: UserRow; signedOut: boolean }> {
  const address = email.toLowerCase();
  const id = newId('users');
  const [made] = await insertGuestUser(ctx.db, { id, email: address, name });
  if (made) return { account: made, signedOut: made.id !== id };
  const [found] = await ctx.db.select().from(users).where(eq(users.email, address));
  if (!found) throw new Error(`accountForEmail: ${address} neither inserted nor found`);
  return { account: found, signedOut: false };
}

/** Whether the user's email address is verified (prepared: every checkout asks; sends at once, for a pipeline step). */
export function isEmailVerified(ctx: RequestContext, id: string): Promise<boolean> {
  return emailVerifiedOf(ctx.db, id);
}
