import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

/**
 * The platform's policies as the admin wrote them, one row per policy and language; a policy
 * without its row is the service's own default text (./texts.ts).
 */
export const sitePolicies = pgTable(
  'site_policies',
  {
    kind: text('kind').notNull(),
    locale: text('locale').notNull(),
    body: text('body').notNull(),
    updatedBy: text('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.locale] }),
    check('site_policies_kind_check', sql`${t.kind} in ('terms', 'privacy', 'returns')`),
    check('site_policies_locale_check', sql`${t.locale} in ('en-CA', 'fr-CA')`),
    check('site_policies_body_length', sql`char_length(${t.body}) between 1 and 20000`),
  ],
);
