// The agent checkout's statements: its sessions, vault tokens and webhook outbox. Only this file
// knows the speed tricks (named prepared statements, writes sent with the next statement or the
// commit, pipelined locks, the savepoint of a hold); the services call these by name.
import { and, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { insertInto, ph, pipeline, query, rowsOf, statement } from '../../db/sql.ts';
import { paymentLockOf } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import { platforms } from '../platforms/tables.ts';
import { agentSessionMachine } from './states.ts';
import { agentSessions, vaultTokens, webhookDeliveries } from './tables.ts';

export type SessionRow = typeof agentSessions.$inferSelect;
// ---- sessions -----------------------------------------------------------------------------------

const insertSessionStatement = insertInto('acp_insert_session', agentSessions);

/** A new session's row, written with the transaction's next statement. */
export const insertSession = (tx: RequestContext, row: SessionRow) =>
  insertSessionStatement.later(tx.db, [row]);

const sessionRead = query('acp_session', (db, name) =>
  db
    .select()
    .from(agentSessions)
    .where(eq(agentSessions.id, ph('id')))
    .prepare(name),
);

/** A session's row, if any. */
export async function readSessionRow(ctx: RequestContext, id: string): Promise<SessionRow | undefined> {
  const [row] = await sessionRead(ctx.db, { id });
  return row;
}

// `for no key update`: a payment's transaction writes the session's webhook row, whose foreign
// key takes a key-share lock on this row; `for update` would make the two wait on each other.
const sessionLocked = query('acp_session_locked', (db, name) =>
  db
    .select()
    .from(agentSessions)
    .where(eq(agentSessions.id, ph('id')))
    .for('no key update')
    .prepare(name),
);

/** The checkout a session names, locked as a payment locks it, found through the session's row. */
const lockCheckoutOfSession = paymentLockOf(
  'acp_session_checkout',
  sql`select checkout_id from ${agentSessions} where id = ${ph('sessionId')}`,
);

/**
 * One round trip, in the lock order: the session row, then the checkout it names (found through
 * that row), then `also` (a step of the caller's, e.g. spending a vault token).
 */
export async function lockSessionAndCheckout<T>(
  tx: RequestContext,
  id: string,
  also?: (tx: RequestContext) => Promise<T>,
) {
  const [[row], checkout, extra] = await pipeline(tx, [
    (c) => sessionLocked(c.db, { id }),
    (c) => lockCheckoutOfSession(c, id),
    also,
  ]);
  return { row, checkout, also: extra };
}

/** A quote's outcome written to its session, by the transition it makes. */
const quotedBy = (transition: 'hold' | 'refuse') =>
  statement(
    `acp_session_${transition}`,
    sql`update ${agentSessions} set request = ${ph('request')}, buyer_id = ${ph('buyerId')},
      checkout_id = ${ph('checkoutId')}, messages = ${ph('messages')},
      status = ${agentSessionMachine.to(transition)}, updated_at = ${ph('updatedAt')}
      where id = ${ph('id')} and ${agentSessionMachine.where(transition, agentSessions.status)}`,
  );
const sessionQuoted = { hold: quotedBy('hold'), refuse: quotedBy('refuse') };

/** A quote's outcome, written with the commit (nobody reads its answer). */
export function writeQuote(tx: RequestContext, transition: 'hold' | 'refuse', row: SessionRow) {
  return sessionQuoted[transition].later(tx.db, {
    id: row.id,
    request: agentSessions.request.mapToDriverValue(row.request),
    buyerId: row.buyerId,
    checkoutId: row.checkoutId,
    messages: agentSessions.messages.mapToDriverValue(row.messages),
    updatedAt: row.updatedAt.toISOString(),
  });
}

/** Cancels a session that may be canceled; undefined when its state moved on. */
export async function markCanceled(tx: RequestContext, id: string): Promise<SessionRow | undefined> {
  const [canceled] = await tx.db
    .update(agentSessions)
    .set({ status: agentSessionMachine.to('cancel'), updatedAt: tx.now() })
    .where(sql`${agentSessions.id} = ${id} and ${agentSessionMachine.where('cancel', agentSessions.status)}`)
    .returning();
  return canceled;
}

/** A payment with a provider's token begins: the session complete_in_progress, bound to the token. */
export async function markPaying(
  tx: RequestContext,
  id: string,
  tokenHash: string,
): Promise<SessionRow | undefined> {
  const [paying] = await tx.db
    .update(agentSessions)
    .set({ status: agentSessionMachine.to('pay'), paymentTokenHash: tokenHash, updatedAt: tx.now() })
    .where(sql`${agentSessions.id} = ${id} and ${agentSessionMachine.where('pay', agentSessions.status)}`)
    .returning();
  return paying;
}

/** That token's payment was declined: the session can pay again. */
export async function markPaymentFailed(ctx: RequestContext, id: string, tokenHash: string): Promise<void> {
  await ctx.db
    .update(agentSessions)
    .set({ status: agentSessionMachine.to('payment_failed'), paymentTokenHash: null, updatedAt: ctx.now() })
    .where(
      sql`${agentSessions.id} = ${id} and ${agentSessions.paymentTokenHash} = ${tokenHash}
        and ${agentSessionMachine.where('payment_failed', agentSessions.status)}`,
    );
}

/** The session that holds (or held) a checkout, if any. */
export async function sessionOfCheckoutRow(
  ctx: RequestContext,
  checkoutId: string,
): Promise<SessionRow | undefined> {
  const [row] = await ctx.db.select().from(agentSessions).where(eq(agentSessions.checkoutId, checkoutId));
  return row;
}

const savepoint = statement('', sql.raw('savepoint acp_hold'));
const releaseSavepoint = statement('', sql.raw('release savepoint acp_hold'));
const rollbackToSavepoint = statement('', sql.raw('rollback to savepoint acp_hold'));

/**
 * Runs `work` under a savepoint of tx's transaction: a refused hold (some units reserved before
 * another product ran out) leaves nothing of itself behind. Setting and releasing it go out with
 * the next statements; only a rollback costs a round trip of its own.
 */
export async function withSavepoint<T>(tx: RequestContext, work: () => Promise<T>): Promise<T> {
  await savepoint.later(tx.db);
  try {
    const done = await work();
    await releaseSavepoint.later(tx.db);
    return done;
  } catch (err) {
    await rollbackToSavepoint(tx.db);
    throw err;
  }
}

// ---- the vault ----------------------------------------------------------------------------------

export type VaultRow = typeof vaultTokens.$inferSelect;

const insertToken = insertInto('acp_vault_insert', vaultTokens);

/** A new token, written with the transaction's next statement (or its commit). */
export const insertVaultToken = (tx: RequestContext, row: typeof vaultTokens.$inferInsert) =>
  insertToken.later(tx.db, [row]);

const spend = query('acp_vault_spend', (db, name) =>
  db
    .update(vaultTokens)
    .set({ usedAt: sql`${ph('now')}::timestamptz` })
    .where(and(eq(vaultTokens.id, ph('id')), isNull(vaultTokens.usedAt)))
    .returning()
    .prepare(name),
);

/** Spends an unspent token (its statement sent at the call: a pipeline step); its row, if it was unspent. */
export async function spendToken(tx: RequestContext, id: string): Promise<VaultRow | undefined> {
  const [row] = await spend(tx.db, { id, now: tx.now() });
  return row;
}

/** Gives back a token this transaction spent (a session found paid already spends nothing). */
export async function unspendToken(tx: RequestContext, id: string): Promise<void> {
  await tx.db.update(vaultTokens).set({ usedAt: null }).where(eq(vaultTokens.id, id));
}

/** Who vaulted a token, if it exists. */
export async function tokenOwner(tx: RequestContext, id: string): Promise<string | undefined> {
  const [row] = await tx.db
    .select({ owner: vaultTokens.owner })
    .from(vaultTokens)
    .where(eq(vaultTokens.id, id));
  return row?.owner;
}

// ---- the outbox ---------------------------------------------------------------------------------

export type SessionOwner = { id: string; platformId: string | null };
const sessionById = statement<SessionOwner>(
  'acp_session_owner_by_id',
  sql`select id, platform_id as "platformId" from ${agentSessions} where id = ${ph('id')}`,
);
const sessionOfCheckout = statement<SessionOwner>(
  'acp_session_owner_by_checkout',
  sql`select id, platform_id as "platformId" from ${agentSessions} where checkout_id = ${ph('checkoutId')}`,
);

/**
 * A session's owner, by its id or by the checkout it holds, and when `alsoRead` is given (another
 * module's statement, sent at its call) its answer too: both in one round trip.
 */
export async function sessionOwnerWith<T>(
  ctx: RequestContext,
  by: { sessionId: string } | { checkoutId: string },
  alsoRead?: (c: RequestContext) => Promise<T>,
): Promise<{ owner: SessionOwner | undefined; also: T | undefined }> {
  const [[owner], also] = await pipeline(ctx, [
    (c) =>
      'sessionId' in by
        ? sessionById(c.db, { id: by.sessionId })
        : sessionOfCheckout(c.db, { checkoutId: by.checkoutId }),
    alsoRead ?? false,
  ]);
  return { owner, also: also as T | undefined };
}

const insertDeliveryStatement = insertInto('acp_insert_delivery', webhookDeliveries, {
  onConflictDoNothing: [webhookDeliveries.eventId],
});

/** An outbox row, written with the transaction's next statement (or its commit). */
export const queueDelivery = (ctx: RequestContext, row: typeof webhookDeliveries.$inferInsert) =>
  insertDeliveryStatement.later(ctx.db, [row]);

export interface Claimed {
  id: number;
  eventId: string;
  /** The session the row is about (its prefix says its protocol). */
  sessionId: string;
  body: string;
  attempts: number;
  createdAt: Date;
  /** The platform's registered endpoints (its row in platforms). */
  webhookUrl: string;
  webhookSecret: string;
  ucpProfileUrl: string | null;
  revoked: boolean;
  traceparent: string | null;
}

/**
 * Claims due rows, the oldest undelivered row of each session only, at most `perPlatform` per
 * platform and `batch` in all, by pushing their next attempt a lease ahead.
 */
export function claimDueDeliveries(
  ctx: RequestContext,
  now: Date,
  opts: { leaseMs: number; batch: number; perPlatform: number },
): Promise<Claimed[]> {
  const d = webhookDeliveries;
  return rowsOf<Claimed>(
    ctx.db,
    sql`with due as (
        select d.id, row_number() over (partition by d.platform_id order by d.next_attempt_at, d.id) as n
        from ${d} d
        where d.delivered_at is null and d.abandoned_at is null and d.next_attempt_at <= ${now.toISOString()}::timestamptz
          and not exists (select 1 from ${d} e where e.acp_session_id = d.acp_session_id and e.id < d.id
            and e.delivered_at is null and e.abandoned_at is null)
      ), picked as (
        select id from ${d} where id in (select id from due where n <= ${opts.perPlatform})
        order by next_attempt_at limit ${opts.batch} for update skip locked
      )
      update ${d} set next_attempt_at = ${new Date(now.getTime() + opts.leaseMs).toISOString()}::timestamptz,
        attempts = ${d.attempts} + 1
      from picked, ${platforms} p
      where ${d.id} = picked.id and p.id = ${d.platformId}
      returning ${d.id} as id, ${d.eventId} as "eventId", ${d.sessionId} as "sessionId", ${d.body} as body,
        ${d.attempts} as attempts, ${d.createdAt} as "createdAt", p.webhook_url as "webhookUrl",
        p.webhook_secret as "webhookSecret", p.ucp_profile_url as "ucpProfileUrl",
        (p.revoked_at is not null) as revoked, ${d.traceparent} as traceparent`,
  );
}

/** What became of a claimed row's attempt. */
export async function recordAttempt(
  ctx: RequestContext,
  id: number,
  outcome:
    | { deliveredAt: Date; lastError: null }
    | { abandonedAt: Date; lastError: string }
    | { nextAttemptAt: Date; lastError: string },
): Promise<void> {
  const d = webhookDeliveries;
  await ctx.db
    .update(d)
    .set(outcome)
    .where(and(eq(d.id, id), isNull(d.deliveredAt)));
}

// ---- housekeeping -------------------------------------------------------------------------------

/** Deletes up to `batch` vault tokens that expired before `before`; answers how many. */
export async function deleteExpiredTokens(ctx: RequestContext, before: Date, batch: number): Promise<number> {
  const v = vaultTokens;
  const gone = await ctx.db
    .delete(v)
    .where(
      sql`${v.id} in (select id from ${v} where ${v.expiresAt} <= ${before.toISOString()}::timestamptz limit ${batch})`,
    )
    .returning({ id: v.id });
  return gone.length;
}

/** Deletes up to `batch` outbox rows delivered or given up before `before`; answers how many. */
export async function deleteFinishedDeliveries(
  ctx: RequestContext,
  before: Date,
  batch: number,
): Promise<number> {
  const d = webhookDeliveries;
  const gone = await ctx.db
    .delete(d)
    .where(
      sql`${d.id} in (select id from ${d} where coalesce(${d.deliveredAt}, ${d.abandonedAt}) <= ${before.toISOString()}::timestamptz limit ${batch})`,
    )
    .returning({ id: d.id });
  return gone.length;
}

/** Up to `batch` sessions not known to have made an order, ended before `before`. */
export function endedSessions(ctx: RequestContext, before: Date, batch: number) {
  const s = agentSessions;
  return (
    ctx.db
      .select({ id: s.id, checkoutId: s.checkoutId })
      .from(s)
      // Canceled or not, a session ends by its expiry at the latest.
      .where(and(sql`${s.status} <> 'completed'`, lte(s.expiresAt, before)))
      .limit(batch)
  );
}

/** Sessions whose checkout was paid, written down as completed: never a cleanup candidate again. */
export async function recordPaid(ctx: RequestContext, ids: string[]): Promise<void> {
  const s = agentSessions;
  await ctx.db
    .update(s)
    .set({ status: agentSessionMachine.to('record_payment') })
    .where(and(inArray(s.id, ids), agentSessionMachine.where('record_payment', s.status)));
}

export async function deleteSessions(ctx: RequestContext, ids: string[]): Promise<void> {
  await ctx.db.delete(agentSessions).where(inArray(agentSessions.id, ids));
}
