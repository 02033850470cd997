import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  keyRotatedAt: timestamp('key_rotated_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});
