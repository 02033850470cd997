// A transaction with what the request asks of it (src/http/idempotency.ts sets it, for a keyed
// POST): a statement to go ahead of it in its first round trip, and a call once it commits.
// Services never see this: they open transactions with inTransaction (src/modules/context.ts).

import { inChildSpan } from '../telemetry/tracing.ts';
import type { Ahead } from './batching-client.ts';
import type { Db } from './index.ts';
import { transactionAfter } from './sql.ts';

export interface TransactionHooks {
  /**
   * A statement to run ahead of the request's next transaction, outside it, in that
   * transaction's first round trip (an Idempotency-Key's claim). Taken by the next transaction;
   * put back when that transaction sent nothing.
   */
  ahead?: Ahead;
  /** Called once the transaction it was set in has committed (an answer stored with that commit). */
  committed?: () => void;
}

/** Told each transaction's duration (ms) and whether it committed (metrics). */
export type TransactionObserver = (ms: number, committed: boolean) => void;
const observers = new Set<TransactionObserver>();

/** Adds an observer of every transaction this process runs; answers its removal. */
export function observeTransactions(observer: TransactionObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/**
 * Runs `fn` in a new transaction on `db`, honouring the request's hooks when there are any; a
 * span of its own when tracing is on, and timed for the observers.
 */
export async function transactionWith<T>(
  db: Db,
  hooks: TransactionHooks | undefined,
  fn: (tx: Db) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let committed = false;
  try {
    const done = await inChildSpan('db.transaction', () => transactionRun(db, hooks, fn));
    committed = true;
    return done;
  } finally {
    const ms = performance.now() - started;
    for (const observe of observers) observe(ms, committed);
  }
}

async function transactionRun<T>(
  db: Db,
  hooks: TransactionHooks | undefined,
  fn: (tx: Db) => Promise<T>,
): Promise<T> {
  const first = hooks?.ahead;
  if (hooks) {
    hooks.ahead = undefined;
    hooks.committed = undefined;
  }
  try {
    const done = first
      ? await transactionAfter(db, first, fn)
      : await db.transaction((tx) => fn(tx as unknown as Db));
    hooks?.committed?.();
    return done;
  } finally {
    if (hooks) {
      hooks.committed = undefined;
      if (first && !first.sent) hooks.ahead ??= first;
    }
  }
}
