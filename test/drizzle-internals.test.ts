// What src/db/sql.ts relies on inside Drizzle, pinned: an upgrade that moves any of it fails
// here, by name, instead of somewhere in a checkout. And what sql.ts promises on top of it: a
// statement built once runs on the transaction it is given, `later` is seen by the next
// statement, and `pipeline` refuses a step that would take its lock out of order.
import { eq, sql } from 'drizzle-orm';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/index.ts';
import { driverOf, insertInto, ph, pipeline, query, rowsOf, statement } from '../src/db/sql.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

const pinned = pgTable('drizzle_pin', { id: integer('id').primaryKey(), note: text('note').notNull() });

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase();
  await database.db.execute(sql`create table drizzle_pin (id int primary key, note text not null)`);
});
afterAll(async () => {
  await database?.close();
});

const byId = query('drizzle_pin_by_id', (db, name) =>
  db
    .select()
    .from(pinned)
    .where(eq(pinned.id, ph('id')))
    .prepare(name),
);
const noteOf = statement<{ note: string }>(
  'drizzle_pin_note',
  sql`select note from drizzle_pin where id = ${ph('id')}`,
);
const insertPin = insertInto('drizzle_pin_insert', pinned);

describe('Drizzle internals sql.ts reads', () => {
  it('a database and a transaction each carry their driver client as session.client', async () => {
    const root = (database.db as unknown as { session?: { client?: { query?: unknown } } }).session;
    expect(typeof root?.client?.query).toBe('function');
    await database.db.transaction(async (tx) => {
      const inner = (tx as unknown as { session?: { client?: { query?: unknown } } }).session;
      expect(typeof inner?.client?.query).toBe('function');
      expect(driverOf(tx as unknown as Db)).toBe(inner?.client);
    });
  });

  it('a prepared query runs on the client set on it (so, in the caller’s transaction)', async () => {
    await database.db
      .transaction(async (tx) => {
        await tx.insert(pinned).values({ id: 1, note: 'uncommitted' });
        // Only the transaction's own connection sees the row.
        expect(await byId(tx as unknown as Db, { id: 1 })).toEqual([{ id: 1, note: 'uncommitted' }]);
        tx.rollback();
      })
      .catch((err: Error) => {
        if (!/rollback/i.test(err.message)) throw err;
      });
    expect(await byId(database.db, { id: 1 })).toEqual([]);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'on node-postgres a prepared query keeps its text as queryString and its values’ places as params',
    async () => {
      // Build it, then read the fields sql.ts's `later` reads.
      let seen: { queryString?: unknown; params?: unknown } | undefined;
      const spy = query('drizzle_pin_spy', (db, name) => {
        const p = db
          .select()
          .from(pinned)
          .where(eq(pinned.id, ph('id')))
          .prepare(name);
        seen = p as unknown as typeof seen;
        return p;
      });
      await spy(database.db, { id: 0 });
      expect(typeof seen?.queryString).toBe('string');
      expect(seen?.queryString).toMatch(/^select .* from "drizzle_pin" where "drizzle_pin"\."id" = \$1$/);
      expect(Array.isArray(seen?.params)).toBe(true);
    },
  );
});

describe('sql.ts on top of them', () => {
  it('a row written with later is seen by the next statement and committed with it', async () => {
    await database.db.transaction(async (tx) => {
      await insertPin.later(tx as unknown as Db, [{ id: 2, note: 'later' }]);
      expect(await noteOf(tx as unknown as Db, { id: 2 })).toEqual([{ note: 'later' }]);
    });
    expect(await rowsOf(database.db, sql`select id, note from drizzle_pin where id = 2`)).toEqual([
      { id: 2, note: 'later' },
    ]);
    expect(await noteOf.arrays(database.db, { id: 2 })).toEqual([['later']]);
  });

  it('pipeline answers each step’s result in the order written', async () => {
    const answers = await database.db.transaction(async (tx) =>
      pipeline({ db: tx as unknown as Db }, [
        (c) => noteOf(c.db, { id: 2 }),
        false,
        (c) => byId(c.db, { id: 2 }),
      ]),
    );
    expect(answers).toEqual([[{ note: 'later' }], undefined, [{ id: 2, note: 'later' }]]);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'on PostgreSQL pipeline refuses a step that awaits before it sends its statement',
    async () => {
      const late = async (c: { db: Db }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return noteOf(c.db, { id: 2 });
      };
      await expect(
        database.db.transaction(async (tx) =>
          pipeline({ db: tx as unknown as Db }, [(c) => noteOf(c.db, { id: 2 }), late]),
        ),
      ).rejects.toThrow('pipeline step 2 (late) sent no statement before it awaited');
    },
  );
});
