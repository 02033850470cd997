// Security headers on every answer (helmet's set). They are the same for every request of a
// route, so they are computed once, when the route is added, by running helmet's own
// middleware against a recording response, instead of per request (@fastify/helmet builds
// helmet's middleware anew at every request: about 3% of the service's CPU per payment).
// A route with a page of its own scripts and styles names its CSP directives in `config.csp`.
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

type Directives = NonNullable<
  Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>['directives']
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's Content-Security-Policy directives, in place of the API's. */
    csp?: Directives;
    /** The headers computed from the above when the route is added (not set by hand). */
    securityHeaders?: Record<string, string>;
  }
}

const API_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  // Cross-origin API clients are governed by CORS, not by resource policy.
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};

/** The headers helmet's middleware sets with these options (its removals, too, are honoured). */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: helmet's middleware takes Node's request and response
  helmet(options)({} as any, recorder as any, (err?: unknown) => {
    failed = err;
  });
  if (failed) throw failed;
  return headers;
}

export function registerSecurityHeaders(app: FastifyInstance) {
  const api = helmetHeaders(API_OPTIONS);
  app.addHook('onRoute', (route) => {
    const csp = route.config?.csp;
    if (!csp) return;
    route.config = {
      ...route.config,
      securityHeaders: helmetHeaders({ ...API_OPTIONS, contentSecurityPolicy: { directives: csp } }),
    };
  });
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(req.routeOptions.config.securityHeaders ?? api);
    done();
  });
}
