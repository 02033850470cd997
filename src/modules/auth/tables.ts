import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { SHOP_STATUSES } from '../../contract/shops.ts';

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    // Stored lower-cased: emails are compared case-insensitively.
    email: text('email').notNull().unique(),
    name: text('name').notNull(),
    role: text('role', { enum: ['buyer', 'seller', 'admin'] })
      .notNull()
      .default('buyer'),
    // Null for accounts that only ever signed in through the external identity provider.
    passwordHash: text('password_hash'),
    emailVerified: boolean('email_verified').notNull().default(false),
    // Bumped to revoke every token issued before (role change, password change, log out everywhere).
    tokenVersion: integer('token_version').notNull().default(0),
    // The person's chosen language ('en-CA' | 'fr-CA'); null: Accept-Language, then the default.
    locale: text('locale'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // Set by an admin: the person cannot sign in, and every token and session of theirs ended.
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
  },
  (t) => [
    check('users_role_check', sql`${t.role} in ('buyer', 'seller', 'admin')`),
    check('users_locale_check', sql`${t.locale} is null or ${t.locale} in ('en-CA', 'fr-CA')`),
    // The desk's list (GET /admin/users): newest first, of a role, the suspended; an email's or a
    // name's beginning in byte order (collation "C": a prefix is a range of the index).
    index('users_created_idx').on(t.createdAt, t.id),
    index('users_role_created_idx').on(t.role, t.createdAt, t.id),
    // The few suspended accounts, also read by every lookup of what is on sale (portage_hidden_sellers).
    index('users_suspended_created_idx').on(t.createdAt, t.id).where(sql`${t.suspendedAt} is not null`),
    index('users_email_c_idx').on(sql`(${t.email} collate "C")`, t.id),
    index('users_name_c_idx').on(sql`(lower(${t.name}) collate "C")`, t.id),
  ],
);

export type ShopStatus = (typeof SHOP_STATUSES)[number];

export const sellerProfiles = pgTable(
  'seller_profiles',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    shopName: text('shop_name').notNull(),
    // The shop page's address (/shops/<slug>): made from the shop's name when the shop opens (a
    // trigger, migration 0053: portage_shop_slug), kept when the name changes.
    slug: text('slug')
      .notNull()
      .unique('seller_profiles_slug')
      .$defaultFn(() => sql`null`),
    province: text('province').notNull(),
    // What the seller's invoices say of the supplier (docs/invoices.md); null until the seller sets it.
    legalName: text('legal_name'),
    street: text('street'),
    city: text('city'),
    postalCode: text('postal_code'),
    /** GST/HST registration: a business number + RT0001 ("123456789RT0001"), check digit verified. */
    gstHstNumber: text('gst_hst_number'),
    /** QST registration: "1234567890TQ0001", or a non-resident's "NR00001234". */
    qstNumber: text('qst_number'),
    // Review aggregates over the seller's products, kept by a trigger on reviews.
    reviewCount: integer('review_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    rating: real('rating').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // Whether the shop's products are on sale: active; pending an admin's approval
    // (SHOP_APPROVAL=on); suspended by an admin, since `suspended_at`, for the `status_reason` its
    // seller reads (also a refusal's reason). See
    // docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)".
    status: text('status', { enum: SHOP_STATUSES }).notNull().default('active'),
    statusReason: text('status_reason'),
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
  },
  (t) => [
    check('seller_profiles_status_check', sql`${t.status} in ('active', 'pending', 'suspended')`),
    // A suspension has its time and a reason for the seller; the other states carry neither.
    check(
      'seller_profiles_suspension_check',
      sql`(${t.status} = 'suspended') = (${t.suspendedAt} is not null)
      and (${t.status} = 'suspended') = (${t.statusReason} is not null)
      and (${t.statusReason} is null or char_length(${t.statusReason}) between 1 and 500)`,
    ),
    // The few shops not active, read by every lookup of what is on sale; the approval queue.
    index('seller_profiles_not_active_idx').on(t.status, t.createdAt).where(sql`${t.status} <> 'active'`),
  ],
);

/** Links an account to a subject at an external identity provider. */
export const userIdentities = pgTable(
  'user_identities',
  {
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.subject] }), index('user_identities_user_idx').on(t.userId)],
);

/**
 * An external login in progress, between /auth/google/start and its callback. Kept in the
 * database (not in process memory) so that any instance can finish what another started.
 * The state is stored hashed; each row is consumed once.
 */
export const oidcLogins = pgTable('oidc_logins', {
  stateHash: text('state_hash').primaryKey(),
  codeVerifier: text('code_verifier').notNull(),
  nonce: text('nonce').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

const EMAIL_TOKEN_PURPOSES = ['verify', 'reset'] as const;
export type EmailTokenPurpose = (typeof EMAIL_TOKEN_PURPOSES)[number];

/**
 * The tokens of the links in account emails: verifying an address (48 hours) and resetting a
 * password (30 minutes). Only the SHA-256 of a token is stored: a copy of the table opens no
 * account. A row is used once (used_at), by a conditional update.
 */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: EMAIL_TOKEN_PURPOSES }).notNull(),
    /** Hex SHA-256 of the token the link carries. */
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('email_tokens_purpose_check', sql`${t.purpose} in ('verify', 'reset')`),
    index('email_tokens_user_idx').on(t.userId, t.purpose),
    index('email_tokens_expires_idx').on(t.expiresAt),
  ],
);

/**
 * The marketplace operator's own identity on invoices (one row, id 1): as operator it collects
 * and remits GST/HST and QST for sellers that are not registered (docs/invoices.md).
 */
export const platformTaxProfile = pgTable(
  'platform_tax_profile',
  {
    id: integer('id').primaryKey().default(1),
    legalName: text('legal_name').notNull(),
    street: text('street').notNull(),
    city: text('city').notNull(),
    province: text('province').notNull(),
    postalCode: text('postal_code').notNull(),
    gstHstNumber: text('gst_hst_number'),
    qstNumber: text('qst_number'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('platform_tax_profile_one_row', sql`${t.id} = 1`)],
);

/**
 * A person signed in to the pages (src/web): the cookie holds a random id, the row its hash.
 * Separate from API tokens; ends at sign-out, at its expiry, or when the user's tokenVersion
 * moves on (log out everywhere, a password or role change).
 */
export const webSessions = pgTable(
  'web_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenVersion: integer('token_version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('web_sessions_user_idx').on(t.userId), index('web_sessions_expires_idx').on(t.expiresAt)],
);
