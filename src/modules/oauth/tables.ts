import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

/**
 * What a person let an agent (an OAuth client) do for them: the scopes, when, and whether they
 * took it back. Every agent's token names its grant (`gid`), and is refused once the grant is
 * revoked (docs/api.md "OAuth authorization server"). One grant per authorization (consent +
 * code exchange): it is the family of every refresh token descending from that code, revoked
 * as a whole.
 */
export const agentGrants = pgTable(
  'agent_grants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    /** Space-separated scopes granted. */
    scope: text('scope').notNull(),
    /** The agent's name as the person saw it on the consent page. */
    clientName: text('client_name'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('agent_grants_user_client_idx').on(t.userId, t.clientId),
    index('agent_grants_live_idx').on(t.userId).where(sql`${t.revokedAt} is null`),
  ],
);

/** Clients registered dynamically (RFC 7591): public clients only, no secret. */
export const oauthClients = pgTable('oauth_clients', {
  id: text('id').primaryKey(),
  clientName: text('client_name'),
  redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
  logoUri: text('logo_uri'),
  clientUri: text('client_uri'),
  /** Space-separated scopes the client said it would ask for (informative). */
  scope: text('scope'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});

/**
 * An authorization in progress in a person's browser, between GET /oauth/authorize and the
 * consent: keyed by the hash of a random id held in an HttpOnly cookie, its CSRF token for the
 * pages' forms, and, once the person signed in, who they are. Lives 10 minutes, used once.
 */
export const oauthRequests = pgTable(
  'oauth_requests',
  {
    idHash: text('id_hash').primaryKey(),
    csrfToken: text('csrf_token').notNull(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name'),
    logoUri: text('logo_uri'),
    redirectUri: text('redirect_uri').notNull(),
    state: text('state'),
    codeChallenge: text('code_challenge').notNull(),
    /** Space-separated scopes asked for (known ones only). */
    scope: text('scope').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    tokenVersion: integer('token_version'),
    authTime: timestamp('auth_time', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('oauth_requests_expires_idx').on(t.expiresAt)],
);

/** Authorization codes (hashed): single use, minutes of life, bound to client, redirect and PKCE. */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    /** The grant the exchange creates (decided at consent, so that a reuse can revoke it). */
    grantId: text('grant_id').notNull(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name'),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenVersion: integer('token_version').notNull(),
    authTime: timestamp('auth_time', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('oauth_codes_expires_idx').on(t.expiresAt)],
);

/**
 * Refresh tokens (hashed). Each use rotates: the token is marked used and a new one of the same
 * grant issued; a used one presented again revokes the grant (its whole family).
 */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => agentGrants.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    tokenVersion: integer('token_version').notNull(),
    authTime: timestamp('auth_time', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** The family's absolute end: the sign-in plus SESSION_MAX_AGE_SECONDS, kept by every rotation. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    index('oauth_refresh_tokens_grant_idx').on(t.grantId),
    index('oauth_refresh_tokens_expires_idx').on(t.expiresAt),
  ],
);
