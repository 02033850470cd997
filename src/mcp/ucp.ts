// `POST /ucp/mcp`: UCP's MCP binding (docs/ucp.md "MCP binding"), on an endpoint of its own so
// that its tool names (create_checkout, get_order, ...) never meet Portage's own on /mcp.
// Stateless Streamable HTTP, both protocol eras, as /mcp. The caller's credential (a platform's
// key as X-API-Key or Bearer, or a linked person's token) goes with every tool's call of its
// REST operation under /ucp/v1, through the typed client over the in-process exchange: the route
// authenticates, negotiates and refuses exactly as over REST. A tool's answer is the UCP payload
// (structuredContent, and as text); a protocol error is a JSON-RPC error whose data is UCP's
// `{code, content}`: -32001 for discovery, -32600 for a bad digest, -32603 internal, -32000 else.
// The request's Accept-Language goes with every call, and the tool server's own messages are
// written in it (else in the language the API answers in), as on /mcp.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Exchange, PortageClient } from '../client/index.ts';
import { negotiateLocale, t } from '../contract/i18n.ts';
import { localeOf } from '../http/errors.ts';
import { foreignOrigin, refuseBatch, refuseOrigin, sendResponse, webRequest } from './http.ts';

export interface UcpMcpOptions {
  /** An exchange that goes straight into the app (injectExchange), for the calls made for `outer`. */
  exchange: (outer: FastifyRequest) => Exchange;
  publicBaseUrl: string;
  /** Browser origins besides PUBLIC_BASE_URL's that may call it (as for /mcp). */
  allowedOrigins?: readonly string[];
}

export function ucpMcpRoutes(options: UcpMcpOptions) {
  const origin = new URL(options.publicBaseUrl).origin;
  const allowedOrigins = new Set([origin, ...(options.allowedOrigins ?? [])]);
  let loading: Promise<McpHttpHandler> | undefined;
  const handler = () =>
    (loading ??= (async () => {
      // The SDK and the tool server load at the first request to /ucp/mcp, not at start.
      const [{ createMcpHandler }, { createUcpToolServer }] = await Promise.all([
        import('@modelcontextprotocol/server'),
        import('./ucp-tools.ts'),
      ]);
      return createMcpHandler(
        ({ authInfo }) => {
          const extra = authInfo?.extra as { client: PortageClient; log: FastifyRequest['log'] } | undefined;
          if (!extra) throw new Error('/ucp/mcp served without a credential');
          return createUcpToolServer(extra.client, (m) => extra.log.error(m.trimEnd()));
        },
        { legacy: 'stateless' },
      );
    })());

  return async (app: FastifyInstance) => {
    app.addHook('onClose', async () => {
      if (loading) await (await loading).close();
    });
    app.route({
      method: ['POST', 'GET', 'DELETE'],
      url: '/ucp/mcp',
      // The credential is checked by each tool's REST call (the route's own rules); /ucp/mcp
      // only needs one to forward.
      config: { auth: 'public', limit: 'acp', otherFormat: true },
      bodyLimit: 64 * 1024,
      schema: {
        tags: ['ucp'],
        summary:
          "UCP's MCP binding (Streamable HTTP): checkout and order tools, a platform's key or a linked token",
      },
      handler: async (req, reply) => {
        if (foreignOrigin(req, allowedOrigins)) return refuseOrigin(req, reply);
        const apiKey = req.headers['x-api-key'];
        const token =
          req.headers.authorization?.match(/^Bearer +([A-Za-z0-9._~+/=-]+)$/i)?.[1] ??
          (typeof apiKey === 'string' && /^[\x21-\x7e]{1,200}$/.test(apiKey) ? apiKey : undefined);
        if (!token) {
          return reply
            .code(401)
            .header('www-authenticate', 'Bearer realm="ucp"')
            .send({ code: 'unauthorized', content: t(localeOf(req), 'tool.ucp.noCredential') });
        }
        if (Array.isArray(req.body)) return refuseBatch(reply, localeOf(req));
        const client = new PortageClient({
          baseUrl: origin,
          token,
          exchange: options.exchange(req),
          refresh: false,
          maxRetries: 0,
          // Only a language asked for: without one, the route's (a linked person's saved one).
          locale: negotiateLocale(req.headers['accept-language']),
        });
        const served = await handler();
        const response = await served.fetch(webRequest(req, origin), {
          authInfo: { token, clientId: 'ucp', scopes: [], extra: { client, log: req.log } },
          parsedBody: req.body,
        });
        return sendResponse(reply, response);
      },
    });
  };
}
