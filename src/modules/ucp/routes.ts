// HTTP adapter of UCP v2026-04-08 (docs/ucp.md): the business profile at /.well-known/ucp, and
// the checkout's REST operations under /ucp/v1. Every operation: the caller by its platform key
// (Authorization: Bearer, or X-API-Key) or a person's OAuth token; `UCP-Agent` naming the
// platform's profile (a platform's must be the one registered for it); the profile fetched and
// the capabilities negotiated; Idempotency-Key required on POST and PUT; Request-Id echoed;
// refusals in UCP's two shapes (errors.ts).
// One job past 450 lines: each operation's route is a few lines, but UCP asks the same checks of
// every one (caller, agent profile, negotiation, key, request id), kept here beside the routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, wordsOf } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, render, type Text, text } from '../../contract/i18n.ts';
import {
  UCP_VERSION,
  type UcpErrorResponse,
  type UcpPlatformProfile,
  ucpCatalogLookupRequest,
  ucpCatalogLookupResponse,
  ucpCatalogSearchRequest,
  ucpCatalogSearchResponse,
  ucpCheckout,
  ucpCheckoutCompleteRequest,
  ucpCheckoutCreateRequest,
  ucpCheckoutUpdateRequest,
  ucpErrorResponse,
  ucpGetProductRequest,
  ucpGetProductResponse,
  ucpOrder,
  ucpProtocolError,
} from '../../contract/ucp.ts';
import { bearerToken } from '../../http/auth.ts';
import { unavailableOr } from '../../http/errors.ts';
import { IdempotencyError, sendAnswer } from '../../http/idempotency.ts';
import { type Limits, personCheckoutBudget, refusalsCountedFirst } from '../../http/rate-limit.ts';
import { schemaProblems } from '../../http/request-problems.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import { offeredHandlers } from '../agent-checkout/handlers.ts';
import { AgentCheckoutRefusal, frameworkWords } from '../agent-checkout/problems.ts';
import type { AgentCheckoutDeps } from '../agent-checkout/types.ts';
import type { AuthService } from '../auth/service.ts';
import { isRegisteredProfile, type PlatformKeys } from '../platforms/service.ts';
import type { SearchEngine } from '../search/service.ts';
import { capabilitiesFor, type Negotiated, negotiate, type Profiles, profileUrlOf } from './agent.ts';
import { UcpAuthFailure, ucpCallerOf } from './caller.ts';
import { catalogContext, lookupCatalog, productOfCatalog, searchCatalog } from './catalog.ts';
import { UcpFailure, ucpFailureOf } from './errors.ts';
import type { UcpKeyRing } from './keys.ts';
import {
  cancelUcpSession,
  completeUcpSession,
  createUcpSession,
  getUcpSession,
  type UcpDeps,
  updateUcpSession,
} from './operations.ts';
import { getUcpOrder } from './orders.ts';
import {
  businessProfile,
  CATALOG_LOOKUP,
  CATALOG_SEARCH,
  CHECKOUT,
  ORDER,
  REST_PREFIX,
  ucpPaymentHandlers,
} from './profile.ts';
import { verifyRequestSignature } from './signatures.ts';

export type UcpRouteDeps = Omit<AgentCheckoutDeps, 'handlers'> & {
  platforms: PlatformKeys;
  /** The search engine GET /search/products uses (catalog search). */
  search: SearchEngine;
  auth: AuthService;
  keys: UcpKeyRing;
  /** The platforms' profiles, fetched and cached (shared with the webhooks' deliverer). */
  profiles: Profiles;
  development: boolean;
  /** Counting outside the routes' own limits (refusals, a person's holds); none with RATE_LIMITS=off. */
  limits?: Limits;
};

interface Caller {
  who: AgentCaller;
  negotiated: Negotiated;
  profile: UcpPlatformProfile;
}

const callers = new WeakMap<FastifyRequest, Caller>();
/** Bodies as received: a signed request's Content-Digest is over these bytes. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();
const tags = ['ucp'];
const WRITE = { auth: 'public', limit: 'acp', idempotency: 'required', otherFormat: true } as const;
const READ = { auth: 'public', limit: 'acp', otherFormat: true } as const;
/** A session keeps its request: 64 KiB as for ACP (50 lines and an address take a few KiB). */
const BODY_LIMIT = 64 * 1024;
const sessionParams = z.object({ id: z.string().min(1).max(100) });
const checkoutAnswer = z.union([ucpCheckout, ucpErrorResponse]);
const profileShape = z.looseObject({
  ucp: z.looseObject({ version: z.string() }),
  signing_keys: z.array(z.looseObject({})),
});
const protocolErrors = {
  400: ucpProtocolError,
  401: ucpProtocolError,
  403: ucpProtocolError,
  409: ucpProtocolError,
};

export function ucpRoutes(routeDeps: UcpRouteDeps) {
  const handlers = offeredHandlers(routeDeps);
  const paymentHandlers = ucpPaymentHandlers(routeDeps.publicBaseUrl, handlers);
  const deps: UcpDeps = {
    ...routeDeps,
    handlers,
    ucp: { publicBaseUrl: routeDeps.publicBaseUrl, paymentHandlers, sandbox: routeDeps.sandbox },
  };
  const profile = businessProfile({ ...routeDeps, paymentHandlers });
  const profiles = routeDeps.profiles;
  const paths = `${REST_PREFIX}/checkout-sessions`;
  // A linked person's platform holds stock as the person's own checkout does: it counts in the
  // person's checkout budget (a platform's holds are capped by PLATFORM_MAX_HOLDS instead).
  const budget = personCheckoutBudget({
    limits: routeDeps.limits,
    personOf: (req) => {
      const { who } = callerOf(req);
      return 'user' in who ? who.user.id : undefined;
    },
    tooMany: rateLimitedFailure,
  });

  return async (fastify: FastifyInstance) => {
    fastify.get(
      '/.well-known/ucp',
      {
        config: { auth: 'public', limit: 'search', otherFormat: true },
        schema: {
          tags,
          summary: 'UCP: the business profile (services, capabilities, handlers, keys)',
          // Described, not checked on the way out: development's http PUBLIC_BASE_URL is no https endpoint.
          response: { 200: profileShape },
        },
      },
      // The spec: public, at least a minute (platforms cache it; a rotated key shows within 5).
      async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(profile),
    );

    await fastify.register(async (scope) => {
      ucpConventions(scope, routeDeps, profiles, profile);
      const app = scope.withTypeProvider<ZodTypeProvider>();

      app.post(
        paths,
        {
          config: WRITE,
          bodyLimit: BODY_LIMIT,
          preHandler: budget.preHandler,
          onResponse: budget.onResponse,
          schema: {
            tags,
            summary: 'UCP: create a checkout session (201)',
            body: ucpCheckoutCreateRequest,
            response: { 201: ucpCheckout, 200: ucpErrorResponse, ...protocolErrors },
          },
        },
        async (req, reply) => {
          const c = checkoutCaller(req, reply);
          if (!c) return reply;
          return sendAnswer(
            req,
            reply,
            201,
            await createUcpSession(req.ctx, deps, c.who, c.negotiated, req.body),
          );
        },
      );
      app.get(
        `${paths}/:id`,
        {
          config: READ,
          schema: {
            tags,
            summary: 'UCP: get a checkout session',
            params: sessionParams,
            response: { 200: checkoutAnswer, ...protocolErrors },
          },
        },
        async (req, reply) => {
          const c = checkoutCaller(req, reply);
          if (!c) return reply;
          return getUcpSession(req.ctx, deps, c.who, c.negotiated, req.params.id);
        },
      );
      app.put(
        `${paths}/:id`,
        {
          config: WRITE,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: update a checkout session (a full replacement)',
            params: sessionParams,
            body: ucpCheckoutUpdateRequest,
            response: { 200: checkoutAnswer, ...protocolErrors },
          },
        },
        async (req, reply) => {
          const c = checkoutCaller(req, reply);
          if (!c) return reply;
          return sendAnswer(
            req,
            reply,
            200,
            await updateUcpSession(req.ctx, deps, c.who, c.negotiated, req.params.id, req.body),
          );
        },
      );
      app.post(
        `${paths}/:id/complete`,
        {
          config: WRITE,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: complete a checkout session with a payment instrument',
            params: sessionParams,
            body: ucpCheckoutCompleteRequest,
            response: { 200: checkoutAnswer, ...protocolErrors },
          },
        },
        async (req, reply) => {
          const c = checkoutCaller(req, reply);
          if (!c) return reply;
          return completeUcpSession(req.ctx, deps, c.who, c.negotiated, req.params.id, req.body);
        },
      );
      app.post(
        `${paths}/:id/cancel`,
        {
          config: WRITE,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: cancel a checkout session (its stock back at once)',
            params: sessionParams,
            // The OpenAPI gives cancel no body: none (which Fastify validates as null), or any object.
            body: z.looseObject({}).nullish(),
            response: { 200: checkoutAnswer, ...protocolErrors },
          },
        },
        async (req, reply) => {
          const c = checkoutCaller(req, reply);
          if (!c) return reply;
          return sendAnswer(
            req,
            reply,
            200,
            await cancelUcpSession(req.ctx, deps, c.who, c.negotiated, req.params.id),
          );
        },
      );
      // The catalog: POSTs that read (no Idempotency-Key), each needing its capability.
      const CATALOG = { auth: 'public', limit: 'search', otherFormat: true } as const;
      const catalogMeta = (c: Caller, capability: string) => ({
        version: UCP_VERSION,
        capabilities: capabilitiesFor(c.negotiated, capability),
      });
      app.post(
        `${REST_PREFIX}/catalog/search`,
        {
          config: CATALOG,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: search the catalog',
            body: ucpCatalogSearchRequest,
            response: { 200: z.union([ucpCatalogSearchResponse, ucpErrorResponse]), ...protocolErrors },
          },
        },
        async (req) => {
          const c = capableCaller(req, CATALOG_SEARCH);
          if (!c) return incompatible(localeOf(req), CATALOG_SEARCH);
          return {
            ucp: catalogMeta(c, CATALOG_SEARCH),
            ...(await searchCatalog(catalogContext(req.ctx, req.body), routeDeps.search, req.body)),
          };
        },
      );
      app.post(
        `${REST_PREFIX}/catalog/lookup`,
        {
          config: CATALOG,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: look products up by id',
            body: ucpCatalogLookupRequest,
            response: { 200: z.union([ucpCatalogLookupResponse, ucpErrorResponse]), ...protocolErrors },
          },
        },
        async (req) => {
          const c = capableCaller(req, CATALOG_LOOKUP);
          if (!c) return incompatible(localeOf(req), CATALOG_LOOKUP);
          const found = await lookupCatalog(catalogContext(req.ctx, req.body), req.body);
          return { ucp: catalogMeta(c, CATALOG_LOOKUP), ...found };
        },
      );
      app.post(
        `${REST_PREFIX}/catalog/product`,
        {
          config: CATALOG,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'UCP: one product',
            body: ucpGetProductRequest,
            response: { 200: z.union([ucpGetProductResponse, ucpErrorResponse]), ...protocolErrors },
          },
        },
        async (req) => {
          const c = capableCaller(req, CATALOG_LOOKUP);
          if (!c) return incompatible(localeOf(req), CATALOG_LOOKUP);
          const ctx = catalogContext(req.ctx, req.body);
          const found = await productOfCatalog(ctx, req.body);
          if (!found) {
            return businessError(
              'not_found',
              render(
                ctx.locale ?? BASE_LOCALE,
                text('error.catalog.productNotFound', { id: req.body.id.slice(0, 64) }),
              ),
              capabilitiesFor(c.negotiated, CATALOG_LOOKUP),
            );
          }
          return { ucp: catalogMeta(c, CATALOG_LOOKUP), ...found };
        },
      );
      app.get(
        `${REST_PREFIX}/orders/:id`,
        {
          config: READ,
          schema: {
            tags,
            summary: 'UCP: get an order (the one order a completed checkout became)',
            params: sessionParams,
            response: { 200: z.union([ucpOrder, ucpErrorResponse]), ...protocolErrors },
          },
        },
        async (req) => {
          const c = callerOf(req);
          if (!c.negotiated.has(ORDER)) return incompatible(localeOf(req), ORDER);
          const order = await getUcpOrder(req.ctx, routeDeps.publicBaseUrl, c.who, req.params.id);
          return (
            order ??
            businessError(
              'not_found',
              render(localeOf(req), text('error.orders.notFound', { id: req.params.id.slice(0, 64) })),
              capabilitiesFor(c.negotiated, ORDER),
            )
          );
        },
      );
    });
  };
}

function callerOf(req: FastifyRequest): Caller {
  const c = callers.get(req);
  if (!c) throw new Error('a UCP route ran without its caller');
  return c;
}

/**
 * The caller of a checkout operation, or (answered here) the spec's business outcome when the
 * platform and we share no checkout capability. The handler then returns the reply: an async
 * handler that answers undefined has Fastify send an empty body while this one's onSend hooks run.
 */
function checkoutCaller(req: FastifyRequest, reply: FastifyReply): Caller | undefined {
  const c = callerOf(req);
  if (c.negotiated.has(CHECKOUT)) return c;
  void reply.code(200).send(incompatible(localeOf(req), CHECKOUT));
  return undefined;
}

/** The caller, when the platform and we share `capability`; undefined otherwise. */
function capableCaller(req: FastifyRequest, capability: string): Caller | undefined {
  const c = callerOf(req);
  return c.negotiated.has(capability) ? c : undefined;
}

/** The spec's business outcome for an operation whose capability the platform and we do not share. */
const incompatible = (locale: Locale, capability: string) =>
  businessError(
    'capabilities_incompatible',
    render(locale, text('ucp.error.incompatible', { capability })),
    {},
  );

/** Refusals of a platform's profile (unreachable, malformed, another version): not its caller's address's doing. */
const PROFILE_TROUBLE = new Set(['profile_unreachable', 'profile_malformed', 'version_unsupported']);

const rateLimitedFailure = (seconds: number, max: number) =>
  new UcpFailure(429, 'rate_limited', text('error.http.rateLimited', { seconds, max }), seconds);

/** The language UCP answers in: the one Accept-Language asks for (the request context's). */
const localeOf = (req: FastifyRequest): Locale => req.ctx?.locale ?? BASE_LOCALE;

/** The body of a business outcome with no resource to show (`ucp.status: "error"`). */
function businessError(
  code: string,
  content: string,
  capabilities: Record<string, Array<{ version: string }>>,
): UcpErrorResponse {
  return {
    ucp: { version: UCP_VERSION, status: 'error', capabilities },
    messages: [{ type: 'error', code, content, severity: 'unrecoverable' }],
  };
}

/** Who calls and for which profile, the headers echoed, and UCP's error shapes, for every route of `scope`. */
function ucpConventions(
  scope: FastifyInstance,
  deps: UcpRouteDeps,
  profiles: Profiles,
  ours: ReturnType<typeof businessProfile>,
) {
  scope.addHook('onRequest', async (req, reply) => {
    const echo = req.headers['request-id'];
    if (typeof echo === 'string' && echo.length <= 200) reply.header('request-id', echo);
    const apiKey = req.headers['x-api-key'];
    const token = bearerToken(req.headers.authorization) ?? (typeof apiKey === 'string' ? apiKey : undefined);
    await identified(req, token, () => identify(req, token));
  });

  // Refusals of a caller not yet known are counted before the key is read or the profile fetched
  // (http/rate-limit.ts); a profile that could not be had is the platform's trouble, not the
  // address's, and is not counted.
  const identified = refusalsCountedFirst({
    limits: deps.limits,
    counts: (err) => err instanceof UcpFailure && err.statusCode < 500 && !PROFILE_TROUBLE.has(err.code),
    tooMany: rateLimitedFailure,
  });

  const identify = async (req: FastifyRequest, token: string | undefined) => {
    const route = req.routeOptions.url ?? '';
    const need = route.startsWith(`${REST_PREFIX}/orders/`)
      ? 'order'
      : route.startsWith(`${REST_PREFIX}/catalog/`)
        ? 'catalog'
        : 'checkout';
    const who = await ucpCallerOf(req.ctx, deps.auth, deps.platforms, token, need);
    // What rate limits count and Idempotency-Keys are scoped by: the platform, or the person.
    if ('platform' in who) req.ctx.principal = `platform:${who.platform.id}`;
    else {
      req.ctx.user = who.user;
      // A person's own token: their saved language, as on the rest of the API (src/http/auth.ts).
      if (who.user.locale) req.ctx.locale = who.user.locale;
    }

    const profileUrl = profileUrlOf(req.headers['ucp-agent'], deps.development);
    // A linked person's token names no platform: its profile must still be one an admin
    // registered, or any buyer could make us fetch (and resolve) any URL.
    if ('user' in who && !(await isRegisteredProfile(req.ctx, profileUrl))) {
      throw new UcpFailure(403, 'profile_not_trusted', text('ucp.error.profileNotRegistered'));
    }
    // A platform's key speaks only for the profile registered for it (the spec's identity binding).
    if ('platform' in who && who.platform.ucpProfileUrl !== profileUrl) {
      throw new UcpFailure(
        403,
        'profile_not_trusted',
        text(who.platform.ucpProfileUrl ? 'ucp.error.profileOther' : 'ucp.error.profileNone'),
      );
    }
    const profile = await profiles.get(profileUrl);
    const negotiated = negotiate(ours, profile);
    callers.set(req, { who, negotiated, profile });
  };

  // JSON as Fastify parses it, the bytes kept for the signature's digest. An empty body is no
  // body, which each route's schema takes or refuses (cancel has none).
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    rawBodies.set(req, body as Buffer);
    if ((body as Buffer).length === 0) return done(null, undefined);
    json(req, (body as Buffer).toString('utf8'), done);
  });
  // Before the Idempotency-Key is claimed (preHandler): a refused signature stores no answer.
  scope.addHook('preValidation', async (req) => {
    const c = callerOf(req);
    await verifyRequestSignature(
      {
        method: req.method,
        url: `${req.protocol}://${req.headers.host ?? 'localhost'}${req.url}`,
        headers: req.headers,
        body: rawBodies.get(req),
      },
      c.profile,
    );
  });

  scope.setErrorHandler((err: FastifyError, req, reply) => {
    const [status, body, retryAfter] = ucpErrorOf(unavailableOr(err, req), req, callers.get(req)?.negotiated);
    if (retryAfter) reply.header('retry-after', String(retryAfter));
    if (err instanceof UcpAuthFailure) reply.header('www-authenticate', err.challenge);
    else if (status === 401) reply.header('www-authenticate', 'Bearer realm="ucp"');
    return reply.code(status).send(body);
  });
}

/** Any failure as UCP says it: a status with `{code, content}`, or 200 with an error response. */
function ucpErrorOf(
  err: FastifyError | AppError,
  req: FastifyRequest,
  negotiated: Negotiated | undefined,
): [number, UcpErrorResponse | { code: string; content: string }, number?] {
  const locale = localeOf(req);
  const said = (w: Text) => render(locale, w);
  if (err instanceof UcpFailure)
    return [err.statusCode, { code: err.code, content: err.content(locale) }, err.retryAfter];
  if (err instanceof AgentCheckoutRefusal) {
    if (err.kind === 'not_found') {
      // The spec's "not found" is a business outcome: 200, no resource, why.
      const capabilities = negotiated ? capabilitiesFor(negotiated, CHECKOUT) : {};
      return [200, businessError('not_found', said(err.words), capabilities)];
    }
    const failure = ucpFailureOf(
      err as AgentCheckoutRefusal & { kind: Exclude<typeof err.kind, 'not_found'> },
    );
    return [failure.statusCode, { code: failure.code, content: failure.content(locale) }, failure.retryAfter];
  }
  if (err instanceof IdempotencyError) {
    const [status, code, retry] = {
      required: [400, 'idempotency_key_required'],
      invalid: [400, 'invalid_request'],
      conflict: [409, 'idempotency_conflict'],
      in_flight: [409, 'idempotency_in_flight', 1],
    }[err.reason] as [number, string, number?];
    return [status, { code, content: wordsOf(locale, err.text) }, retry];
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = err.validationContext === 'params' ? 'path' : 'request';
    const schema = (req.routeOptions.schema as Record<string, unknown> | undefined)?.[
      where === 'path' ? 'params' : 'body'
    ];
    const problems = schemaProblems(locale, err.validation, schema, ': ');
    return [
      400,
      {
        code: 'invalid_request',
        content: said(text('agent.error.invalidInput', { where, problems })).slice(0, 1000),
      },
    ];
  }
  if (err instanceof AppError) {
    const code = err.statusCode === 429 ? 'rate_limited' : err.code.toLowerCase();
    return [err.statusCode, { code, content: wordsOf(locale, err.text) }, err.retryAfter];
  }
  const status = err.statusCode ?? 500;
  if (status < 500) return [status, { code: 'invalid_request', content: said(frameworkWords(err)) }];
  req.log.error({ err }, 'unhandled error on a UCP route');
  return [500, { code: 'internal_error', content: said(text('agent.error.internal', { id: req.id })) }];
}
