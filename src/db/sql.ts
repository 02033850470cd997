// The one way to run SQL that the query builder does not write: everything here runs on whatever
// handle it is given (the pool, or the transaction the caller is in), on PGlite and PostgreSQL.
//
// Two verbs:
// - run now: `rowsOf(db, sql)` for a one-off statement, or call a statement built once
//   (`statement`, `query`): on PostgreSQL a named statement each connection parses once.
// - run with the next statement: `.later(db, …)` for a statement whose answer no one reads (a
//   lock, a row written). In a transaction on PostgreSQL it goes out with the transaction's next
//   statement or its commit (db/batching-client.ts); elsewhere it runs at once.
// And `pipeline(ctx, [stepA, stepB])` runs steps in one round trip, in the order written: the
// order of the locks they take is that order, checked on PostgreSQL. `transactionAfter` runs a
// statement ahead of a transaction, outside it, in the transaction's first write (a claim).
//
// This is the only file that reaches into Drizzle's internals (the session's driver client, a
// prepared query's text and handle); test/drizzle-internals.test.ts pins each of them.
import { fillPlaceholders, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { type PgColumn, PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { type Ahead, type Bound, canDefer, canSendAhead, issuedCount } from './batching-client.ts';
import type { Db } from './index.ts';

/** A value given when a statement built once runs: `ph('buyerId')`. */
export const ph = sql.placeholder;

/** Values for a statement: by placeholder name, or by position for a statement of plain text. */
type Values = Record<string, unknown> | unknown[];

interface Driver {
  query(...args: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The driver's handle behind a database or a transaction: a pool, a client, or PGlite. */
export function driverOf(db: Db): Driver {
  // biome-ignore lint/suspicious/noExplicitAny: drizzle's session is internal (pinned by a test)
  const client = (db as any).session?.client;
  if (!client || typeof client.query !== 'function') {
    throw new Error('db/sql.ts needs a node-postgres or PGlite database');
  }
  return client;
}

/** Whether the handle is node-postgres's (a pool or a client), not PGlite's (which names no statements). */
const isNodePg = (client: object) => 'totalCount' in client || 'connection' in client;

const dialect = new PgDialect();

interface Text {
  name?: string;
  text: string;
}

/** Sends a statement: named on node-postgres (parsed once per connection), plain on PGlite. */
function send(client: Driver, statement: Text, values: unknown[], rowMode?: 'array') {
  if (isNodePg(client)) return client.query({ ...statement, values, ...(rowMode ? { rowMode } : {}) });
  return client.query(statement.text, values, rowMode ? { rowMode } : undefined);
}

async function sendLater(db: Db, statement: Text, values: unknown[]): Promise<void> {
  const client = driverOf(db);
  if (canDefer(client)) client.defer(statement, values);
  else await send(client, statement, values);
}

/** Runs a statement now and answers its rows as the driver gives them (column names as written). */
export async function rowsOf<Row = Record<string, unknown>>(db: Db, query: SQL): Promise<Row[]> {
  const res = (await db.execute(query)) as unknown as { rows: Row[] };
  return res.rows;
}

/**
 * A statement of plain SQL built once, with `ph(name)` for its values (or `$1…` in `sql.raw`
 * text, given values by position). Calling it runs it now and answers its rows as the driver
 * gives them; `.arrays` answers each row as an array; `.later` runs it with the next statement.
 * The name makes it a named statement on PostgreSQL: one name, one text (an empty name: unnamed).
 */
export function statement<Row = Record<string, unknown>>(name: string, query: SQL) {
  const built = dialect.sqlToQuery(query);
  const text: Text = name ? { name, text: built.sql } : { text: built.sql };
  const valuesOf = (values: Values = {}) =>
    Array.isArray(values) ? values : fillPlaceholders(built.params, values);
  const run = async (db: Db, values?: Values): Promise<Row[]> =>
    (await send(driverOf(db), text, valuesOf(values))).rows as Row[];
  return Object.assign(run, {
    /** This statement with its values, as the driver takes it. */
    bound: (values?: Values): Bound => ({ config: text, values: valuesOf(values) }),
    /**
     * This statement, to send ahead of a transaction (transactionAfter); `accept` checks its rows.
     * `inside` is its form inside a transaction (db/batching-client.ts): failing with a unique
     * violation where this one answers no rows.
     */
    ahead: (values: Values, accept: (rows: Row[]) => void, inside: Bound): Ahead => ({
      config: text,
      values: valuesOf(values),
      inside,
      accept: accept as (rows: unknown[]) => void,
    }),
    async arrays(db: Db, values?: Values): Promise<unknown[][]> {
      return (await send(driverOf(db), text, valuesOf(values), 'array')).rows as unknown[][];
    },
    later: (db: Db, values?: Values): Promise<void> => sendLater(db, text, valuesOf(values)),
  });
}

interface DrizzlePrepared<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

/**
 * A query-builder statement built once by `build` (on the first database it runs on, with
 * `ph(name)` for its values, then `.prepare(name)`). Calling it runs it now, its rows mapped as
 * the builder maps them (dates, nested objects); `.later` runs it with the next statement.
 */
export function query<R>(name: string, build: (db: Db, name: string) => DrizzlePrepared<R>) {
  let prepared: DrizzlePrepared<R> | undefined;
  const run = (db: Db, values: Record<string, unknown> = {}): Promise<R> => {
    prepared ??= build(db, name);
    // The prepared query holds the handle it was built on; it runs on this one.
    const bound = Object.create(prepared, { client: { value: driverOf(db) } }) as DrizzlePrepared<R>;
    return bound.execute(values);
  };
  return Object.assign(run, {
    async later(db: Db, values: Record<string, unknown> = {}): Promise<void> {
      const client = driverOf(db);
      prepared ??= build(db, name);
      // node-postgres's prepared query keeps its text and its values' places.
      const nodePg = prepared as unknown as { queryString?: string; params?: unknown[] };
      if (canDefer(client) && typeof nodePg.queryString === 'string' && nodePg.params) {
        client.defer({ name, text: nodePg.queryString }, fillPlaceholders(nodePg.params, values));
      } else {
        await run(db, values);
      }
    },
  });
}

/** At most this many rows make a named insert; longer ones go unnamed. */
const NAMED_ROWS = 4;

/**
 * An insert whose answer no one reads, of rows given as the table's insert objects: `.later`
 * runs it with the next statement. Its text is built once per shape (the columns given, the
 * number of rows) instead of by the query builder at every call, which cost about a tenth of
 * the service's CPU per payment. Values go through each column's own driver mapping (jsonb,
 * timestamps), as the builder's do; a column left out takes its default.
 */
export function insertInto<T extends PgTable>(
  name: string,
  table: T,
  options: { onConflictDoNothing?: PgColumn[] } = {},
) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const target = `insert into "${getTableName(table)}"`;
  const conflict = options.onConflictDoNothing
    ? ` on conflict (${options.onConflictDoNothing.map((c) => `"${c.name}"`).join(', ')}) do nothing`
    : '';
  // A name per shape, so two shapes never share one. Bounded: a call site writes one shape, and
  // rows are bounded by the cart.
  const shapes = new Map<string, Text>();
  const statementOf = (keys: string[], count: number): Text => {
    const shape = `${count}:${keys.join(',')}`;
    let known = shapes.get(shape);
    if (known === undefined) {
      const names = keys.map((k) => {
        const column = columns[k];
        if (!column) throw new Error(`${name}: no column ${k}`);
        return `"${column.name}"`;
      });
      const tuples = Array.from(
        { length: count },
        (_, r) => `(${keys.map((_k, c) => `$${r * keys.length + c + 1}`).join(', ')})`,
      );
      const text = `${target} (${names.join(', ')}) values ${tuples.join(', ')}${conflict}`;
      if (shapes.size >= 64) return { text };
      known = count <= NAMED_ROWS ? { text, name: `${name}_${shapes.size}` } : { text };
      shapes.set(shape, known);
    }
    return known;
  };
  const defined = (row: Record<string, unknown>) => Object.keys(row).filter((k) => row[k] !== undefined);
  const build = (given: T['$inferInsert'][]) => {
    const keys = defined(given[0] as Record<string, unknown>);
    const values: unknown[] = [];
    for (const row of given as Record<string, unknown>[]) {
      if (row !== given[0] && defined(row).length !== keys.length) {
        throw new Error(`${name}: rows of one insert must give the same columns`);
      }
      for (const k of keys) {
        const v = row[k];
        if (v === undefined) throw new Error(`${name}: rows of one insert must give the same columns`);
        values.push(v === null ? null : columns[k]!.mapToDriverValue(v));
      }
    }
    return { statement: statementOf(keys, given.length), values };
  };
  return {
    async later(db: Db, given: T['$inferInsert'][]): Promise<void> {
      if (given.length === 0) return;
      const { statement: text, values } = build(given);
      await sendLater(db, text, values);
    },
  };
}

/**
 * Runs `fn` in a new transaction with `first` run ahead of it, outside it (committed at once,
 * whatever becomes of the transaction): on PostgreSQL in the transaction's first write
 * (db/batching-client.ts), elsewhere on its own just before. When `first.accept` refuses its
 * rows, the transaction fails with that error, having changed nothing.
 */
export async function transactionAfter<T>(db: Db, first: Ahead, fn: (tx: Db) => Promise<T>): Promise<T> {
  const client = driverOf(db);
  if (!isNodePg(client)) {
    first.sent = true;
    first.accept((await send(client, first.config as Text, first.values)).rows);
    return db.transaction((tx) => fn(tx as unknown as Db));
  }
  return db.transaction(async (tx) => {
    const txClient = driverOf(tx as unknown as Db);
    if (!canSendAhead(txClient)) throw new Error('transactionAfter needs the batching client (db/index.ts)');
    txClient.sendAhead(first);
    return fn(tx as unknown as Db);
  });
}

type Step<C> = ((ctx: C) => Promise<unknown>) | undefined | false;
type Answers<T> = { -readonly [K in keyof T]: T[K] extends (ctx: never) => Promise<infer R> ? R : undefined };

/**
 * Runs steps in one round trip, in the order written (a step left `undefined` or `false` is
 * skipped): each is started only after the one before has sent its first statement, so locks
 * are taken in this order. A step must send its statement before it first awaits; on
 * PostgreSQL one that does not fails here, naming it, instead of taking its lock out of order.
 */
export async function pipeline<C extends { db: Db }, const T extends readonly Step<C>[]>(
  ctx: C,
  steps: T,
): Promise<Answers<T>> {
  const client = driverOf(ctx.db);
  const running = steps.map((step, n) => {
    if (!step) return undefined;
    const before = issuedCount(client);
    const answer = step(ctx);
    if (before !== undefined && issuedCount(client) === before) {
      answer.catch(() => {});
      throw new Error(
        `pipeline step ${n + 1} (${step.name || 'anonymous'}) sent no statement before it awaited: its lock would not be taken in the order written`,
      );
    }
    return answer;
  });
  return (await Promise.all(running)) as Answers<T>;
}
