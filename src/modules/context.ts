// What every service call receives: who is calling, the database handle and the clock.
import type { FastifyBaseLogger } from 'fastify';
import type { Role } from '../contract/common.ts';
import type { Locale } from '../contract/i18n.ts';
import type { AgentScope } from '../contract/scopes.ts';
import type { Db } from '../db/index.ts';
import { type TransactionHooks, transactionWith } from '../db/transactions.ts';

export interface AuthUser {
  id: string;
  email: string;
  role: Role;
  /** The person's saved language, when they chose one (PATCH /me). */
  locale?: Locale;
  /** Set when the caller is an agent acting with an OAuth grant (a token for /mcp). */
  agent?: { clientId: string; grantId: string; scopes: readonly AgentScope[] };
}

export type Clock = () => Date;

export interface RequestContext {
  /** The database, or the transaction this call runs in (see inTransaction). */
  db: Db;
  now: Clock;
  log: FastifyBaseLogger;
  /** The signed-in caller; undefined on public routes. */
  user?: AuthUser;
  /**
   * A caller that is not a user (an ACP platform, `platform:<id>`): what rate limits count and
   * Idempotency-Keys are scoped by when there is no user.
   */
  principal?: string;
  /**
   * The language of the person this request answers: their saved preference, else the
   * Accept-Language we speak, else DEFAULT_LOCALE. Undefined outside a request (jobs): an
   * email then takes its recipient's own (mail/locale.ts).
   */
  locale?: Locale;
  /** DEFAULT_LOCALE: the language of a person we know nothing of (an email a job writes). */
  defaultLocale?: Locale;
  /** Set by inTransaction: `db` is a transaction that nested calls join. */
  readonly inTransaction?: true;
  /**
   * What the request asks of its transactions: set by the idempotency plugin
   * (src/http/idempotency.ts) and honoured by inTransaction; services never read it.
   */
  transactions?: RequestTransactions;
  /**
   * The one idempotency option a service sees (set only when the request has an Idempotency-Key,
   * src/http/idempotency.ts): stores `answer` (sent with `status`) as the request's answer under
   * its key, written with the commit of `tx`'s transaction instead of in a round trip of its own.
   * For the transaction whose commit is the request's last write, once the answer is known.
   */
  answerWithCommit?: (tx: RequestContext, status: number, answer: unknown) => Promise<void>;
}

/** What the request asks of its transactions (db/transactions.ts). */
export type RequestTransactions = TransactionHooks;

/** The caller of a route that requires sign-in (the guard has run). */
export function caller(ctx: RequestContext): AuthUser {
  if (!ctx.user) throw new Error('caller() on a route without authentication');
  return ctx.user;
}

/**
 * Runs `fn` in a database transaction: a new one, or the one already on `ctx`, so that a
 * service calling another service commits (or rolls back) once, as a whole. The one way a
 * service opens a transaction; helpers take the context, never a bare Db.
 */
export async function inTransaction<T>(
  ctx: RequestContext,
  fn: (tx: RequestContext) => Promise<T>,
): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  let opened: Db | undefined;
  const done = await transactionWith(ctx.db, ctx.transactions, (tx) => {
    opened = tx;
    return fn({ ...ctx, db: tx, inTransaction: true });
  });
  const calls = opened && committedCalls.get(opened);
  if (calls) {
    committedCalls.delete(opened as Db);
    for (const call of calls) call();
  }
  return done;
}

/** Calls to make once a transaction commits, by its handle; a rolled-back one's are dropped with it. */
const committedCalls = new WeakMap<Db, Array<() => void>>();

/**
 * Calls `fn` once ctx's transaction has committed (never if it rolls back): for what must count
 * a change only once it is true, such as a metric. `fn` must not throw.
 */
export function afterCommit(ctx: RequestContext, fn: () => void): void {
  if (!ctx.inTransaction) throw new Error('afterCommit outside a transaction');
  const calls = committedCalls.get(ctx.db);
  if (calls) calls.push(fn);
  else committedCalls.set(ctx.db, [fn]);
}
