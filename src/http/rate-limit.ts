// Rate limits per route group (spec section 8 + decisions.md), keyed by user when the
// caller is signed in and by client address otherwise. Counters live in memory, or in
// Redis when REDIS_URL is set so that every instance shares them.
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
} as const;
export type LimitGroup = keyof typeof LIMITS;

const WINDOW_MS = 60_000;

export async function registerRateLimits(app: FastifyInstance, opts: { redis?: Redis; nameSpace?: string }) {
  await app.register(rateLimit, {
    global: false,
    // After authentication (onRequest), so that a signed-in caller is counted as themself.
    hook: 'preValidation',
    redis: opts.redis,
    // Redis unreachable: serve without limits rather than refuse every request (logged by ioredis).
    skipOnError: true,
    nameSpace: opts.nameSpace ?? 'portage-rl:',
    keyGenerator: (req) => req.ctx?.user?.id ?? req.ip,
    errorResponseBuilder: (_req, ctx) =>
      rateLimited(`Too many requests; retry in ${ctx.after} (limit ${ctx.max} a minute)`),
  });
  // Routes name a group in config.limit; this turns it into the plugin's per-route settings.
  app.addHook('onRoute', (route) => {
    const group = route.config?.limit;
    if (!group) return;
    route.config = {
      ...route.config,
      rateLimit: { max: LIMITS[group], timeWindow: WINDOW_MS, groupId: group },
    };
  });
}
