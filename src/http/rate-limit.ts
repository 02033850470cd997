// Rate limits per route group (docs/api.md "Rate limits"; docs/decisions.md "Rate limits"),
// keyed by user when the caller is signed in
// and by client address otherwise. Counters live in memory, or in Redis when REDIS_URL is
// set so that every instance shares them.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimited } from '../contract/errors.ts';

export const LIMITS = {
  auth: 5,
  /**
   * Following a link of our own email (its page, and its form), per address: apart from `auth`,
   * so that failed sign-ins from an address never make a person's verification link fail.
   */
  emailLinks: 30,
  search: 30,
  cart: 20,
  checkout: 10,
  orders: 20,
  productWrites: 30,
  /** Image uploads (POST /products/:id/images, the console's form): each is decoded and resized, the costliest write. */
  imageUploads: 20,
  reviews: 10,
  /** Messages of an order's conversation (each emails the other side). */
  messages: 10,
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
  /**
   * ACP and UCP requests refused before their caller is known (no key, an unknown key or token,
   * no API version, a profile refused), per address: past it, such requests are 429 before any
   * database read or profile fetch.
   */
  agentRefusals: 30,
  /** Backups of the embedded database (POST /admin/backup), per admin: each copies the whole database. */
  backups: 2,
  /** The file feed's downloads (GET /feeds/files/:name), per address: a platform takes 4 files a day. */
  feedFiles: 30,
  /** The pages for people (src/web), per address: browsing a storefront reads many pages. */
  pages: 300,
} as const;
export type LimitGroup = keyof typeof LIMITS;

const WINDOW_MS = 60_000;

const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js');
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js');

type Counted = { current: number; ttl: number };
type Done = (err: Error | null, res?: Counted) => void;

/**
 * The counters every route shares (the plugin gives each route a store of its own through
 * child(); this one hands them all the same counters, and the key, caller + group, separates
 * them): Redis when configured and reachable, else this process's own. While Redis is away (not
 * connected, or a command failed or timed out within the last second) counting is local, so an
 * outage costs a request no wait and limits still hold, per instance; once it is back they are
 * shared again (src/http/redis.ts reconnects within half a second).
 */
function countersOf(redis: Redis | undefined, nameSpace: string) {
  // biome-ignore lint/suspicious/noExplicitAny: the plugin's stores are untyped CommonJS
  const local: any = new LocalStore(false, false, 10_000);
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const shared: any = redis && new RedisStore(false, false, redis, nameSpace);
  let awayUntil = 0;
  const use = (method: 'incr' | 'read', key: string, done: Done, timeWindow: number, max: number) => {
    if (!shared || redis?.status !== 'ready' || Date.now() < awayUntil) {
      return local[method](key, done, timeWindow, max);
    }
    shared[method](
      key,
      (err: Error | null, res?: Counted) => {
        if (!err) return done(null, res);
        awayUntil = Date.now() + 1_000;
        local[method](key, done, timeWindow, max);
      },
      timeWindow,
      max,
    );
  };
  return {
    incr: (key: string, done: Done, timeWindow: number, max: number) =>
      use('incr', key, done, timeWindow, max),
    read: (key: string, done: Done, timeWindow: number, max: number) =>
      use('read', key, done, timeWindow, max),
  };
}

/** Counting a group outside a route's own limit (a refusal, a hold made through a protocol). */
export interface Limits {
  /** Counts one for `key` in `group`; answers the seconds to wait when that passes the group's limit. */
  spend(group: LimitGroup, key: string): Promise<number | undefined>;
  /** The seconds to wait when `key` has spent `group`'s limit already, without counting. */
  spent(group: LimitGroup, key: string): Promise<number | undefined>;
}

export async function registerRateLimits(
  app: FastifyInstance,
  opts: { redis?: Redis; nameSpace?: string; onRefused?: (group: LimitGroup) => void },
): Promise<Limits> {
  const counters = countersOf(opts.redis, opts.nameSpace ?? 'portage-rl:');
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
    store: class {
      incr = counters.incr;
      read = counters.read;
      child() {
        return this;
      }
    },
    keyGenerator: (req) => req.ctx?.user?.id ?? req.ctx?.principal ?? req.ip,
    errorResponseBuilder: (req, ctx) => {
      const group = req.routeOptions.config.limit;
      if (group) opts.onRefused?.(group);
      return rateLimited('error.http.rateLimited', { seconds: Math.ceil(ctx.ttl / 1000), max: ctx.max });
    },
  });
  // The plugin's key is the caller's then the group's name: the same counter as the group's routes.
  const count =
    (method: 'incr' | 'read') =>
    (group: LimitGroup, key: string): Promise<number | undefined> =>
      new Promise((resolve) =>
        counters[method](
          `${key}${group}`,
          (_err, res) => {
            const over = res && res.current > LIMITS[group] - (method === 'read' ? 1 : 0);
            // `spent` is asked only to refuse: a wait it answers is a 429.
            if (over && method === 'read') opts.onRefused?.(group);
            resolve(over ? Math.max(1, Math.ceil(res.ttl / 1000)) : undefined);
          },
          WINDOW_MS,
          LIMITS[group],
        ),
      );
  return { spend: count('incr'), spent: count('read') };
}

/** How many credentials an instance remembers as accepted, and for how long. */
const KNOWN_CALLERS = 10_000;
const KNOWN_FOR_MS = 10 * 60_000;

/**
 * A protocol caller identified with refusals counted first (ACP's and UCP's routes): an address
 * that has spent its `agentRefusals` budget is refused (429) before `identify` runs, that is before
 * any key read or profile fetch, unless its credential was accepted here lately (a platform's good
 * key keeps working behind an address a misconfigured worker shares); a refusal `identify` throws
 * that `counts` is charged to the address.
 */
export function refusalsCountedFirst(opts: {
  limits: Limits | undefined;
  counts: (err: unknown) => boolean;
  tooMany: (seconds: number, max: number) => Error;
}) {
  // Accepted credentials, by their hash, oldest first; a bounded map, not a cache of answers.
  const known = new Map<string, number>();
  const hashOf = (credential: string) => createHash('sha256').update(credential).digest('base64url');
  return async function identified<T>(
    req: FastifyRequest,
    credential: string | undefined,
    identify: () => Promise<T>,
  ): Promise<T> {
    const { limits } = opts;
    if (!limits) return identify();
    const key = credential === undefined ? undefined : hashOf(credential);
    const knownUntil = key === undefined ? undefined : known.get(key);
    if (!(knownUntil && knownUntil > Date.now())) {
      const wait = await limits.spent('agentRefusals', req.ip);
      if (wait) throw opts.tooMany(wait, LIMITS.agentRefusals);
    }
    try {
      const who = await identify();
      if (key !== undefined) {
        known.delete(key);
        if (known.size >= KNOWN_CALLERS) known.delete(known.keys().next().value as string);
        known.set(key, Date.now() + KNOWN_FOR_MS);
      }
      return who;
    } catch (err) {
      if (opts.counts(err)) await limits.spend('agentRefusals', req.ip);
      throw err;
    }
  };
}

/**
 * A person's checkout budget on a protocol's create (their agent holds stock as their own checkout
 * does): refused first when spent, and spent by each new session answered (201, not a replay of
 * one stored under its Idempotency-Key), so that a retry is never refused for the session it made.
 */
export function personCheckoutBudget(opts: {
  limits: Limits | undefined;
  personOf: (req: FastifyRequest) => string | undefined;
  tooMany: (seconds: number, max: number) => Error;
}) {
  return {
    preHandler: async (req: FastifyRequest) => {
      const person = opts.personOf(req);
      const wait = person ? await opts.limits?.spent('checkout', person) : undefined;
      if (wait) throw opts.tooMany(wait, LIMITS.checkout);
    },
    onResponse: async (req: FastifyRequest, reply: FastifyReply) => {
      const person = opts.personOf(req);
      if (person && reply.statusCode === 201 && reply.getHeader('idempotent-replayed') !== 'true') {
        await opts.limits?.spend('checkout', person);
      }
    },
  };
}
