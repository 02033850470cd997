// The statements of the idempotency_keys table (src/http/idempotency.ts decides when each runs),
// the metrics' reads at scrape time (metrics.ts), and the readiness check's read of the migrations.
// The ones every keyed request runs are named: parsed once per connection.
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Ahead } from '../../db/batching-client.ts';
import type { Db } from '../../db/index.ts';
import { ph, rowsOf, statement } from '../../db/sql.ts';
import { webhookDeliveries } from '../agent-checkout/tables.ts';
import { reservations } from '../inventory/tables.ts';
import { outbox as mailOutbox } from '../mail/tables.ts';
import { idempotencyKeys as t } from './tables.ts';

/** A request's hold on a key: who, which key, which request, since when, until when. */
export interface KeyHold {
  userId: string;
  key: string;
  hash: string;
  /** ISO timestamps. */
  createdAt: string;
  expiresAt: string;
}

const CLAIM = sql`insert into idempotency_keys (user_id, key, request_hash, created_at, expires_at)
  values (${ph('userId')}, ${ph('key')}, ${ph('hash')}, ${ph('createdAt')}, ${ph('expiresAt')})`;
const claimStatement = statement<{ key: string }>(
  'idempotency_claim',
  sql`${CLAIM} on conflict do nothing returning key`,
);
/** The claim inside a transaction (db/batching-client.ts): a key taken already is a unique violation. */
const claimInsideStatement = statement('idempotency_claim_inside', sql`${CLAIM} returning key`);
const HELD_BY = sql`user_id = ${ph('userId')} and key = ${ph('key')} and request_hash = ${ph('hash')}
  and created_at = ${ph('createdAt')} and response_status is null`;
const storeStatement = statement(
  'idempotency_store',
  sql`update idempotency_keys set response_status = ${ph('status')}, response_body = ${ph('body')} where ${HELD_BY}`,
);
const releaseStatement = statement('idempotency_release', sql`delete from idempotency_keys where ${HELD_BY}`);

/** Inserts the key's row as running, unless a row is there: answers whether this request holds it. */
export async function claimKeyRow(db: Db, hold: KeyHold): Promise<boolean> {
  return (await claimStatement(db, { ...hold })).length > 0;
}

/**
 * The claim, to go ahead of the request's next transaction (db/batching-client.ts): `accept` is
 * told whether it took the key, and throws to fail that transaction unchanged.
 */
export function claimKeyRowAhead(hold: KeyHold, accept: (claimed: boolean) => void): Ahead {
  return claimStatement.ahead(
    { ...hold },
    (rows) => accept(rows.length > 0),
    claimInsideStatement.bound({ ...hold }),
  );
}

/** The key's row as it is now. */
export async function keyRow(db: Db, userId: string, key: string) {
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.userId, userId), eq(t.key, key)));
  return row;
}

/** Takes an answered row over (a stale answer), if no other request did since `createdAt` was read. */
export async function retakeAnsweredKey(db: Db, hold: KeyHold, createdAt: Date): Promise<boolean> {
  const taken = await db
    .update(t)
    .set(fresh(hold))
    .where(and(eq(t.userId, hold.userId), eq(t.key, hold.key), eq(t.createdAt, createdAt)))
    .returning({ key: t.key });
  return taken.length > 0;
}

/** Takes over an expired row, or one left running by the same request before `abandonedBefore`. */
export async function takeOverKey(db: Db, hold: KeyHold, now: Date, abandonedBefore: Date): Promise<boolean> {
  const taken = await db
    .update(t)
    .set(fresh(hold))
    .where(
      and(
        eq(t.userId, hold.userId),
        eq(t.key, hold.key),
        or(
          lte(t.expiresAt, now),
          and(isNull(t.responseStatus), eq(t.requestHash, hold.hash), lte(t.createdAt, abandonedBefore)),
        ),
      ),
    )
    .returning({ key: t.key });
  return taken.length > 0;
}

const fresh = (hold: KeyHold) => ({
  requestHash: hold.hash,
  createdAt: new Date(hold.createdAt),
  expiresAt: new Date(hold.expiresAt),
  responseStatus: null,
  responseBody: null,
});

/** Stores the answer on the row, while this hold still has it running. */
export async function storeKeyAnswer(db: Db, hold: KeyHold, status: number, body: string): Promise<void> {
  await storeStatement(db, { ...hold, status, body });
}

/** The same, sent with the transaction's next statement or its commit (db/batching-client.ts). */
export async function storeKeyAnswerLater(
  db: Db,
  hold: KeyHold,
  status: number,
  body: string,
): Promise<void> {
  await storeStatement.later(db, { ...hold, status, body });
}

/** Deletes the row, while this hold still has it running. */
export async function releaseKey(db: Db, hold: KeyHold): Promise<void> {
  await releaseStatement(db, { ...hold });
}

/** Deletes up to `batch` expired keys; answers how many. */
export async function deleteExpiredKeys(db: Db, now: Date, batch: number): Promise<number> {
  const expired = db
    .select({ userId: t.userId, key: t.key })
    .from(t)
    .where(lte(t.expiresAt, now))
    .limit(batch);
  const deleted = await db
    .delete(t)
    .where(sql`(${t.userId}, ${t.key}) in (${expired})`)
    .returning({ key: t.key });
  return deleted.length;
}

/** What waits in an outbox: how many, and the oldest's age in seconds (null when none waits). */
export type Backlog = { depth: number; age: number | null };
export type Backlogs = { mail: Backlog; webhooks: Backlog };

/** Both outboxes' backlogs in one statement: mail pending; platform webhooks neither delivered nor given up. */
export async function outboxBacklogs(db: Db, at: Date): Promise<Backlogs> {
  const now = at.toISOString();
  const rows = await rowsOf<{ outbox: 'mail' | 'webhooks'; depth: number; age: number | null }>(
    db,
    sql`select 'mail' as outbox, count(*)::int as depth,
               extract(epoch from (${now}::timestamptz - min(${mailOutbox.createdAt})))::float8 as age
          from ${mailOutbox} where ${mailOutbox.status} = 'pending'
        union all
        select 'webhooks', count(*)::int,
               extract(epoch from (${now}::timestamptz - min(${webhookDeliveries.createdAt})))::float8
          from ${webhookDeliveries}
         where ${webhookDeliveries.deliveredAt} is null and ${webhookDeliveries.abandonedAt} is null`,
  );
  const of = (name: 'mail' | 'webhooks'): Backlog => {
    const row = rows.find((r) => r.outbox === name);
    return { depth: Number(row?.depth ?? 0), age: row?.age == null ? null : Number(row.age) };
  };
  return { mail: of('mail'), webhooks: of('webhooks') };
}

/** Checkout sessions holding stock at `at`: a live reservation not past its expiry. */
export async function liveHolds(db: Db, at: Date): Promise<number> {
  const [row] = await rowsOf<{ holds: number }>(
    db,
    sql`select count(distinct ${reservations.checkoutId})::int as holds from ${reservations}
         where ${reservations.releasedAt} is null and ${reservations.committedAt} is null
           and ${reservations.expiresAt} > ${at.toISOString()}::timestamptz`,
  );
  return Number(row?.holds ?? 0);
}

/** When the newest migration applied was made (drizzle's `created_at`, the journal's `when`); 0 for none. */
export async function newestAppliedMigration(db: Db): Promise<number> {
  const [row] = await rowsOf<{ newest: number | null }>(
    db,
    sql`select max(created_at)::float8 as newest from drizzle.__drizzle_migrations`,
  );
  return Number(row?.newest ?? 0);
}
