// `POST /mcp`: the tool server over Streamable HTTP, stateless, for agents signed in through
// OAuth (docs/api.md "Remote agents"). The same tools and handlers as
// `portage mcp` (./tools.ts), served by the MCP SDK v2's createMcpHandler, which answers both
// protocol eras: 2025-11-25 clients (initialize, then one request per POST; GET and DELETE are
// 405 since there are no sessions) and 2026-07-28 clients (no initialize, server/discover).
//
// Per request: the bearer token must be an agent's (audience {PUBLIC_BASE_URL}/mcp, a live
// grant); anything else is 401 with the challenge pointing at the resource metadata. A
// tools/call outside the token's scopes is 403 insufficient_scope (the MCP authorization
// spec's scope challenge), before any handler runs. The handlers then call the API through
// the typed client over an in-process exchange (app.inject): auth, rate limits, idempotency and
// errors are exactly those of HTTP. This module imports neither modules nor db: the app hands
// it `authenticate` and the in-process exchange.
//
// /mcp also serves ACP's MCP binding (src/contract/acp-tools.ts): the five checkout session
// tools, each a call of its REST route under /acp with the agent's token (scope `shop`).
//
// Language (docs/i18n.md): the request's Accept-Language is the MCP client's; it goes with every
// API call the tools make, and the tool server's own messages are written in it; without one,
// in the user's saved language, else DEFAULT_LOCALE (as the API itself would answer).
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Exchange, PortageClient } from '../client/index.ts';
import { ACP_TOOL_SCOPES } from '../contract/acp-tools.ts';
import { AppError, type ErrorBody, wordsOf } from '../contract/errors.ts';
import { BASE_LOCALE, type Locale, negotiateLocale, type Text, t, text } from '../contract/i18n.ts';
import { type AgentScope, roleCanGrant } from '../contract/scopes.ts';
import { TOOL_SCOPES } from '../contract/tools.ts';
import { VOUCHER_HEADER } from '../http/auth.ts';
import { localeOf } from '../http/errors.ts';
import { injectTrace } from '../telemetry/tracing.ts';

/** The scope of every tool /mcp serves: Portage's and the ACP binding's. */
const SCOPES: Record<string, AgentScope> = { ...TOOL_SCOPES, ...ACP_TOOL_SCOPES };

/** What /mcp needs to know of the caller of a token. */
export interface McpCaller {
  id: string;
  role: string;
  /** The person's saved language, when they chose one. */
  locale?: Locale;
  /** Set for an agent's token (OAuth, audience {PUBLIC_BASE_URL}/mcp); absent for a user's API token. */
  agent?: { clientId: string; grantId: string; scopes: readonly AgentScope[] };
}

export interface McpHttpOptions {
  /**
   * The caller of `token`, checked exactly as the API checks it (signature, audience, expiry,
   * the grant still live); throws a 401 AppError otherwise.
   */
  authenticate: (req: FastifyRequest, token: string) => Promise<McpCaller>;
  /**
   * An exchange that goes straight into the app (injectExchange), for the calls made for `outer`
   * while `reply` is answered (they may carry its authenticated caller: src/http/auth.ts, vouchFor).
   */
  exchange: (outer: FastifyRequest, reply: FastifyReply) => Exchange;
  /** {PUBLIC_BASE_URL}: the resource is `${publicBaseUrl}/mcp`. */
  publicBaseUrl: string;
  /** Browser origins besides PUBLIC_BASE_URL's that may call /mcp (MCP_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** Where the views' product images may come from (VIEW_IMAGE_ORIGINS). */
  viewImageOrigins?: readonly string[];
}

/** Where the protected resource metadata of /mcp is (RFC 9728, path-aware). */
export const resourceMetadataUrl = (publicBaseUrl: string) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/mcp`;

interface Served {
  token: string;
  caller: McpCaller & { agent: NonNullable<McpCaller['agent']> };
}

export function mcpHttpRoutes(options: McpHttpOptions) {
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  const metadata = resourceMetadataUrl(base);
  // The handlers' client calls the app in process: the origin only builds URLs (a path prefix
  // of PUBLIC_BASE_URL belongs to a proxy in front, not to the app's routes).
  const origin = new URL(base).origin;
  const served = new WeakMap<FastifyRequest, Served>();
  // The transport's DNS-rebinding defence: a request from a web page (it carries Origin) is
  // served only for our own origin and those configured. Agents outside a browser send none.
  const allowedOrigins = new Set([origin, ...(options.allowedOrigins ?? [])]);

  // The SDK is loaded at the first request to /mcp, not at start (about 100 ms of a start).
  let loading: Promise<McpHttpHandler> | undefined;
  const mcpHandler = () =>
    (loading ??= (async () => {
      const [{ createMcpHandler }, { createToolServer }] = await Promise.all([
        import('@modelcontextprotocol/server'),
        import('./tools.ts'),
      ]);
      return createMcpHandler(
        ({ authInfo }) => {
          const extra = authInfo?.extra as { client: PortageClient; log: FastifyRequest['log'] } | undefined;
          if (!extra) throw new Error('/mcp served without authentication');
          return createToolServer(extra.client, {
            logError: (message) => extra.log.error(message.trimEnd()),
            acp: true,
            views: { imageOrigins: options.viewImageOrigins ?? [], baseUrl: base },
          });
        },
        // 2025-era requests are served statelessly from the same factory (GET and DELETE: 405).
        { legacy: 'stateless' },
      );
    })());

  /**
   * 401 with the challenge a client starts its OAuth flow from (RFC 6750 section 3, RFC 9728
   * section 5.1). The body is in the reader's language; the header's description, ASCII by
   * its RFC, in the base locale (it is for the client program).
   */
  const refuse = (req: FastifyRequest, reply: FastifyReply, said: Text, tokenSent: boolean) => {
    const challenge = [`resource_metadata="${metadata}"`];
    if (tokenSent) {
      challenge.push('error="invalid_token"', `error_description="${quotable(wordsOf(BASE_LOCALE, said))}"`);
    }
    return reply
      .code(401)
      .header('www-authenticate', `Bearer ${challenge.join(', ')}`)
      .send({ error: wordsOf(localeOf(req), said), code: 'AUTH_ERROR', statusCode: 401 } satisfies ErrorBody);
  };

  return async (app: FastifyInstance) => {
    app.addHook('onClose', async () => {
      if (loading) await (await loading).close();
    });

    app.route({
      method: ['POST', 'GET', 'DELETE'],
      url: '/mcp',
      // The guard's own check would refuse agents' tokens here and answer no challenge: /mcp
      // authenticates in its onRequest hook below, before the body is read.
      config: { auth: 'public', limit: 'mcp', otherFormat: true },
      schema: {
        tags: ['mcp'],
        summary:
          'The MCP tool server (Streamable HTTP, protocols 2025-11-25 and 2026-07-28): JSON-RPC, an OAuth 2.1 agent token',
      },
      onRequest: async (req, reply) => {
        if (foreignOrigin(req, allowedOrigins)) return refuseOrigin(req, reply);
        const token = req.headers.authorization?.match(/^Bearer +([A-Za-z0-9._~+/=-]+)$/i)?.[1];
        if (!token) return refuse(req, reply, text('error.auth.missingToken'), false);
        let caller: McpCaller;
        try {
          caller = await options.authenticate(req, token);
        } catch (err) {
          if (err instanceof AppError && err.statusCode === 401) return refuse(req, reply, err.text, true);
          throw err;
        }
        if (!caller.agent) return refuse(req, reply, text('tool.http.notAnAgent'), true);
        served.set(req, { token, caller: caller as Served['caller'] });
      },
      handler: async (req, reply) => {
        const { token, caller } = served.get(req)!;
        // The MCP client's language, else the user's saved one, else the service's default: the
        // answer's Content-Language says it (src/http/content-language.ts).
        const locale =
          negotiateLocale(req.headers['accept-language']) ?? caller.locale ?? req.ctx?.locale ?? BASE_LOCALE;
        if (req.ctx) req.ctx.locale = locale;
        // Neither protocol era served here has JSON-RPC batches; refused, one POST is one message
        // (a batch of 100 would count once against the limit and answer 100 times over).
        if (Array.isArray(req.body)) return refuseBatch(reply, locale);
        const needed = missingScope(req.body, caller.agent.scopes);
        // A scope the user's role can never grant is no challenge (a host that honours step-up
        // would loop back to consent): the call goes on, and the tool answers why it cannot.
        if (needed && roleCanGrant(needed, caller.role)) {
          // The MCP authorization spec's scope challenge: the scopes to ask for are those already
          // granted and the missing one, so that re-authorizing loses nothing.
          const said = text('tool.http.scopeNotGranted', { scope: needed });
          const message = wordsOf(locale, said);
          const scopes = [...caller.agent.scopes, needed].join(' ');
          return reply
            .code(403)
            .header(
              'www-authenticate',
              `Bearer error="insufficient_scope", scope="${scopes}", resource_metadata="${metadata}", ` +
                `error_description="${quotable(wordsOf(BASE_LOCALE, said))}"`,
            )
            .send({ error: message, code: 'AUTHZ_ERROR', statusCode: 403 } satisfies ErrorBody);
        }
        const client = new PortageClient({
          baseUrl: origin,
          token,
          exchange: options.exchange(req, reply),
          // An agent renews its token at /oauth/token itself; a rate-limited call is answered at
          // once (RATE_LIMIT with its delay) rather than held while the agent waits.
          refresh: false,
          maxRetries: 0,
          locale,
        });
        const handler = await mcpHandler();
        const response = await handler.fetch(webRequest(req, origin), {
          authInfo: {
            token,
            clientId: caller.agent.clientId,
            scopes: [...caller.agent.scopes],
            resource: new URL(`${base}/mcp`),
            extra: { client, log: req.log },
          },
          parsedBody: req.body,
        });
        return sendResponse(reply, response);
      },
    });
  };
}

/**
 * A web Response sent by Fastify: a JSON answer (every tools/call's) as its text, which skips
 * piping a web stream into the socket; a stream (SSE) as the stream.
 */
export async function sendResponse(reply: FastifyReply, response: Response) {
  if (response.body === null || !response.headers.get('content-type')?.startsWith('application/json')) {
    return reply.send(response);
  }
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  return reply.send(await response.text());
}

/**
 * The transport's DNS-rebinding defence: whether the request comes from a web page (it carries
 * Origin) of an origin not allowed. Agents outside a browser send none.
 */
export const foreignOrigin = (req: FastifyRequest, allowed: ReadonlySet<string>) =>
  req.headers.origin !== undefined && !allowed.has(req.headers.origin);

/** The 403 the MCP transport spec asks for a foreign Origin, as a JSON-RPC error. */
export function refuseOrigin(req: FastifyRequest, reply: FastifyReply) {
  const origin = JSON.stringify(String(req.headers.origin).slice(0, 200));
  return reply.code(403).send({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: t(localeOf(req), 'tool.http.foreignOrigin', { origin }) },
  });
}

/** A JSON-RPC batch, refused (neither protocol era served has them). */
export function refuseBatch(reply: FastifyReply, locale: Locale) {
  return reply.code(400).send({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: t(locale, 'tool.http.noBatches') },
  });
}

/** The first scope a tools/call in `body` (one message or a batch) needs and was not granted. */
function missingScope(body: unknown, granted: readonly AgentScope[]): AgentScope | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const need = Object.hasOwn(SCOPES, m.params.name) ? SCOPES[m.params.name] : undefined;
    if (need && !granted.includes(need)) return need;
  }
  return undefined;
}

/** A header's quoted-string holds no `"` nor `\` (RFC 6750 error_description: printable ASCII). */
const quotable = (text: string) => text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, ' ');

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** The request as the SDK's web-standard handler takes it; the body goes as parsedBody. */
export function webRequest(req: FastifyRequest, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(req.url, origin), { method: req.method, headers });
}

/**
 * An exchange answered by the app itself through `app.inject`: no socket, no network, no web
 * Request nor Response, and every hook of a real request (auth, rate limits, idempotency,
 * errors). The inner request carries the outer one's id (logs tie them), client address, and
 * the voucher for its caller if any.
 */
export function injectExchange(
  app: FastifyInstance,
  outer?: { id: string; ip: string; voucher?: string },
): Exchange {
  return async (url, init) => {
    const headers = { ...init.headers };
    // The tool call's span goes on with the request it makes, as over the network.
    injectTrace(headers);
    if (outer) headers['x-request-id'] = outer.id;
    if (outer?.voucher) headers[VOUCHER_HEADER] = outer.voucher;
    const { pathname, search } = new URL(url);
    const res = await app.inject({
      method: init.method as 'GET',
      url: pathname + search,
      headers,
      payload: init.body,
      remoteAddress: outer?.ip,
    });
    return {
      status: res.statusCode,
      statusText: res.statusMessage,
      headers: {
        get: (name) => {
          const value = res.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : String(value);
        },
      },
      text: init.method === 'HEAD' ? '' : res.payload,
    };
  };
}
