// Once per test run: a migrated database that each test file copies as its own: a PGlite data
// directory (loading takes ~0.8 s; initialising and migrating a new one ~4 s), or with
// TEST_DATABASE_URL a PostgreSQL template database (CREATE DATABASE … TEMPLATE copies it; running
// the migrations in each file's new database took longer than many files' tests).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/index.ts';
import { onServer } from './pg-admin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    /** The migrated template database's name on TEST_DATABASE_URL's server ('' on PGlite). */
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-test-'));
  const file = path.join(dir, 'template.tar');
  const serverUrl = process.env.TEST_DATABASE_URL;
  let template = '';
  if (!serverUrl) {
    const pglite = await PGlite.create();
    const database = await openDatabase({ pglite });
    await database.migrate();
    const dump = await pglite.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await pglite.close();
  } else {
    template = `portage_test_template_${randomBytes(6).toString('hex')}`;
    await onServer(serverUrl, `create database ${template}`);
    const url = new URL(serverUrl);
    url.pathname = `/${template}`;
    const database = await openDatabase({ databaseUrl: url.href, poolSize: 1 });
    await database.migrate();
    // A template is copied only while nobody is connected to it.
    await database.close();
  }
  project.provide('pgliteTemplate', file);
  project.provide('pgTemplate', template);
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (serverUrl && template) await onServer(serverUrl, `drop database if exists ${template} with (force)`);
  };
}
