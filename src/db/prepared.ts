// Prepared statements for the hottest queries (a checkout and its payment run about 25): each is
// built once, with sql.placeholder for its values, instead of by the query builder on every
// call, and on PostgreSQL it is a named statement that each connection parses once. It runs on
// whatever ctx.db is: the pool, or the transaction the caller is in (PGlite alike, unnamed).
import { fillPlaceholders, getTableColumns, getTableName, type SQL } from 'drizzle-orm';
import { type PgColumn, PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { canDefer } from './batching-client.ts';
import type { Db } from './index.ts';

/** The driver's handle behind a database or a transaction: a pool, a client, or PGlite. */
function driverOf(db: Db): { query(...args: unknown[]): Promise<{ rows: unknown[] }> } {
  // biome-ignore lint/suspicious/noExplicitAny: drizzle's session is internal
  const client = (db as any).session?.client;
  if (!client || typeof client.query !== 'function') {
    throw new Error('prepared statements need a node-postgres or PGlite database');
  }
  return client;
}

/** Whether the handle is node-postgres's (a pool or a client), not PGlite's (which names no statements). */
const isNodePg = (client: object) => 'totalCount' in client || 'connection' in client;

const dialect = new PgDialect();

type Driver = ReturnType<typeof driverOf>;

/** Runs a statement: named on node-postgres (parsed once per connection), plain on PGlite. */
const send = (client: Driver, statement: { name?: string; text: string }, values: unknown[]) =>
  isNodePg(client) ? client.query({ ...statement, values }) : client.query(statement.text, values);

/**
 * Runs a statement no one reads: in a transaction on PostgreSQL it goes out with the
 * transaction's next statement or its commit (db/batching-client.ts), elsewhere at once.
 */
async function sendLater(db: Db, statement: { name?: string; text: string }, values: unknown[]) {
  const client = driverOf(db);
  if (canDefer(client)) client.defer(statement, values);
  else await send(client, statement, values);
}

/**
 * A statement of plain SQL built once (`query` with sql.placeholder for the values): answers
 * a function running it on a database or transaction, with the rows as the driver gives them.
 * Its `later` runs it when no one reads its answer: in a transaction on PostgreSQL it goes out
 * with the transaction's next statement (db/batching-client.ts), elsewhere at once.
 */
export function preparedSql<Row = Record<string, unknown>>(name: string, query: SQL) {
  const built = dialect.sqlToQuery(query);
  const statement = { name, text: built.sql };
  const run = async (db: Db, values: Record<string, unknown> = {}): Promise<Row[]> =>
    (await send(driverOf(db), statement, fillPlaceholders(built.params, values))).rows as Row[];
  return Object.assign(run, {
    async later(db: Db, values: Record<string, unknown> = {}): Promise<void> {
      await sendLater(db, statement, fillPlaceholders(built.params, values));
    },
  });
}

/** At most this many rows make a named (server-side prepared) insert; longer ones go unnamed. */
const NAMED_ROWS = 4;

/**
 * An insert whose answer no one reads (no `returning`), of rows given as the table's insert
 * objects. Its text is built once per shape (the columns given, the number of rows) instead of
 * by the query builder at every call (which cost about a tenth of the service's CPU per
 * payment); inserts of up to NAMED_ROWS rows are named statements, parsed once per connection.
 * Values go through each column's own driver mapping (jsonb, timestamps), as the builder's do;
 * a column left out takes its default, as with the builder. `later` runs it as preparedSql's.
 */
export function insertRows<T extends PgTable>(
  name: string,
  table: T,
  options: { onConflictDoNothing?: PgColumn[] } = {},
) {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const target = `insert into "${getTableName(table)}"`;
  const conflict = options.onConflictDoNothing
    ? ` on conflict (${options.onConflictDoNothing.map((c) => `"${c.name}"`).join(', ')}) do nothing`
    : '';
  // One statement per shape (the columns given, the number of rows); a name per shape, so two
  // shapes never share one. Bounded: one call site writes one shape, rows are bounded by the cart.
  const shapes = new Map<string, { text: string; name?: string }>();
  const statementOf = (keys: string[], count: number) => {
    const shape = `${count}:${keys.join(',')}`;
    let statement = shapes.get(shape);
    if (statement === undefined) {
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
      statement = count <= NAMED_ROWS ? { text, name: `${name}_${shapes.size}` } : { text };
      shapes.set(shape, statement);
    }
    return statement;
  };
  const defined = (row: Record<string, unknown>) => Object.keys(row).filter((k) => row[k] !== undefined);
  const build = (rows: T['$inferInsert'][]) => {
    const keys = defined(rows[0] as Record<string, unknown>);
    const values: unknown[] = [];
    for (const row of rows as Record<string, unknown>[]) {
      if (row !== rows[0] && defined(row).length !== keys.length) {
        throw new Error(`${name}: rows of one insert must give the same columns`);
      }
      for (const k of keys) {
        const v = row[k];
        if (v === undefined) throw new Error(`${name}: rows of one insert must give the same columns`);
        values.push(v === null ? null : columns[k]!.mapToDriverValue(v));
      }
    }
    return { ...statementOf(keys, rows.length), values };
  };
  return {
    async later(db: Db, rows: T['$inferInsert'][]): Promise<void> {
      if (rows.length === 0) return;
      const { values, ...statement } = build(rows);
      await sendLater(db, statement, values);
    },
  };
}

interface DrizzlePrepared<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

/**
 * A query-builder statement built once by `build` (on the first database it runs on, with
 * sql.placeholder for its values, then `.prepare(name)`): answers a function running it on a
 * database or transaction, its rows mapped as the builder maps them, and its `later` (as
 * preparedSql's).
 */
export function prepared<R>(name: string, build: (db: Db, name: string) => DrizzlePrepared<R>) {
  let statement: DrizzlePrepared<R> | undefined;
  const run = (db: Db, values: Record<string, unknown> = {}): Promise<R> => {
    statement ??= build(db, name);
    // The prepared query holds the handle it was built on; it runs on this one.
    const bound = Object.create(statement, { client: { value: driverOf(db) } }) as DrizzlePrepared<R>;
    return bound.execute(values);
  };
  return Object.assign(run, {
    async later(db: Db, values: Record<string, unknown> = {}): Promise<void> {
      const client = driverOf(db);
      statement ??= build(db, name);
      // node-postgres's prepared query keeps its text and its values' places (drizzle internals).
      const nodePg = statement as unknown as { queryString?: string; params?: unknown[] };
      if (canDefer(client) && typeof nodePg.queryString === 'string' && nodePg.params) {
        client.defer({ name, text: nodePg.queryString }, fillPlaceholders(nodePg.params, values));
      } else {
        await run(db, values);
      }
    },
  });
}
