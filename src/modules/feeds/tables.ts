import { sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** One file of a file feed's snapshot (docs/acp.md "File feed"). */
export interface FeedFileEntry {
  name: string;
  locale: 'en-CA' | 'fr-CA';
  format: 'jsonl' | 'csv';
  rows: number;
  bytes: number;
}

/**
 * The file feed's snapshots (docs/acp.md "File feed"): one row per snapshot, its files in
 * FEED_DIR. A row without `written_at` is a snapshot being written, held by its writer until
 * `lease_until` (renewed as it goes): at most one at a time, across every instance.
 */
export const feedSnapshots = pgTable(
  'feed_snapshots',
  {
    /** The stamp its files' names start with (`20261130T151320123Z`). */
    id: text('id').primaryKey(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    writtenAt: timestamp('written_at', { withTimezone: true }),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    files: jsonb('files').$type<FeedFileEntry[]>().notNull().default([]),
    products: integer('products').notNull().default(0),
  },
  (t) => [uniqueIndex('feed_snapshots_one_writing').on(sql`(true)`).where(sql`${t.writtenAt} is null`)],
);
