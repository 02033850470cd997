import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/** Agent platforms buying through ACP and UCP, each with the API key an admin issued. */
export const platforms = pgTable('platforms', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  webhookUrl: text('webhook_url').notNull(),
  /** The UCP profile its UCP requests must name (UCP-Agent); null: the platform does not use UCP. */
  ucpProfileUrl: text('ucp_profile_url'),
  // SHA-256 (hex) of the API key, never the key. The key is 32 random bytes (256 bits), so a
  // fast hash is enough: no guess can reach it, and the lookup by hash stays one index read.
  keyHash: text('key_hash').notNull().unique(),
  // Kept as issued: the service signs the webhooks it sends the platform with it.
  webhookSecret: text('webhook_secret').notNull(),
  /** The platform's ACP Feed API base URL (docs/acp.md "Product feeds"); null: no feed pushed. */
  feedUrl: text('feed_url'),
  // The bearer token the platform gave for its Feed API: kept as given, since we send it.
  feedToken: text('feed_token'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  keyRotatedAt: timestamp('key_rotated_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});

/**
 * One feed Portage keeps on a platform's Feed API, per language (docs/acp.md "Product feeds"):
 * the feed's id there once created, where the full snapshot and the changes have reached, and
 * the last attempts' outcome (the desk shows it).
 */
export const platformFeeds = pgTable(
  'platform_feeds',
  {
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id, { onDelete: 'cascade' }),
    language: text('language').$type<'en' | 'fr'>().notNull(),
    /** The feed's id on the platform (POST /feeds); null until created. */
    remoteId: text('remote_id'),
    /** A full snapshot under way: the last product id sent; null when none is. */
    fullCursor: text('full_cursor'),
    /** The change stamp (microseconds) the snapshot under way will hand the changes on from. */
    fullFrom: doublePrecision('full_from'),
    /** When the next full snapshot is due. */
    fullDueAt: timestamp('full_due_at', { withTimezone: true }).notNull().defaultNow(),
    /** Changes sent up to this stamp (microseconds) and product id. */
    changedUs: doublePrecision('changed_us').notNull().default(0),
    changedId: text('changed_id').notNull().default(''),
    /** The sellers whose shops were closed at the last pass (their products sent as discontinued). */
    hidden: text('hidden').array().notNull().default([]),
    /** Failed attempts in a row, and when the next may start (backoff). */
    failures: integer('failures').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** A pass holds the feed until then (no transaction stays open across the platform's calls). */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastError: text('last_error'),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    lastFullAt: timestamp('last_full_at', { withTimezone: true }),
    productsSent: bigint('products_sent', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.language] }),
    check('platform_feeds_language_check', sql`${t.language} in ('en', 'fr')`),
  ],
);
