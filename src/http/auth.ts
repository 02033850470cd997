// The auth guard: every route declares who may call it (config.auth); anything else is refused
// before the body is even read. Missing or bad token: 401. Wrong role: 403. An agent's token
// (OAuth, for /mcp) is accepted only on routes that name a scope it holds (config.scope): 403
// naming the scope otherwise.
import type { FastifyInstance } from 'fastify';
import { forbidden, unauthenticated } from '../contract/errors.ts';
import { roleCanGrant, scopesCover } from '../contract/scopes.ts';
import type { Db } from '../db/index.ts';
import type { AuthService } from '../modules/auth/service.ts';
import type { Clock } from '../modules/context.ts';

export function registerAuthGuard(app: FastifyInstance, deps: { db: Db; now: Clock; auth: AuthService }) {
  app.decorateRequest('ctx');
  app.addHook('onRequest', async (req) => {
    req.ctx = { db: deps.db, now: deps.now, log: req.log };
    if (req.is404) return;
    const rule = req.routeOptions.config.auth;
    if (rule === 'public') return;
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthenticated('AUTH_ERROR: Missing token; send Authorization: Bearer <token>');
    const user = await deps.auth.authenticate(req.ctx, token);
    req.ctx.user = user;
    if (user.agent) {
      const need = req.routeOptions.config.scope;
      if (!need) throw forbidden("AUTHZ_ERROR: An agent's token cannot call this route");
      if (need !== 'any' && !scopesCover(user.agent.scopes, need)) {
        if (!roleCanGrant(need, user.role)) {
          throw forbidden(
            `AUTHZ_ERROR: This needs the "${need}" scope, which a ${user.role} cannot grant (administrators only); no agent of this account can do it`,
          );
        }
        throw forbidden(`AUTHZ_ERROR: This needs the "${need}" scope, which this agent was not granted`);
      }
    }
    // Deny by default: a route that forgot to declare its rule is for admins only.
    const roles = rule === 'user' ? undefined : (rule ?? []);
    if (roles && user.role !== 'admin' && !roles.includes(user.role)) {
      throw forbidden(
        `AUTHZ_ERROR: This needs the ${roles.join(' or ') || 'admin'} role; you are ${user.role}`,
      );
    }
  });
}

export function bearerToken(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer +([A-Za-z0-9._~+/=-]+)$/i);
  return m?.[1];
}
