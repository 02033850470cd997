// Rate limits per route group (docs/api.md "Rate limits"; docs/decisions.md "Rate limits"),
// keyed by user when the caller is signed in
// and by client address otherwise. Counters live in memory, or in Redis when REDIS_URL is
// set so that every instance shares them.
import { createRequire } from 'node:module';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimited } from '../contract/errors.ts';

export const LIMITS = {
  auth: 5,
  search: 30,
  cart: 20,
  checkout: 10,
  orders: 20,
  productWrites: 30,
  reviews: 10,
  returns: 10,
  analytics: 10,
  /** The authorization pages (GET /oauth/authorize, the consent), per address. */
  oauthPages: 30,
  /** Token and revocation endpoints, per address: an agent platform refreshes for many people from few addresses. */
  oauthTokens: 300,
  /** Dynamic client registration, per address. */
  oauthRegister: 10,
  // POST /mcp itself (tools/list, the handshake, every tools/call); each call's API request also
  // counts in its own group, as for any client.
  mcp: 120,
  /** The ACP routes, per platform (or agent's person): a platform buys for many people. */
  acp: 600,
  /** The pages for people (src/web), per address: browsing a storefront reads many pages. */
  pages: 300,
} as const;
export type LimitGroup = keyof typeof LIMITS;

const WINDOW_MS = 60_000;

const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js');
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js');

/**
 * The plugin gives every route a counter of its own (its stores' child() is per route), so
 * its groupId alone does not make routes share a limit. This store hands every route the
 * same counters; the key (caller + group) is what separates them.
 */
function sharedStore(redis: Redis | undefined, nameSpace: string) {
  return class SharedStore {
    // biome-ignore lint/suspicious/noExplicitAny: the plugin's stores are untyped CommonJS
    private readonly inner: any = redis
      ? new RedisStore(false, false, redis, nameSpace)
      : new LocalStore(false, false, 10_000);
    incr(...args: unknown[]) {
      return this.inner.incr(...args);
    }
    read(...args: unknown[]) {
      return this.inner.read(...args);
    }
    child() {
      return this;
    }
  };
}

export async function registerRateLimits(app: FastifyInstance, opts: { redis?: Redis; nameSpace?: string }) {
  // Routes name a group in config.limit; this turns it into the plugin's per-route settings
  // (added before the plugin, whose own onRoute hook reads them).
  app.addHook('onRoute', (route) => {
    const group = route.config?.limit;
    if (!group) return;
    route.config = {
      ...route.config,
      rateLimit: { max: LIMITS[group], timeWindow: WINDOW_MS, groupId: group },
    };
  });
  await app.register(rateLimit, {
    global: false,
    // After authentication (onRequest), so that a signed-in caller is counted as themself.
    hook: 'preValidation',
    store: sharedStore(opts.redis, opts.nameSpace ?? 'portage-rl:'),
    // Redis unreachable: serve without limits rather than refuse every request (logged by ioredis).
    skipOnError: true,
    keyGenerator: (req) => req.ctx?.user?.id ?? req.ctx?.principal ?? req.ip,
    errorResponseBuilder: (_req, ctx) =>
      rateLimited('error.http.rateLimited', { seconds: Math.ceil(ctx.ttl / 1000), max: ctx.max }),
  });
}
