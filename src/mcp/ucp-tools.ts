// UCP's tool server (the binding's tools over the typed client), loaded by /ucp/mcp at its first
// request (./ucp.ts), as /mcp loads Portage's (./tools.ts): the SDK stays out of the start-up.
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { type PortageClient, UcpApiError, type UcpRequestMeta } from '../client/index.ts';
import { inputProblems, wordProblems } from '../contract/errors.ts';
import { t } from '../contract/i18n.ts';
import { TOOL_SERVER } from '../contract/tools.ts';
import { UCP_TOOLS, type UcpTool } from '../contract/ucp-tools.ts';
import { inSpanFrom, SERVER_SPAN } from '../telemetry/tracing.ts';
import { listed, success } from './tools.ts';

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
const TOOL_LIST = listed(UCP_TOOLS, false);
const BY_NAME = new Map(UCP_TOOLS.map((t) => [t.name, t]));

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
  const mask = (text: string) => client.maskCredentials(text);
  // Our own messages in the person's language (Accept-Language of POST /ucp/mcp, else the one
  // the API last answered in); UCP's come from the routes already written in it.
  const localeNow = () => client.messageLocale;
  server.setRequestHandler('tools/list', async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        t(localeNow(), 'tool.unknownTool', {
          name: mask(request.params.name.slice(0, 100)),
          count: String(UCP_TOOLS.length),
        }),
      );
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const locale = localeNow();
      const list = wordProblems(locale, inputProblems(tool.input, parsed.error))
        .map((d) => `${d.field} ${d.message}`)
        .join('; ');
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        mask(t(locale, 'tool.invalidArguments', { tool: tool.name, list })),
      );
    }
    try {
      // A span, a child of the caller's `traceparent` in `_meta` (docs/operations.md "Traces").
      const answer = await inSpanFrom(
        request.params._meta,
        `tools/call ${tool.name}`,
        () => CALLS[tool.operation](client, parsed.data as Args),
        { kind: SERVER_SPAN, attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool.name } },
      );
      return success(answer);
    } catch (err) {
      if (err instanceof UcpApiError) throw new ProtocolError(rpcCode(err), err.body.content, err.body);
      logError(mask(`ucp mcp: ${tool.name} failed: ${(err as Error)?.stack ?? err}\n`));
      const content = t(localeNow(), 'tool.internal');
      throw new ProtocolError(-32603, content, { code: 'internal_error', content });
    }
  });
  return server;
}
