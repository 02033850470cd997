// The agent tools (README "Agent tool server (MCP)"; ../shared/spec/interface.md 4.2): one
// declarative list from which the tool server, the discovery documents
// (/.well-known/mcp.json, /llms.txt) and the README table are made.
// Inputs are exactly the spec's (names, required fields, ranges, defaults).
import { z } from 'zod';
import {
  addToCartAnswer,
  applyCouponAnswer,
  cart,
  inventoryAnswer,
  MAX_QUANTITY,
  removeFromCartAnswer,
} from './cart.ts';
import { productDetail, searchResult } from './catalog.ts';

export const TOOL_SERVER = {
  name: 'portage',
  title: 'Portage marketplace',
  version: '1.0.0',
  description:
    'Shop the Portage Canadian marketplace for one signed-in user: search products, inspect them, ' +
    'check stock, fill the cart and apply coupons. Money is integer cents (CAD).',
} as const;

export interface ToolAnnotations {
  readOnlyHint: boolean;
  idempotentHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
}

const read: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
};
const write = (idempotent: boolean, destructive: boolean): ToolAnnotations => ({
  readOnlyHint: false,
  idempotentHint: idempotent,
  destructiveHint: destructive,
  openWorldHint: false,
});

const productId = z.string().describe('Product id, `products:<key>` (from search_products or get_product)');
const cents = (what: string) => z.number().int().min(0).describe(`${what}, in integer cents (CAD)`);

const tool = <I extends z.ZodObject, O extends z.ZodType>(t: Tool<I, O>) => t;

export const searchProductsTool = tool({
  name: 'search_products',
  title: 'Search products',
  description:
    'Full-text search of active products by title, description and keywords (English stemming; the last ' +
    'word matches as a prefix). Filters combine with AND. Use it to find products before get_product or ' +
    'add_to_cart. Prices are integer cents (CAD): 2599 is $25.99. Answers a page of items with total, limit ' +
    'and offset; page with offset.',
  input: z.object({
    query: z.string().min(1).max(200).describe('What to look for, e.g. "maple syrup"'),
    category: z
      .string()
      .max(200)
      .optional()
      .describe('Category id (`categories:<key>`) or slug (e.g. "outdoors")'),
    min_price: cents('Lowest price').optional(),
    max_price: cents('Highest price').optional(),
    sort: z.enum(['price_asc', 'price_desc', 'newest', 'popular']).optional().describe('Default: relevance'),
    limit: z.number().int().min(1).max(100).default(20).describe('Results per page, 1-100'),
    offset: z.number().int().min(0).default(0).describe('Results to skip'),
  }),
  output: z.object({
    items: z.array(searchResult),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  annotations: read,
});

export const getProductTool = tool({
  name: 'get_product',
  title: 'Get product details',
  description:
    'Everything about one product: price (integer cents, CAD), stock, images, seller with rating, ' +
    'specifications and the newest reviews. Use the id from search_products.',
  input: z.object({ id: productId }),
  output: productDetail,
  annotations: read,
});

export const checkInventoryTool = tool({
  name: 'check_inventory',
  title: 'Check inventory',
  description:
    'Whether a quantity of a product can be bought now (stock less units held by open checkouts). ' +
    'Use before add_to_cart when quantities matter.',
  input: z.object({
    product_id: productId,
    quantity: z.number().int().min(1).default(1).describe('Units wanted'),
  }),
  output: inventoryAnswer,
  annotations: read,
});

export const addToCartTool = tool({
  name: 'add_to_cart',
  title: 'Add to cart',
  description:
    `Adds units of a product to the signed-in buyer's cart (at most ${MAX_QUANTITY} of one product, 50 ` +
    'products). Fails with CONFLICT when fewer units are available, saying how many. Answers the cart ' +
    'with its estimate (integer cents).',
  input: z.object({
    product_id: productId,
    quantity: z.number().int().min(1).describe('Units to add, at least 1'),
    variant: z.string().max(100).optional().describe('Variant or SKU, if the product has them'),
  }),
  output: addToCartAnswer,
  annotations: write(false, false),
});

export const removeFromCartTool = tool({
  name: 'remove_from_cart',
  title: 'Remove from cart',
  description:
    'Removes units of a product from the cart: the given quantity, or all of them when quantity is absent. ' +
    'Answers the updated cart.',
  input: z.object({
    product_id: productId,
    quantity: z.number().int().min(1).optional().describe('Units to remove (default: all)'),
  }),
  output: removeFromCartAnswer,
  annotations: write(false, true),
});

export const getCartTool = tool({
  name: 'get_cart',
  title: 'Get cart',
  description:
    'The cart: items, subtotal, coupon discount, estimated shipping and tax (for the province named in ' +
    'taxProvince) and total, all integer cents (CAD). Final shipping and tax come at checkout.',
  input: z.object({}),
  output: cart,
  annotations: read,
});

export const applyCouponTool = tool({
  name: 'apply_coupon',
  title: 'Apply coupon',
  description:
    'Applies a coupon code (any case) to the cart. NOT_FOUND for an unknown code; CONFLICT when it expired, ' +
    'was used up, or the cart is below its minimum (the message says which). Answers the discount and the ' +
    'new total in integer cents.',
  input: z.object({ code: z.string().min(1).max(40).describe('The coupon code, e.g. "WELCOME10"') }),
  output: applyCouponAnswer,
  annotations: write(true, false),
});

export const TOOLS: Tool[] = [
  searchProductsTool,
  getProductTool,
  checkInventoryTool,
  addToCartTool,
  removeFromCartTool,
  getCartTool,
  applyCouponTool,
] as Tool[];

/** JSON Schemas (draft 7) of a tool's input and output, as MCP lists them. */
export function toolJsonSchemas(t: Tool) {
  const opts = { target: 'draft-7', unrepresentable: 'any', reused: 'inline' } as const;
  // MCP wants an object schema at the top: a named (meta id) schema comes out as a $ref to
  // its definition, which is lifted back to the top.
  const topLevel = (schema: Record<string, unknown>) => {
    const {
      $schema: _,
      $ref,
      definitions,
      ...rest
    } = schema as {
      $schema?: string;
      $ref?: string;
      definitions?: Record<string, Record<string, unknown>>;
    };
    const name = $ref?.replace('#/definitions/', '');
    if (!name || !definitions?.[name]) return schema.$schema ? { ...rest, $ref, definitions } : schema;
    const { [name]: top, ...others } = definitions;
    return { ...top, ...(Object.keys(others).length ? { definitions: others } : {}) };
  };
  return {
    inputSchema: topLevel(z.toJSONSchema(t.input, { ...opts, io: 'input' }) as Record<string, unknown>),
    outputSchema: topLevel(z.toJSONSchema(t.output, { ...opts, io: 'output' }) as Record<string, unknown>),
  };
}

/** The README's tool table. */
export function toolsMarkdownTable(): string {
  const rows = TOOLS.map((t) => {
    const shape = t.input.shape as Record<string, z.ZodType>;
    const inputs = Object.entries(shape)
      .map(([k, v]) => (v.safeParse(undefined).success ? `\`${k}\`` : `\`${k}\`*`))
      .join(', ');
    const kind = t.annotations.readOnlyHint
      ? 'read'
      : t.annotations.destructiveHint
        ? 'write, destructive'
        : 'write';
    return `| \`${t.name}\` | ${inputs || '(none)'} | ${kind} | ${t.title} |`;
  });
  return ['| tool | input (* required) | kind | what |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
