// What the benchmarks share: a seedable random source, a bounded pool of concurrent work, and the
// CPU counters of processes and of the machine (Linux /proc).
import { readFileSync } from 'node:fs';

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
