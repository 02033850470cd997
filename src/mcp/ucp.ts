// `POST /ucp/mcp`: UCP's MCP binding (docs/ucp.md "MCP binding"), on an endpoint of its own so
// that its tool names (create_checkout, get_order, ...) never meet Portage's own on /mcp.
// Stateless Streamable HTTP, both protocol eras, as /mcp. The caller's credential (a platform's
// key as X-API-Key or Bearer, or a linked person's token) goes with every tool's call of its
// REST operation under /ucp/v1, through the typed client over the in-process fetch: the route
// authenticates, negotiates and refuses exactly as over REST. A tool's answer is the UCP payload
// (structuredContent, and as text); a protocol error is a JSON-RPC error whose data is UCP's
// `{code, content}`: -32001 for discovery, -32600 for a bad digest, -32603 internal, -32000 else.
import {
  type CallToolResult,
  type ListToolsResult,
  type McpHttpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PortageClient, UcpApiError, type UcpRequestMeta } from '../client/index.ts';
import { inputProblems } from '../contract/errors.ts';
import { TOOL_SERVER, toolJsonSchemas } from '../contract/tools.ts';
import { UCP_TOOLS, type UcpTool } from '../contract/ucp-tools.ts';
import { foreignOrigin, refuseOrigin, webRequest } from './http.ts';

export interface UcpMcpOptions {
  /** A fetch that goes straight into the app (injectFetch), for the calls made for `outer`. */
  fetch: (outer: FastifyRequest) => typeof fetch;
  publicBaseUrl: string;
  /** Browser origins besides PUBLIC_BASE_URL's that may call it (as for /mcp). */
  allowedOrigins?: readonly string[];
}

const DISCOVERY = new Set([
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
]);
const MALFORMED = new Set(['digest_mismatch', 'algorithm_unsupported']);

/** The JSON-RPC code of a UCP protocol error, as the binding maps them. */
const rpcCode = (err: UcpApiError) =>
  DISCOVERY.has(err.body.code)
    ? -32001
    : MALFORMED.has(err.body.code)
      ? -32600
      : err.statusCode >= 500 && err.statusCode !== 503
        ? -32603
        : -32000;

// Without output schemas: each is UCP's checkout or order, large JSON Schemas every agent's
// context would repeat (the answers are still those schemas').
const TOOL_LIST = UCP_TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: toolJsonSchemas(t).inputSchema,
  annotations: { title: t.title, ...t.annotations },
})) as ListToolsResult['tools'];

type Args = { meta: UcpRequestMeta; id?: string; checkout?: unknown; catalog?: unknown };

const CALLS: Record<UcpTool['operation'], (c: PortageClient, a: Args) => Promise<Record<string, unknown>>> = {
  create: (c, a) => c.createUcpCheckout(a.checkout, a.meta),
  get: (c, a) => c.getUcpCheckout(a.id!, a.meta),
  update: (c, a) => c.updateUcpCheckout(a.id!, a.checkout, a.meta),
  complete: (c, a) => c.completeUcpCheckout(a.id!, a.checkout, a.meta),
  cancel: (c, a) => c.cancelUcpCheckout(a.id!, a.meta),
  get_order: (c, a) => c.getUcpOrder(a.id!, a.meta),
  search: (c, a) => c.ucpCatalog('search', a.catalog, a.meta),
  lookup: (c, a) => c.ucpCatalog('lookup', a.catalog, a.meta),
  product: (c, a) => c.ucpCatalog('product', a.catalog, a.meta),
};

/** A server acting through `client` (the caller's credential). */
export function createUcpToolServer(client: PortageClient, logError: (message: string) => void): Server {
  const server = new Server(
    { name: `${TOOL_SERVER.name}-ucp`, title: `${TOOL_SERVER.title} (UCP)`, version: TOOL_SERVER.version },
    { capabilities: { tools: {} }, instructions: "UCP's shopping tools: checkout sessions and orders." },
  );
  const byName = new Map(UCP_TOOLS.map((t) => [t.name, t]));
  const mask = (text: string) => client.maskCredentials(text);
  server.setRequestHandler('tools/list', async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${mask(request.params.name.slice(0, 100))}; tools/list names the ${UCP_TOOLS.length} tools`,
      );
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const details = inputProblems(tool.input, parsed.error);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        mask(
          `Invalid arguments for ${tool.name}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
        ),
      );
    }
    try {
      const payload = await CALLS[tool.operation](client, parsed.data as Args);
      return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
    } catch (err) {
      if (err instanceof UcpApiError) throw new ProtocolError(rpcCode(err), err.body.content, err.body);
      logError(mask(`ucp mcp: ${tool.name} failed: ${(err as Error)?.stack ?? err}\n`));
      throw new ProtocolError(-32603, 'Internal error in the tool server', {
        code: 'internal_error',
        content: 'Internal error in the tool server',
      });
    }
  });
  return server;
}

export function ucpMcpRoutes(options: UcpMcpOptions) {
  const origin = new URL(options.publicBaseUrl).origin;
  const allowedOrigins = new Set([origin, ...(options.allowedOrigins ?? [])]);
  let loading: Promise<McpHttpHandler> | undefined;
  const handler = () =>
    (loading ??= (async () => {
      const { createMcpHandler } = await import('@modelcontextprotocol/server');
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
            .send({ code: 'unauthorized', content: "Send the platform's key (X-API-Key) or a linked token" });
        }
        if (Array.isArray(req.body)) {
          return reply.code(400).send({
            jsonrpc: '2.0',
            id: null,
            error: {
              code: -32600,
              message: 'Invalid Request: batches are not supported; send one message per POST',
            },
          });
        }
        const client = new PortageClient({
          baseUrl: origin,
          token,
          fetch: options.fetch(req),
          refresh: false,
          maxRetries: 0,
        });
        const served = await handler();
        const response = await served.fetch(webRequest(req, origin), {
          authInfo: { token, clientId: 'ucp', scopes: [], extra: { client, log: req.log } },
          parsedBody: req.body,
        });
        return reply.send(response);
      },
    });
  };
}
