// The tool server itself: one tool list (src/contract/tools.ts) and one set of handlers, served
// by `portage mcp` over stdio (./server.ts) and by `POST /mcp` over Streamable HTTP (./http.ts).
// It acts for the one user whose token its client holds, and reaches the service only through
// the typed client (src/client): over the network from `portage mcp`, in process from /mcp.
// Built on the MCP SDK v2's low-level Server: the tool list and the JSON Schemas are ours
// (toolJsonSchemas), and so are input validation and the error JSON of a failed call.
// POST /mcp also serves the ACP binding's checkout tools (src/contract/acp-tools.ts), which
// answer as that binding says: the session as the result, ACP's error as a JSON-RPC error.
// Its own messages (a refused input, an unknown tool) are written in the person's language
// (client.messageLocale, docs/i18n.md); the API's come already written in it. To a host that
// shows MCP Apps views it also lists the app-only tools and answers with each view's HTML
// (./views.ts).
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import {
  AcpApiError,
  type AcpCancelSessionInput,
  type AcpCompleteSessionInput,
  type AcpCreateSessionInput,
  type AcpUpdateSessionInput,
  maskErrorBody,
  PortageApiError,
  type PortageClient,
} from '../client/index.ts';
import type { AcpError } from '../contract/acp.ts';
import {
  ACP_TOOLS,
  type AcpArguments,
  type AcpTool,
  acpEnvelope,
  cancelCheckoutSessionTool,
  completeCheckoutSessionTool,
  createCheckoutSessionTool,
  getCheckoutSessionTool,
  updateCheckoutSessionTool,
} from '../contract/acp-tools.ts';
import { categoryList } from '../contract/catalog.ts';
import { type ErrorBody, inputProblems, type Problem, wordProblems } from '../contract/errors.ts';
import { type Locale, negotiateLocale, t } from '../contract/i18n.ts';
import {
  APP_TOOLS,
  addToCartTool,
  applyCouponTool,
  cancelOrderTool,
  checkInventoryTool,
  createCheckoutTool,
  getAnalyticsTool,
  getCartTool,
  getCheckoutTool,
  getOrderTool,
  getProductTool,
  listOrdersTool,
  removeFromCartTool,
  requestReturnTool,
  searchProductsTool,
  setCartQuantityTool,
  submitReviewTool,
  TOOL_SERVER,
  TOOLS,
  type Tool,
  toolJsonSchemas,
} from '../contract/tools.ts';
import { inSpanFrom, SERVER_SPAN } from '../telemetry/tracing.ts';
import {
  readViewResource,
  renderView,
  showsViews,
  toolViewMeta,
  VIEW_META_KEY,
  viewResources,
} from './views.ts';

type Handler<T extends Tool> = (
  client: PortageClient,
  input: z.output<T['input']>,
) => Promise<z.output<T['output']>>;

/** "field message; field message" in `locale`, the problems' list of an error's sentence. */
const problemList = (locale: Locale, problems: Problem[]) =>
  wordProblems(locale, problems)
    .map((d) => `${d.field} ${d.message}`)
    .join('; ');

class ToolError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.error);
  }
}

/** What each tool does, over HTTP. */
const HANDLERS: Record<string, Handler<Tool>> = {
  [searchProductsTool.name]: (async (client, input: z.output<typeof searchProductsTool.input>) => {
    if (input.min_price !== undefined && input.max_price !== undefined && input.min_price > input.max_price) {
      const locale = client.messageLocale;
      throw new ToolError({
        // Cents as digits, as the input has them (not "5,000" nor "5 000").
        error: t(locale, 'tool.searchProducts.badPriceRange', {
          min: String(input.min_price),
          max: String(input.max_price),
        }),
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'min_price', message: t(locale, 'tool.searchProducts.minOverMax') }],
      });
    }
    const filters: string[] = [];
    if (input.category) filters.push(`categoryId:${await categoryId(client, input.category)}`);
    if (input.min_price !== undefined || input.max_price !== undefined) {
      filters.push(`priceCents:${input.min_price ?? ''}..${input.max_price ?? ''}`);
    }
    if (input.filters?.trim()) filters.push(input.filters);
    const found = await client.searchProducts({
      q: input.query,
      filters: filters.length ? filters.join(',') : undefined,
      sort: input.sort,
      limit: input.limit,
      offset: input.offset,
    });
    return { items: found.results, total: found.total, limit: found.limit, offset: found.offset };
  }) as Handler<Tool>,
  [getProductTool.name]: ((client, input: z.output<typeof getProductTool.input>) =>
    client.getProduct(input.id)) as Handler<Tool>,
  [checkInventoryTool.name]: ((client, input: z.output<typeof checkInventoryTool.input>) =>
    client.checkInventory(input.product_id, input.quantity, input.variant)) as Handler<Tool>,
  [addToCartTool.name]: ((client, input: z.output<typeof addToCartTool.input>) =>
    client.addToCart(input)) as Handler<Tool>,
  [removeFromCartTool.name]: ((client, input: z.output<typeof removeFromCartTool.input>) =>
    client.removeFromCart(input.product_id, input.quantity, input.variant)) as Handler<Tool>,
  [getCartTool.name]: ((client) => client.getCart()) as Handler<Tool>,
  [applyCouponTool.name]: ((client, input: z.output<typeof applyCouponTool.input>) =>
    client.applyCoupon(input.code)) as Handler<Tool>,
  // The client derives the Idempotency-Key from the user, this input and the cart as it is now
  // (src/client/idempotency.ts): an agent's retry of this call replays the same session.
  [createCheckoutTool.name]: ((client, input: z.output<typeof createCheckoutTool.input>) =>
    client.createCheckout(input)) as Handler<Tool>,
  [listOrdersTool.name]: ((client, input: z.output<typeof listOrdersTool.input>) =>
    client.listOrders(input)) as Handler<Tool>,
  [getOrderTool.name]: ((client, input: z.output<typeof getOrderTool.input>) =>
    client.getOrder(input.id)) as Handler<Tool>,
  [cancelOrderTool.name]: ((client, input: z.output<typeof cancelOrderTool.input>) =>
    client.cancelOrder(input.order_id, input.reason)) as Handler<Tool>,
  [requestReturnTool.name]: ((client, input: z.output<typeof requestReturnTool.input>) =>
    client.requestReturn(input)) as Handler<Tool>,
  [submitReviewTool.name]: ((client, input: z.output<typeof submitReviewTool.input>) =>
    client.submitReview(input)) as Handler<Tool>,
  [getAnalyticsTool.name]: ((client, input: z.output<typeof getAnalyticsTool.input>) =>
    client.getAnalytics(input)) as Handler<Tool>,
  [setCartQuantityTool.name]: ((client, input: z.output<typeof setCartQuantityTool.input>) =>
    client.setCartQuantity(input.product_id, input.quantity)) as Handler<Tool>,
  [getCheckoutTool.name]: ((client, input: z.output<typeof getCheckoutTool.input>) =>
    client.getCheckout(input.session_id)) as Handler<Tool>,
};

/** What each ACP tool does: its REST operation under /acp, through the client. */
const ACP_HANDLERS: Record<string, (client: PortageClient, args: AcpArguments) => Promise<object>> = {
  [createCheckoutSessionTool.name]: (client, a) =>
    client.createAcpSession(a.payload as AcpCreateSessionInput, a.meta),
  [getCheckoutSessionTool.name]: (client, a) => client.getAcpSession(a.id!, a.meta),
  [updateCheckoutSessionTool.name]: (client, a) =>
    client.updateAcpSession(a.id!, a.payload as AcpUpdateSessionInput, a.meta),
  [completeCheckoutSessionTool.name]: (client, a) =>
    client.completeAcpSession(a.id!, a.payload as AcpCompleteSessionInput, a.meta),
  [cancelCheckoutSessionTool.name]: (client, a) =>
    client.cancelAcpSession(a.id!, a.payload as AcpCancelSessionInput | undefined, a.meta),
};

/** The JSON-RPC code of every ACP error (the binding's "server error"; ACP's own is in data). */
const ACP_ERROR_CODE = -32000;

/** `category` is an id or a slug (docs/api.md "Agent tools"): a slug is looked up among the categories. */
async function categoryId(client: PortageClient, idOrSlug: string): Promise<string> {
  if (idOrSlug.startsWith('categories:')) return idOrSlug;
  const { categories } = await client.request('GET', '/categories', { schema: categoryList });
  const found = categories.find((c) => c.slug === idOrSlug.toLowerCase());
  if (!found) {
    throw new ToolError({
      error: t(client.messageLocale, 'tool.searchProducts.unknownCategory', {
        slug: idOrSlug,
        slugs: categories.map((c) => c.slug).join(', '),
      }),
      code: 'NOT_FOUND',
      statusCode: 404,
    });
  }
  return found.id;
}

export const success = (value: object): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});

export interface ToolServerOptions {
  /** Where a failure nobody expected is reported (never stdout under stdio); already masked. */
  logError?: (message: string) => void;
  /**
   * The ACP binding's checkout tools, listed after ours and served: for POST /mcp only (an
   * agent's token; `portage mcp` holds a login token, which the ACP routes refuse).
   */
  acp?: boolean;
  /**
   * The views (./views.ts): the origins their product images may come from (VIEW_IMAGE_ORIGINS),
   * and the service's public address their order links start with (the client's by default).
   */
  views?: { imageOrigins: readonly string[]; baseUrl?: string };
}

export const listed = (tools: readonly Tool[], withOutput = true, appOnly = false) =>
  tools.map((t) => {
    const { inputSchema, outputSchema } = toolJsonSchemas(t);
    const _meta = toolViewMeta(t.name, appOnly);
    return {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema,
      ...(withOutput && outputSchema ? { outputSchema } : {}),
      annotations: { title: t.title, ...t.annotations },
      ...(_meta ? { _meta } : {}),
    };
  }) as ListToolsResult['tools'];

/** The tools as MCP lists them, built once (toolJsonSchemas answers object schemas). */
const TOOL_LIST = listed(TOOLS);
const lists = new Map<string, ListToolsResult['tools']>();
/**
 * Portage's tools; the app-only ones after them for a host that shows views; then the ACP
 * binding's (each list built at its first use).
 */
// The ACP tools go without their output schema: each is the spec's CheckoutSession, 36 KB of
// JSON Schema that five tools would repeat in every agent's context (the answers are still it).
function toolList(views: boolean, acp: boolean): ListToolsResult['tools'] {
  const key = `${views}/${acp}`;
  let list = lists.get(key);
  if (!list) {
    list = [
      ...TOOL_LIST,
      ...(views ? listed(APP_TOOLS, true, true) : []),
      ...(acp ? listed(ACP_TOOLS, false) : []),
    ];
    lists.set(key, list);
  }
  return list;
}
const ACP_ENVELOPES = new Map(ACP_TOOLS.map((t) => [t.name, acpEnvelope(t)]));

/**
 * A server instance acting through `client`. The SDK's entries (serveStdio, createMcpHandler)
 * build one per connection or per request, from a factory calling this.
 */
export function createToolServer(client: PortageClient, options: ToolServerOptions = {}): Server {
  const logError = options.logError ?? ((message: string) => process.stderr.write(message));
  const server = new Server(
    { name: TOOL_SERVER.name, title: TOOL_SERVER.title, version: TOOL_SERVER.version },
    { capabilities: { tools: {}, resources: {} }, instructions: TOOL_SERVER.description },
  );
  const byName = new Map([...TOOLS, ...APP_TOOLS].map((t) => [t.name, t]));
  const acpByName = new Map(options.acp ? ACP_TOOLS.map((t) => [t.name, t]) : []);
  const imageOrigins = options.views?.imageOrigins ?? [];
  const links = { baseUrl: options.views?.baseUrl ?? client.baseUrl };
  // A host that shows views says so: a 2026-07-28 client in each request's envelope (the
  // handler's context), a 2025-era one at initialize. The app-only tools are listed to it alone;
  // views are rendered for it, and for a 2025-era client over stateless HTTP, which cannot say
  // (its initialize was another request).
  type Context = { mcpReq?: { envelope?: Record<string, unknown> } };
  const capabilities = (ctx: Context) =>
    (ctx.mcpReq?.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()) as Parameters<
      typeof showsViews
    >[0];
  const views = (ctx: Context) => showsViews(capabilities(ctx));
  const rendersViews = (ctx: Context) => {
    const declared = capabilities(ctx);
    return declared === undefined || showsViews(declared);
  };

  server.setRequestHandler('tools/list', async (_request, ctx) => ({
    tools: toolList(views(ctx), options.acp === true),
  }));

  server.setRequestHandler('resources/list', async () => ({ resources: viewResources(imageOrigins) }));
  server.setRequestHandler('resources/read', async (request) => {
    const found = readViewResource(request.params.uri, imageOrigins);
    if (!found) {
      const uri = request.params.uri.slice(0, 200);
      throw new ResourceNotFoundError(uri, t(localeNow(), 'tool.unknownResource', { uri }));
    }
    return found;
  });

  // Every failure leaves through here, masked (docs/decisions.md "Agents (MCP)":
  // no credential in a message).
  const mask = (text: string) => client.maskCredentials(text);
  const failure = (body: ErrorBody): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify(maskErrorBody(body, mask)) }],
    isError: true,
  });
  // The person's language: the MCP client's (the client's locale: Accept-Language of POST /mcp,
  // PORTAGE_LOCALE or LANG of `portage mcp`), else the one the API last answered in.
  const localeNow = () => client.messageLocale;

  /**
   * An ACP tool, as the binding answers it: malformed arguments are Invalid params (-32602);
   * ACP's error (the route's, or one made for a failure before it) is -32000 with it as data.
   */
  const callAcp = async (tool: AcpTool, args: unknown): Promise<CallToolResult> => {
    // A call's meta.accept_language is its own Accept-Language: ACP's errors, ours too, speak it.
    const asked = (args as { meta?: { accept_language?: unknown } } | undefined)?.meta?.accept_language;
    const locale = (typeof asked === 'string' && negotiateLocale(asked)) || localeNow();
    const parsed = ACP_ENVELOPES.get(tool.name)!.safeParse(args ?? {});
    if (!parsed.success) {
      const problems = inputProblems(tool.input, parsed.error);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        mask(t(locale, 'tool.invalidArguments', { tool: tool.name, list: problemList(locale, problems) })),
      );
    }
    let body: AcpError;
    try {
      return success(await ACP_HANDLERS[tool.name]!(client, parsed.data));
    } catch (err) {
      if (err instanceof AcpApiError) body = err.body;
      else {
        logError(mask(`portage mcp: ${tool.name} failed: ${(err as Error)?.stack ?? err}\n`));
        body = { type: 'processing_error', code: 'internal_error', message: t(locale, 'tool.internal') };
      }
    }
    throw new ProtocolError(ACP_ERROR_CODE, body.message, body);
  };

  // A call is a span, a child of the caller's `traceparent` in `_meta` when it sends one
  // (docs/operations.md "Traces"); the API calls it makes carry it on.
  server.setRequestHandler('tools/call', (request, ctx) => {
    const name = request.params.name;
    return inSpanFrom(
      request.params._meta,
      `tools/call ${byName.has(name) || acpByName.has(name) ? name : 'unknown'}`,
      () => callTool(request, ctx),
      {
        kind: SERVER_SPAN,
        attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name.slice(0, 100) },
      },
    );
  });
  const callTool = async (
    request: { params: { name: string; arguments?: unknown } },
    ctx: Context,
  ): Promise<CallToolResult> => {
    const acpTool = acpByName.get(request.params.name);
    if (acpTool) return callAcp(acpTool, request.params.arguments);
    const tool = byName.get(request.params.name);
    if (!tool) {
      // The spec's protocol error for an unknown tool (Invalid params), not a tool's result.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        t(localeNow(), 'tool.unknownTool', {
          name: mask(request.params.name.slice(0, 100)),
          count: String(toolList(views(ctx), options.acp === true).length),
        }),
      );
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const locale = localeNow();
      const problems = inputProblems(tool.input, parsed.error);
      return failure({
        error: t(locale, 'tool.invalidInput', { tool: tool.name, list: problemList(locale, problems) }),
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: wordProblems(locale, problems),
      });
    }
    try {
      const answer = success((await HANDLERS[tool.name]!(client, parsed.data)) as object);
      const view = rendersViews(ctx) && renderView(tool.name, answer.structuredContent!, localeNow(), links);
      return view ? { ...answer, _meta: { [VIEW_META_KEY]: view } } : answer;
    } catch (err) {
      if (err instanceof ToolError) return failure(err.body);
      if (err instanceof PortageApiError) return failure(err.toJSON());
      logError(mask(`portage mcp: ${tool.name} failed: ${(err as Error)?.stack ?? err}\n`));
      return failure({ error: t(localeNow(), 'tool.internal'), code: 'INTERNAL_ERROR', statusCode: 500 });
    }
  };
  return server;
}
