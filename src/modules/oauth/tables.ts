import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';

/**
 * What a person let an agent (an OAuth client) do for them: the scopes, when, and whether they
 * took it back. Every agent's token names its grant (`gid`), and is refused once the grant is
 * revoked (README "Remote agents").
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('agent_grants_user_client_idx').on(t.userId, t.clientId),
    index('agent_grants_live_idx').on(t.userId).where(sql`${t.revokedAt} is null`),
  ],
);
