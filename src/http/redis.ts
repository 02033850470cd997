// The Redis connection that shares rate-limit counters between instances (REDIS_URL). Its options
// make an outage cost a request almost nothing: no offline queue (a command while disconnected
// fails at once instead of waiting out the reconnect backoff), a short command timeout for a
// server that accepts and never answers, and a reconnect at most half a second apart, so that
// the counters are shared again within a second of the server's return (rate-limit.ts falls back
// to local counters meanwhile). Loaded only when configured, like the PostgreSQL driver.
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

export const REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 250,
  connectTimeout: 2_000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 500),
};

/**
 * A client for REDIS_URL, once connected (or once its first attempt failed: it goes on trying,
 * and counting is local until it connects). It reconnects on its own; its failures surface on the
 * commands that meet them.
 */
export async function connectRedis(url: string): Promise<Redis> {
  // Required, not imported: OpenTelemetry's ioredis instrumentation sees a require (src/telemetry/tracing.ts).
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, REDIS_OPTIONS);
  redis.on('error', () => {});
  await new Promise<void>((resolve) => {
    redis.once('ready', resolve);
    redis.once('error', () => resolve());
  });
  return redis;
}
