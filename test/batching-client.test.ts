// Fewer round trips for a transaction (src/db/batching-client.ts): a deferred statement
// (`later`) is seen by the next statement of its transaction and committed with it; one that
// fails fails the transaction and nothing of it is committed; a transaction that ends before
// its first statement leaves the pooled connection as it found it. On PGlite `later` runs at
// once: the same outcomes hold. On PostgreSQL, statements issued together leave in one write.
import { sql } from 'drizzle-orm';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Db, openDatabase, queryRows } from '../src/db/index.ts';
import { later } from '../src/db/prepared.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

const probe = pgTable('batching_probe', { id: integer('id').primaryKey(), note: text('note').notNull() });

let database: TestDatabase;
/** A pool of one connection (PostgreSQL), or the same PGlite. */
let one: Database;

beforeAll(async () => {
  database = await testDatabase();
  one = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 1 }) : database;
  await database.db.execute(sql`create table batching_probe (id int primary key, note text not null)`);
});
afterAll(async () => {
  if (one && one !== database) await one.close();
  await database?.close();
});

const rowsOf = (db: Db, ids: number[]) =>
  queryRows<{ id: number; note: string }>(
    db,
    sql`select id, note from batching_probe where id = any(${`{${ids.join(',')}}`}::int[]) order by id`,
  );
const put = (tx: Db, id: number, note: string) => later(tx, tx.insert(probe).values({ id, note }));
/** The database error behind drizzle's wrapper. */
const codeOf = (err: unknown) =>
  ((err as { cause?: { code?: string } }).cause ?? (err as { code?: string })).code;

describe('deferred statements (later)', () => {
  it('are seen by the next statement of their transaction, and committed with it', async () => {
    const seen = await database.db.transaction(async (t) => {
      const tx = t as unknown as Db;
      await put(tx, 1, 'first');
      await put(tx, 2, 'second');
      return rowsOf(tx, [1, 2]);
    });
    expect(seen).toEqual([
      { id: 1, note: 'first' },
      { id: 2, note: 'second' },
    ]);
    expect(await rowsOf(database.db, [1, 2])).toEqual(seen);
  });

  it('fail their transaction at its next statement when one fails, and nothing of it is committed', async () => {
    const failed = await database.db
      .transaction(async (t) => {
        const tx = t as unknown as Db;
        await put(tx, 10, 'kept?');
        await put(tx, 10, 'the same id again');
        await put(tx, 11, 'after the failure');
        return rowsOf(tx, [10, 11]);
      })
      .catch((err: unknown) => err);
    expect(codeOf(failed)).toBe('23505');
    expect(await rowsOf(database.db, [10, 11])).toEqual([]);
  });

  it('fail the commit when they are the last statements and one fails: nothing is committed', async () => {
    const failed = await database.db
      .transaction(async (t) => {
        const tx = t as unknown as Db;
        await rowsOf(tx, [20]);
        await put(tx, 20, 'kept?');
        await put(tx, 20, 'the same id again');
      })
      .catch((err: unknown) => err);
    expect(codeOf(failed)).toBe('23505');
    expect(await rowsOf(database.db, [20])).toEqual([]);
  });

  it('are dropped when their transaction rolls back', async () => {
    await expect(
      database.db.transaction(async (t) => {
        const tx = t as unknown as Db;
        await rowsOf(tx, [30]);
        await put(tx, 30, 'never');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await rowsOf(database.db, [30])).toEqual([]);
  });

  it('run at once outside a transaction', async () => {
    await put(database.db, 40, 'at once');
    expect(await rowsOf(database.db, [40])).toEqual([{ id: 40, note: 'at once' }]);
  });
});

describe('the connection after a transaction that ended before its first statement', () => {
  it('is not left inside a transaction: the next write on it commits by itself', async () => {
    await expect(
      one.db.transaction(async () => {
        throw new Error('nothing to do');
      }),
    ).rejects.toThrow('nothing to do');
    await expect(
      one.db.transaction(async (t) => {
        await put(t as unknown as Db, 50, 'never');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await one.db.transaction(async () => {});
    // The same (only) connection, outside a transaction: seen at once from another connection.
    await one.db.insert(probe).values({ id: 51, note: 'autocommit' });
    expect(await rowsOf(database.db, [50, 51])).toEqual([{ id: 51, note: 'autocommit' }]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL (TEST_DATABASE_URL)', () => {
  it('sends statements issued together in one write, and answers each its own', async () => {
    const pool = (one.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    try {
      const socket = (client as unknown as { connection: { stream: { _write: unknown; _writev: unknown } } })
        .connection.stream;
      let writes = 0;
      for (const method of ['_write', '_writev'] as const) {
        const original = socket[method] as (...args: unknown[]) => unknown;
        socket[method] = function (this: unknown, ...args: unknown[]) {
          writes++;
          return original.apply(this, args);
        };
      }
      const answers = await Promise.all([
        client.query('select 1 as n'),
        client.query({ text: 'select $1::int as n', values: [2] }),
        client.query({ text: 'select $1::int + 1 as n', values: [2] }),
      ]);
      expect(answers.map((a) => a.rows[0].n)).toEqual([1, 2, 3]);
      expect(writes).toBe(1);
    } finally {
      client.release();
    }
  });
});
