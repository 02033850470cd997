// A database of its own for each test file: PGlite loaded from the migrated template, or,
// with TEST_DATABASE_URL, a fresh PostgreSQL database created on that server and dropped after.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/index.ts';

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
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.href, poolSize: 5 });
  await database.migrate();
  return {
    ...database,
    url: url.href,
    close: async () => {
      await database.close();
      const drop = new pg.Client({ connectionString: serverUrl });
      await drop.connect();
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}
