// The UCP v2026-04-08 wire schemas against realistic bodies of ours (CAD in cents, an Ontario address, a
// catalog product with a single variant that carries the product's id): each parses its example, keeps an
// unknown field where the spec leaves the object open (refuses it on the closed error response), and
// refuses a missing required field, a value outside an enum (where the schema has one) and a fractional
// amount; then the request/response views and the spec's cross-field rules.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  UCP_CHECKOUT_STATUSES,
  UCP_VERSION,
  ucpAppliedDiscount,
  ucpBusinessProfile,
  ucpCatalogLookupRequest,
  ucpCatalogLookupResponse,
  ucpCatalogSearchRequest,
  ucpCatalogSearchResponse,
  ucpCheckout,
  ucpCheckoutCompleteRequest,
  ucpCheckoutCreateRequest,
  ucpCheckoutUpdateRequest,
  ucpContext,
  ucpDerivedLineItemStatus,
  ucpDetailOptionValue,
  ucpErrorResponse,
  ucpFulfillmentCreate,
  ucpFulfillmentDestination,
  ucpFulfillmentUpdate,
  ucpGetProductRequest,
  ucpGetProductResponse,
  ucpLineTotals,
  ucpMcpMeta,
  ucpMedia,
  ucpMessage,
  ucpOrder,
  ucpOrderLineItem,
  ucpPagination,
  ucpPaymentInstrument,
  ucpPaymentResponse,
  ucpPlatformProfile,
  ucpPrice,
  ucpPriceRange,
  ucpProduct,
  ucpProtocolError,
  ucpRating,
  ucpResponseCatalogMeta,
  ucpResponseCheckoutMeta,
  ucpServiceEntry,
  ucpSignals,
  ucpSigningKey,
  ucpTotal,
  ucpTotals,
  ucpVariant,
  ucpVersion,
} from '../src/contract/ucp.ts';

const PRODUCT = 'products:6aJd0Xq2bTfR1vYc9LmN';
const CHECKOUT = 'checkouts:Hq3Zt8VwYb2Kp0LxRm5N';
const ORDER = 'orders:Tn4Bc7Qe1Wd9Ys2Gj6Lk';
const PLATFORM_PROFILE = 'https://agent.example/profiles/shopping-agent.json';

const address = {
  first_name: 'Amélie',
  last_name: 'Tremblay',
  street_address: '290 Bremner Blvd',
  extended_address: 'Unit 1204',
  address_locality: 'Toronto',
  address_region: 'ON',
  address_country: 'CA',
  postal_code: 'M5V 2T6',
  phone_number: '+14165550123',
};
const buyer = {
  first_name: 'Amélie',
  last_name: 'Tremblay',
  email: 'amelie.tremblay@example.ca',
  phone_number: '+14165550123',
  consent: { marketing: false, analytics: true },
};
const context = { address_country: 'CA', address_region: 'ON', postal_code: 'M5V', language: 'en-CA' };
const signals = { 'dev.ucp.buyer_ip': '203.0.113.7', 'dev.ucp.user_agent': 'Mozilla/5.0 (Macintosh)' };
const attribution = { campaign_source: 'newsletter', campaign_id: 'printemps-2026' };

// Two bottles of syrup at $24.99 less 10 % (ERABLE10), shipping $9.99, HST 13 % split GST 5 % + ON 8 %.
const lineTotals = [
  { type: 'subtotal', amount: 4998 },
  { type: 'items_discount', amount: -500 },
  { type: 'total', amount: 4498 },
];
const totals = [
  { type: 'subtotal', display_text: 'Subtotal', amount: 4998 },
  { type: 'items_discount', display_text: 'ERABLE10', amount: -500 },
  { type: 'fulfillment', display_text: 'Shipping', amount: 999 },
  {
    type: 'tax',
    display_text: 'HST',
    amount: 715,
    lines: [
      { display_text: 'GST 5 %', amount: 275 },
      { display_text: 'Ontario 8 %', amount: 440 },
    ],
  },
  { type: 'total', display_text: 'Total', amount: 6212 },
];
const handlers = {
  'example.portage.test_card': [
    {
      id: 'portage_card',
      version: UCP_VERSION,
      available_instruments: [{ type: 'card', constraints: { brands: ['visa', 'mastercard'] } }],
      config: { environment: 'sandbox' },
    },
  ],
};
const checkoutMeta = {
  version: UCP_VERSION,
  capabilities: {
    'dev.ucp.shopping.checkout': [{ version: UCP_VERSION }],
    'dev.ucp.shopping.fulfillment': [{ version: UCP_VERSION }],
    'dev.ucp.shopping.discount': [{ version: UCP_VERSION }],
  },
  payment_handlers: handlers,
};

const createRequest = {
  line_items: [{ item: { id: PRODUCT }, quantity: 2 }],
  buyer,
  context,
  signals,
  attribution,
  fulfillment: { methods: [{ type: 'shipping', destinations: [address] }] },
  discounts: { codes: ['ERABLE10'] },
};
const updateRequest = {
  line_items: [{ id: 'li_1', item: { id: PRODUCT }, quantity: 2 }],
  buyer,
  fulfillment: {
    methods: [
      {
        id: 'fm_1',
        type: 'shipping',
        line_item_ids: ['li_1'],
        selected_destination_id: 'dest_1',
        groups: [{ id: 'grp_1', selected_option_id: 'canada_post_expedited' }],
      },
    ],
  },
  discounts: { codes: ['ERABLE10'] },
};
const instrument = {
  id: 'pi_1',
  handler_id: 'portage_card',
  type: 'card',
  selected: true,
  display: { brand: 'visa', last_digits: '4242', expiry_month: 11, expiry_year: 2028 },
  billing_address: address,
};
const completeRequest = {
  payment: { instruments: [{ ...instrument, credential: { type: 'token', token: 'tok_01J8Z3WXYZ9ABC' } }] },
  signals,
};

const checkout = {
  ucp: checkoutMeta,
  id: CHECKOUT,
  status: 'ready_for_complete',
  currency: 'CAD',
  buyer,
  context,
  line_items: [
    {
      id: 'li_1',
      item: {
        id: PRODUCT,
        title: 'Maple syrup, 1 L',
        price: 2499,
        image_url: 'https://portage.example/i/syrup.jpg',
      },
      quantity: 2,
      totals: lineTotals,
    },
  ],
  fulfillment: {
    methods: [
      {
        id: 'fm_1',
        type: 'shipping',
        line_item_ids: ['li_1'],
        destinations: [{ id: 'dest_1', ...address }],
        selected_destination_id: 'dest_1',
        groups: [
          {
            id: 'grp_1',
            line_item_ids: ['li_1'],
            options: [
              {
                id: 'canada_post_expedited',
                title: 'Canada Post Expedited',
                description: 'Arrives May 4–6',
                carrier: 'Canada Post',
                earliest_fulfillment_time: '2026-05-04T09:00:00-04:00',
                latest_fulfillment_time: '2026-05-06T17:00:00-04:00',
                totals: [{ type: 'total', amount: 999 }],
              },
              {
                id: 'canada_post_regular',
                title: 'Canada Post Regular Parcel',
                totals: [{ type: 'total', amount: 599 }],
              },
            ],
            selected_option_id: 'canada_post_expedited',
          },
        ],
      },
    ],
    available_methods: [
      { type: 'shipping', line_item_ids: ['li_1'], fulfillable_on: 'now' },
      { type: 'pickup', line_item_ids: ['li_1'], fulfillable_on: '2026-05-04', description: 'Queen West' },
    ],
  },
  discounts: {
    codes: ['ERABLE10'],
    applied: [
      {
        code: 'ERABLE10',
        title: '10 % off maple',
        amount: 500,
        method: 'each',
        allocations: [{ path: '$.line_items[0]', amount: 500 }],
      },
    ],
  },
  totals,
  messages: [
    { type: 'warning', code: 'final_sale', path: '$.line_items[0]', content: 'Food is final sale' },
    { type: 'info', code: 'free_shipping', content: 'Free shipping over $75' },
  ],
  links: [
    { type: 'terms_of_service', url: 'https://portage.example/terms' },
    { type: 'refund_policy', url: 'https://portage.example/returns', title: 'Returns' },
  ],
  expires_at: '2026-05-01T20:02:11Z',
  continue_url: `https://portage.example/checkout-sessions/${CHECKOUT}`,
  payment: { instruments: [instrument] },
};
const errorResponse = {
  ucp: { version: UCP_VERSION, status: 'error' },
  messages: [
    {
      type: 'error',
      code: 'out_of_stock',
      content: 'All requested items are currently out of stock',
      severity: 'unrecoverable',
    },
  ],
  continue_url: 'https://portage.example/cart',
};
const protocolError = {
  code: 'profile_unreachable',
  content: 'Unable to fetch agent profile: connection timeout',
  continue_url: 'https://portage.example/cart',
};
const order = {
  ucp: { version: UCP_VERSION, capabilities: { 'dev.ucp.shopping.order': [{ version: UCP_VERSION }] } },
  id: ORDER,
  label: 'PT-10482',
  checkout_id: CHECKOUT,
  permalink_url: 'https://portage.example/orders/PT-10482',
  line_items: [
    {
      id: 'li_1',
      item: { id: PRODUCT, title: 'Maple syrup, 1 L', price: 2499 },
      quantity: { original: 2, total: 2, fulfilled: 2 },
      totals: lineTotals,
      status: 'fulfilled',
    },
  ],
  fulfillment: {
    expectations: [
      {
        id: 'exp_1',
        line_items: [{ id: 'li_1', quantity: 2 }],
        method_type: 'shipping',
        destination: address,
        description: 'Arrives May 4–6',
        fulfillable_on: 'now',
      },
    ],
    events: [
      {
        id: 'evt_1',
        occurred_at: '2026-05-02T10:15:00-04:00',
        type: 'shipped',
        line_items: [{ id: 'li_1', quantity: 2 }],
        tracking_number: '7023210039414604',
        tracking_url: 'https://www.canadapost-postescanada.ca/track-reperage/en#/details/7023210039414604',
        carrier: 'Canada Post',
      },
    ],
  },
  adjustments: [
    {
      id: 'adj_1',
      type: 'credit',
      occurred_at: '2026-05-08T12:00:00Z',
      status: 'completed',
      totals: [{ type: 'credit', display_text: 'Late delivery credit', amount: -500 }],
      description: 'Arrived a day late',
    },
  ],
  currency: 'CAD',
  totals,
  attribution,
};
const signingKey = {
  kid: 'portage_2026',
  kty: 'EC',
  crv: 'P-256',
  x: 'WbbXwVYGdJoP4Xm3qCkGvBRcRvKtEfXDbWvPzpPS8LA',
  y: 'sP4jHHxYqC89HBo8TjrtVOAGHfJDflYxw7MFMxuFMPY',
  use: 'sig',
  alg: 'ES256',
};
const spec = (page: string) => `https://ucp.dev/${UCP_VERSION}/specification/${page}`;
const schema = (file: string) => `https://ucp.dev/${UCP_VERSION}/schemas/${file}`;
const businessProfile = {
  ucp: {
    version: UCP_VERSION,
    services: {
      'dev.ucp.shopping': [
        {
          version: UCP_VERSION,
          spec: spec('overview'),
          transport: 'rest',
          schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
          endpoint: 'https://portage.example/ucp/v1',
        },
        {
          version: UCP_VERSION,
          spec: spec('overview'),
          transport: 'mcp',
          schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/mcp.openrpc.json`,
          endpoint: 'https://portage.example/ucp/mcp',
        },
      ],
    },
    capabilities: {
      'dev.ucp.shopping.checkout': [
        { version: UCP_VERSION, spec: spec('checkout'), schema: schema('shopping/checkout.json') },
      ],
      'dev.ucp.shopping.fulfillment': [
        {
          version: UCP_VERSION,
          spec: spec('fulfillment'),
          schema: schema('shopping/fulfillment.json'),
          extends: 'dev.ucp.shopping.checkout',
          config: { allows_multi_destination: { shipping: false, pickup: false } },
        },
      ],
      'dev.ucp.shopping.discount': [
        {
          version: UCP_VERSION,
          spec: spec('discount'),
          schema: schema('shopping/discount.json'),
          extends: ['dev.ucp.shopping.checkout'],
        },
      ],
      'dev.ucp.shopping.order': [
        { version: UCP_VERSION, spec: spec('order'), schema: schema('shopping/order.json') },
      ],
      'dev.ucp.common.identity_linking': [
        {
          version: UCP_VERSION,
          spec: spec('identity-linking'),
          schema: schema('common/identity_linking.json'),
          config: {
            scopes: {
              'dev.ucp.shopping.order:read': {},
              'dev.ucp.shopping.order:manage': { description: { plain: 'Cancel or return your orders.' } },
            },
          },
        },
      ],
    },
    payment_handlers: {
      'example.portage.test_card': [
        {
          ...handlers['example.portage.test_card'][0],
          spec: 'https://portage.example/ucp/handlers/test-card',
          schema: 'https://portage.example/ucp/handlers/test-card/schema.json',
        },
      ],
    },
  },
  signing_keys: [signingKey],
};
const platformProfile = {
  ucp: {
    version: UCP_VERSION,
    services: {
      'dev.ucp.shopping': [
        {
          version: UCP_VERSION,
          spec: spec('overview'),
          transport: 'rest',
          schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
        },
      ],
    },
    capabilities: {
      'dev.ucp.shopping.checkout': [
        { version: UCP_VERSION, spec: spec('checkout'), schema: schema('shopping/checkout.json') },
      ],
      'dev.ucp.shopping.order': [
        {
          version: UCP_VERSION,
          spec: spec('order'),
          schema: schema('shopping/order.json'),
          config: { webhook_url: 'https://agent.example/webhooks/ucp/orders' },
        },
      ],
    },
    payment_handlers: {
      'com.example.processor_tokenizer': [
        {
          id: 'processor_tokenizer',
          version: UCP_VERSION,
          spec: 'https://example.com/specs/payments/processor_tokenizer-payment',
          schema: 'https://example.com/schemas/payments/delegate-payment.json',
          available_instruments: [{ type: 'card', constraints: { brands: ['visa', 'mastercard'] } }],
        },
      ],
    },
  },
  signing_keys: [{ ...signingKey, kid: 'platform_2026', crv: 'P-384', alg: 'ES384' }],
};
const mcpMeta = {
  'ucp-agent': { profile: PLATFORM_PROFILE },
  'idempotency-key': '550e8400-e29b-41d4-a716-446655440000',
};

// The catalog: the syrup is a product with a single variant, which carries the product's id.
const MISSING_PRODUCT = 'products:Zw8Kd3Rt5Yh1Nq7Bv2Xc';
const cad = (amount: number) => ({ amount, currency: 'CAD' });
const price = cad(2499);
const priceRange = { min: cad(2499), max: cad(2499) };
const media = {
  type: 'image',
  url: 'https://portage.example/i/syrup.jpg',
  alt_text: 'A 1 L can of amber maple syrup',
  width: 1200,
  height: 1200,
};
const rating = { value: 4.7, scale_min: 1, scale_max: 5, count: 212 };
const description = { plain: 'Grade A amber maple syrup from the Beauce, bottled in Quebec.' };
const variant = {
  id: PRODUCT,
  sku: 'PT-ERA-1L',
  barcodes: [{ type: 'UPC', value: '062639300012' }],
  title: 'Maple syrup, 1 L',
  description,
  url: 'https://portage.example/products/sirop-erable-1l',
  price,
  list_price: cad(2799),
  // (2499 / 1000 ml) * 100 ml, rounded to the cent
  unit_price: { ...cad(250), measure: { value: 1000, unit: 'ml' }, reference: { value: 100, unit: 'ml' } },
  availability: { available: true, status: 'in_stock' },
  media: [media],
  seller: {
    name: 'Portage',
    links: [{ type: 'refund_policy', url: 'https://portage.example/returns', title: 'Returns' }],
  },
};
const product = {
  id: PRODUCT,
  handle: 'sirop-erable-1l',
  title: 'Maple syrup, 1 L',
  description,
  url: 'https://portage.example/products/sirop-erable-1l',
  categories: [{ value: 'Food > Pantry > Syrups', taxonomy: 'merchant' }],
  price_range: priceRange,
  list_price_range: { min: cad(2799), max: cad(2799) },
  media: [media],
  variants: [variant],
  rating,
  tags: ['maple', 'quebec'],
  metadata: { harvest: 'spring 2026' },
};
const catalogMeta = (capability: string) => ({
  version: UCP_VERSION,
  capabilities: { [capability]: [{ version: UCP_VERSION }] },
});
const searchRequest = {
  query: 'maple syrup',
  context: { ...context, currency: 'CAD', intent: 'a gift for a colleague abroad' },
  signals,
  attribution,
  pagination: { limit: 20 },
};
const pagination = { cursor: 'eyJvZmZzZXQiOjIwfQ', has_next_page: true, total_count: 47 };
const searchResponse = {
  ucp: catalogMeta('dev.ucp.shopping.catalog.search'),
  products: [product],
  pagination,
  messages: [{ type: 'info', code: 'member_pricing', content: 'Sign in for member prices' }],
};
const lookupRequest = {
  ids: [PRODUCT, 'PT-ERA-1L', MISSING_PRODUCT],
  filters: { price: { max: 5000 } },
  context: { ...context, currency: 'CAD' },
};
const lookupResponse = {
  ucp: catalogMeta('dev.ucp.shopping.catalog.lookup'),
  products: [
    {
      ...product,
      variants: [
        {
          ...variant,
          inputs: [
            { id: PRODUCT, match: 'exact' },
            { id: 'PT-ERA-1L', match: 'exact' },
          ],
        },
      ],
    },
  ],
  messages: [{ type: 'info', code: 'not_found', content: MISSING_PRODUCT }],
};
const size = { name: 'Size', id: 'size_1l', label: '1 L' };
const getProductRequest = {
  id: PRODUCT,
  selected: [size],
  preferences: ['Size'],
  filters: { price: { min: 0, max: 5000 } },
  context: { ...context, currency: 'CAD' },
};
const detailProduct = {
  ...product,
  options: [{ name: 'Size', values: [{ id: 'size_1l', label: '1 L', available: true, exists: true }] }],
  selected: [size],
  variants: [{ ...variant, options: [size] }],
};
const getProductResponse = {
  ucp: catalogMeta('dev.ucp.shopping.catalog.lookup'),
  product: detailProduct,
  messages: [
    {
      type: 'warning',
      code: 'final_sale',
      path: '$.product',
      content: 'Food is **final sale**',
      content_type: 'markdown',
    },
  ],
};

type Path = Array<string | number>;
type Case = {
  name: string;
  schema: z.ZodType;
  valid: unknown;
  strict?: boolean;
  required: Path;
  enumField?: Path;
  integer?: Path;
};

const cases: Case[] = [
  {
    name: 'create request',
    schema: ucpCheckoutCreateRequest,
    valid: createRequest,
    required: ['line_items'],
    enumField: ['fulfillment', 'methods', 0, 'type'],
    integer: ['line_items', 0, 'quantity'],
  },
  {
    name: 'update request',
    schema: ucpCheckoutUpdateRequest,
    valid: updateRequest,
    required: ['fulfillment', 'methods', 0, 'line_item_ids'],
    enumField: ['fulfillment', 'methods', 0, 'type'],
    integer: ['line_items', 0, 'quantity'],
  },
  {
    name: 'complete request',
    schema: ucpCheckoutCompleteRequest,
    valid: completeRequest,
    required: ['payment'],
    integer: ['payment', 'instruments', 0, 'display', 'expiry_month'],
  },
  {
    name: 'checkout',
    schema: ucpCheckout,
    valid: checkout,
    required: ['links'],
    enumField: ['status'],
    integer: ['line_items', 0, 'item', 'price'],
  },
  {
    name: 'error response',
    schema: ucpErrorResponse,
    valid: errorResponse,
    strict: true,
    required: ['messages'],
    enumField: ['messages', 0, 'severity'],
  },
  { name: 'protocol error', schema: ucpProtocolError, valid: protocolError, required: ['content'] },
  {
    name: 'order',
    schema: ucpOrder,
    valid: order,
    required: ['checkout_id'],
    enumField: ['line_items', 0, 'status'],
    integer: ['adjustments', 0, 'totals', 0, 'amount'],
  },
  {
    name: 'business profile',
    schema: ucpBusinessProfile,
    valid: businessProfile,
    required: ['ucp', 'payment_handlers'],
    enumField: ['ucp', 'services', 'dev.ucp.shopping', 0, 'transport'],
  },
  {
    name: 'platform profile',
    schema: ucpPlatformProfile,
    valid: platformProfile,
    required: ['ucp', 'capabilities', 'dev.ucp.shopping.checkout', 0, 'spec'],
    enumField: ['signing_keys', 0, 'crv'],
  },
  { name: 'MCP meta', schema: ucpMcpMeta, valid: mcpMeta, required: ['ucp-agent', 'profile'] },
  { name: 'price', schema: ucpPrice, valid: price, required: ['currency'], integer: ['amount'] },
  {
    name: 'price range',
    schema: ucpPriceRange,
    valid: priceRange,
    required: ['max'],
    integer: ['min', 'amount'],
  },
  { name: 'media', schema: ucpMedia, valid: media, required: ['url'], integer: ['width'] },
  { name: 'rating', schema: ucpRating, valid: rating, required: ['scale_max'], integer: ['count'] },
  {
    name: 'variant',
    schema: ucpVariant,
    valid: variant,
    required: ['description'],
    integer: ['unit_price', 'amount'],
  },
  {
    name: 'product',
    schema: ucpProduct,
    valid: product,
    required: ['price_range'],
    integer: ['variants', 0, 'price', 'amount'],
  },
  {
    name: 'pagination',
    schema: ucpPagination,
    valid: pagination,
    required: ['has_next_page'],
    integer: ['total_count'],
  },
  {
    name: 'catalog search request',
    schema: ucpCatalogSearchRequest,
    valid: searchRequest,
    required: ['query'], // the only input of this one
    integer: ['pagination', 'limit'],
  },
  {
    name: 'catalog search response',
    schema: ucpCatalogSearchResponse,
    valid: searchResponse,
    required: ['products'],
    enumField: ['ucp', 'status'],
    integer: ['products', 0, 'variants', 0, 'price', 'amount'],
  },
  {
    name: 'catalog lookup request',
    schema: ucpCatalogLookupRequest,
    valid: lookupRequest,
    required: ['ids'],
    integer: ['filters', 'price', 'max'],
  },
  {
    name: 'catalog lookup response',
    schema: ucpCatalogLookupResponse,
    valid: lookupResponse,
    required: ['products', 0, 'variants', 0, 'inputs'],
    enumField: ['ucp', 'status'],
    integer: ['products', 0, 'price_range', 'min', 'amount'],
  },
  {
    name: 'get product request',
    schema: ucpGetProductRequest,
    valid: getProductRequest,
    required: ['id'],
    integer: ['filters', 'price', 'min'],
  },
  {
    name: 'get product response',
    schema: ucpGetProductResponse,
    valid: getProductResponse,
    required: ['product', 'selected'],
    enumField: ['messages', 0, 'content_type'],
    integer: ['product', 'variants', 0, 'list_price', 'amount'],
  },
];

/** A deep copy of `value` with `change` applied to the parent of `path`'s last key. */
function edit(
  value: unknown,
  path: Path,
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
) {
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path.at(-1)!);
  return copy;
}
const without = (value: unknown, path: Path) => edit(value, path, (p, k) => Reflect.deleteProperty(p, k));
const setAt = (value: unknown, path: Path, v: unknown) =>
  edit(value, path, (p, k) => {
    p[k] = v;
  });
const ok = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

describe.each(cases)('UCP $name', ({ schema, valid, strict, required, enumField, integer }) => {
  it('parses the example as it is', () => {
    expect(schema.parse(valid)).toEqual(valid);
  });

  it(
    strict ? 'refuses an unknown top-level field (closed)' : 'keeps an unknown top-level field (open)',
    () => {
      const extra = setAt(valid, ['com.example.note'], 'hello');
      if (strict) expect(ok(schema, extra)).toBe(false);
      else expect(schema.parse(extra)).toEqual(extra);
    },
  );

  it(`refuses it without ${required.join('.')}`, () => {
    expect(ok(schema, without(valid, required))).toBe(false);
  });

  if (enumField) {
    it(`refuses a value of ${enumField.join('.')} outside the enum`, () => {
      expect(ok(schema, setAt(valid, enumField, 'not_a_value'))).toBe(false);
    });
  }

  if (integer) {
    it(`refuses a fractional ${integer.join('.')} (amounts are integer cents)`, () => {
      expect(ok(schema, setAt(valid, integer, 2499.5))).toBe(false);
    });
  }
});

describe('UCP versions', () => {
  it('takes dates only', () => {
    expect(ucpVersion.parse(UCP_VERSION)).toBe('2026-04-08');
    expect(ok(ucpVersion, '2026-4-8')).toBe(false);
    expect(ok(ucpVersion, 'draft')).toBe(false);
  });

  it('lists the six checkout statuses', () => {
    expect(UCP_CHECKOUT_STATUSES).toEqual([
      'incomplete',
      'requires_escalation',
      'ready_for_complete',
      'complete_in_progress',
      'completed',
      'canceled',
    ]);
  });
});

describe('UCP totals', () => {
  it('needs exactly one subtotal and one total', () => {
    expect(ok(ucpTotals, totals)).toBe(true);
    expect(
      ok(
        ucpTotals,
        totals.filter((t) => t.type !== 'subtotal'),
      ),
    ).toBe(false);
    expect(
      ok(
        ucpTotals,
        totals.filter((t) => t.type !== 'total'),
      ),
    ).toBe(false);
    const twoTotals = [...totals, { type: 'total', amount: 6212 }];
    expect(ok(ucpTotals, twoTotals)).toBe(false);
  });

  it('lets the other types repeat, and needs the entries to add up to the total', () => {
    const split = [
      totals[0],
      totals[1],
      totals[2],
      { type: 'tax', display_text: 'GST', amount: 275 },
      { type: 'tax', display_text: 'Ontario', amount: 440 },
      totals[4],
    ];
    expect(ok(ucpTotals, split)).toBe(true);
    expect(ok(ucpTotals, setAt(totals, [4, 'amount'], 6213))).toBe(false);
  });

  it('holds the well-known types to their sign', () => {
    expect(ok(ucpTotal, { type: 'discount', amount: 500 })).toBe(false);
    expect(ok(ucpTotal, { type: 'items_discount', amount: 0 })).toBe(false);
    expect(ok(ucpTotal, { type: 'tax', amount: -1 })).toBe(false);
    expect(ok(ucpTotal, { type: 'fee', amount: 0 })).toBe(true);
    expect(ok(ucpTotal, { type: 'store_credit', display_text: 'Store credit', amount: -1000 })).toBe(true);
  });

  it('needs display_text on an unknown type at the top level only', () => {
    const deposit = { type: 'bottle_deposit', amount: 20 };
    const withDeposit = [totals[0], deposit, { type: 'total', amount: 5018 }];
    expect(ok(ucpTotals, withDeposit)).toBe(false);
    expect(ok(ucpTotals, setAt(withDeposit, [1, 'display_text'], 'Bottle deposit'))).toBe(true);
    expect(ok(ucpLineTotals, [deposit])).toBe(true);
  });

  it('needs the sub-lines to add up to their entry', () => {
    expect(ok(ucpTotals, setAt(totals, [3, 'lines', 1, 'amount'], 441))).toBe(false);
  });
});

describe('UCP messages', () => {
  it('tells error, warning and info apart by type, with their own required fields', () => {
    const error = { type: 'error', code: 'out_of_stock', content: 'Sold out', severity: 'recoverable' };
    expect(ucpMessage.parse(error)).toEqual(error);
    expect(ok(ucpMessage, without(error, ['severity']))).toBe(false);
    expect(ok(ucpMessage, { type: 'warning', content: 'Final sale' })).toBe(false);
    expect(ok(ucpMessage, { type: 'info', content: 'Sign in for member prices' })).toBe(true);
    expect(ok(ucpMessage, { type: 'notice', content: 'x' })).toBe(false);
  });

  it('keeps open codes and an open warning presentation, but not an unknown content_type', () => {
    const disclosure = {
      type: 'warning',
      code: 'prop65',
      content: '**Warning**: cancer and reproductive harm',
      content_type: 'markdown',
      presentation: 'disclosure',
      image_url: 'https://portage.example/i/prop65.svg',
    };
    expect(ucpMessage.parse(disclosure)).toEqual(disclosure);
    expect(ok(ucpMessage, { ...disclosure, content_type: 'html' })).toBe(false);
  });
});

describe('UCP checkout rules', () => {
  const escalated = {
    ...checkout,
    status: 'requires_escalation',
    messages: [
      { type: 'error', code: 'invalid_phone', content: 'Phone number is invalid', severity: 'recoverable' },
      {
        type: 'error',
        code: 'requires_3ds',
        content: 'Card needs 3-D Secure',
        severity: 'requires_buyer_input',
      },
    ],
  };

  it('needs a continue_url and a requires_* error to escalate', () => {
    expect(ok(ucpCheckout, escalated)).toBe(true);
    expect(ok(ucpCheckout, without(escalated, ['continue_url']))).toBe(false);
    expect(ok(ucpCheckout, setAt(escalated, ['messages', 1, 'severity'], 'recoverable'))).toBe(false);
  });

  it('takes continue_url as absolute HTTPS only', () => {
    expect(ok(ucpCheckout, setAt(checkout, ['continue_url'], 'http://portage.example/c'))).toBe(false);
    expect(ok(ucpCheckout, setAt(checkout, ['continue_url'], '/checkout-sessions/1'))).toBe(false);
  });

  it('carries the order once completed', () => {
    const completed = { ...checkout, status: 'completed' };
    expect(ok(ucpCheckout, completed)).toBe(false);
    const withOrder = {
      ...completed,
      order: { id: ORDER, permalink_url: 'https://portage.example/orders/PT-10482' },
    };
    expect(ucpCheckout.parse(withOrder)).toEqual(withOrder);
  });

  it('is not a checkout when ucp.status is error, which the closed error response takes', () => {
    expect(ok(ucpCheckout, setAt(checkout, ['ucp', 'status'], 'error'))).toBe(false);
    expect(ok(ucpErrorResponse, setAt(errorResponse, ['ucp', 'status'], 'success'))).toBe(false);
    expect(ok(ucpErrorResponse, setAt(errorResponse, ['messages'], []))).toBe(false);
    expect(ok(ucpErrorResponse, setAt(errorResponse, ['id'], CHECKOUT))).toBe(false);
  });

  it('needs payment_handlers in the checkout envelope (it may be empty)', () => {
    expect(ok(ucpResponseCheckoutMeta, { version: UCP_VERSION })).toBe(false);
    expect(ok(ucpResponseCheckoutMeta, { version: UCP_VERSION, payment_handlers: {} })).toBe(true);
    expect(ok(ucpResponseCheckoutMeta, { version: UCP_VERSION, payment_handlers: { Portage: [] } })).toBe(
      false,
    );
  });

  it('rolls the line items_discount up into the top-level one', () => {
    expect(ok(ucpCheckout, setAt(checkout, ['line_items', 0, 'totals', 1, 'amount'], -400))).toBe(false);
  });

  it('needs allocations to add up to their applied discount', () => {
    expect(ok(ucpAppliedDiscount, checkout.discounts.applied[0])).toBe(true);
    expect(ok(ucpAppliedDiscount, setAt(checkout.discounts.applied[0], ['amount'], 499))).toBe(false);
    expect(ok(ucpAppliedDiscount, { title: 'Spring sale', amount: 300, automatic: true })).toBe(true);
  });

  it('takes upper-case ISO 4217 currencies and RFC 3339 date-times', () => {
    expect(ok(ucpCheckout, setAt(checkout, ['currency'], 'cad'))).toBe(false);
    expect(ok(ucpCheckout, setAt(checkout, ['expires_at'], '2026-05-01T20:02:11'))).toBe(false);
    expect(ok(ucpCheckout, setAt(checkout, ['expires_at'], '2026-05-01T16:02:11-04:00'))).toBe(true);
  });
});

describe('UCP request views', () => {
  it('asks only the item id of a line item', () => {
    expect(ok(ucpCheckoutCreateRequest, setAt(createRequest, ['line_items', 0, 'item'], {}))).toBe(false);
    expect(ok(ucpCheckoutCreateRequest, setAt(createRequest, ['line_items', 0, 'quantity'], 0))).toBe(false);
    expect(ok(ucpCheckoutUpdateRequest, without(updateRequest, ['line_items', 0, 'id']))).toBe(true);
  });

  it('needs line_items on create and update but not on complete, and payment on complete only', () => {
    expect(ok(ucpCheckoutUpdateRequest, without(updateRequest, ['line_items']))).toBe(false);
    expect(ok(ucpCheckoutCreateRequest, { line_items: [] })).toBe(true);
    expect(ok(ucpCheckoutCompleteRequest, { payment: {} })).toBe(true);
  });

  it('needs a method type on create, line_item_ids on update and a group id on update', () => {
    expect(ok(ucpFulfillmentCreate, { methods: [{ destinations: [address] }] })).toBe(false);
    expect(ok(ucpFulfillmentUpdate, { methods: [{ line_item_ids: ['li_1'] }] })).toBe(true);
    expect(
      ok(ucpFulfillmentUpdate, {
        methods: [{ line_item_ids: ['li_1'], groups: [{ selected_option_id: 'x' }] }],
      }),
    ).toBe(false);
    expect(ok(ucpFulfillmentCreate, { methods: [{ type: 'pickup', selected_destination_id: null }] })).toBe(
      true,
    );
  });

  it('tells a retail location from a shipping destination by its name', () => {
    const store = {
      id: 'queen_west',
      name: 'Portage Queen West',
      address: { ...address, street_address: '1 Queen St W' },
    };
    expect(ucpFulfillmentDestination.parse(store)).toEqual(store);
    expect(ok(ucpFulfillmentDestination, without(store, ['id']))).toBe(false);
    expect(ok(ucpFulfillmentDestination, address)).toBe(false); // a response destination has an id
  });

  it('keeps the credential token in requests and never lets it back out in responses', () => {
    const sent = completeRequest.payment.instruments[0]!;
    expect(ucpPaymentInstrument.parse(sent)).toEqual(sent);
    expect(ok(ucpPaymentResponse, { instruments: [sent] })).toBe(false);
    expect(ok(ucpPaymentResponse, { instruments: [{ ...sent, credential: { type: 'token' } }] })).toBe(true);
    expect(ok(ucpPaymentInstrument, without(sent, ['handler_id']))).toBe(false);
    expect(ok(ucpPaymentInstrument, without(sent, ['credential', 'type']))).toBe(false);
  });

  it('checks a card display, and leaves the display of other instruments alone', () => {
    expect(ok(ucpPaymentInstrument, setAt(instrument, ['display', 'expiry_month'], '11'))).toBe(false);
    expect(ok(ucpPaymentInstrument, setAt(instrument, ['display', 'expiry_month'], 13))).toBe(false);
    const wallet = { ...instrument, type: 'wallet', display: { expiry_month: 'n/a' } };
    expect(ok(ucpPaymentInstrument, wallet)).toBe(true);
  });

  it('takes reverse-domain signal keys and distinct eligibility claims', () => {
    expect(ok(ucpSignals, { buyer_ip: '203.0.113.7' })).toBe(false);
    expect(ok(ucpSignals, { 'com.example.device_id': 'd-81f2' })).toBe(true);
    expect(ok(ucpContext, { eligibility: ['com.example.loyalty_gold', 'com.example.loyalty_gold'] })).toBe(
      false,
    );
    expect(ok(ucpContext, { eligibility: ['Loyalty Gold'] })).toBe(false);
  });
});

describe('UCP order rules', () => {
  it('derives each line status from its quantities', () => {
    expect(ucpDerivedLineItemStatus({ total: 0, fulfilled: 0 })).toBe('removed');
    expect(ucpDerivedLineItemStatus({ total: 2, fulfilled: 2 })).toBe('fulfilled');
    expect(ucpDerivedLineItemStatus({ total: 2, fulfilled: 1 })).toBe('partial');
    expect(ucpDerivedLineItemStatus({ total: 2, fulfilled: 0 })).toBe('processing');
    const line = order.line_items[0]!;
    expect(ok(ucpOrderLineItem, setAt(line, ['status'], 'processing'))).toBe(false);
    expect(ok(ucpOrderLineItem, setAt(line, ['quantity', 'fulfilled'], -1))).toBe(false);
  });

  it('needs the fulfillment object, and positive quantities in expectations and events', () => {
    expect(ok(ucpOrder, without(order, ['fulfillment']))).toBe(false);
    expect(ok(ucpOrder, setAt(order, ['fulfillment', 'events', 0, 'line_items', 0, 'quantity'], 0))).toBe(
      false,
    );
    expect(ok(ucpOrder, setAt(order, ['fulfillment', 'expectations', 0, 'method_type'], 'drone'))).toBe(
      false,
    );
  });

  it('is not an order when ucp.status is error', () => {
    expect(ok(ucpOrder, setAt(order, ['ucp', 'status'], 'error'))).toBe(false);
  });
});

describe('UCP profiles', () => {
  it('needs an endpoint for rest, mcp and a2a, not for embedded, over HTTPS', () => {
    const rest = businessProfile.ucp.services['dev.ucp.shopping'][0]!;
    expect(ok(ucpServiceEntry, without(rest, ['endpoint']))).toBe(false);
    expect(ok(ucpServiceEntry, setAt(rest, ['endpoint'], 'http://portage.example/ucp/v1'))).toBe(false);
    const embedded = {
      version: UCP_VERSION,
      transport: 'embedded',
      config: { color_scheme: ['light', 'dark'] },
    };
    expect(ok(ucpServiceEntry, embedded)).toBe(true);
  });

  it('needs spec and schema from a platform, schema not for a2a', () => {
    const path = ['ucp', 'services', 'dev.ucp.shopping', 0];
    expect(ok(ucpPlatformProfile, without(platformProfile, [...path, 'schema']))).toBe(false);
    expect(
      ok(
        ucpPlatformProfile,
        setAt(without(platformProfile, [...path, 'schema']), [...path, 'transport'], 'a2a'),
      ),
    ).toBe(true);
    const handler = ['ucp', 'payment_handlers', 'com.example.processor_tokenizer', 0, 'schema'];
    expect(ok(ucpPlatformProfile, without(platformProfile, handler))).toBe(false);
    expect(
      ok(
        ucpBusinessProfile,
        without(businessProfile, ['ucp', 'capabilities', 'dev.ucp.shopping.order', 0, 'spec']),
      ),
    ).toBe(true);
  });

  it("needs the platform's order webhook_url", () => {
    const config = ['ucp', 'capabilities', 'dev.ucp.shopping.order', 0, 'config'];
    expect(ok(ucpPlatformProfile, without(platformProfile, config))).toBe(false);
    expect(ok(ucpPlatformProfile, setAt(platformProfile, [...config, 'webhook_url'], 'not a url'))).toBe(
      false,
    );
  });

  it('needs identity-linking scopes from a business, keyed {capability}:{scope}', () => {
    const scopes = ['ucp', 'capabilities', 'dev.ucp.common.identity_linking', 0, 'config', 'scopes'];
    expect(ok(ucpBusinessProfile, without(businessProfile, scopes))).toBe(false);
    expect(ok(ucpBusinessProfile, setAt(businessProfile, scopes, { 'orders:read': {} }))).toBe(false);
    const multi = [
      'ucp',
      'capabilities',
      'dev.ucp.shopping.fulfillment',
      0,
      'config',
      'allows_multi_destination',
    ];
    expect(ok(ucpBusinessProfile, setAt(businessProfile, multi, { shipping: true, delivery: true }))).toBe(
      false,
    );
  });

  it('binds spec and schema URLs to the namespace authority', () => {
    const specPath = ['ucp', 'capabilities', 'dev.ucp.shopping.checkout', 0, 'spec'];
    expect(
      ok(ucpBusinessProfile, setAt(businessProfile, specPath, 'https://portage.example/ucp/checkout')),
    ).toBe(false);
    const custom = {
      version: UCP_VERSION,
      spec: 'https://portage.example/ucp/gift-wrap',
      schema: 'https://portage.example/ucp/gift-wrap.json',
      extends: 'dev.ucp.shopping.checkout',
    };
    const capabilities = ['ucp', 'capabilities', 'example.portage.shopping.gift_wrap'];
    expect(ok(ucpBusinessProfile, setAt(businessProfile, capabilities, [custom]))).toBe(true);
  });

  it('takes EC signing keys on P-256 or P-384 whose alg matches the curve', () => {
    expect(ucpSigningKey.parse(signingKey)).toEqual(signingKey);
    expect(ok(ucpSigningKey, { ...signingKey, alg: 'ES384' })).toBe(false);
    expect(ok(ucpSigningKey, { ...signingKey, kty: 'RSA' })).toBe(false);
    expect(ok(ucpSigningKey, without(signingKey, ['alg']))).toBe(true);
    expect(ok(ucpSigningKey, without(signingKey, ['x']))).toBe(false);
  });

  it('takes the absolute minimum business profile', () => {
    expect(
      ok(ucpBusinessProfile, { ucp: { version: UCP_VERSION, services: {}, payment_handlers: {} } }),
    ).toBe(true);
    const leaf = {
      ucp: {
        version: UCP_VERSION,
        services: {},
        payment_handlers: {},
        supported_versions: { draft: 'https://portage.example/ucp/draft' },
      },
    };
    expect(ok(ucpBusinessProfile, leaf)).toBe(false);
  });
});

describe('UCP catalog', () => {
  it('needs a query or at least one filter to search', () => {
    const browse = { filters: { categories: ['Food > Pantry > Syrups'] } };
    expect(ucpCatalogSearchRequest.parse(browse)).toEqual(browse);
    expect(ok(ucpCatalogSearchRequest, { filters: { price: { max: 3000 } } })).toBe(true);
    expect(ok(ucpCatalogSearchRequest, { filters: {} })).toBe(false);
    expect(ok(ucpCatalogSearchRequest, { context })).toBe(false);
    expect(
      ok(ucpCatalogSearchRequest, { query: 'maple', filters: { 'example.portage.organic': true } }),
    ).toBe(true);
  });

  it('takes price filters and pagination limits as integers from their minimum', () => {
    expect(ok(ucpCatalogSearchRequest, { query: 'maple', filters: { price: { min: -1 } } })).toBe(false);
    expect(ok(ucpCatalogSearchRequest, { query: 'maple', filters: { price: { max: 24.99 } } })).toBe(false);
    expect(ok(ucpCatalogSearchRequest, setAt(searchRequest, ['pagination', 'limit'], 0))).toBe(false);
  });

  it('needs the cursor of a next page only', () => {
    expect(ok(ucpPagination, without(pagination, ['cursor']))).toBe(false);
    expect(ok(ucpPagination, { has_next_page: false, total_count: 1 })).toBe(true);
    expect(ok(ucpPagination, setAt(pagination, ['total_count'], -1))).toBe(false);
  });

  it('answers an empty search with no products, and is not results when ucp.status is error', () => {
    const empty = { ucp: catalogMeta('dev.ucp.shopping.catalog.search'), products: [] };
    expect(ucpCatalogSearchResponse.parse(empty)).toEqual(empty);
    expect(ok(ucpCatalogSearchResponse, setAt(empty, ['ucp', 'status'], 'error'))).toBe(false);
    expect(ok(ucpCatalogLookupResponse, setAt(lookupResponse, ['ucp', 'status'], 'error'))).toBe(false);
    expect(ok(ucpGetProductResponse, setAt(getProductResponse, ['ucp', 'status'], 'error'))).toBe(false);
    expect(ok(ucpResponseCatalogMeta, { capabilities: {} })).toBe(false);
  });

  it('answers a product not found with the error response', () => {
    const notFound = {
      ucp: { ...catalogMeta('dev.ucp.shopping.catalog.lookup'), status: 'error' },
      messages: [
        {
          type: 'error',
          code: 'not_found',
          content: `Product not found: ${MISSING_PRODUCT}`,
          severity: 'unrecoverable',
        },
      ],
    };
    expect(ucpErrorResponse.parse(notFound)).toEqual(notFound);
    expect(ok(ucpGetProductResponse, notFound)).toBe(false);
  });

  it('needs a product, its variants, a description and a price in ISO 4217 cents', () => {
    expect(ok(ucpProduct, setAt(product, ['variants'], []))).toBe(false);
    expect(ok(ucpProduct, setAt(product, ['description'], {}))).toBe(false);
    expect(ok(ucpProduct, setAt(product, ['description'], { html: '<p>Sirop</p>' }))).toBe(true);
    expect(ok(ucpPrice, setAt(price, ['currency'], 'cad'))).toBe(false);
    expect(ok(ucpPrice, setAt(price, ['amount'], -1))).toBe(false);
    expect(ok(ucpPrice, cad(0))).toBe(true); // free items
    expect(ok(ucpVariant, setAt(variant, ['unit_price', 'currency'], 'Canadian dollars'))).toBe(false);
  });

  it('keeps open strings open: media type, availability status, barcode type, match', () => {
    expect(ok(ucpMedia, setAt(media, ['type'], 'model_3d'))).toBe(true);
    expect(ok(ucpVariant, setAt(variant, ['availability', 'status'], 'seasonal'))).toBe(true);
    expect(ok(ucpVariant, setAt(variant, ['barcodes', 0, 'type'], 'GTIN'))).toBe(true);
    expect(
      ok(
        ucpCatalogLookupResponse,
        setAt(lookupResponse, ['products', 0, 'variants', 0, 'inputs', 0, 'match'], 'sku'),
      ),
    ).toBe(true);
  });

  it('holds media sizes, ratings and unit-price references to their bounds', () => {
    expect(ok(ucpMedia, setAt(media, ['height'], 0))).toBe(false);
    expect(ok(ucpRating, setAt(rating, ['scale_max'], 0.5))).toBe(false);
    expect(ok(ucpRating, setAt(rating, ['value'], -1))).toBe(false);
    expect(ok(ucpRating, setAt(rating, ['value'], 4.35))).toBe(true);
    expect(ok(ucpVariant, setAt(variant, ['unit_price', 'measure', 'value'], 0.75))).toBe(true);
    expect(ok(ucpVariant, setAt(variant, ['unit_price', 'reference', 'value'], 0.1))).toBe(false);
  });

  it('looks up at least one id, and each variant tells which ids resolved to it', () => {
    expect(ok(ucpCatalogLookupRequest, { ids: [] })).toBe(false);
    expect(ok(ucpCatalogLookupRequest, { ids: [PRODUCT, PRODUCT] })).toBe(true); // the business dedupes
    const inputs = ['products', 0, 'variants', 0, 'inputs'];
    expect(ok(ucpCatalogLookupResponse, setAt(lookupResponse, inputs, []))).toBe(false);
    expect(ok(ucpCatalogLookupResponse, setAt(lookupResponse, [...inputs, 0], { match: 'exact' }))).toBe(
      false,
    );
    expect(ok(ucpCatalogSearchResponse, searchResponse)).toBe(true); // search variants need no inputs
  });

  it('takes each option name once in a selection', () => {
    const twice = setAt(getProductRequest, ['selected'], [size, { name: 'Size', label: '4 L' }]);
    expect(ok(ucpGetProductRequest, twice)).toBe(false);
    expect(ok(ucpGetProductRequest, without(getProductRequest, ['selected', 0, 'label']))).toBe(false);
    expect(ok(ucpGetProductRequest, { id: PRODUCT })).toBe(true);
    expect(ok(ucpGetProductResponse, setAt(getProductResponse, ['product', 'selected'], [size, size]))).toBe(
      false,
    );
  });

  it('needs the effective selections of a product with options only', () => {
    const plain = without(without(getProductResponse, ['product', 'options']), ['product', 'selected']);
    expect(ucpGetProductResponse.parse(plain)).toEqual(plain);
    expect(ok(ucpGetProductResponse, setAt(getProductResponse, ['product', 'selected'], []))).toBe(true);
    expect(
      ok(ucpGetProductResponse, setAt(getProductResponse, ['product', 'options', 0, 'values'], [])),
    ).toBe(false);
  });

  it('reads availability signals: an available value exists', () => {
    expect(ok(ucpDetailOptionValue, { label: '4 L', available: false, exists: true })).toBe(true);
    expect(ok(ucpDetailOptionValue, { label: '4 L', available: false, exists: false })).toBe(true);
    expect(ok(ucpDetailOptionValue, { label: '4 L', available: true, exists: false })).toBe(false);
    expect(ok(ucpDetailOptionValue, { label: '4 L', available: 'yes' })).toBe(false);
    expect(ok(ucpDetailOptionValue, { available: true })).toBe(false);
  });
});

describe('UCP MCP meta', () => {
  it('takes a UUID idempotency key and an HTTPS profile', () => {
    expect(ok(ucpMcpMeta, setAt(mcpMeta, ['idempotency-key'], 'retry-1'))).toBe(false);
    expect(ok(ucpMcpMeta, without(mcpMeta, ['idempotency-key']))).toBe(true);
    expect(ok(ucpMcpMeta, setAt(mcpMeta, ['ucp-agent', 'profile'], 'http://agent.example/p.json'))).toBe(
      false,
    );
  });
});
