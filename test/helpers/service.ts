// `portage serve` as a child process, for tests of what only a real process shows (a crash, a
// database taken away under it): started on a free port, ready once /health answers 200.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Finished, finished } from './process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A port nobody listens on now (another process may take it before we do: callers retry). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Service {
  child: ChildProcess;
  done: Promise<Finished>;
  base: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** What it has written on stdout so far. */
  output(): string;
}

/** Starts `portage serve` with `env` (over a minimal environment); resolves once /health answers 200. */
export async function startService(env: Record<string, string>): Promise<Service> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/portage.js', 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? os.tmpdir(),
        APP_ENV: 'development',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = finished(child);
    let written = '';
    child.stdout?.on('data', (s: string) => {
      written += s;
    });
    let exited = false;
    void done.then(() => {
      exited = true;
    });
    const base = `http://127.0.0.1:${port}`;
    const alive = () => child.exitCode === null && child.signalCode === null;
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (exited) break;
      const ok = await fetch(`${base}/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return { child, done, base, alive, output: () => written };
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('the service did not answer /health in time');
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const { code, stdout, stderr } = await done;
    // Another test may have taken the free port in the meantime: try another one.
    if (attempt < 3 && `${stdout}${stderr}`.includes('EADDRINUSE')) continue;
    throw new Error(`the service exited early (${code}): ${stderr}${stdout}`);
  }
}

/** Stops a service that may still run (SIGKILL) and waits for it. */
export async function stopService(s: Service): Promise<void> {
  if (s.alive()) s.child.kill('SIGKILL');
  await s.done.catch(() => undefined);
}

/** An answer of a service's, as a test reads it: status 0 when the connection failed (the process gone). */
export interface ServiceAnswer {
  status: number;
  retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are asserted by the tests
  body: any;
}

/** A JSON request to a running service, with a user's token; the answer's body parsed when it is JSON. */
export async function call(
  base: string,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
): Promise<ServiceAnswer> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err: Error) => err);
  if (res instanceof Error) return { status: 0, retryAfter: null, body: res.message };
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: json };
}
