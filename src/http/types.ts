// Fastify type extensions shared by the HTTP layer.
import type { Role } from '../contract/common.ts';
import type { RouteScope } from '../contract/scopes.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { RequestContext } from '../modules/context.ts';
import type { InvoiceRenderer } from '../modules/invoices/renderer.ts';
import type { LimitGroup } from './rate-limit.ts';

/** Who may call a route: anyone, any signed-in user, or users of the listed roles (admins always). */
export type RouteAuth = 'public' | 'user' | readonly Role[];

declare module 'fastify' {
  interface FastifyInstance {
    /** The background jobs of this instance (docs/operations.md "Background jobs"). */
    jobs: JobRunner;
    /** This instance's invoice renderer (worker threads); tests count and hold its renders. */
    invoices: InvoiceRenderer;
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
     * Whether an answer stored under an Idempotency-Key may still be replayed (none: always,
     * within 24 hours). When not, the same key runs the handler anew (src/http/idempotency.ts).
     */
    replayable?: (ctx: RequestContext, status: number, body: string) => Promise<boolean>;
    /**
     * `required`: every POST must carry an Idempotency-Key, scoped to the caller and the path
     * (the ACP routes, as that spec says); otherwise it is optional and scoped to the caller.
     */
    idempotency?: 'required';
    /**
     * The handler's first database work is a transaction: a POST's Idempotency-Key is claimed
     * ahead of it, in its first round trip, instead of in a round trip of its own (src/http/idempotency.ts).
     */
    claimAhead?: true;
    /**
     * The route answers in another specification's format (JSON-RPC, OAuth, HTML pages): it is
     * documented by its summary only, and our error model is not added to its answers.
     */
    otherFormat?: true;
  }
}
