// Fastify type extensions shared by the HTTP layer.
import type { Role } from '../contract/common.ts';
import type { RouteScope } from '../contract/scopes.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { RequestContext } from '../modules/context.ts';
import type { InvoiceRenderer } from '../modules/invoices/renderer.ts';
import type { Metrics } from './metrics.ts';
import type { LimitGroup } from './rate-limit.ts';

/** A route's Idempotency-Key options (src/http/idempotency.ts). */
export interface RouteIdempotency {
  /**
   * Every POST (and PUT) must carry a key, scoped to the caller (a user, or a platform) and the
   * path: the ACP and UCP routes, as their specifications say.
   */
  required?: true;
  /**
   * Whether an answer stored under the key may still be replayed (none: always, within 24 hours).
   * When not, the same key runs the handler anew (POST /checkout once its session has ended).
   */
  replayable?: (ctx: RequestContext, status: number, body: string) => Promise<boolean>;
  /**
   * The handler's first database work is a transaction: the key is claimed ahead of it, in its
   * first round trip, instead of in a round trip of its own.
   */
  claimAhead?: true;
}

/** Who may call a route: anyone, any signed-in user, or users of the listed roles (admins always). */
export type RouteAuth = 'public' | 'user' | readonly Role[];

declare module 'fastify' {
  interface FastifyInstance {
    /** The background jobs of this instance (docs/operations.md "Background jobs"). */
    jobs: JobRunner;
    /** This instance's invoice renderer (worker threads); tests count and hold its renders. */
    invoices: InvoiceRenderer;
    /** This instance's metrics (src/http/metrics.ts); /metrics serves its registry. */
    metrics: Metrics;
  }
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
    limit?: LimitGroup;
    /** The agent scope that lets an agent's token call this route (none: agent tokens are refused). */
    scope?: RouteScope;
    /**
     * What the idempotency plugin (src/http/idempotency.ts) does on this route: 'required' is
     * `{ required: true }`. Without it, a signed-in POST's Idempotency-Key is optional and scoped
     * to the caller.
     */
    idempotency?: 'required' | RouteIdempotency;
    /**
     * The route answers in another specification's format (JSON-RPC, OAuth, HTML pages): it is
     * documented by its summary only, and our error model is not added to its answers.
     */
    otherFormat?: true;
  }
}
