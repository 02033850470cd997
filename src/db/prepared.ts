// Prepared statements for the hottest queries (a checkout and its payment run about 25): each is
// built once, with sql.placeholder for its values, instead of by the query builder on every
// call, and on PostgreSQL it is a named statement that each connection parses once. It runs on
// whatever ctx.db is: the pool, or the transaction the caller is in (PGlite alike, unnamed).
import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
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

/**
 * A statement of plain SQL built once (`query` with sql.placeholder for the values): answers
 * a function running it on a database or transaction, with the rows as the driver gives them.
 * Its `later` runs it when no one reads its answer: in a transaction on PostgreSQL it goes out
 * with the transaction's next statement (db/batching-client.ts), elsewhere at once.
 */
export function preparedSql<Row = Record<string, unknown>>(name: string, query: SQL) {
  const built = dialect.sqlToQuery(query);
  const run = async (db: Db, values: Record<string, unknown> = {}): Promise<Row[]> => {
    const client = driverOf(db);
    const params = fillPlaceholders(built.params, values);
    const result = isNodePg(client)
      ? await client.query({ name, text: built.sql, values: params })
      : await client.query(built.sql, params);
    return result.rows as Row[];
  };
  return Object.assign(run, {
    async later(db: Db, values: Record<string, unknown> = {}): Promise<void> {
      const client = driverOf(db);
      if (canDefer(client)) client.defer({ name, text: built.sql }, fillPlaceholders(built.params, values));
      else await run(db, values);
    },
  });
}

/**
 * Runs a query-builder statement whose answer no one reads (an insert without returning, an
 * update): in a transaction on PostgreSQL it goes out with the transaction's next statement or
 * its commit (db/batching-client.ts); elsewhere at once. Its error, if any, is the error of that
 * next statement: the transaction fails all the same.
 */
export async function later(
  db: Db,
  statement: PromiseLike<unknown> & { toSQL(): { sql: string; params: unknown[] } },
) {
  const client = driverOf(db);
  if (!canDefer(client)) {
    await statement;
    return;
  }
  const { sql: text, params } = statement.toSQL();
  client.defer({ text }, params);
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
