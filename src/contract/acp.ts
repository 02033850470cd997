// Agentic Commerce Protocol (ACP) 2026-04-17 wire schemas, written field by field from the spec's JSON
// Schemas (schema.agentic_checkout.json, schema.delegate_payment.json, the webhook OpenAPI). Objects the
// spec closes (additionalProperties: false), requests included, are strict. One job, one file: the
// wire of one spec version, one schema per definition, in sections following the spec's parts, so a
// reviewer checks each against its source side by side; the parts refer to one another.
import { z } from 'zod';

const int = z.number().int();
const dateTime = z.iso.datetime({ offset: true }); // format: date-time is RFC 3339: Z or an offset
// Every string and list a request can carry is bounded: the spec's limits where it gives them,
// else ours (docs/acp.md "Discovery and who calls"); a session keeps its request, so nothing may
// grow a row unbounded.
const uri = z.url().max(2048);
const apiDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'validation.versionDate');
const currencyCode = z.string().regex(/^[a-z]{3}$/, 'validation.currencyLower');
const freeObject = z.looseObject({}); // `type: object` with no properties: any keys, all kept
/** A map of a caller's own (metadata): at most 50 keys of 64 characters, values of 500. */
const boundedRecord = <T extends z.ZodType>(value: T) =>
  z.record(z.string().max(64), value).refine((r) => Object.keys(r).length <= 50, {
    message: 'validation.maxKeys',
    params: { max: 50 },
  });
const scalarRecord = boundedRecord(z.union([z.string().max(500), z.number(), z.boolean()]));
const stringRecord = boundedRecord(z.string().max(500));

/** JSON Schema `uniqueItems`: no two items alike (items compare as their JSON); at most `max` of them. */
const uniqueArray = <T extends z.ZodType>(item: T, max = 50) =>
  z
    .array(item)
    .max(max)
    .refine((a) => new Set(a.map((x) => JSON.stringify(x))).size === a.length, {
      message: 'validation.uniqueItems',
    });

// --- Shared parts -------------------------------------------------------------------------------------

export const acpAddress = z.strictObject({
  name: z.string().max(256),
  line_one: z.string().max(256),
  line_two: z.string().max(256).optional(),
  city: z.string().max(128),
  state: z.string().max(64),
  country: z.string().max(64),
  postal_code: z.string().max(32),
  company: z.string().max(256).optional(),
});

const companyInfo = z.strictObject({
  name: z.string().max(256),
  tax_id: z.string().max(256).optional(),
  department: z.string().max(256).optional(),
  cost_center: z.string().max(256).optional(),
});

const loyaltyInfo = z.strictObject({
  tier: z.string().max(64).optional(),
  points_balance: int.optional(),
  member_since: dateTime.optional(),
});

const taxExemption = z.strictObject({
  certificate_id: z.string().max(256),
  certificate_type: z.enum(['resale', 'exempt_organization', 'government']),
  exempt_regions: z.array(z.string().max(256)).max(100).optional(),
  expires_at: dateTime.optional(),
});

export const acpBuyer = z.strictObject({
  first_name: z.string().max(256).optional(),
  last_name: z.string().max(256).optional(),
  full_name: z.string().max(256).optional(),
  email: z.email().max(254),
  phone_number: z.string().max(32).optional(),
  customer_id: z.string().max(256).optional(),
  account_type: z.enum(['guest', 'registered', 'business']).optional(),
  authentication_status: z.enum(['authenticated', 'guest', 'requires_signin']).optional(),
  company: companyInfo.optional(),
  loyalty: loyaltyInfo.optional(),
  tax_exemption: taxExemption.optional(),
});

const fulfillmentDetails = z.strictObject({
  name: z.string().max(256).optional(),
  phone_number: z.string().max(32).optional(),
  email: z.email().max(254).optional(),
  address: acpAddress.optional(),
});

const fulfillmentKind = z.enum(['shipping', 'digital', 'pickup', 'local_delivery']);

const fulfillmentGroup = z.strictObject({
  id: z.string().max(256),
  item_ids: z.array(z.string().max(256)).max(100),
  destination_type: fulfillmentKind,
  fulfillment_details: fulfillmentDetails.optional(),
  location_id: z.string().max(256).optional(),
  instructions: z.string().max(2000).optional(),
});

// Deviation: the 2026-04-17 Item has no `quantity` (an open question upstream), yet the spec's own
// examples send {id, quantity}. We accept it in requests, 1 to 999, absent meaning 1; an answer's
// item is the spec's (acpLineItem), its quantity the line's.
export const acpItem = z.strictObject({
  id: z.string().max(256),
  name: z.string().max(256).optional(),
  unit_amount: int.optional(),
  quantity: int.min(1).max(999).optional(),
});

export const acpPaymentHandler = z.strictObject({
  id: z.string().max(256),
  name: z.string().max(256),
  display_name: z.string().max(256).optional(),
  version: apiDate,
  spec: uri,
  requires_delegate_payment: z.boolean(),
  requires_pci_compliance: z.boolean(),
  psp: z.string().max(256),
  config_schema: uri,
  instrument_schemas: z.array(uri).max(20),
  config: freeObject,
  display_order: int.optional(),
});

const interventionKind = z.enum(['3ds', 'biometric', 'address_verification']);

const extensionDeclaration = z.strictObject({
  name: z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]*(@\d{4}-\d{2}-\d{2})?$|^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_-]*)+(@\d{4}-\d{2}-\d{2})?$/,
    )
    .max(256),
  extends: uniqueArray(
    z
      .string()
      .regex(/^\$\.[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9_]*)*$/)
      .max(256),
    20,
  ).optional(),
  schema: uri.optional(),
  spec: uri.optional(),
});

const capabilities = z.strictObject({
  payment: z.strictObject({ handlers: z.array(acpPaymentHandler).max(20) }).optional(),
  interventions: z
    .strictObject({
      supported: z.array(interventionKind).max(10).optional(),
      required: z
        .array(z.enum(['3ds', 'biometric']))
        .max(10)
        .optional(),
      enforcement: z.enum(['always', 'conditional', 'optional']).optional(),
      display_context: z.enum(['native', 'webview', 'modal', 'redirect']).optional(),
      redirect_context: z.enum(['in_app', 'external_browser', 'none']).optional(),
      max_redirects: int.min(0).optional(),
      max_interaction_depth: int.min(1).optional(),
    })
    .optional(),
  // oneOf: extension names, or full declarations.
  extensions: z.union([uniqueArray(z.string().max(256)), uniqueArray(extensionDeclaration)]).optional(),
});

const affiliateAttribution = z
  .object({
    provider: z.string().max(256),
    token: z.string().max(2048).optional(),
    publisher_id: z.string().max(256).optional(),
    campaign_id: z.string().max(256).optional(),
    creative_id: z.string().max(256).optional(),
    sub_id: z.string().max(256).optional(),
    source: z.strictObject({ type: z.enum(['url', 'platform', 'unknown']), url: uri.optional() }).optional(),
    issued_at: dateTime.optional(),
    expires_at: dateTime.optional(),
    metadata: scalarRecord.optional(),
    touchpoint: z.enum(['first', 'last']).optional(),
  })
  .refine((a) => a.token !== undefined || a.publisher_id !== undefined, {
    message: 'validation.acpTokenOrPublisher',
  });

const discountsRequest = z.strictObject({ codes: z.array(z.string().max(64)).max(20).optional() });

export const acpSelectedFulfillmentOption = z.strictObject({
  type: fulfillmentKind,
  option_id: z.string().max(256),
  item_ids: z.array(z.string().max(256)).max(100),
});

const orderNotes = z.string().max(5000);

// --- Requests -----------------------------------------------------------------------------------------

export const acpCreateSessionRequest = z.strictObject({
  buyer: acpBuyer.optional(),
  line_items: z.array(acpItem).max(100).min(1),
  currency: z.string().max(16),
  fulfillment_details: fulfillmentDetails.optional(),
  capabilities,
  fulfillment_groups: z.array(fulfillmentGroup).max(50).optional(),
  affiliate_attribution: affiliateAttribution.optional(),
  coupons: z.array(z.string().max(64)).max(20).optional(),
  discounts: discountsRequest.optional(),
  locale: z.string().max(35).optional(),
  timezone: z.string().max(64).optional(),
  quote_id: z.string().max(256).optional(),
  metadata: freeObject.optional(),
  order_notes: orderNotes.optional(),
});

export const acpUpdateSessionRequest = z.strictObject({
  buyer: acpBuyer.optional(),
  line_items: z.array(acpItem).max(100).optional(),
  fulfillment_details: fulfillmentDetails.optional(),
  fulfillment_groups: z.array(fulfillmentGroup).max(50).optional(),
  selected_fulfillment_options: z.array(acpSelectedFulfillmentOption).max(50).optional(),
  coupons: z.array(z.string().max(64)).max(20).optional(),
  discounts: discountsRequest.optional(),
  order_notes: orderNotes.optional(),
});

// anyOf: a handler's instrument, or a purchase order number (B2B invoicing).
export const acpPaymentData = z
  .strictObject({
    handler_id: z.string().max(256).optional(),
    instrument: z
      .object({
        type: z.string().max(64),
        credential: z.object({ type: z.string().max(256), token: z.string().max(256) }),
      })
      .optional(),
    billing_address: acpAddress.optional(),
    purchase_order_number: z.string().max(256).optional(),
    payment_terms: z.enum(['immediate', 'net_15', 'net_30', 'net_60', 'net_90']).optional(),
    due_date: dateTime.optional(),
    approval_required: z.boolean().optional(),
  })
  .refine(
    (p) =>
      (p.handler_id !== undefined && p.instrument !== undefined) || p.purchase_order_number !== undefined,
    { message: 'validation.acpPaymentData' },
  );

const authenticationResult = z
  .strictObject({
    outcome: z.enum([
      'abandoned',
      'attempt_acknowledged',
      'authenticated',
      'canceled',
      'denied',
      'informational',
      'internal_error',
      'not_supported',
      'processing_error',
      'rejected',
    ]),
    outcome_details: z
      .strictObject({
        three_ds_cryptogram: z.string().max(512),
        electronic_commerce_indicator: z.enum(['01', '02', '05', '06', '07']),
        transaction_id: z.string().max(256),
        version: z.string().max(32),
      })
      .optional(),
  })
  .refine(
    (r) =>
      !['authenticated', 'informational', 'attempt_acknowledged'].includes(r.outcome) ||
      r.outcome_details !== undefined,
    { message: 'validation.outcomeDetailsRequired', path: ['outcome_details'] },
  );

export const acpCompleteSessionRequest = z.strictObject({
  buyer: acpBuyer.optional(),
  payment_data: acpPaymentData,
  authentication_result: authenticationResult.optional(),
  affiliate_attribution: affiliateAttribution.optional(),
  risk_signals: z
    .strictObject({
      ip_address: z.string().max(64).optional(),
      user_agent: z.string().max(1024).optional(),
      accept_language: z.string().max(256).optional(),
      session_id: z.string().max(256).optional(),
      device_fingerprint: z.string().max(1024).optional(),
    })
    .optional(),
  marketing_consents: z
    .array(z.strictObject({ channel: z.string().max(256), opted_in: z.boolean() }))
    .max(20)
    .optional(),
  order_notes: orderNotes.optional(),
});

// The spec leaves CancelSessionRequest and IntentTrace open: unknown keys are dropped, not refused.
export const acpCancelSessionRequest = z.object({
  intent_trace: z
    .object({
      reason_code: z.enum([
        'price_sensitivity',
        'shipping_cost',
        'shipping_speed',
        'product_fit',
        'trust_security',
        'returns_policy',
        'payment_options',
        'comparison',
        'timing_deferred',
        'other',
      ]),
      trace_summary: z.string().max(500).optional(),
      metadata: scalarRecord.optional(),
    })
    .optional(),
});

// --- The checkout session -----------------------------------------------------------------------------

export const acpTotal = z.strictObject({
  type: z.enum([
    'items_base_amount',
    'items_discount',
    'subtotal',
    'discount',
    'fulfillment',
    'tax',
    'fee',
    'gift_wrap',
    'tip',
    'store_credit',
    'total',
    'amount_refunded',
  ]),
  display_text: z.string(),
  amount: int,
  presentment_amount: int.optional(),
  description: z.string().optional(),
  breakdown: z.array(z.strictObject({ jurisdiction: z.string(), rate: z.number(), amount: int })).optional(),
});

const contentType = z.enum(['plain', 'markdown']);

export const acpLineItem = z.strictObject({
  id: z.string(),
  item: acpItem.omit({ quantity: true }), // the request's item as the spec's Item (see acpItem)
  quantity: int.min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  images: z.array(uri).optional(),
  unit_amount: int.optional(),
  disclosures: z
    .array(z.strictObject({ type: z.enum(['disclaimer']), content_type: contentType, content: z.string() }))
    .optional(),
  custom_attributes: z.array(z.strictObject({ display_name: z.string(), value: z.string() })).optional(),
  marketplace_seller_details: z.strictObject({ name: z.string() }).optional(),
  product_id: z.string().optional(),
  sku: z.string().optional(),
  variant_id: z.string().optional(),
  category: z.string().optional(),
  tags: z.array(z.string()).optional(),
  weight: z.strictObject({ value: z.number(), unit: z.enum(['g', 'kg', 'oz', 'lb']) }).optional(),
  dimensions: z
    .strictObject({ length: z.number(), width: z.number(), height: z.number(), unit: z.enum(['cm', 'in']) })
    .optional(),
  availability_status: z.enum(['in_stock', 'low_stock', 'out_of_stock', 'backorder', 'pre_order']).optional(),
  available_quantity: int.min(0).optional(),
  max_quantity_per_order: int.min(1).optional(),
  fulfillable_on: dateTime.optional(),
  variant_options: z.array(z.strictObject({ name: z.string(), value: z.string() })).optional(),
  discount_details: z
    .array(
      z.strictObject({
        code: z.string().optional(),
        type: z.enum(['percentage', 'fixed', 'bogo', 'volume']),
        amount: int,
        description: z.string().optional(),
        source: z.enum(['coupon', 'automatic', 'loyalty']).optional(),
      }),
    )
    .optional(),
  tax_exempt: z.boolean().optional(),
  tax_exemption_reason: z.string().optional(),
  parent_id: z.string().optional(),
  totals: z.array(acpTotal),
});

const optionBase = {
  id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  totals: z.array(acpTotal),
};

// oneOf over the four kinds, told apart by `type`.
export const acpFulfillmentOption = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('shipping'),
    ...optionBase,
    carrier: z.string().optional(),
    earliest_delivery_time: dateTime.optional(),
    latest_delivery_time: dateTime.optional(),
  }),
  z.strictObject({ type: z.literal('digital'), ...optionBase }),
  z.strictObject({
    type: z.literal('pickup'),
    ...optionBase,
    location: z.object({
      name: z.string(),
      address: acpAddress,
      phone: z.string().optional(),
      instructions: z.string().optional(),
    }),
    pickup_type: z.enum(['in_store', 'curbside', 'locker']).optional(),
    ready_by: dateTime.optional(),
    pickup_by: dateTime.optional(),
  }),
  z.strictObject({
    type: z.literal('local_delivery'),
    ...optionBase,
    delivery_window: z.object({ start: dateTime, end: dateTime }).optional(),
    service_area: z
      .object({ radius_miles: z.number().optional(), center_postal_code: z.string().optional() })
      .optional(),
  }),
]);

const messageBase = {
  severity: z.enum(['info', 'low', 'medium', 'high', 'critical']).optional(),
  resolution: z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review']).optional(),
  param: z.string().optional(), // a JSONPath into the session, e.g. $.line_items[0]
  content_type: contentType,
  content: z.string(),
};

const discountErrorCode = z.enum([
  'discount_code_expired',
  'discount_code_invalid',
  'discount_code_already_applied',
  'discount_code_combination_disallowed',
  'discount_code_minimum_not_met',
  'discount_code_user_not_logged_in',
  'discount_code_user_ineligible',
  'discount_code_usage_limit_reached',
]);

export const acpMessage = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('info'), ...messageBase }),
  z.strictObject({
    type: z.literal('warning'),
    code: z.enum([
      'low_stock',
      'high_demand',
      'shipping_delay',
      'price_change',
      'expiring_promotion',
      'limited_availability',
      ...discountErrorCode.options,
    ]),
    ...messageBase,
  }),
  z.strictObject({
    type: z.literal('error'),
    code: z.enum([
      'missing',
      'invalid',
      'out_of_stock',
      'payment_declined',
      'requires_sign_in',
      'requires_3ds',
      'low_stock',
      'quantity_exceeded',
      'coupon_invalid',
      'coupon_expired',
      'minimum_not_met',
      'maximum_exceeded',
      'region_restricted',
      'age_verification_required',
      'approval_required',
      'unsupported',
      'not_found',
      'conflict',
      'rate_limited',
      'expired',
      'intervention_required',
    ]),
    ...messageBase,
  }),
]);

export const acpLink = z.strictObject({
  type: z.enum([
    'terms_of_use',
    'privacy_policy',
    'return_policy',
    'shipping_policy',
    'contact_us',
    'about_us',
    'faq',
    'support',
  ]),
  title: z.string().optional(),
  url: uri,
});

const authenticationMetadata = z.looseObject({
  acquirer_details: z.strictObject({
    acquirer_bin: z.string().max(11),
    acquirer_country: z.string().length(2),
    acquirer_merchant_id: z.string().max(35),
    merchant_name: z.string().max(40),
    requestor_id: z.string().max(35).optional(),
  }),
  directory_server: z.enum(['american_express', 'mastercard', 'visa']),
  flow_preference: z
    .strictObject({
      type: z.enum(['challenge', 'frictionless']),
      challenge: z.strictObject({ type: z.enum(['mandated', 'preferred']).optional() }).optional(),
      frictionless: z.strictObject({ type: z.enum(['low_risk']).optional() }).optional(),
    })
    .optional(),
});

const coupon = z.strictObject({
  id: z.string(),
  name: z.string(),
  percent_off: z.number().min(0).max(100).optional(),
  amount_off: int.min(0).optional(),
  currency: currencyCode.optional(),
  duration: z.enum(['once', 'repeating', 'forever']).optional(),
  duration_in_months: int.min(1).optional(),
  max_redemptions: int.min(1).optional(),
  times_redeemed: int.min(0).optional(),
  metadata: stringRecord.optional(),
});

const discountsResponse = z.strictObject({
  codes: z.array(z.string()).optional(),
  applied: z
    .array(
      z.strictObject({
        id: z.string(),
        code: z.string().optional(),
        coupon,
        amount: int.min(0),
        automatic: z.boolean().optional(), // default false
        start: dateTime.optional(),
        end: dateTime.optional(),
        method: z.enum(['each', 'across']).optional(),
        priority: int.min(1).optional(),
        allocations: z.array(z.strictObject({ path: z.string(), amount: int.min(0) })).optional(),
      }),
    )
    .optional(),
  rejected: z
    .array(z.strictObject({ code: z.string(), reason: discountErrorCode, message: z.string().optional() }))
    .optional(),
});

// --- The order ----------------------------------------------------------------------------------------

const estimatedDelivery = z.strictObject({ earliest: dateTime, latest: dateTime });
const lineItemReference = z.strictObject({ id: z.string(), quantity: int.min(1) });

export const acpOrder = z.strictObject({
  type: z.literal('order').optional(),
  id: z.string(),
  checkout_session_id: z.string(),
  order_number: z.string().optional(),
  client_reference_id: z.string().optional(),
  permalink_url: uri,
  // Free text: the spec lists created, confirmed, manual_review, processing, shipped, completed,
  // canceled but tells readers to accept any value.
  status: z.string().optional(),
  estimated_delivery: estimatedDelivery.optional(),
  confirmation: z
    .strictObject({
      confirmation_number: z.string().optional(),
      confirmation_email_sent: z.boolean().optional(),
      receipt_url: uri.optional(),
      invoice_number: z.string().optional(),
      order_notes: z.string().optional(),
    })
    .optional(),
  support: z
    .strictObject({
      email: z.email().optional(),
      phone: z.string().optional(),
      hours: z.string().optional(),
      help_center_url: uri.optional(),
    })
    .optional(),
  line_items: z
    .array(
      z.strictObject({
        id: z.string(),
        title: z.string(),
        product_id: z.string().optional(),
        description: z.string().optional(),
        image_url: uri.optional(),
        url: uri.optional(),
        quantity: z.strictObject({
          ordered: int.min(1),
          current: int.min(0),
          fulfilled: int.min(0).optional(), // default 0
        }),
        unit_price: int.optional(),
        subtotal: int.optional(),
        totals: z.array(acpTotal).optional(),
        status: z.string().optional(),
      }),
    )
    .optional(),
  fulfillments: z
    .array(
      z.strictObject({
        id: z.string(),
        type: z.enum(['shipping', 'pickup', 'digital']),
        status: z.string().optional(),
        line_items: z.array(lineItemReference).optional(),
        carrier: z.string().optional(),
        tracking_number: z.string().optional(),
        tracking_url: uri.optional(),
        destination: acpAddress.optional(),
        estimated_delivery: estimatedDelivery.optional(),
        digital_delivery: z
          .object({
            access_url: uri.optional(),
            license_key: z.string().optional(),
            expires_at: dateTime.optional(),
          })
          .optional(),
        description: z.string().optional(),
        events: z
          .array(
            z.strictObject({
              id: z.string(),
              type: z.string(),
              occurred_at: dateTime,
              description: z.string().optional(),
              location: z.string().optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
  adjustments: z
    .array(
      z.strictObject({
        id: z.string(),
        type: z.string(),
        occurred_at: dateTime,
        status: z.string(),
        line_items: z.array(lineItemReference).optional(),
        amount: int.optional(),
        currency: currencyCode.optional(),
        description: z.string().optional(),
        reason: z.string().optional(),
      }),
    )
    .optional(),
  totals: z.array(acpTotal).optional(),
});

export const ACP_SESSION_STATUSES = [
  'incomplete',
  'not_ready_for_payment',
  'requires_escalation',
  'authentication_required',
  'ready_for_payment',
  'pending_approval',
  'complete_in_progress',
  'completed',
  'canceled',
  'in_progress',
  'expired',
] as const;

// CheckoutSessionBase; `order` is set once the session is completed (CheckoutSessionWithOrder).
export const acpCheckoutSession = z.strictObject({
  id: z.string(),
  protocol: z.strictObject({ version: apiDate }).optional(),
  capabilities,
  buyer: acpBuyer.optional(),
  status: z.enum(ACP_SESSION_STATUSES),
  currency: z.string(),
  presentment_currency: z.string().optional(),
  exchange_rate: z.number().optional(),
  exchange_rate_timestamp: dateTime.optional(),
  locale: z.string().optional(),
  timezone: z.string().optional(),
  line_items: z.array(acpLineItem),
  fulfillment_details: fulfillmentDetails.optional(),
  fulfillment_options: z.array(acpFulfillmentOption),
  selected_fulfillment_options: z.array(acpSelectedFulfillmentOption).optional(),
  fulfillment_groups: z.array(fulfillmentGroup).optional(),
  totals: z.array(acpTotal),
  messages: z.array(acpMessage),
  links: z.array(acpLink),
  authentication_metadata: authenticationMetadata.optional(),
  created_at: dateTime.optional(),
  updated_at: dateTime.optional(),
  expires_at: dateTime.optional(),
  continue_url: uri.optional(),
  metadata: freeObject.optional(),
  quote_id: z.string().optional(),
  quote_expires_at: dateTime.optional(),
  discounts: discountsResponse.optional(),
  marketing_consent_options: z
    .array(
      z.strictObject({
        channel: z.string(),
        display_text: z.string(),
        privacy_policy_url: uri,
        is_subscribed: z.boolean().optional(),
      }),
    )
    .optional(),
  order: acpOrder.optional(),
});

export const acpError = z.strictObject({
  type: z.enum(['invalid_request', 'processing_error', 'service_unavailable']),
  code: z.string(),
  message: z.string(),
  param: z.string().optional(),
  supported_versions: z.array(apiDate).optional(), // sent with an unsupported API-Version
});

export const acpDiscoveryResponse = z.strictObject({
  protocol: z.strictObject({
    name: z.literal('acp'),
    version: apiDate,
    supported_versions: uniqueArray(apiDate),
    documentation_url: uri.optional(),
  }),
  api_base_url: uri,
  transports: uniqueArray(z.enum(['rest', 'mcp'])),
  capabilities: z.strictObject({
    services: uniqueArray(z.enum(['checkout', 'orders', 'delegate_payment', 'carts'])),
    extensions: z
      .array(z.strictObject({ name: z.string(), spec: uri.optional(), schema: uri.optional() }))
      .optional(),
    intervention_types: uniqueArray(interventionKind).optional(),
    supported_currencies: uniqueArray(currencyCode).optional(),
    supported_locales: uniqueArray(z.string()).optional(),
  }),
});

// --- Delegate payment: POST /agentic_commerce/delegate_payment, answered 201 --------------------------

// Its own Address: length limits, no company.
const delegateAddress = z.strictObject({
  name: z.string().max(256),
  line_one: z.string().max(60),
  line_two: z.string().max(60).optional(),
  city: z.string().max(60),
  state: z.string().max(64),
  country: z.string().length(2),
  postal_code: z.string().max(20),
});

export const acpDelegatePaymentRequest = z.strictObject({
  payment_method: z.strictObject({
    type: z.literal('card'),
    card_number_type: z.enum(['fpan', 'network_token']),
    number: z.string().max(32),
    exp_month: z.string().max(2).optional(),
    exp_year: z.string().max(4).optional(),
    name: z.string().max(256).optional(),
    cvc: z.string().max(4).optional(),
    cryptogram: z.string().max(512).optional(),
    eci_value: z.string().max(2).optional(),
    checks_performed: z
      .array(z.enum(['avs', 'cvv', 'ani', 'auth0']))
      .max(10)
      .optional(),
    iin: z.string().max(8).optional(),
    display_card_funding_type: z.enum(['credit', 'debit', 'prepaid']),
    display_wallet_type: z.string().max(256).optional(),
    display_brand: z.string().max(256).optional(),
    display_last4: z
      .string()
      .regex(/^[0-9]{4}$/)
      .optional(),
    metadata: stringRecord,
    virtual: z.boolean().optional(),
  }),
  allowance: z.strictObject({
    reason: z.enum(['one_time']),
    max_amount: int,
    currency: currencyCode,
    checkout_session_id: z.string().max(256),
    merchant_id: z.string().max(256),
    expires_at: dateTime,
  }),
  billing_address: delegateAddress.optional(),
  risk_signals: z
    .array(
      z.strictObject({
        type: z.enum(['card_testing']),
        score: int,
        action: z.enum(['blocked', 'manual_review', 'authorized']),
      }),
    )
    .max(20),
  metadata: stringRecord,
});

export const acpDelegatePaymentResponse = z.strictObject({
  id: z.string(),
  created: dateTime,
  metadata: stringRecord,
});

export const acpDelegatePaymentError = z.strictObject({
  type: z.enum(['invalid_request', 'rate_limit_exceeded', 'processing_error', 'service_unavailable']),
  code: z.enum([
    'invalid_card',
    'duplicate_request',
    'idempotency_conflict',
    'too_many_requests',
    'idempotency_key_required',
    'idempotency_in_flight',
  ]),
  message: z.string(),
  param: z.string().optional(),
  supported_versions: z.array(apiDate).optional(),
});

// --- Webhook: the merchant POSTs order events to the platform, signed in Merchant-Signature -----------

// EventDataOrder: the full Order, with `type` and `status` required as well.
const eventDataOrder = acpOrder.extend({ type: z.literal('order'), status: z.string() });

// The spec's `type` is an open string (receivers accept unknown values); we only send these two.
export const acpWebhookEvent = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('order_create'), data: eventDataOrder }),
  z.strictObject({ type: z.literal('order_update'), data: eventDataOrder }),
]);

export type AcpAddress = z.infer<typeof acpAddress>;
export type AcpBuyer = z.infer<typeof acpBuyer>;
export type AcpItem = z.infer<typeof acpItem>;
export type AcpPaymentHandler = z.infer<typeof acpPaymentHandler>;
export type AcpSelectedFulfillmentOption = z.infer<typeof acpSelectedFulfillmentOption>;
export type AcpCreateSessionRequest = z.infer<typeof acpCreateSessionRequest>;
export type AcpUpdateSessionRequest = z.infer<typeof acpUpdateSessionRequest>;
export type AcpPaymentData = z.infer<typeof acpPaymentData>;
export type AcpCompleteSessionRequest = z.infer<typeof acpCompleteSessionRequest>;
export type AcpCancelSessionRequest = z.infer<typeof acpCancelSessionRequest>;
export type AcpTotal = z.infer<typeof acpTotal>;
export type AcpLineItem = z.infer<typeof acpLineItem>;
export type AcpFulfillmentOption = z.infer<typeof acpFulfillmentOption>;
export type AcpMessage = z.infer<typeof acpMessage>;
export type AcpLink = z.infer<typeof acpLink>;
export type AcpOrder = z.infer<typeof acpOrder>;
export type AcpSessionStatus = (typeof ACP_SESSION_STATUSES)[number];
export type AcpCheckoutSession = z.infer<typeof acpCheckoutSession>;
export type AcpError = z.infer<typeof acpError>;
export type AcpDiscoveryResponse = z.infer<typeof acpDiscoveryResponse>;
export type AcpDelegatePaymentRequest = z.infer<typeof acpDelegatePaymentRequest>;
export type AcpDelegatePaymentResponse = z.infer<typeof acpDelegatePaymentResponse>;
export type AcpDelegatePaymentError = z.infer<typeof acpDelegatePaymentError>;
export type AcpWebhookEvent = z.infer<typeof acpWebhookEvent>;
