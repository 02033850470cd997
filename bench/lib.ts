// What the benchmarks share: a seedable random source, a bounded pool of concurrent work, an HTTP
// client over keep-alive sockets, the CPU counters of processes and of the machine (Linux /proc),
// a database made anew, the service stopped, and the analytics fold the service's job would run.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { FOLD_BATCH } from '../src/modules/analytics/service.ts';

/** A small seedable random source: runs of a benchmark are comparable. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs fn over items, c at a time; answers the seconds it took. */
export async function pool<T>(
  items: T[],
  c: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(c, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await fn(items[index]!, index);
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** User + system CPU of a process so far, in ms (Linux /proc; 100 clock ticks per second). */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Write system calls of a process so far (/proc/<pid>/io syscw): the service's socket writes, one or
 * more per round trip to PostgreSQL and per HTTP answer. */
export function procWrites(pid: number): number {
  try {
    return Number(/syscw:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** /proc/stat's first line: user nice system idle iowait irq softirq steal (ticks). */
export function machineCpu(): { total: number; steal: number; idle: number } {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    return {
      total: ticks.reduce((a, b) => a + b, 0),
      steal: ticks[7] ?? 0,
      idle: (ticks[3] ?? 0) + (ticks[4] ?? 0),
    };
  } catch {
    return { total: 0, steal: 0, idle: 0 };
  }
}

/** A JSON answer and how long it took. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked where used
  body: any;
  ms: number;
}

/**
 * Requests to `base` over keep-alive sockets (at most `maxSockets`), each given up after
 * `timeoutMs`; answers the status, the parsed JSON (or the text) and the milliseconds.
 */
export function httpClient(base: string, maxSockets: number, timeoutMs = 60_000) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const BASE = base;
  const REQUEST_TIMEOUT_MS = timeoutMs;
  function request(
    method: string,
    urlPath: string,
    body?: string,
    headers: Record<string, string> = {},
    retried = false,
  ): Promise<Answer> {
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${BASE}${urlPath}`,
        {
          method,
          agent,
          headers: {
            ...(body !== undefined
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
              : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - t0;
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode ?? 0, body: parsed, ms });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${urlPath}: timed out`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // An idle keep-alive socket closed by the server as this request went out on it: the
        // request never reached the service, so sending it again (once) is safe.
        if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) {
          request(method, urlPath, body, headers, true).then(resolve, reject);
        } else reject(err);
      });
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
  // close(): ends the idle sockets, so that the process can exit.
  return Object.assign(request, { close: () => agent.destroy() });
}

/** What the CPU counters say at one moment: the service, its writes, this process, PostgreSQL's backends, the machine. */
export interface CpuSnapshot {
  service: number;
  /** Write system calls of the service so far. */
  serviceWrites: number;
  bench: number;
  backends: Map<number, number>;
  /** The machine's CPU time so far, all cores (/proc/stat): in all, stolen by its host, idle. */
  machine: { total: number; steal: number; idle: number };
}

export async function cpuSnapshot(db: pg.Pool, servicePid: number): Promise<CpuSnapshot> {
  const { rows } = await db.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database()',
  );
  const u = process.cpuUsage();
  return {
    service: procCpuMs(servicePid),
    serviceWrites: procWrites(servicePid),
    bench: (u.user + u.system) / 1000,
    backends: new Map(rows.map((r) => [r.pid, procCpuMs(r.pid)])),
    machine: machineCpu(),
  };
}

/** Drops `name` on the server of `serverUrl` and makes it anew, migrated (`url` names it). */
export async function freshDatabase(serverUrl: string, name: string, url: string) {
  await dropDatabase(serverUrl, name);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  await database.migrate();
  await database.close();
}

export async function dropDatabase(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/**
 * Starts `bin/portage.js serve` in `root` over a fresh `dataDir` with `env` (over this process's),
 * and answers it once `healthy()` says so; throws if it exits first or is not healthy within 60 s.
 */
export async function startPortage(opts: {
  root: string;
  dataDir: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  healthy: () => Promise<boolean>;
}): Promise<ChildProcess> {
  rmSync(opts.dataDir, { recursive: true, force: true });
  mkdirSync(opts.dataDir, { recursive: true });
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'bin/portage.js', 'serve'], {
    cwd: opts.root,
    env: { ...process.env, DATA_DIR: opts.dataDir, ...opts.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  const until = performance.now() + 60_000;
  while (performance.now() < until) {
    if (exited !== undefined) throw new Error(`portage serve exited with ${exited}`);
    if (await opts.healthy().catch(() => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('portage serve did not answer /health within 60 s');
}

/** Stops the service (SIGTERM, SIGKILL after 10 s); at once if it has exited already. */
export const stopService = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });

/**
 * The service's `analytics` job, which the bench's service (JOBS=off) does not run: every second
 * it folds the analytics changes the payments queued into the rollups (the same function), on a
 * connection of its own. A phase ends once everything it queued is folded: its time and
 * PostgreSQL's CPU include the fold. Answers the seconds the last fold took after the phase.
 */
export async function folding(folder: pg.Client, phase: () => Promise<unknown>): Promise<number> {
  const fold = async () => {
    for (;;) {
      const { rows } = await folder.query<{ n: number }>(
        'select portage_analytics_fold($1::int, false) as n',
        [FOLD_BATCH],
      );
      if (Number(rows[0]!.n) < FOLD_BATCH) return;
    }
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = fold().then(() => {
      if (!stopped) timer = setTimeout(tick, 1000);
    });
  };
  timer = setTimeout(tick, 1000);
  try {
    await phase();
  } finally {
    stopped = true;
    clearTimeout(timer);
    await running;
  }
  const started = performance.now();
  await fold();
  return (performance.now() - started) / 1000;
}
