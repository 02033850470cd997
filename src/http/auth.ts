// The auth guard: every route declares who may call it (config.auth); anything else is refused
// before the body is even read. Missing or bad token: 401. Wrong role: 403. An agent's token
// (OAuth, for /mcp) is accepted only on routes that name a scope it holds (config.scope): 403
// naming the scope otherwise.
import type { FastifyInstance } from 'fastify';
import { forbidden, unauthenticated } from '../contract/errors.ts';
import { type Locale, negotiateLocale } from '../contract/i18n.ts';
import { roleCanGrant, scopesCover } from '../contract/scopes.ts';
import type { Db } from '../db/index.ts';
import type { AuthService } from '../modules/auth/service.ts';
import type { Clock } from '../modules/context.ts';

export function registerAuthGuard(
  app: FastifyInstance,
  deps: { db: Db; now: Clock; auth: AuthService; defaultLocale: Locale },
) {
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
    const user = await deps.auth.authenticate(req.ctx, token);
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
}

export function bearerToken(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer +([A-Za-z0-9._~+/=-]+)$/i);
  return m?.[1];
}
