// The account statements every request or purchase runs, built once and named (parsed once per
// connection on PostgreSQL); the rest of the module's SQL is the query builder's, in its services.
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { ph, query } from '../../db/sql.ts';
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
