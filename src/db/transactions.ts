// A transaction with what the request asks of it (src/http/idempotency.ts sets it, for a keyed
// POST): a statement to go ahead of it in its first round trip, and a call once it commits.
// Services never see this: they open transactions with inTransaction (src/modules/context.ts).
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

/** Runs `fn` in a new transaction on `db`, honouring the request's hooks when there are any. */
export async function transactionWith<T>(
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
