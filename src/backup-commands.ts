// `portage backup <file>` and `portage restore <file>`: the embedded database's copies
// (docs/operations.md "Backups"). Only one process may open a PGlite data directory (two would
// corrupt it), so a backup is taken by whichever process holds it: this one when the service is
// stopped, the running service (POST /admin/backup, an admin's token) otherwise. A restore needs
// the service stopped, and keeps the directory it replaces.
import { createWriteStream, existsSync, openAsBlob } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { UsageError } from './cli-errors.ts';
import { type Config, loadConfig } from './config.ts';
import { DataDirInUseError, lockDataDir, openDatabase } from './db/index.ts';

/** A backup or restore that cannot be done as asked: one line, exit code 1. */
export class BackupRefusedError extends Error {
  override name = 'BackupRefusedError';
}

function fileArgument(args: string[], command: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {}, strict: true });
  if (positionals.length !== 1) throw new UsageError(`${command} needs one file: portage ${command} <file>`);
  return path.resolve(positionals[0]!);
}

function embeddedOnly(config: Config, command: string) {
  if (config.databaseUrl) {
    throw new BackupRefusedError(
      `${command} is for the embedded database; DATABASE_URL is set: use pg_dump -Fc and pg_restore (docs/operations.md "Backups")`,
    );
  }
}

export async function backupCommand(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const file = fileArgument(args, 'backup');
  const config = loadConfig();
  embeddedOnly(config, 'backup');
  if (existsSync(file)) throw new BackupRefusedError(`${file} exists; give a new file name`);
  const pgDir = path.join(config.dataDir, 'pg');
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
      // Nothing to copy, unless a service is starting on it: the lock says which.
      lockDataDir(config.dataDir)();
      throw new BackupRefusedError(`there is no database in ${config.dataDir} (DATA_DIR)`);
    }
    database = await openDatabase({ dataDir: config.dataDir });
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    await backupFromService(config, env, file);
    return;
  }
  try {
    await writeAtomically(file, async (partial) =>
      writeFile(partial, Buffer.from(await (await database.backup!()).arrayBuffer()), { mode: 0o600 }),
    );
  } finally {
    await database.close();
  }
  console.log(`Backed up ${pgDir} to ${file} (the service was stopped: taken directly).`);
}

/** The running service holds the data directory: it takes the copy (POST /admin/backup). */
async function backupFromService(config: Config, env: NodeJS.ProcessEnv, file: string) {
  const token = env.SERVICE_JWT_TOKEN?.trim();
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  const base = (
    env.SERVICE_URL?.trim() || `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
  ).replace(/\/+$/, '');
  if (!token) {
    throw new BackupRefusedError(
      `the data directory ${config.dataDir} is in use by the running service, which takes the copy itself: ` +
        `set SERVICE_JWT_TOKEN to an admin's token (and SERVICE_URL when the service is not at ${base})`,
    );
  }
  const res = await fetch(`${base}/admin/backup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  }).catch((err: Error) => {
    throw new BackupRefusedError(
      `the data directory is in use, and the service at ${base} cannot be reached (${(err.cause as Error)?.message ?? err.message}); set SERVICE_URL`,
    );
  });
  if (res.status !== 200 || !res.body) {
    const answer = (await res.json().catch(() => ({}))) as { error?: string; code?: string };
    throw new BackupRefusedError(
      `the service at ${base} refused the backup: ${res.status}${answer.code ? ` ${answer.code}` : ''}${answer.error ? ` (${answer.error})` : ''}`,
    );
  }
  const body = res.body;
  await writeAtomically(file, (partial) =>
    pipeline(Readable.fromWeb(body as ReadableStream), createWriteStream(partial, { mode: 0o600 })),
  );
  console.log(`Backed up the running service's database (${base}) to ${file}.`);
}

/** Written beside, then renamed: an interrupted copy never has the file's name. */
async function writeAtomically(file: string, write: (partial: string) => Promise<void>) {
  const partial = `${file}.partial`;
  try {
    await write(partial);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

export async function restoreCommand(args: string[]) {
  const file = fileArgument(args, 'restore');
  const config = loadConfig();
  embeddedOnly(config, 'restore');
  if (!existsSync(file)) throw new BackupRefusedError(`${file} does not exist`);
  // Held for the whole restore: a service cannot start on the directory meanwhile.
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    throw new BackupRefusedError(
      `${err.message.replace(/ Stop that process first.*$/, '')} Stop it, then restore.`,
    );
  }
  try {
    const pgDir = path.join(config.dataDir, 'pg');
    const restoring = `${pgDir}.restoring`;
    await rm(restoring, { recursive: true, force: true });
    try {
      // PGlite unpacks its own tarball and starts on it: a file that is no backup, or one of
      // another PostgreSQL version, fails here, before anything in place is touched.
      const pglite = await PGlite.create(restoring, { loadDataDir: await openAsBlob(file) });
      try {
        await pglite.query('select count(*) from drizzle.__drizzle_migrations');
      } finally {
        await pglite.close();
      }
    } catch (err) {
      await rm(restoring, { recursive: true, force: true });
      throw new BackupRefusedError(
        `${file} could not be opened as a Portage backup (${String((err as Error)?.message ?? err).split('\n')[0]}); nothing was changed`,
      );
    }
    let kept = '';
    if (existsSync(pgDir)) {
      kept = `${pgDir}.before-restore-${new Date()
        .toISOString()
        .replace(/\.\d+Z$/, 'Z')
        .replaceAll(':', '-')}`;
      await rename(pgDir, kept);
    }
    await rename(restoring, pgDir);
    console.log(
      `Restored ${file} into ${pgDir}${kept ? `; the database it replaced is kept in ${kept} (delete it once the service runs well)` : ''}. ` +
        'Migrations apply at the next start.',
    );
  } finally {
    release();
  }
}
