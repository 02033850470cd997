// Background jobs: every `portage serve` instance runs them (unless JOBS=off), each pass
// claiming its rows with FOR UPDATE SKIP LOCKED, so any number of instances run side by side
// (docs/decisions.md "Background jobs").
import type { FastifyBaseLogger } from 'fastify';
import type { Locale } from '../contract/i18n.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Db } from '../db/index.ts';
import type { Clock, RequestContext } from '../modules/context.ts';
import { inRootSpan } from '../telemetry/tracing.ts';

export interface Job {
  name: string;
  /** Pause between passes when the last pass found nothing more to do. */
  everyMs: number;
  /**
   * One pass: claims at most a batch, handles it, answers how many rows it handled. `stopping` is
   * aborted when the instance stops: a long pass hands back what it has not started.
   */
  run(ctx: RequestContext, stopping?: AbortSignal): Promise<number>;
  /** A pass that handled this many rows is followed at once by another. */
  batch: number;
}

export interface JobRunner {
  /** Starts the timers (an instance with JOBS=off never does; tests call runOnce instead). */
  start(): void;
  /** Runs one pass of every job, or of the job named (tests call this instead of waiting). */
  runOnce(only?: string): Promise<Record<string, number>>;
  /** Asks a job to run its next pass now (e.g. mail just written). */
  nudge(name: string): void;
  stop(): Promise<void>;
}

/** Told how each pass ended (metrics): `ok` when it ran through, `failed` when it threw. */
export type JobObserver = (job: string, outcome: 'ok' | 'failed') => void;

export function createJobRunner(
  jobs: Job[],
  deps: { db: Db; now: Clock; log: FastifyBaseLogger; defaultLocale?: Locale; observe?: JobObserver },
): JobRunner {
  const ctx = (): RequestContext => ({
    db: deps.db,
    now: deps.now,
    log: deps.log,
    ...(deps.defaultLocale ? { defaultLocale: deps.defaultLocale } : {}),
  });
  let stopped = true;
  let stopping = new AbortController();
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Map<string, Promise<void>>();

  const pass = async (job: Job): Promise<number> => {
    try {
      // Each pass the root of a trace of its own, with what it handled: a collector can drop the
      // idle ones (docs/operations.md "Traces").
      const handled = await inRootSpan(
        `job ${job.name}`,
        () => job.run(ctx(), stopping.signal),
        (n) => ({ 'portage.job.handled': n }),
      );
      deps.observe?.(job.name, 'ok');
      return handled;
    } catch (err) {
      deps.observe?.(job.name, 'failed');
      if (isDatabaseUnavailable(err)) {
        deps.log.warn(
          { job: job.name },
          'background job: the database cannot be reached; retrying on its next pass',
        );
      } else {
        deps.log.error({ err, job: job.name }, 'background job failed; retrying on its next pass');
      }
      return 0;
    }
  };

  const schedule = (job: Job, delayMs: number) => {
    if (stopped) return;
    clearTimeout(timers.get(job.name));
    const timer = setTimeout(() => {
      if (running.has(job.name)) return schedule(job, job.everyMs);
      const done = pass(job).then((handled) => {
        running.delete(job.name);
        schedule(job, handled >= job.batch ? 0 : job.everyMs);
      });
      running.set(job.name, done);
    }, delayMs);
    timer.unref();
    timers.set(job.name, timer);
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = new AbortController();
      for (const job of jobs) schedule(job, Math.min(job.everyMs, 1_000));
    },
    async runOnce(only) {
      const handled: Record<string, number> = {};
      for (const job of jobs) {
        if (only !== undefined && job.name !== only) continue;
        await running.get(job.name);
        handled[job.name] = await pass(job);
      }
      return handled;
    },
    nudge(name) {
      const job = jobs.find((j) => j.name === name);
      if (job && !running.has(name)) schedule(job, 0);
    },
    async stop() {
      stopped = true;
      stopping.abort();
      for (const timer of timers.values()) clearTimeout(timer);
      await Promise.all(running.values());
    },
  };
}
