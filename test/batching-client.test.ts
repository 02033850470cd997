// Fewer round trips for a transaction (src/db/batching-client.ts): a deferred statement
// (`insertInto(...).later`) is seen by the next statement of its transaction and committed with it; one that
// fails fails the transaction and nothing of it is committed; a transaction that ends before
// its first statement leaves the pooled connection as it found it. On PGlite `later` runs at
// once: the same outcomes hold. insertInto writes what the query builder writes, row for row. On PostgreSQL, statements issued together leave in one write.
// A statement sent ahead of a transaction (transactionAfter) is committed outside it; when its
// answer is refused, the transaction fails and nothing of it is committed.
import { sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/db/errors.ts';
import { type Database, type Db, openDatabase } from '../src/db/index.ts';
import { insertInto, ph, rowsOf, statement, transactionAfter } from '../src/db/sql.ts';
import { useTestDatabase } from './helpers/db.ts';

const probe = pgTable('batching_probe', { id: integer('id').primaryKey(), note: text('note').notNull() });

const database = useTestDatabase();
/** A pool of one connection (PostgreSQL), or the same PGlite. */
let one: Database;

beforeAll(async () => {
  one = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 1 }) : database;
  await database.db.execute(sql`create table batching_probe (id int primary key, note text not null)`);
  await database.db.execute(
    sql`create table batching_shapes (id int primary key, doc jsonb not null, list jsonb not null, at timestamptz not null,
      note text, kept text not null default 'by default')`,
  );
});
afterAll(async () => {
  if (one && one !== database) await one.close();
});

const probeRows = (db: Db, ids: number[]) =>
  rowsOf<{ id: number; note: string }>(
    db,
    sql`select id, note from batching_probe where id = any(${`{${ids.join(',')}}`}::int[]) order by id`,
  );
const insertProbe = insertInto('batching_probe_insert', probe);
const put = (tx: Db, id: number, note: string) => insertProbe.later(tx, [{ id, note }]);
/** The database error behind drizzle's wrapper. */
const codeOf = (err: unknown) =>
  ((err as { cause?: { code?: string } }).cause ?? (err as { code?: string })).code;

describe('deferred statements (later)', () => {
  it('are seen by the next statement of their transaction, and committed with it', async () => {
    const seen = await database.db.transaction(async (t) => {
      const tx = t as unknown as Db;
      await put(tx, 1, 'first');
      await put(tx, 2, 'second');
      return probeRows(tx, [1, 2]);
    });
    expect(seen).toEqual([
      { id: 1, note: 'first' },
      { id: 2, note: 'second' },
    ]);
    expect(await probeRows(database.db, [1, 2])).toEqual(seen);
  });

  it('fail their transaction at its next statement when one fails, and nothing of it is committed', async () => {
    const failed = await database.db
      .transaction(async (t) => {
        const tx = t as unknown as Db;
        await put(tx, 10, 'kept?');
        await put(tx, 10, 'the same id again');
        await put(tx, 11, 'after the failure');
        return probeRows(tx, [10, 11]);
      })
      .catch((err: unknown) => err);
    expect(codeOf(failed)).toBe('23505');
    expect(await probeRows(database.db, [10, 11])).toEqual([]);
  });

  it('fail the commit when they are the last statements and one fails: nothing is committed', async () => {
    const failed = await database.db
      .transaction(async (t) => {
        const tx = t as unknown as Db;
        await probeRows(tx, [20]);
        await put(tx, 20, 'kept?');
        await put(tx, 20, 'the same id again');
      })
      .catch((err: unknown) => err);
    expect(codeOf(failed)).toBe('23505');
    expect(await probeRows(database.db, [20])).toEqual([]);
  });

  it('are dropped when their transaction rolls back', async () => {
    await expect(
      database.db.transaction(async (t) => {
        const tx = t as unknown as Db;
        await probeRows(tx, [30]);
        await put(tx, 30, 'never');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await probeRows(database.db, [30])).toEqual([]);
  });

  it('run at once outside a transaction', async () => {
    await put(database.db, 40, 'at once');
    expect(await probeRows(database.db, [40])).toEqual([{ id: 40, note: 'at once' }]);
  });
});

const shapes = pgTable('batching_shapes', {
  id: integer('id').primaryKey(),
  doc: jsonb('doc').$type<{ a: number; b: string[] }>().notNull(),
  // A jsonb array (as an order's tax lines): the driver alone would write a PostgreSQL array.
  list: jsonb('list').$type<{ rate: string }[]>().notNull(),
  at: timestamp('at', { withTimezone: true }).notNull(),
  note: text('note'),
  kept: text('kept').notNull().default('by default'),
});
const insertShapes = insertInto('batching_shapes_insert', shapes, { onConflictDoNothing: [shapes.id] });

describe('insertInto', () => {
  const at = new Date('2026-11-21T12:34:56.789Z');
  const row = (id: number, note: string | null) => ({
    id,
    doc: { a: id, b: ['x', "it's"] },
    list: [{ rate: '0.13' }, { rate: '0.05' }],
    at,
    note,
  });
  const read = (from: number, to: number) =>
    rowsOf<{ id: number; doc: unknown; list: unknown; at: string; note: string | null; kept: string }>(
      database.db,
      sql`select id, doc, list, to_json(at)#>>'{}' as at, note, kept from batching_shapes
        where id between ${from} and ${to} order by id`,
    );

  it('writes what the query builder writes: jsonb, timestamps, nulls, and a column left out takes its default', async () => {
    await database.db.transaction(async (t) => {
      await insertShapes.later(t as unknown as Db, [row(1, 'one'), row(2, null)]);
    });
    await database.db.insert(shapes).values([row(101, 'one'), row(102, null)]);
    const ours = await read(1, 2);
    const builders = await read(101, 102);
    expect(ours.map((r) => ({ ...r, id: r.id + 100, doc: { ...(r.doc as object), a: r.id + 100 } }))).toEqual(
      builders,
    );
    expect(ours[0]).toEqual({
      id: 1,
      doc: { a: 1, b: ['x', "it's"] },
      list: [{ rate: '0.13' }, { rate: '0.05' }],
      at: '2026-11-21T12:34:56.789+00:00',
      note: 'one',
      kept: 'by default',
    });
  });

  it('writes many rows in one statement (past the named sizes), and its conflict clause holds', async () => {
    const many = Array.from({ length: 9 }, (_, n) => row(200 + n, `n${n}`));
    await database.db.transaction(async (t) => {
      await insertShapes.later(t as unknown as Db, many);
      // The same ids again: "on conflict (id) do nothing" leaves the first rows as they are.
      await insertShapes.later(t as unknown as Db, [row(200, 'again')]);
    });
    const rows = await read(200, 208);
    expect(rows.map((r) => r.note)).toEqual(many.map((r) => r.note));
  });

  it('refuses rows of one insert that give different columns', async () => {
    await expect(
      insertShapes.later(database.db, [
        row(300, 'a'),
        { id: 301, doc: { a: 1, b: [] }, list: [], at } as never,
      ]),
    ).rejects.toThrow('rows of one insert must give the same columns');
    await expect(
      insertShapes.later(database.db, [
        { ...row(302, null), note: undefined } as never,
        { ...row(303, 'a column more') },
      ]),
    ).rejects.toThrow('rows of one insert must give the same columns');
    expect(await read(300, 303)).toEqual([]);
  });

  it('names each shape apart: another set of columns with as many rows is another statement', async () => {
    await database.db.transaction(async (t) => {
      await insertShapes.later(t as unknown as Db, [row(400, 'with a note')]);
      const { note: _, ...noNote } = row(401, null);
      await insertShapes.later(t as unknown as Db, [noNote]);
      await insertShapes.later(t as unknown as Db, [row(402, 'with a note again')]);
    });
    expect((await read(400, 402)).map((r) => r.note)).toEqual(['with a note', null, 'with a note again']);
  });
});

const claimProbe = statement<{ id: number }>(
  'batching_probe_claim',
  sql`insert into batching_probe (id, note) values (${ph('id')}, ${ph('note')}) on conflict do nothing returning id`,
);
const claimProbeInside = statement(
  'batching_probe_claim_inside',
  sql`insert into batching_probe (id, note) values (${ph('id')}, ${ph('note')}) returning id`,
);
/** A claim of `id` ahead of a transaction: refused (throws) when the row is there already. */
const claim = (id: number) =>
  claimProbe.ahead(
    { id, note: 'claimed' },
    (rows) => {
      if (rows.length === 0) throw new Error(`${id} is taken`);
    },
    claimProbeInside.bound({ id, note: 'claimed' }),
  );

describe('a statement ahead of a transaction (transactionAfter)', () => {
  it('is committed outside the transaction: kept when the transaction rolls back', async () => {
    const first = claim(60);
    await expect(
      transactionAfter(database.db, first, async (tx) => {
        await put(tx, 61, 'never');
        expect(await probeRows(tx, [60, 61])).toEqual([
          { id: 60, note: 'claimed' },
          { id: 61, note: 'never' },
        ]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(first.sent).toBe(true);
    expect(await probeRows(database.db, [60, 61])).toEqual([{ id: 60, note: 'claimed' }]);
  });

  it('refused, fails the transaction at its first statement: nothing of the transaction is committed', async () => {
    await database.db.insert(probe).values({ id: 70, note: 'there first' });
    const failed = await transactionAfter(database.db, claim(70), async (tx) => {
      await put(tx, 71, 'never');
      return probeRows(tx, [71]);
    }).catch((err: unknown) => err);
    expect(String((failed as Error).cause ?? failed)).toContain('70 is taken');
    expect(await probeRows(database.db, [70, 71])).toEqual([{ id: 70, note: 'there first' }]);
  });

  it('refused, stops the commit of a transaction that only deferred its writes', async () => {
    await database.db.insert(probe).values({ id: 80, note: 'there first' });
    const failed = await transactionAfter(database.db, claim(80), async (tx) => {
      await put(tx, 81, 'never');
    }).catch((err: unknown) => err);
    expect(String((failed as Error).cause ?? failed)).toContain('80 is taken');
    expect(await probeRows(database.db, [80, 81])).toEqual([{ id: 80, note: 'there first' }]);
  });

  it('accepted, lets the transaction commit its own writes', async () => {
    await transactionAfter(one.db, claim(90), async (tx) => {
      await put(tx, 91, 'committed');
    });
    expect(await probeRows(database.db, [90, 91])).toEqual([
      { id: 90, note: 'claimed' },
      { id: 91, note: 'committed' },
    ]);
  });

  it('taken inside a transaction of deferred writes only: of two racing, one commits, the other changes nothing', async () => {
    const race = await Promise.allSettled(
      [101, 102].map((other) =>
        transactionAfter(database.db, claim(100), async (tx) => {
          await put(tx, other, 'with the claim');
        }),
      ),
    );
    expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = race.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(String((refused!.reason as Error).cause ?? refused!.reason)).toContain('100 is taken');
    const rows = await probeRows(database.db, [100, 101, 102]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({ id: 100, note: 'claimed' });
  });

  it('is left unsent by a transaction that sent nothing on PostgreSQL (run before it on PGlite)', async () => {
    const first = claim(95);
    await expect(
      transactionAfter(one.db, first, async () => {
        throw new Error('nothing to do');
      }),
    ).rejects.toThrow('nothing to do');
    expect(first.sent ?? false).toBe(!database.url);
    expect(await probeRows(database.db, [95])).toEqual(database.url ? [] : [{ id: 95, note: 'claimed' }]);
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
    expect(await probeRows(database.db, [50, 51])).toEqual([{ id: 51, note: 'autocommit' }]);
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

  it('a connection lost while a transaction holds the client fails that transaction only, and the pool goes on', async () => {
    const failed = await one.db
      .transaction(async (t) => {
        const tx = t as unknown as Db;
        const [{ pid }] = (await rowsOf<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`)) as [
          { pid: number },
        ];
        // Ended from another connection while this client is checked out and idle: an 'error'
        // event on the client, which ended the process when nothing listened for it.
        const client = (tx as unknown as { session: { client: pg.PoolClient } }).session.client;
        const ended = new Promise((resolve) => client.once('end', resolve));
        await rowsOf(database.db, sql`select pg_terminate_backend(${pid}::int)`);
        await ended;
        await rowsOf(tx, sql`select 1`);
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(isDatabaseUnavailable(failed)).toBe(true);
    // The broken client was dropped on its release: the next statement gets a new connection.
    expect(await rowsOf(one.db, sql`select 2 as n`)).toEqual([{ n: 2 }]);
  });
});
