// What every route's documentation shares, filled in once from its auth rule: the bearer
// security scheme of a signed-in route, and the error answers it can give. A route declares
// only its own answers (and its auth rule, which the guard enforces).
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../contract/errors.ts';

export function registerRouteDefaults(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as
      | { hide?: boolean; security?: unknown; response?: Record<string, unknown> }
      | undefined;
    if (!schema || schema.hide) return;
    const rule = route.config?.auth;
    const signedIn = rule !== 'public';
    if (signedIn && schema.security === undefined) schema.security = [{ bearerAuth: [] }];
    const statuses = [
      400,
      ...(signedIn ? [401] : []),
      ...(Array.isArray(rule) || rule === undefined ? [403] : []),
      404,
    ];
    statuses.push(409, ...(route.config?.limit ? [429] : []), 500);
    const response = schema.response ?? {};
    for (const status of statuses) response[status] ??= errorBody;
    schema.response = response;
  });
}
