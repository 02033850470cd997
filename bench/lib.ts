// What the benchmarks share: a seedable random source, a bounded pool of concurrent work, an HTTP
// client over keep-alive sockets, and the CPU counters of processes and of the machine (Linux /proc).
import { readFileSync } from 'node:fs';
import http from 'node:http';

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
