// The tools of UCP v2026-04-08's MCP binding (docs/ucp.md "MCP binding"), one per REST
// operation under /ucp/v1: the checkout's five and the order's one. Their arguments are the
// binding's: `meta` (the platform's profile as `ucp-agent`, an `idempotency-key`), `id` for the
// resource in the path, `checkout` for the REST body, which the route checks with the same
// schemas as over REST. The answer is the UCP payload as `structuredContent`.
import { z } from 'zod';
import type { Tool, ToolAnnotations } from './tools.ts';
import {
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
} from './ucp.ts';

/** The binding's `meta`: open (a later version may add fields); `ucp-agent.profile` required. */
export const ucpToolMeta = z
  .looseObject({
    'ucp-agent': z
      .looseObject({
        profile: z.string().min(1).max(2000).describe("The platform's profile URL (sent as UCP-Agent)"),
      })
      .describe('Who the platform is: its profile'),
    'idempotency-key': z
      .string()
      .regex(/^[\x20-\x7e]{1,255}$/, 'validation.idempotencyKey')
      .optional()
      .describe('Sent as Idempotency-Key; without it a key is derived from the call itself'),
  })
  .describe('Protocol metadata: the UCP headers of REST as fields');

const resourceId = (what: string) => z.string().min(1).max(100).describe(what);
const checkoutId = resourceId('The checkout session id, `ucp_cs_…` (from create_checkout)');

const annotations = (readOnly: boolean, destructive: boolean): ToolAnnotations => ({
  readOnlyHint: readOnly,
  idempotentHint: true,
  destructiveHint: destructive,
  openWorldHint: false,
});

const answer = z.union([ucpCheckout, ucpErrorResponse]);
const OUTCOMES =
  'The answer (structuredContent) is the checkout, or a business outcome with ucp.status "error" and ' +
  'messages; a protocol failure is a JSON-RPC error whose data is {code, content}.';

export interface UcpTool extends Tool<z.ZodObject, z.ZodType> {
  /** The REST call it makes. */
  operation:
    | 'create'
    | 'get'
    | 'update'
    | 'complete'
    | 'cancel'
    | 'get_order'
    | 'search'
    | 'lookup'
    | 'product';
}

const tool = (t: Omit<UcpTool, 'output'> & { output?: z.ZodType }): UcpTool =>
  ({ output: answer, ...t }) as UcpTool;

export const UCP_TOOLS: readonly UcpTool[] = [
  tool({
    name: 'create_checkout',
    title: 'Create a checkout',
    description: `Creates a checkout session from line items (product ids), the buyer and the shipping destination. ${OUTCOMES}`,
    input: z.strictObject({ meta: ucpToolMeta, checkout: ucpCheckoutCreateRequest }),
    annotations: annotations(false, false),
    operation: 'create',
  }),
  tool({
    name: 'get_checkout',
    title: 'Get a checkout',
    description: `The checkout session as it is now. ${OUTCOMES}`,
    input: z.strictObject({ meta: ucpToolMeta, id: checkoutId }),
    annotations: annotations(true, false),
    operation: 'get',
  }),
  tool({
    name: 'update_checkout',
    title: 'Update a checkout',
    description: `Replaces the checkout's line items, buyer, fulfillment and discount codes, and quotes it again. ${OUTCOMES}`,
    input: z.strictObject({ meta: ucpToolMeta, id: checkoutId, checkout: ucpCheckoutUpdateRequest }),
    annotations: annotations(false, false),
    operation: 'update',
  }),
  tool({
    name: 'complete_checkout',
    title: 'Complete a checkout',
    description: `Pays the checkout with a payment instrument's token (a payment handler of the business). ${OUTCOMES}`,
    input: z.strictObject({ meta: ucpToolMeta, id: checkoutId, checkout: ucpCheckoutCompleteRequest }),
    annotations: annotations(false, true),
    operation: 'complete',
  }),
  tool({
    name: 'cancel_checkout',
    title: 'Cancel a checkout',
    description: `Cancels the checkout; its held stock goes back at once. ${OUTCOMES}`,
    input: z.strictObject({ meta: ucpToolMeta, id: checkoutId }),
    annotations: annotations(false, true),
    operation: 'cancel',
  }),
  tool({
    name: 'get_order',
    title: 'Get an order',
    description:
      'The order a completed checkout became: lines, fulfillment expectations and events, adjustments, totals. ' +
      'A business outcome with ucp.status "error" when it is not found.',
    input: z.strictObject({ meta: ucpToolMeta, id: resourceId('The order id, `order_…`') }),
    output: z.union([ucpOrder, ucpErrorResponse]),
    annotations: annotations(true, false),
    operation: 'get_order',
  }),
  tool({
    name: 'search_catalog',
    title: 'Search the catalog',
    description:
      'Searches products by words and filters (categories, a price range in cents); pages with pagination.cursor. ' +
      "Each product lists its variants on sale, each variant's id what a checkout line item takes.",
    input: z.strictObject({ meta: ucpToolMeta, catalog: ucpCatalogSearchRequest }),
    output: z.union([ucpCatalogSearchResponse, ucpErrorResponse]),
    annotations: annotations(true, false),
    operation: 'search',
  }),
  tool({
    name: 'lookup_catalog',
    title: 'Look products up',
    description:
      'Products by product or variant id (at most 50): a variant id answers that variant, a product id its featured one; ' +
      'ids not found are named in an info message.',
    input: z.strictObject({ meta: ucpToolMeta, catalog: ucpCatalogLookupRequest }),
    output: z.union([ucpCatalogLookupResponse, ucpErrorResponse]),
    annotations: annotations(true, false),
    operation: 'lookup',
  }),
  tool({
    name: 'get_product',
    title: 'Get a product',
    description:
      'One product by product or variant id (a variant id selects that variant); ' +
      'a business outcome with ucp.status "error" when it is not found.',
    input: z.strictObject({ meta: ucpToolMeta, catalog: ucpGetProductRequest }),
    output: z.union([ucpGetProductResponse, ucpErrorResponse]),
    annotations: annotations(true, false),
    operation: 'product',
  }),
];
