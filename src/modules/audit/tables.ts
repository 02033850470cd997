import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** What an action's record keeps of a thing before and after it: its fields that changed, small. */
export type AuditState = Record<string, unknown>;

/**
 * The admins' actions (docs/api.md "Audit log"): who, what, on what, when, the thing before and
 * after. Append-only (a trigger refuses UPDATE and DELETE, migration 0057); written in the action's
 * transaction. The actor's email is kept as it was: the record outlives a renamed account.
 */
export const adminActions = pgTable(
  'admin_actions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    actorId: text('actor_id').notNull(),
    actorEmail: text('actor_email').notNull(),
    action: text('action').notNull(),
    subject: text('subject').notNull(),
    before: jsonb('before').$type<AuditState>(),
    after: jsonb('after').$type<AuditState>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('admin_actions_created_idx').on(t.createdAt, t.id),
    index('admin_actions_subject_idx').on(t.subject, t.createdAt),
    check(
      'admin_actions_bounded',
      sql`length(${t.action}) <= 60 and length(${t.subject}) <= 200 and length(${t.actorEmail}) <= 320 and coalesce(pg_column_size(${t.before}), 0) <= 16384 and coalesce(pg_column_size(${t.after}), 0) <= 16384`,
    ),
  ],
);
