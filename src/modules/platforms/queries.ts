// The platform statement every ACP and UCP request runs, built once and named.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { query } from '../../db/sql.ts';
import { platforms } from './tables.ts';

const byKeyStatement = query('platforms_by_key', (db, name) =>
  db
    .select({
      id: platforms.id,
      name: platforms.name,
      webhookUrl: platforms.webhookUrl,
      ucpProfileUrl: platforms.ucpProfileUrl,
    })
    .from(platforms)
    .where(and(eq(platforms.keyHash, sql.placeholder('keyHash')), isNull(platforms.revokedAt)))
    .prepare(name),
);

/** The platform, not revoked, that an API key's hash names. */
export const platformOfKeyHash = (db: Db, keyHash: string) => byKeyStatement(db, { keyHash });
