// What /readyz checks (docs/operations.md "Health checks"): the database answers, its migrations
// are those this build ships, Redis answers (with REDIS_URL), the search index is loaded. The
// answer names the checks and says ok or failed, nothing more: why a check failed (an error
// message, a host name) goes to the log, once when the state changes, never to the caller.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { type Database, MIGRATIONS_DIR } from '../../db/index.ts';
import { newestAppliedMigration } from './queries.ts';

export type CheckState = 'ok' | 'failed';

export interface Checks {
  database: CheckState;
  /** `unknown` when the database did not answer. */
  migrations: CheckState | 'unknown';
  /** Only with REDIS_URL. */
  redis?: CheckState;
  search: CheckState;
}

export interface Readiness {
  check(): Promise<{ ready: boolean; checks: Checks }>;
}

/** How long a check may take before it counts as failed: a load balancer's probe gets its answer. */
export const CHECK_TIMEOUT_MS = 1_000;

/**
 * The newest migration of this build, as drizzle's migrator records it (`created_at` of
 * `drizzle.__drizzle_migrations` is the journal entry's `when`): read once, at start.
 */
export function newestShippedMigration(dir = MIGRATIONS_DIR): number {
  const journal = JSON.parse(readFileSync(path.join(dir, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(0, ...journal.entries.map((e) => e.when));
}

export function createReadiness(deps: {
  database: Database;
  redis?: Redis;
  search: { ready(): boolean };
  log: FastifyBaseLogger;
  /** The build's newest migration (tests give another). */
  shipped?: number;
}): Readiness {
  const shipped = deps.shipped ?? newestShippedMigration();
  // One read at a time: probes arriving while it runs share it, so a database that hangs holds
  // one connection, not one per probe until the driver gives up (60 s).
  let reading: Promise<number> | undefined;
  const newestApplied = () => {
    reading ??= newestAppliedMigration(deps.database.db).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  let lastFailed = '';

  return {
    async check() {
      const [applied, redis] = await Promise.allSettled([
        within(CHECK_TIMEOUT_MS, newestApplied()),
        deps.redis ? within(CHECK_TIMEOUT_MS, pingRedis(deps.redis)) : undefined,
      ]);
      const checks: Checks = {
        database: applied.status === 'fulfilled' ? 'ok' : 'failed',
        // Current when migrating would apply nothing (drizzle's own test: nothing newer than the
        // newest applied); a database ahead of this build (a newer instance migrated it during a
        // rolling deploy) is current for it.
        migrations: applied.status === 'fulfilled' ? (applied.value >= shipped ? 'ok' : 'failed') : 'unknown',
        ...(deps.redis
          ? { redis: redis.status === 'fulfilled' ? ('ok' as const) : ('failed' as const) }
          : {}),
        search: deps.search.ready() ? 'ok' : 'failed',
      };
      const failed = Object.entries(checks)
        .filter(([, state]) => state !== 'ok')
        .map(([name]) => name);
      const now = failed.join(',');
      if (now !== lastFailed) {
        if (failed.length) {
          const errors = [applied, redis].flatMap((r) =>
            r.status === 'rejected' ? [String((r.reason as Error)?.message ?? r.reason)] : [],
          );
          deps.log.warn({ checks, errors }, `not ready: ${failed.join(', ')}`);
        } else deps.log.info({ checks }, 'ready');
        lastFailed = now;
      }
      return { ready: failed.length === 0, checks };
    },
  };
}

async function pingRedis(redis: Redis): Promise<void> {
  // No offline queue (src/http/redis.ts): a command while disconnected fails at once.
  if (redis.status !== 'ready') throw new Error(`redis ${redis.status}`);
  await redis.ping();
}

/** `work`, or a failure after `ms`. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
