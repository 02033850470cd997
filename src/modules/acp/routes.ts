// HTTP adapter of ACP 2026-04-17 (docs/acp.md): discovery, the five checkout session operations
// under /acp, and the sandbox's delegate payment. These routes answer in the spec's format: its
// flat errors, API-Version required, Idempotency-Key required on every POST (scoped to the caller
// and path), Idempotency-Key and Request-Id echoed.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AcpDelegatePaymentError,
  type AcpError,
  acpCancelSessionRequest,
  acpCheckoutSession,
  acpCompleteSessionRequest,
  acpCreateSessionRequest,
  acpDelegatePaymentRequest,
  acpDelegatePaymentResponse,
  acpDiscoveryResponse,
  acpUpdateSessionRequest,
} from '../../contract/acp.ts';
import { AppError, wordsOf } from '../../contract/errors.ts';
import { feedFiles } from '../../contract/feeds.ts';
import { BASE_LOCALE, LOCALES, type Locale, render, type Text, text } from '../../contract/i18n.ts';
import { bearerToken } from '../../http/auth.ts';
import { unavailableOr } from '../../http/errors.ts';
import { IdempotencyError, sendAnswer } from '../../http/idempotency.ts';
import { type Limits, personCheckoutBudget, refusalsCountedFirst } from '../../http/rate-limit.ts';
import { jsonPath, requestIssues, schemaProblems } from '../../http/request-problems.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import { offeredHandlers } from '../agent-checkout/handlers.ts';
import { AgentCheckoutRefusal, frameworkWords } from '../agent-checkout/problems.ts';
import type { AgentCheckoutDeps } from '../agent-checkout/types.ts';
import type { AuthService } from '../auth/service.ts';
import { type FeedLinkDeps, feedFileLinks } from '../feeds/file-links.ts';
import type { PlatformKeys } from '../platforms/service.ts';
import { ACP_SUPPORTED_VERSIONS, ACP_VERSION } from './answer.ts';
import { acpCallerOf } from './caller.ts';
import { AcpFailure, acpFailureOf } from './errors.ts';
import { acpHandlers } from './handlers.ts';
import {
  type AcpDeps,
  cancelAcpSession,
  completeAcpSession,
  createAcpSession,
  delegatePayment,
  getAcpSession,
  updateAcpSession,
} from './operations.ts';

export type AcpRouteDeps = Omit<AgentCheckoutDeps, 'handlers'> & {
  auth: AuthService;
  platforms: PlatformKeys;
  /** Counting outside the routes' own limits (refusals, a person's holds); none with RATE_LIMITS=off. */
  limits?: Limits;
  /** The file feed's links (GET /acp/feed); the route is not served without them. */
  feedLinks?: FeedLinkDeps;
};

const sessionParams = z.object({ checkout_session_id: z.string().min(1).max(100) });
const callers = new WeakMap<FastifyRequest, AgentCaller>();
const tags = ['acp'];
/** Every POST's first database work is a transaction: the key's claim goes with it (claimAhead). */
const POST = {
  auth: 'public',
  limit: 'acp',
  idempotency: { required: true, claimAhead: true },
  otherFormat: true,
} as const;
const GET = { auth: 'public', limit: 'acp', otherFormat: true } as const;
/**
 * A session's request is kept with it: 64 KiB, not the API's 1 MiB (50 lines with their names and
 * an address take a few KiB), so a platform's 600 requests a minute cannot store 600 MiB.
 */
const BODY_LIMIT = 64 * 1024;

export function acpRoutes(routeDeps: AcpRouteDeps) {
  const handlers = offeredHandlers(routeDeps);
  const deps: AcpDeps = {
    ...routeDeps,
    handlers,
    acp: { publicBaseUrl: routeDeps.publicBaseUrl, handlers: acpHandlers(routeDeps.publicBaseUrl, handlers) },
  };
  // A person's agent creating a session holds stock as the person's own checkout does: it counts
  // in the person's checkout budget (a platform's holds are capped by PLATFORM_MAX_HOLDS instead).
  const budget = personCheckoutBudget({
    limits: routeDeps.limits,
    personOf: (req) => {
      const who = callerOf(req);
      return 'user' in who ? who.user.id : undefined;
    },
    tooMany: rateLimitedFailure,
  });
  return async (fastify: FastifyInstance) => {
    fastify.get(
      '/.well-known/acp.json',
      {
        config: { auth: 'public', limit: 'search', otherFormat: true },
        schema: {
          tags,
          summary: 'ACP discovery: versions, base URL, transports, services',
          response: { 200: acpDiscoveryResponse },
        },
      },
      async (_req, reply) =>
        reply.header('cache-control', 'public, max-age=300').send({
          protocol: {
            name: 'acp',
            version: ACP_VERSION,
            supported_versions: [...ACP_SUPPORTED_VERSIONS],
            documentation_url: `${deps.publicBaseUrl}/docs`,
          },
          api_base_url: `${deps.publicBaseUrl}/acp`,
          transports: ['rest', 'mcp'],
          capabilities: {
            services: deps.sandbox ? ['checkout', 'orders', 'delegate_payment'] : ['checkout', 'orders'],
            supported_currencies: ['cad'],
            supported_locales: [...LOCALES],
          },
        }),
    );

    await fastify.register(async (scope) => {
      acpConventions(scope, routeDeps);
      const app = scope.withTypeProvider<import('fastify-type-provider-zod').ZodTypeProvider>();

      app.post(
        '/acp/checkout_sessions',
        {
          config: POST,
          bodyLimit: BODY_LIMIT,
          preHandler: budget.preHandler,
          onResponse: budget.onResponse,
          schema: {
            tags,
            summary: 'ACP: create a checkout session (201)',
            body: acpCreateSessionRequest,
            response: { 201: acpCheckoutSession },
          },
        },
        async (req, reply) =>
          sendAnswer(
            req,
            reply,
            201,
            await createAcpSession(req.ctx, deps, callerOf(req), req.body, requestedLocale(req)),
          ),
      );
      app.post(
        '/acp/checkout_sessions/:checkout_session_id',
        {
          config: POST,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'ACP: update a checkout session',
            params: sessionParams,
            body: acpUpdateSessionRequest,
            response: { 200: acpCheckoutSession },
          },
        },
        async (req, reply) =>
          sendAnswer(
            req,
            reply,
            200,
            await updateAcpSession(req.ctx, deps, callerOf(req), req.params.checkout_session_id, req.body),
          ),
      );
      app.get(
        '/acp/checkout_sessions/:checkout_session_id',
        {
          config: GET,
          schema: {
            tags,
            summary: 'ACP: retrieve a checkout session',
            params: sessionParams,
            response: { 200: acpCheckoutSession },
          },
        },
        async (req) => getAcpSession(req.ctx, deps, callerOf(req), req.params.checkout_session_id),
      );
      app.post(
        '/acp/checkout_sessions/:checkout_session_id/complete',
        {
          config: POST,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'ACP: pay a checkout session with a delegated token',
            params: sessionParams,
            body: acpCompleteSessionRequest,
            response: { 200: acpCheckoutSession },
          },
        },
        async (req, reply) =>
          sendAnswer(
            req,
            reply,
            200,
            await completeAcpSession(req.ctx, deps, callerOf(req), req.params.checkout_session_id, req.body),
          ),
      );
      app.post(
        '/acp/checkout_sessions/:checkout_session_id/cancel',
        {
          config: POST,
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            summary: 'ACP: cancel a checkout session (its stock back at once)',
            params: sessionParams,
            body: acpCancelSessionRequest.optional(),
            response: { 200: acpCheckoutSession },
          },
        },
        async (req, reply) =>
          sendAnswer(
            req,
            reply,
            200,
            await cancelAcpSession(req.ctx, deps, callerOf(req), req.params.checkout_session_id),
          ),
      );
      const { feedLinks } = routeDeps;
      if (feedLinks) {
        app.get(
          '/acp/feed',
          {
            config: GET,
            schema: {
              tags,
              summary: "The file feed: the current snapshot's files at signed URLs (a platform's key only)",
              response: { 200: feedFiles },
            },
          },
          async (req) => feedFileLinks(req.ctx, feedLinks, platformIdOf(req)),
        );
      }
      if (deps.sandbox) {
        app.post(
          '/agentic_commerce/delegate_payment',
          {
            config: POST,
            bodyLimit: BODY_LIMIT,
            schema: {
              tags,
              summary: "ACP delegate payment: the sandbox's vault token for a test card (201)",
              body: acpDelegatePaymentRequest,
              response: { 201: acpDelegatePaymentResponse },
            },
          },
          async (req, reply) =>
            sendAnswer(req, reply, 201, await delegatePayment(req.ctx, callerOf(req), req.body)),
        );
      }
    });
  };
}

function callerOf(req: FastifyRequest): AgentCaller {
  const who = callers.get(req);
  if (!who) throw new Error('an ACP route ran without its caller');
  return who;
}

/**
 * The session's `locale` (the spec's field, kept with the session): the first language of
 * Accept-Language (e.g. fr-CA), when it looks like one. What the answers are written in is
 * the request context's locale (the one of ours that header asks for), read again at each request.
 */
function requestedLocale(req: FastifyRequest): string | undefined {
  const first = req.headers['accept-language']?.split(',')[0]?.split(';')[0]?.trim();
  // A language tag is short: what is kept with the session is bounded as the body's locale is.
  return first && first.length <= 35 && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(first) ? first : undefined;
}

/** The calling platform; an agent's token is refused (403): the feed is the platforms'. */
function platformIdOf(req: FastifyRequest): string {
  const who = callerOf(req);
  if (!('platform' in who))
    throw new AcpFailure(
      403,
      { type: 'invalid_request', code: 'forbidden' },
      text('feeds.error.platformsOnly'),
    );
  return who.platform.id;
}

const rateLimitedFailure = (seconds: number, max: number) =>
  new AcpFailure(
    429,
    { type: 'invalid_request', code: 'rate_limited' },
    text('error.http.rateLimited', { seconds, max }),
    seconds,
  );

/** Who calls, the version, the headers echoed and the spec's error shape, for every route of `scope`. */
function acpConventions(scope: FastifyInstance, { auth, platforms, limits }: AcpRouteDeps) {
  scope.addHook('onRequest', async (req, reply) => {
    const echo = req.headers['request-id'];
    if (typeof echo === 'string' && echo.length <= 200) reply.header('request-id', echo);
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && typeof key === 'string' && key.length <= 255)
      reply.header('idempotency-key', key);
    const token = bearerToken(req.headers.authorization);
    await identified(req, token, () => identify(req, token));
  });

  // Refusals of a caller not yet known are counted before the key is read (http/rate-limit.ts).
  const identified = refusalsCountedFirst({
    limits,
    counts: (err) => err instanceof AcpFailure && err.statusCode < 500,
    tooMany: rateLimitedFailure,
  });

  const identify = async (req: FastifyRequest, token: string | undefined) => {
    const who = await acpCallerOf(req.ctx, auth, platforms, token);
    callers.set(req, who);
    // What rate limits count and Idempotency-Keys are scoped by: the platform, or the person.
    if ('platform' in who) req.ctx.principal = `platform:${who.platform.id}`;
    else {
      req.ctx.user = who.user;
      // A person's own token: their saved language, as on the rest of the API (src/http/auth.ts).
      if (who.user.locale) req.ctx.locale = who.user.locale;
    }

    const version = req.headers['api-version'];
    if (typeof version !== 'string' || version === '') {
      throw versionFailure('missing_api_version', text('acp.error.apiVersionMissing'));
    }
    if (!(ACP_SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
      throw versionFailure(
        'unsupported_api_version',
        text('acp.error.apiVersionUnsupported', { version: version.slice(0, 20) }),
      );
    }
  };

  scope.setErrorHandler((err: FastifyError, req, reply) => {
    const [status, answer, retryAfter] = acpErrorOf(unavailableOr(err, req), req);
    const body = req.url.startsWith('/agentic_commerce/') ? asDelegateError(status, answer) : answer;
    if (retryAfter) reply.header('retry-after', String(retryAfter));
    return reply.code(status).send(body);
  });
}

/**
 * Delegate payment's own error codes, a closed list: a refused request is `invalid_card` (its
 * only code for a bad request), a rate limit `rate_limit_exceeded`/`too_many_requests`. The list
 * has no code for a missing key, route or version: those keep the checkout API's (`unauthorized`, `not_found`,
 * `missing_api_version`, `unsupported_api_version`).
 */
function asDelegateError(status: number, body: AcpError): AcpError | AcpDelegatePaymentError {
  if (status === 429)
    return { type: 'rate_limit_exceeded', code: 'too_many_requests', message: body.message };
  const own = ['invalid_card', 'idempotency_key_required', 'idempotency_conflict', 'idempotency_in_flight'];
  const kept = ['unauthorized', 'forbidden', 'not_found', 'missing_api_version', 'unsupported_api_version'];
  if (status === 400 && !own.includes(body.code) && !kept.includes(body.code))
    return { ...body, code: 'invalid_card' };
  return body;
}

const versionFailure = (code: string, problem: Text) =>
  new AcpFailure(
    400,
    { type: 'invalid_request', code, supported_versions: [...ACP_SUPPORTED_VERSIONS] },
    text('acp.error.apiVersionSupported', { problem, versions: ACP_SUPPORTED_VERSIONS.join(', ') }),
  );

/** The locale an ACP answer is written in: the one Accept-Language asks for (set on the request's context). */
const answerLocale = (req: FastifyRequest): Locale => req.ctx?.locale ?? BASE_LOCALE;

/** Any failure as the spec's flat error, with its status (and seconds to wait, for one in flight). */
function acpErrorOf(err: FastifyError | AppError, req: FastifyRequest): [number, AcpError, number?] {
  const locale = answerLocale(req);
  if (err instanceof AgentCheckoutRefusal || err instanceof AcpFailure) {
    const failure = err instanceof AcpFailure ? err : acpFailureOf(err);
    return [failure.statusCode, failure.body(locale), failure.retryAfter];
  }
  if (err instanceof IdempotencyError) {
    const [status, code, retry] = {
      required: [400, 'idempotency_key_required'],
      invalid: [400, 'invalid'],
      conflict: [422, 'idempotency_conflict'],
      in_flight: [409, 'idempotency_in_flight', 1],
    }[err.reason] as [number, string, number?];
    const message =
      err.reason === 'conflict'
        ? wordsOf(locale, { key: 'acp.error.idempotencyConflict' })
        : wordsOf(locale, err.text);
    return [status, { type: 'invalid_request', code, message }, retry];
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = err.validation[0];
    const issue = requestIssues(err.validation)[0];
    const keys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
    const parts = [...(issue?.path ?? []), ...keys.slice(0, 1)];
    const param = jsonPath(parts);
    const where = err.validationContext === 'params' ? 'path' : 'request';
    const schema = (req.routeOptions.schema as Record<string, unknown> | undefined)?.[
      where === 'path' ? 'params' : 'body'
    ];
    return [
      400,
      {
        type: 'invalid_request',
        code: /received undefined$/.test(first?.message ?? '') ? 'missing' : 'invalid',
        message: wordsOf(locale, {
          key: 'agent.error.invalidInput',
          values: { where, problems: schemaProblems(locale, err.validation, schema, ' ') },
        }).slice(0, 1000),
        ...(where === 'request' ? { param } : {}),
      },
    ];
  }
  if (err instanceof AppError) {
    const type = err.statusCode >= 500 ? 'service_unavailable' : 'invalid_request';
    const code = err.statusCode === 429 ? 'rate_limited' : err.code.toLowerCase();
    return [err.statusCode, { type, code, message: wordsOf(locale, err.text) }, err.retryAfter];
  }
  const status = err.statusCode ?? 500;
  if (status < 500) {
    // A framework refusal (a body too large, not JSON).
    return [
      status,
      { type: 'invalid_request', code: 'invalid', message: render(locale, frameworkWords(err)) },
    ];
  }
  req.log.error({ err }, 'unhandled error on an ACP route');
  return [
    500,
    {
      type: 'processing_error',
      code: 'internal_error',
      message: wordsOf(locale, { key: 'agent.error.internal', values: { id: req.id } }),
    },
  ];
}
