// The auth guard: every route declares who may call it (config.auth); anything else is refused
// before the body is even read. Missing or bad token: 401. Wrong role: 403. An agent's token
// (OAuth, for /mcp) is accepted only on routes that name a scope it holds (config.scope): 403
// naming the scope otherwise.
//
// A request the app makes to itself for a caller it has just authenticated (a tool of /mcp
// calling the API in process) carries a voucher: the inner request's caller is the outer one's,
// and its token is not checked a second time (the agent's grant is one query per check).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, unauthenticated } from '../contract/errors.ts';
import { type Locale, negotiateLocale } from '../contract/i18n.ts';
import { roleCanGrant, scopesCover } from '../contract/scopes.ts';
import type { Db } from '../db/index.ts';
import type { AuthService } from '../modules/auth/service.ts';
import type { AuthUser, Clock } from '../modules/context.ts';

/** The header an in-process request carries its voucher in (see vouchFor). */
export const VOUCHER_HEADER = 'x-portage-voucher';
/** Vouchers outstanding at once (one per /mcp request in flight); past it, calls are checked anew. */
const VOUCHERS_MAX = 10_000;
/** A voucher not released (its outer request never closed) lapses after this. */
const VOUCHER_LIFE_MS = 60_000;

export interface AuthGuard {
  /**
   * A voucher for the caller `outer` was authenticated as, for the requests made in process on
   * its behalf while it is answered: released when its answer ends. Undefined when outer has no
   * caller or too many are outstanding (the inner requests are then checked as any other).
   */
  vouchFor(outer: FastifyRequest, reply: FastifyReply): string | undefined;
}

export function registerAuthGuard(
  app: FastifyInstance,
  deps: { db: Db; now: Clock; auth: AuthService; defaultLocale: Locale },
): AuthGuard {
  // A voucher is 128 random bits, never sent out of the process, and good only with the very
  // token it was made for: one sent from outside finds nothing and the token is checked as usual.
  const vouchers = new Map<string, { token: string; user: AuthUser; until: number }>();
  app.decorateRequest('ctx');
  app.addHook('onRequest', async (req) => {
    req.ctx = {
      db: deps.db,
      now: deps.now,
      log: req.log,
      locale: negotiateLocale(req.headers['accept-language']) ?? deps.defaultLocale,
      defaultLocale: deps.defaultLocale,
    };
    if (req.is404) return;
    const rule = req.routeOptions.config.auth;
    if (rule === 'public') return;
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthenticated('error.auth.missingToken');
    const voucher = req.headers[VOUCHER_HEADER];
    const vouched = typeof voucher === 'string' ? vouchers.get(voucher) : undefined;
    const user =
      vouched && vouched.token === token && vouched.until > Date.now()
        ? vouched.user
        : await deps.auth.authenticate(req.ctx, token);
    req.ctx.user = user;
    if (user.locale) req.ctx.locale = user.locale;
    if (user.agent) {
      const need = req.routeOptions.config.scope;
      if (!need) throw forbidden('error.auth.agentTokenRefused');
      if (need !== 'any' && !scopesCover(user.agent.scopes, need)) {
        if (!roleCanGrant(need, user.role)) {
          throw forbidden('error.auth.scopeNotGrantable', { scope: need, role: user.role });
        }
        throw forbidden('error.auth.scopeNotGranted', { scope: need });
      }
    }
    // Deny by default: a route that forgot to declare its rule is for admins only.
    const roles = rule === 'user' ? undefined : (rule ?? []);
    if (roles && user.role !== 'admin' && !roles.includes(user.role)) {
      // Role names are codes; the catalogue words "or" (a rule names one or two roles).
      const [first = 'admin', ...others] = roles;
      throw forbidden('error.auth.roleNeeded', {
        n: others.length + 1,
        first,
        second: others.join(', '),
        role: user.role,
      });
    }
  });

  return {
    vouchFor(outer, reply) {
      const user = outer.ctx?.user;
      const token = bearerToken(outer.headers.authorization);
      if (!user || !token) return undefined;
      const now = Date.now();
      if (vouchers.size >= VOUCHERS_MAX) {
        for (const [id, v] of vouchers) if (v.until <= now) vouchers.delete(id);
        if (vouchers.size >= VOUCHERS_MAX) return undefined;
      }
      const id = randomBytes(16).toString('base64url');
      vouchers.set(id, { token, user, until: now + VOUCHER_LIFE_MS });
      const release = () => vouchers.delete(id);
      reply.raw.once('finish', release).once('close', release);
      return id;
    },
  };
}

export function bearerToken(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer +([A-Za-z0-9._~+/=-]+)$/i);
  return m?.[1];
}
