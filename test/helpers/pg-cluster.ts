// A PostgreSQL server of the test's own (initdb into a temporary directory, pg_ctl to start and
// stop it), for tests that take the database away under a running service: the shared server of
// TEST_DATABASE_URL is never stopped. It needs the server's binaries (Debian's package puts them in
// /usr/lib/postgresql/<major>/bin); as root, the server runs as the `postgres` user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service.ts';

const run = promisify(execFile);

/** The directory of initdb and pg_ctl, if this machine has them. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const major of majors) {
    const bin = path.join(root, major, 'bin');
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

export interface PgCluster {
  /** A connection string to the cluster's `postgres` database, as the `postgres` superuser. */
  url: string;
  start(): Promise<void>;
  /** Stops the server: `fast` ends every session at once, as a restart does. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server (if running) and deletes its files. */
  destroy(): Promise<void>;
}

/** Makes a new cluster (not started) in a temporary directory, listening on 127.0.0.1 only. */
export async function createCluster(bin: string): Promise<PgCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  // The server refuses to run as root: its files and process belong to `postgres` then.
  if (asRoot) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout);
    chownSync(dir, await id('-u'), await id('-g'));
  }
  const as = (cmd: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args])
      : run(path.join(bin, cmd), args);
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    running = false;
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await as('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    stop,
    async destroy() {
      if (running) await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
