// A database of its own for each test file: PGlite loaded from the migrated template, or,
// with TEST_DATABASE_URL, a PostgreSQL database copied from the migrated template database on
// that server and dropped after.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/index.ts';
import { onServer } from './pg-admin.ts';

export interface TestDatabase extends Database {
  /** The connection string of a PostgreSQL test database (undefined on PGlite). */
  url: string | undefined;
}

export async function testDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const blob = new Blob([readFileSync(inject('pgliteTemplate'))]);
    const pglite = await PGlite.create({ loadDataDir: blob });
    const database = await openDatabase({ pglite });
    return {
      ...database,
      url: undefined,
      close: async () => {
        await database.close();
        await pglite.close();
      },
    };
  }
  const name = `portage_test_${randomBytes(6).toString('hex')}`;
  const template = inject('pgTemplate');
  await onServer(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.href, poolSize: 5 });
  // Copied from the migrated template: migrating again finds nothing to do (and checks so).
  await database.migrate();
  return {
    ...database,
    url: url.href,
    close: async () => {
      await database.close();
      await onServer(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * An object that stands for what `current()` answers at the moment it is used: each property
 * read, write or `in` goes to that value. It lets a file name at its top what its hooks open
 * later (`const { t, database } = useTestApp()`); used before it is open (or after it is
 * closed), it throws saying so.
 */
export function standIn<T extends object>(what: string, current: () => T | undefined): T {
  const target = (key: PropertyKey): T => {
    const value = current();
    if (value === undefined) {
      throw new Error(
        `${what} is opened in beforeAll and closed in afterAll: use it inside a hook or a test (read .${String(key)})`,
      );
    }
    return value;
  };
  return new Proxy({} as T, {
    get(_, key) {
      // Not a promise: `await` and vitest's own checks look for `then`, before the hooks too.
      if (key === 'then' && current() === undefined) return undefined;
      const of = target(key);
      const value = Reflect.get(of, key, of);
      return typeof value === 'function' ? value.bind(of) : value;
    },
    set: (_, key, value) => Reflect.set(target(key), key, value),
    has: (_, key) => key in target(key),
    ownKeys: () => Reflect.ownKeys(target('ownKeys')),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(key), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/**
 * A database of the test file's own (or of the describe it is called in), opened in beforeAll
 * and closed in afterAll; the answer stands for it in hooks and tests. For files that need no
 * app (useTestApp in test/helpers/app.ts opens both).
 */
export function useTestDatabase(): TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(async () => {
    const open = database;
    database = undefined;
    await open?.close();
  });
  return standIn('useTestDatabase(): the database', () => database);
}
