// The database connection: PGlite (embedded, in DATA_DIR) by default, PostgreSQL with DATABASE_URL.
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { DEFAULT_POOL_SIZE } from '../config.ts';
import { batchingClientClass } from './batching-client.ts';
import { pgliteWithSpans } from './pglite-spans.ts';
/**
 * Drizzle without its relational schema: nothing uses `db.query.*`, and with a schema every
 * transaction built a query builder for each of the ~40 tables (about 1% of the service's time
 * in bench/checkout.ts's sandbox phase).
 */
export type Db = PgDatabase<PgQueryResultHKT>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Applies the committed migrations that have not run yet. */
  migrate(): Promise<void>;
  ping(): Promise<boolean>;
  /**
   * PGlite only: the whole database as a gzipped tarball (what PGlite's `loadDataDir` opens),
   * taken between transactions while the service keeps running (docs/operations.md "Backups").
   */
  backup?(): Promise<Blob>;
  /** PostgreSQL only: the pool's connections now (metrics); the embedded database has no pool. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export interface OpenOptions {
  databaseUrl?: string;
  dataDir?: string;
  /** An already open PGlite (tests); its lifetime stays the caller's. */
  pglite?: PGlite;
  poolSize?: number;
  /** PostgreSQL: how long a statement may go unanswered before its connection is given up (60 s). */
  queryTimeoutMs?: number;
}

/**
 * How long a statement may go unanswered: far past any request's own (the longest, a search
 * index's batch of 20,000 rows, takes well under a second), so only a server gone silent (a network
 * cut, a failover that sent no reset) reaches it; its connection is then dropped and the request
 * answered 503 rather than held for TCP's retransmissions (about 15 minutes).
 */
const QUERY_TIMEOUT_MS = 60_000;

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    return await openPostgres(
      opts.databaseUrl,
      opts.poolSize ?? DEFAULT_POOL_SIZE,
      opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    );
  }
  if (opts.pglite) return wrapPglite(opts.pglite, async () => {});
  if (!opts.dataDir) throw new Error('openDatabase needs databaseUrl, dataDir or pglite');
  const release = lockDataDir(opts.dataDir);
  try {
    const pgDir = path.join(opts.dataDir, 'pg');
    if (!existsSync(pgDir)) await startFromTemplate(pgDir);
    const client = await PGlite.create(pgDir);
    return wrapPglite(client, async () => {
      await client.close();
      release();
    });
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * A new data directory starts as a copy of an empty database that PGlite made and closed
 * at install time (scripts/build.mjs: dist/pglite-initdb/<PGlite version>/), instead of
 * PGlite running initdb (seconds of WebAssembly at every first start). The copy is what a
 * data directory is after a first start and a clean stop, without migrations: they apply
 * at every start as always. Without a template for the installed version, PGlite runs
 * initdb itself.
 */
async function startFromTemplate(pgDir: string): Promise<void> {
  const template = initdbTemplateDir();
  if (!existsSync(path.join(template, 'PG_VERSION'))) return;
  // Copied aside, then renamed: an interrupted copy never looks like a database.
  const partial = `${pgDir}.partial`;
  await rm(partial, { recursive: true, force: true });
  // A copy-on-write clone where the file system can (btrfs, XFS), a plain copy elsewhere.
  await cp(template, partial, { recursive: true, mode: constants.COPYFILE_FICLONE });
  await rename(partial, pgDir);
}

/** Where scripts/build.mjs keeps the empty database made by the installed PGlite version. */
function initdbTemplateDir(): string {
  const require = createRequire(import.meta.url);
  const pglitePackage = path.join(
    path.dirname(require.resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  );
  const { version } = JSON.parse(readFileSync(pglitePackage, 'utf8')) as { version: string };
  return fileURLToPath(new URL(`../../dist/pglite-initdb/${version}`, import.meta.url));
}

function wrapPglite(client: PGlite, close: () => Promise<void>): Database {
  const db = drizzlePglite(pgliteWithSpans(client)) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_DIR }),
    ping: () => ping(db),
    backup: () => dumpBetweenTransactions(client),
    close,
  };
}

/**
 * A copy of the data directory as the database has it, with no transaction open: a checkpoint
 * first (the copy then needs next to no recovery when opened), then the dump under PGlite's
 * transaction lock, which waits for the transaction in progress to end and holds the next ones
 * (and, PGlite being one connection, every statement) until the files are read. The files are
 * then what a clean stop would leave, less the shutdown record: PostgreSQL opens them as after
 * a crash, replaying whatever the checkpoint did not cover.
 */
async function dumpBetweenTransactions(client: PGlite): Promise<Blob> {
  await client.exec('checkpoint');
  return await client._runExclusiveTransaction(() => client.dumpDataDir('gzip'));
}

async function openPostgres(url: string, max: number, queryTimeoutMs: number): Promise<Database> {
  // Required, not imported: OpenTelemetry's pg instrumentation sees a require (src/telemetry/tracing.ts).
  const pgDriver = createRequire(import.meta.url)('pg') as typeof import('pg');
  const [{ drizzle: drizzleNodePg }, { migrate: migrateNodePg }] = await Promise.all([
    import('drizzle-orm/node-postgres'),
    import('drizzle-orm/node-postgres/migrator'),
  ]);
  // Its clients send a transaction's statements in fewer round trips (batching-client.ts).
  const pool = new pgDriver.Pool({
    connectionString: url,
    max,
    Client: batchingClientClass(pgDriver.Client),
    // A server that does not answer (a network cut, not a refusal) fails the request after 5 s
    // (503, src/http/errors.ts) instead of holding it until the request's own limit; a statement
    // sent and never answered, after QUERY_TIMEOUT_MS; an idle connection is probed after 10 s.
    connectionTimeoutMillis: 5_000,
    query_timeout: queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = drizzleNodePg(pool) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    async migrate() {
      // Several instances may start at once: one migrates while the others wait on the lock. A
      // connection of its own, with no statement timeout: a migration (and the wait for another
      // instance's) may take as long as it takes.
      const client = new pgDriver.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('select pg_advisory_lock(727274)');
        await migrateNodePg(drizzleNodePg(client), { migrationsFolder: MIGRATIONS_DIR });
      } finally {
        await client.query('select pg_advisory_unlock(727274)').catch(() => {});
        await client.end().catch(() => {});
      }
    },
    ping: () => ping(db),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * PGlite is a single-process database: two processes on one data directory would corrupt
 * it. A pid file taken with O_EXCL makes the second process fail with a clear message; a
 * file left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'portage.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirInUseError(
          `The data directory ${dataDir} is in use by another Portage process (pid ${pid}). ` +
            'Stop that process first, or set DATABASE_URL to use PostgreSQL, which many processes can share.',
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirInUseError(`Could not lock the data directory ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
