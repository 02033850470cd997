// The agent tools (docs/api.md "Agent tools"): one
// declarative list from which the tool server, the discovery documents
// (/.well-known/mcp.json, /llms.txt) and the README table are made.
// Inputs are exactly the spec's (names, required fields, ranges, defaults).
// Tool names and descriptions, argument, field and enum names stay English: read by the model, not a person.
import { z } from 'zod';
import { analyticsAnswer, analyticsQuery } from './analytics.ts';
import {
  addToCartAnswer,
  applyCouponAnswer,
  cart,
  inventoryAnswer,
  MAX_QUANTITY,
  removeFromCartAnswer,
  setCartQuantityBody,
} from './cart.ts';
import { productDetail, searchQuery, searchResult } from './catalog.ts';
import { checkoutSession, createCheckoutBody } from './checkout.ts';
import { cancelOrderAnswer, ORDER_STATUSES, orderDetail, orderList } from './orders.ts';
import { requestReturnBody, returnRequest } from './returns.ts';
import { review, submitReviewBody } from './reviews.ts';
import type { AgentScope } from './scopes.ts';

export const TOOL_SERVER = {
  name: 'portage',
  title: 'Portage marketplace',
  version: '1.0.0',
  description:
    'Shop the Portage Canadian marketplace for one signed-in user: search products, inspect them, ' +
    'check stock, fill the cart, apply coupons, check out (the person pays on the page at sessionUrl), ' +
    'follow or cancel orders, return what was delivered and review products; an admin also reads the ' +
    "platform's figures. Money is integer cents (CAD).",
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
    'and offset; page with offset. `filters` narrows by variant: option.<Name>:<v1>|<v2> (e.g. ' +
    'option.Size:M|L) and inStock:true|false, which hold together for one variant, so ' +
    '"option.Size:M,inStock:true" finds products whose M has a unit free.',
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
    // Beyond the interface's fields, as check_inventory's `variant`: the search API's own clauses.
    filters: searchQuery.shape.filters.describe(
      'More clauses of GET /search/products, ANDed with the fields above: `field:value` separated by ' +
        'commas, `a|b` is OR. option.<Name>:<value> (option.Size:M|L, the option as the seller named it, ' +
        'any case), inStock:true|false, sellerId, isDigital, isPerishable, rating (minimum). option.* and ' +
        'inStock hold together for one variant.',
    ),
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
    variant: z
      .string()
      .max(100)
      .optional()
      .describe('Variant id or SKU; optional for a product sold one way (get_product lists the variants)'),
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
    'With variant, only that variant’s line; without, every line of the product. Answers the updated cart.',
  input: z.object({
    product_id: productId,
    quantity: z.number().int().min(1).optional().describe('Units to remove (default: all)'),
    variant: z.string().max(100).optional().describe('Variant id or SKU: only that variant’s line'),
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

export const createCheckoutTool = tool({
  name: 'create_checkout',
  title: 'Create checkout',
  description:
    'Opens a checkout for the whole cart, shipped to shipping_address (Canada only: country CA, a province ' +
    'code, postal code "A1A 1A1" starting with the letter of its province, phone +1 and 10 digits). It ' +
    'prices each seller parcel with final shipping and tax, holds the stock for 30 minutes (until ' +
    'expiresAt) and answers the session; amounts are integer cents (CAD). Show sessionUrl to the person: ' +
    'they pay on that page. No order exists until they have paid; then list_orders shows one order per ' +
    "seller (the session's parcels). Safe to retry: a retry must reuse exactly the same input, and gets " +
    'the same session back; change the cart or the input and it is a new checkout. VALIDATION_ERROR ' +
    'names a bad address field; CONFLICT means an empty cart or stock that ran out.',
  input: createCheckoutBody,
  output: checkoutSession,
  annotations: write(true, false),
});

export const listOrdersTool = tool({
  name: 'list_orders',
  title: 'List orders',
  description:
    "The signed-in buyer's orders, newest first unless sort is oldest, optionally only those in one " +
    'status; paged with limit and offset. Each has its status, totalAmountCents (integer cents, CAD), ' +
    'itemCount and estimatedDelivery. An order appears only once its checkout was paid (one order per ' +
    'seller). Use get_order for the details.',
  input: z.object({
    status: z.enum(ORDER_STATUSES).optional().describe('Only orders in this status'),
    limit: z.number().int().min(1).max(100).default(20).describe('Orders per page, 1-100'),
    offset: z.number().int().min(0).default(0).describe('Orders to skip'),
    sort: z.enum(['newest', 'oldest']).default('newest').describe('By creation date'),
  }),
  output: orderList,
  annotations: read,
});

const orderId = z.string().min(1).describe('Order id, `orders:<key>` (from list_orders)');

export const getOrderTool = tool({
  name: 'get_order',
  title: 'Get order',
  description:
    'One order of the signed-in user in detail: status, items, amounts in integer cents (CAD: subtotal, ' +
    'discount, shipping, tax with its lines, total, refunded), shipping address, tracking number and ' +
    'dates. An order that has not shipped can be cancelled with cancel_order (full refund); after ' +
    "shipping, use request_return. NOT_FOUND for an unknown id or another user's order.",
  input: z.object({ id: orderId }),
  output: orderDetail,
  annotations: read,
});

export const cancelOrderTool = tool({
  name: 'cancel_order',
  title: 'Cancel order',
  description:
    'Cancels an order of the signed-in user that has not shipped yet (pending or confirmed) and refunds ' +
    'it in full to the original payment; its units go back to stock. Cannot be undone: confirm with the ' +
    'person first. Answers the cancelled order with refund_amount_cents (integer cents, CAD). A shipped or ' +
    'delivered order cannot be cancelled (CONFLICT): use request_return instead. NOT_FOUND for an unknown ' +
    "id or another user's order.",
  input: z.object({
    order_id: orderId,
    reason: z.string().trim().max(500).optional().describe('Why, in a few words (kept with the order)'),
  }),
  output: cancelOrderAnswer,
  annotations: write(false, true),
});

export const requestReturnTool = tool({
  name: 'request_return',
  title: 'Request return',
  description:
    'Asks to return a delivered order of the signed-in buyer, or some of its products (items), within 30 ' +
    'days of delivery. Answers the return request: status pending, window_closes_at, and ' +
    'estimated_refund_amount_cents (integer cents, CAD: the items and their tax; shipping only when the ' +
    'whole order goes back). The seller reviews it within 2 business days; an approval refunds the original ' +
    'payment. CONFLICT when the order is not delivered, the return window has closed, a return of the order ' +
    "is already open, or nothing is left to refund; NOT_FOUND for an unknown id or another user's order.",
  input: requestReturnBody,
  output: returnRequest,
  annotations: write(false, false),
});

export const submitReviewTool = tool({
  name: 'submit_review',
  title: 'Submit review',
  description:
    "Writes the signed-in buyer's review of a product: rating 1-5 (whole stars), optional title and " +
    "comment. Pass order_id (the buyer's paid order containing the product) to mark it a verified " +
    'purchase. One review per product: a second is CONFLICT. A review whose text contains a link waits for ' +
    'moderation (published false) before it is shown or counted in the rating. NOT_FOUND for an unknown ' +
    'product.',
  input: submitReviewBody,
  output: review,
  annotations: write(false, false),
});

export const getAnalyticsTool = tool({
  name: 'get_analytics',
  title: 'Get analytics',
  description:
    "The platform's sales figures for a window of days in America/Toronto (admins only; anyone else gets " +
    'AUTHZ_ERROR): revenue of paid, not-cancelled orders net of refunds, orders, average order value and ' +
    'items sold (integer cents, CAD), the top 10 products and sellers by revenue, the conversion rate ' +
    '(paid checkout sessions over created ones, 0 to 1), and new and returning customers. Choose the window ' +
    'by period (ending today) or by start_date and end_date (inclusive); start after end is VALIDATION_ERROR.',
  input: analyticsQuery,
  output: analyticsAnswer,
  annotations: read,
});

// ---- app-only tools: called by the views (src/mcp/views.ts), never listed to a model ----------

export const setCartQuantityTool = tool({
  name: 'set_cart_quantity',
  title: 'Set a cart quantity',
  description:
    "Sets the quantity of a product in the signed-in buyer's cart, 0 removing it; answers the cart. " +
    "Called by the cart view's buttons.",
  input: z.object({
    product_id: productId,
    quantity: setCartQuantityBody.shape.quantity,
  }),
  output: cart,
  annotations: write(true, false),
});

export const getCheckoutTool = tool({
  name: 'get_checkout',
  title: 'Get a checkout session',
  description:
    'A checkout session as create_checkout answered it, now: its status and, once paid, its orders. ' +
    'Called by the checkout view while the person pays.',
  input: z.object({ session_id: z.string().min(1).max(100).describe('sessionId from create_checkout') }),
  output: checkoutSession,
  annotations: read,
});

/** The tools only the views call (MCP Apps visibility "app"): listed to hosts that show views. */
export const APP_TOOLS: Tool[] = [setCartQuantityTool, getCheckoutTool] as Tool[];

export const TOOLS: Tool[] = [
  searchProductsTool,
  getProductTool,
  checkInventoryTool,
  addToCartTool,
  removeFromCartTool,
  getCartTool,
  applyCouponTool,
  createCheckoutTool,
  listOrdersTool,
  getOrderTool,
  cancelOrderTool,
  requestReturnTool,
  submitReviewTool,
  getAnalyticsTool,
] as Tool[];

/**
 * The scope an agent's token needs for each tool (docs/api.md "Remote agents");
 * the routes behind each tool name the same scope (config.scope).
 */
export const TOOL_SCOPES: Record<string, AgentScope> = {
  search_products: 'shop',
  get_product: 'shop',
  check_inventory: 'shop',
  add_to_cart: 'shop',
  remove_from_cart: 'shop',
  get_cart: 'shop',
  set_cart_quantity: 'shop',
  get_checkout: 'shop',
  apply_coupon: 'shop',
  create_checkout: 'shop',
  list_orders: 'orders',
  get_order: 'orders',
  cancel_order: 'orders',
  request_return: 'orders',
  submit_review: 'orders',
  get_analytics: 'analytics',
};

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
