// The PostgreSQL pool's client: node-postgres's own, in its pipeline mode, with fewer round trips
// for a transaction. On this kind of machine a statement's round trip costs more than most
// statements themselves (a socket write, and waking the server, each time: bench/checkout.ts
// measured 41% of the service's time in socket writes), so three economies:
//
// - Statements issued together (in one tick: Promise.all) go out in one write, and the server
//   answers them in order without waiting for us in between (pipeline mode).
// - `begin` is not sent alone: it goes out with the transaction's first statement. A transaction
//   that ends before any statement sends nothing at all.
// - A statement whose answer nobody reads (a lock taken, a row written) can be deferred
//   (`later()`): it goes out with the transaction's next statement, or with its commit. If it
//   fails, that next statement (or the commit) fails with its error, and the transaction rolls
//   back as it would have: nothing is committed that would not have been.
//
// - A statement can go ahead of a transaction, outside it (`sendAhead`): an Idempotency-Key's
//   claim, committed at once so that other requests see it, yet sent in the transaction's first
//   write instead of a round trip of its own. Its answer is checked when it comes back; a
//   refusal fails the statements sent behind it, and the transaction rolls back. A transaction
//   whose first write is its commit (deferred writes only) takes it inside instead, in its form
//   that fails where it would be refused: the commit then goes in the same write, and a refusal
//   rolls the transaction back on the server.
//
// Every statement still runs in the order it was issued, on one connection, in one transaction.
import type pg from 'pg';

interface Deferred {
  config: pg.QueryConfig;
  values?: unknown[];
}

/** A statement with its values. */
export interface Bound {
  config: pg.QueryConfig;
  values: unknown[];
}

/** A statement sent ahead of a transaction (see the top of this file). */
export interface Ahead extends Bound {
  /**
   * The statement as it runs inside a transaction whose first write is its commit: failing
   * with a unique violation (23505) where the statement ahead answers no rows.
   */
  inside: Bound;
  /** Checks the statement's rows: throws to refuse them (the transaction behind it then fails). */
  accept(rows: unknown[]): void;
  /** Set once it has gone to the server (a transaction that sent nothing drops it unsent). */
  sent?: boolean;
}

/** The answer to a statement that was not sent (a `begin` held back, a transaction with nothing in it). */
const NOTHING = Object.freeze({ command: '', rowCount: 0, oid: 0, fields: [], rows: [] });

const verb = (config: unknown): string | undefined => {
  const text = typeof config === 'string' ? config : (config as { text?: unknown })?.text;
  return typeof text === 'string' && text.length <= 8 ? text.trim().toLowerCase() : undefined;
};

/** The client class for pg.Pool's `Client` option, built on the driver that was loaded. */
export function batchingClientClass(Client: typeof pg.Client) {
  return class BatchingClient extends Client {
    /** A `begin` asked for and not yet sent. */
    private beginHeld = false;
    /** Statements to send before the next one. */
    private deferred: Deferred[] = [];
    /** A statement to send before the held begin, outside the transaction. */
    private ahead: Ahead | undefined;
    /** Whether this tick's statements are being gathered into one write. */
    private gathering = false;
    /** Statements asked for so far (sent, held or deferred): db/sql.ts's pipeline checks each step adds one. */
    issued = 0;

    constructor(config?: pg.ClientConfig) {
      super({ ...config, pipeline: true } as pg.ClientConfig);
      // A connection lost while a request holds this client (a server restart) is an 'error'
      // event: without a listener Node ends the process. The statements in flight fail with the
      // same error, the client is no longer queryable, and the pool drops it on its release.
      this.on('error', () => {});
    }

    /** Queues a statement whose answer no one reads: sent with the next one (see the top of this file). */
    defer(config: pg.QueryConfig, values?: unknown[]): void {
      this.issued++;
      this.deferred.push({ config, values });
    }

    /** Sends `statement` ahead of the transaction whose begin is held (see the top of this file). */
    sendAhead(statement: Ahead): void {
      if (!this.beginHeld || this.ahead) throw new Error('sendAhead needs a held begin and nothing ahead');
      this.ahead = statement;
    }

    // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query() has many overloads
    override query(config: any, values?: any, callback?: any): any {
      this.issued++;
      // Callbacks and custom query objects (pool.query, cursors) go straight to the driver: never
      // behind a held begin or deferred statements, which they would overtake.
      if (typeof values === 'function' || callback || typeof config?.submit === 'function') {
        if (this.beginHeld || this.deferred.length > 0 || this.ahead) {
          throw new Error('A statement with a callback cannot follow a held begin or deferred statements');
        }
        return super.query(config, values, callback);
      }
      switch (verb(config)) {
        case 'begin':
          if (!this.beginHeld) {
            this.beginHeld = true;
            return Promise.resolve(NOTHING);
          }
          break;
        case 'rollback':
          // Writes never sent are dropped (a statement ahead too: its `sent` stays unset); a
          // transaction never begun on the server has nothing to end.
          this.deferred = [];
          this.ahead = undefined;
          if (this.beginHeld) {
            this.beginHeld = false;
            return Promise.resolve(NOTHING);
          }
          break;
        case 'commit':
          if (this.beginHeld && this.deferred.length === 0 && !this.ahead) {
            this.beginHeld = false;
            return Promise.resolve(NOTHING);
          }
          break;
      }
      this.gather();
      const sentBefore: Array<Promise<unknown>> = [];
      const first = this.ahead;
      this.ahead = undefined;
      if (first) first.sent = true;
      // Nothing sent yet and this is the commit: the statement ahead goes inside (see the top).
      const inside = first !== undefined && verb(config) === 'commit';
      if (first && !inside) {
        sentBefore.push(
          super.query(first.config, first.values).then((res: pg.QueryResult) => first.accept(res.rows)),
        );
      }
      if (this.beginHeld) {
        this.beginHeld = false;
        sentBefore.push(super.query('begin'));
      }
      if (first && inside) {
        sentBefore.push(
          super.query(first.inside.config, first.inside.values).then(
            (res: pg.QueryResult) => first.accept(res.rows),
            (err: { code?: string }) => {
              if (err?.code === '23505') first.accept([]);
              throw err;
            },
          ),
        );
      }
      for (const d of this.deferred.splice(0)) sentBefore.push(super.query(d.config, d.values));
      const answer: Promise<unknown> = super.query(config, values);
      if (sentBefore.length === 0) return answer;
      return Promise.allSettled(sentBefore).then((settled) => {
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
        if (!failed) return answer;
        // The statement behind the one that failed fails too (the transaction is aborted): the
        // first error is the one to report.
        answer.catch(() => {});
        throw failed.reason;
      });
    }

    /** Holds this tick's writes to the socket and lets them go together at the next. */
    private gather() {
      if (this.gathering) return;
      const stream = (
        this as unknown as {
          connection: { stream: NodeJS.WritableStream & { cork?(): void; uncork?(): void } };
        }
      ).connection.stream;
      if (!stream.cork || !stream.uncork) return;
      this.gathering = true;
      stream.cork();
      process.nextTick(() => {
        this.gathering = false;
        stream.uncork!();
      });
    }
  };
}

/** Whether a driver handle (drizzle's session client) can defer statements. */
export function canDefer(
  client: unknown,
): client is { defer(config: pg.QueryConfig, values?: unknown[]): void } {
  return typeof (client as { defer?: unknown })?.defer === 'function';
}

/** Whether a driver handle (drizzle's session client in a transaction) can send a statement ahead of it. */
export function canSendAhead(client: unknown): client is { sendAhead(statement: Ahead): void } {
  return typeof (client as { sendAhead?: unknown })?.sendAhead === 'function';
}

/** How many statements a driver handle was asked for, where it counts them (ours on PostgreSQL). */
export function issuedCount(client: unknown): number | undefined {
  const n = (client as { issued?: unknown })?.issued;
  return typeof n === 'number' ? n : undefined;
}
