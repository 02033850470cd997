// The outbox's statements that the module's services send through the low-level helpers.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { query } from '../../db/sql.ts';
import { outbox } from './tables.ts';

const ph = sql.placeholder;
const insertStatement = query('mail_enqueue', (db, name) =>
  db
    .insert(outbox)
    .values({
      id: ph('id'),
      dedupeKey: ph('dedupeKey'),
      kind: ph('kind'),
      toAddress: ph('toAddress'),
      subject: ph('subject'),
      textBody: ph('textBody'),
      htmlBody: ph('htmlBody'),
      nextAttemptAt: ph('now'),
      createdAt: ph('now'),
    })
    .onConflictDoNothing({ target: outbox.dedupeKey })
    .prepare(name),
);

/**
 * Adds a message to the outbox (once per dedupe key). No one reads the answer: in a transaction
 * it goes out with the next statement or the commit.
 */
export const insertOutboxRow = (
  db: Db,
  row: {
    id: string;
    dedupeKey: string;
    kind: string;
    toAddress: string;
    subject: string;
    textBody: string;
    htmlBody: string;
    now: Date;
  },
) => insertStatement.later(db, row);
