// The account statements every request or purchase runs, built once and named (parsed once per
// connection on PostgreSQL); the rest of the module's SQL is the query builder's, in its services.
import { and, eq, gt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { ph, query, rowsOf } from '../../db/sql.ts';
import { cartItems } from '../cart/tables.ts';
import { unreadCountSql } from '../notifications/queries.ts';
import { sellerProfiles, users, webSessions } from './tables.ts';

/**
 * A guest's account, unless the email has one; an unverified buyer's with a password loses it (named:
 * every ACP purchase for a new email makes one). Answers the row inserted or changed, else none.
 */
const guestInsert = query('user_guest_insert', (db, name) =>
  db
    .insert(users)
    .values({
      id: sql.placeholder('id'),
      email: sql.placeholder('email'),
      name: sql.placeholder('name'),
      role: 'buyer',
      passwordHash: null,
      emailVerified: false,
    })
    .onConflictDoUpdate({
      target: users.email,
      set: { passwordHash: null, tokenVersion: sql`${users.tokenVersion} + 1` },
      // A seller's or admin's address cannot buy (the quote refuses it): nothing of theirs changes.
      setWhere: sql`not ${users.emailVerified} and ${users.passwordHash} is not null and ${users.role} = 'buyer'`,
    })
    .returning()
    .prepare(name),
);

/** Inserts a guest's account, or takes the password of an unverified buyer's (see above). */
export const insertGuestUser = (db: Db, values: { id: string; email: string; name: string }) =>
  guestInsert(db, values);

const emailVerifiedStatement = query('user_email_verified', (db, name) =>
  db
    .select({ emailVerified: users.emailVerified })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(name),
);

/** Whether the user's email address is verified; sends at once (a pipeline step). */
export const emailVerifiedOf = (db: Db, id: string) =>
  emailVerifiedStatement(db, { id }).then((rows) => rows[0]?.emailVerified ?? false);

/** The caller's account, read at every authenticated request (prepared: built and planned once). */
const userOfToken = query('auth_user_of_token', (db, name) =>
  db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      tokenVersion: users.tokenVersion,
      locale: users.locale,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(name),
);

/** The account a token's subject names, with what authentication checks of it. */
export const userOfTokenSubject = (db: Db, id: string) => userOfToken(db, { id });

const userOfSession = query('web_session_user', (db, name) =>
  db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      locale: users.locale,
      name: users.name,
      emailVerified: users.emailVerified,
      // The header's count, read with the person (no round trip of its own): units in the cart.
      cartUnits: sql<number>`(select coalesce(sum(${cartItems.quantity}), 0)::int from ${cartItems} where ${cartItems.userId} = ${users.id})`,
      // ...and a seller's unread notifications, up to 100 (the partial index of unread ones).
      unreadNotices: unreadCountSql(users.id, 100),
      // ...and a seller's shop's state and its reason (the console's banner when not active).
      shopStatus: sql<
        string | null
      >`(select sp.status from ${sellerProfiles} sp where sp.user_id = ${users.id})`,
      shopReason: sql<
        string | null
      >`(select sp.status_reason from ${sellerProfiles} sp where sp.user_id = ${users.id})`,
    })
    .from(webSessions)
    .innerJoin(users, and(eq(users.id, webSessions.userId), eq(users.tokenVersion, webSessions.tokenVersion)))
    .where(and(eq(webSessions.idHash, ph('idHash')), gt(webSessions.expiresAt, ph('now'))))
    .prepare(name),
);

/** The person a session's id hash names, while the session stands at `now`. */
export const userOfWebSession = (db: Db, idHash: string, now: Date) => userOfSession(db, { idHash, now });

// ---- the desk's list of users (GET /admin/users) ---------------------------------------------

/** A row of the admins' list of users: times in Unix seconds. */
export interface AdminUserListRow {
  id: string;
  email: string;
  name: string;
  role: 'buyer' | 'seller' | 'admin';
  email_verified: boolean;
  locale: string | null;
  created_at: number;
  suspended_at: number | null;
}

/** The largest code point: a prefix's range ends just before it (byte order, collation "C"). */
const LAST = '\u{10FFFF}';

/**
 * A page of users after `before`: with `email` (a beginning, lower case) in email order, with
 * `name` (a beginning, lower case) in name order, else newest first. Each order is an index's
 * (users_email_c_idx, users_name_c_idx, users_created_idx and its role and suspended kin), and a
 * beginning is a range of it: nothing is sorted.
 */
export async function adminUserRows(
  db: Db,
  f: {
    limit: number;
    before?: string | undefined;
    email?: string | undefined;
    name?: string | undefined;
    role?: string | undefined;
    suspended?: boolean | undefined;
  },
): Promise<AdminUserListRow[]> {
  const where: SQL[] = [];
  if (f.role) where.push(sql`u.role = ${f.role}`);
  if (f.suspended === true) where.push(sql`u.suspended_at is not null`);
  if (f.suspended === false) where.push(sql`u.suspended_at is null`);
  const key =
    f.email !== undefined
      ? sql`(u.email collate "C")`
      : f.name !== undefined
        ? sql`(lower(u.name) collate "C")`
        : undefined;
  const keyOf = (alias: string) =>
    f.email !== undefined
      ? sql.raw(`(${alias}.email collate "C")`)
      : sql.raw(`(lower(${alias}.name) collate "C")`);
  const prefix = f.email ?? f.name;
  if (key && prefix !== undefined) {
    where.push(sql`${key} >= ${prefix} and ${key} < ${prefix + LAST}`);
    if (f.before) {
      where.push(
        sql`(${key}, u.id) > ((select ${keyOf('c')} from users c where c.id = ${f.before}), ${f.before})`,
      );
    }
  } else if (f.before) {
    where.push(
      sql`(u.created_at, u.id) < ((select c.created_at from users c where c.id = ${f.before}), ${f.before})`,
    );
  }
  const order = key ? sql`order by ${key}, u.id` : sql`order by u.created_at desc, u.id desc`;
  return rowsOf<AdminUserListRow>(
    db,
    sql`select u.id, u.email, u.name, u.role, u.email_verified, u.locale,
      floor(extract(epoch from u.created_at))::int as created_at,
      floor(extract(epoch from u.suspended_at))::int as suspended_at
    from users u ${where.length ? sql`where ${sql.join(where, sql` and `)}` : sql``} ${order} limit ${f.limit}`,
  );
}

/**
 * Makes the transaction's statements read a range in its index's order instead of collecting the
 * range and sorting it: a name's beginning shared by many (misjudged by the planner's statistics
 * of the index) would otherwise read and sort every match for a page of 50.
 */
export async function readInIndexOrder(tx: Db): Promise<void> {
  await tx.execute(sql`set local enable_bitmapscan = off`);
}

/** The ids of the first `limit` accounts (by email) whose email begins with `prefix` (lower case). */
export async function userIdsByEmailPrefix(db: Db, prefix: string, limit: number): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`select u.id from users u where (u.email collate "C") >= ${prefix} and (u.email collate "C") < ${prefix + LAST}
      order by (u.email collate "C"), u.id limit ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** A seller's shop as the desk shows it; none for a user without one. */
export async function shopOfUser(db: Db, userId: string) {
  const [row] = await db
    .select({
      name: sellerProfiles.shopName,
      slug: sellerProfiles.slug,
      province: sellerProfiles.province,
      createdAt: sellerProfiles.createdAt,
    })
    .from(sellerProfiles)
    .where(eq(sellerProfiles.userId, userId));
  return row;
}
