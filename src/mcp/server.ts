// The tool server: Model Context Protocol over stdio, acting for the one user whose token
// it is given. It reaches the service only over HTTP, through the typed client. Stdout
// carries protocol messages only; anything else goes to stderr.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { maskCredentials, maskErrorBody, maskUrl, PortageApiError, PortageClient } from '../client/index.ts';
import { categoryList } from '../contract/catalog.ts';
import type { ErrorBody } from '../contract/errors.ts';
import {
  addToCartTool,
  applyCouponTool,
  cancelOrderTool,
  checkInventoryTool,
  createCheckoutTool,
  getAnalyticsTool,
  getCartTool,
  getOrderTool,
  getProductTool,
  listOrdersTool,
  removeFromCartTool,
  requestReturnTool,
  searchProductsTool,
  submitReviewTool,
  TOOL_SERVER,
  TOOLS,
  type Tool,
  toolJsonSchemas,
} from '../contract/tools.ts';

type Handler<T extends Tool> = (
  client: PortageClient,
  input: z.output<T['input']>,
) => Promise<z.output<T['output']>>;

class ToolError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.error);
  }
}

/** What each tool does, over HTTP. */
const HANDLERS: Record<string, Handler<Tool>> = {
  [searchProductsTool.name]: (async (client, input: z.output<typeof searchProductsTool.input>) => {
    if (input.min_price !== undefined && input.max_price !== undefined && input.min_price > input.max_price) {
      throw new ToolError({
        error: `Bad price range: min_price ${input.min_price} is above max_price ${input.max_price}`,
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'min_price', message: 'must not exceed max_price' }],
      });
    }
    const filters: string[] = [];
    if (input.category) filters.push(`categoryId:${await categoryId(client, input.category)}`);
    if (input.min_price !== undefined || input.max_price !== undefined) {
      filters.push(`priceCents:${input.min_price ?? ''}..${input.max_price ?? ''}`);
    }
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
    client.checkInventory(input.product_id, input.quantity)) as Handler<Tool>,
  [addToCartTool.name]: ((client, input: z.output<typeof addToCartTool.input>) =>
    client.addToCart(input)) as Handler<Tool>,
  [removeFromCartTool.name]: ((client, input: z.output<typeof removeFromCartTool.input>) =>
    client.removeFromCart(input.product_id, input.quantity)) as Handler<Tool>,
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
};

/** `category` is an id or a slug (../shared/design/decisions.md, "Catalog and search"): a slug is looked up among the categories. */
async function categoryId(client: PortageClient, idOrSlug: string): Promise<string> {
  if (idOrSlug.startsWith('categories:')) return idOrSlug;
  const { categories } = await client.request('GET', '/categories', { schema: categoryList });
  const found = categories.find((c) => c.slug === idOrSlug.toLowerCase());
  if (!found) {
    throw new ToolError({
      error: `No category with the slug "${idOrSlug}"; known slugs: ${categories.map((c) => c.slug).join(', ')}`,
      code: 'NOT_FOUND',
      statusCode: 404,
    });
  }
  return found.id;
}

const success = (value: object): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});

export function createToolServer(client: PortageClient): Server {
  const server = new Server(
    { name: TOOL_SERVER.name, title: TOOL_SERVER.title, version: TOOL_SERVER.version },
    { capabilities: { tools: {} }, instructions: TOOL_SERVER.description },
  );
  const byName = new Map(TOOLS.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      ...toolJsonSchemas(t),
      annotations: { title: t.title, ...t.annotations },
    })),
  }));

  // Every failure leaves through here, masked (../shared/design/decisions.md, "Hardening":
  // no credential in a message).
  const mask = (text: string) => client.maskCredentials(text);
  const failure = (body: ErrorBody): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify(maskErrorBody(body, mask)) }],
    isError: true,
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return failure({
        error: `No tool named ${request.params.name}`,
        code: 'NOT_FOUND',
        statusCode: 404,
      } satisfies ErrorBody);
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => ({
        field: i.path.join('.') || 'input',
        message: i.message,
      }));
      return failure({
        error: `Invalid input for ${tool.name}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details,
      });
    }
    try {
      return success((await HANDLERS[tool.name]!(client, parsed.data)) as object);
    } catch (err) {
      if (err instanceof ToolError) return failure(err.body);
      if (err instanceof PortageApiError) return failure(err.toJSON());
      process.stderr.write(mask(`portage mcp: ${tool.name} failed: ${(err as Error)?.stack ?? err}\n`));
      return failure({ error: 'Internal error in the tool server', code: 'INTERNAL_ERROR', statusCode: 500 });
    }
  });
  return server;
}

export class ToolServerConfigError extends Error {
  override name = 'ToolServerConfigError';
}

/** `portage mcp`: configured only by SERVICE_URL and SERVICE_JWT_TOKEN. */
export async function runToolServer(env: Record<string, string | undefined> = process.env): Promise<void> {
  const missing = ['SERVICE_URL', 'SERVICE_JWT_TOKEN'].filter((k) => !env[k]?.trim());
  if (missing.length) {
    throw new ToolServerConfigError(
      `${missing.join(' and ')} must be set: SERVICE_URL is the service's base URL (e.g. https://portage.example), ` +
        'SERVICE_JWT_TOKEN the signed-in user token (POST /auth/login answers one)',
    );
  }
  const baseUrl = env.SERVICE_URL!.trim();
  const token = env.SERVICE_JWT_TOKEN!.trim();
  if (!URL.canParse(baseUrl) || !/^https?:/.test(baseUrl)) {
    const shown = maskCredentials(maskUrl(baseUrl), [token]);
    throw new ToolServerConfigError(`SERVICE_URL must be an http(s) URL; got "${shown}"`);
  }
  const client = new PortageClient({ baseUrl, token });
  const server = createToolServer(client);
  await server.connect(new StdioServerTransport());
}
