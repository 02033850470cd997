// Universal Commerce Protocol (UCP) release v2026-04-08 wire schemas, written field by field from the
// release's JSON Schemas (github.com/Universal-Commerce-Protocol/ucp at tag v2026-04-08: source/schemas/
// ucp.json, service.json, capability.json, payment_handler.json, source/discovery/profile_schema.json,
// source/schemas/shopping/*.json and shopping/types/*.json, the `meta` of mcp.openrpc.json). UCP objects are
// open (no additionalProperties: false), so they are loose: unknown keys pass and are kept. The one closed
// object, types/error_response.json, is strict. Fields carrying `ucp_request` / `ucp_response` annotations
// get one schema per view: the response (`read`), and the create / update / complete requests; a field
// annotated "omit" is left undeclared in that view (an open object still lets it through, to be ignored).
// Amounts are integers in ISO 4217 minor units (cents for CAD). Rules the spec states only in prose are
// refinements, each citing its file.
// One job, one file: the wire of one release, a schema per spec object under a section named after
// its spec file, so a reviewer checks each against its source side by side. The parts refer to one
// another (a checkout holds totals, messages, line items, fulfillment, payment), so they stay together.
import { z } from 'zod';

export const UCP_VERSION = '2026-04-08';

const int = z.number().int();
const dateTime = z.iso.datetime({ offset: true }); // format: date-time is RFC 3339: Z or an offset
// Every string and list a request can carry is bounded (ours where the spec gives none, docs/ucp.md
// "The checkout"): a session keeps what it is sent, so nothing may grow a row unbounded.
const uri = z.url().max(2048);
// overview.md: "All UCP communication MUST occur over HTTPS"; endpoints, profile URLs, continue_url.
const httpsUri = z.url({ protocol: /^https$/ }).max(2048);
const freeObject = z.looseObject({}); // `type: object` with no properties: any keys, all kept
// Business-determined ISO 4217 code (the schema says only "ISO 4217 currency code"; we hold it to the
// upper-case alpha-3 form). The platform's context.currency hint stays a free string.
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'validation.currencyUpper');

/** ucp.json#/$defs/version: every UCP version is a date. */
export const ucpVersion = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'validation.versionDate');

/** types/reverse_domain_name.json */
export const ucpReverseDomainName = z
  .string()
  .max(256)
  .regex(/^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+$/, 'validation.reverseDomain');

const amount = int.min(0); // types/amount.json
const signedAmount = int; // types/signed_amount.json

/** JSON Schema `uniqueItems`: no two items alike (items compare as their JSON). */
const uniqueArray = <T extends z.ZodType>(item: T, max = 50) =>
  z
    .array(item)
    .max(max)
    .refine((a) => new Set(a.map((x) => JSON.stringify(x))).size === a.length, {
      message: 'validation.uniqueItems',
    });

/** JSON Schema `minProperties: 1` on an open object. */
const nonEmptyObject = freeObject.refine((o) => Object.keys(o).length > 0, {
  message: 'validation.atLeastOneProperty',
});

// --- Shared parts: types/*.json -----------------------------------------------------------------------

/** types/postal_address.json: every field optional. */
export const ucpPostalAddress = z.looseObject({
  extended_address: z.string().max(256).optional(),
  street_address: z.string().max(256).optional(),
  address_locality: z.string().max(128).optional(),
  address_region: z.string().max(64).optional(),
  address_country: z.string().max(64).optional(),
  postal_code: z.string().max(32).optional(),
  first_name: z.string().max(256).optional(),
  last_name: z.string().max(256).optional(),
  phone_number: z.string().max(32).optional(),
});

/** buyer_consent.json#/$defs/consent: what the buyer-consent extension adds as `buyer.consent`. */
export const ucpConsent = z.looseObject({
  analytics: z.boolean().optional(),
  preferences: z.boolean().optional(),
  marketing: z.boolean().optional(),
  sale_of_data: z.boolean().optional(),
});

/** types/buyer.json (+ `consent` from buyer_consent.json when that extension is negotiated). */
export const ucpBuyer = z.looseObject({
  first_name: z.string().max(256).optional(),
  last_name: z.string().max(256).optional(),
  // No `format` in the schema; bounded loosely: the service says what an address must be (ucp/request.ts).
  email: z.string().max(320).optional(),
  phone_number: z.string().max(32).optional(), // E.164, by description only
  consent: ucpConsent.optional(),
});

/** types/context.json: provisional hints, never authoritative. */
export const ucpContext = z.looseObject({
  address_country: z.string().max(64).optional(),
  address_region: z.string().max(64).optional(),
  postal_code: z.string().max(32).optional(),
  intent: z.string().max(256).optional(),
  language: z.string().max(35).optional(), // BCP 47
  currency: z.string().max(16).optional(), // a hint only
  eligibility: uniqueArray(ucpReverseDomainName).optional(),
});

/** types/signals.json: every key reverse-domain (propertyNames), two well-known ones. */
export const ucpSignals = z
  .looseObject({
    'dev.ucp.buyer_ip': z.string().max(256).optional(),
    'dev.ucp.user_agent': z.string().max(256).optional(),
  })
  .superRefine((signals, ctx) => {
    for (const key of Object.keys(signals)) {
      if (!ucpReverseDomainName.safeParse(key).success) {
        ctx.addIssue({ code: 'custom', message: 'validation.signalKeys', path: [key] });
      }
    }
  });

/** types/attribution.json: URL-style parameters, every value a string. */
export const ucpAttribution = z
  .record(z.string().max(64), z.string().max(500))
  .refine((r) => Object.keys(r).length <= 50, { message: 'validation.maxKeys', params: { max: 50 } });

/** types/link.json: `type` is open (privacy_policy, terms_of_service, refund_policy, ...). */
export const ucpLink = z.looseObject({
  type: z.string().max(64),
  url: uri,
  title: z.string().max(256).optional(),
});

/** types/description.json: one format at least. */
export const ucpDescription = z
  .looseObject({
    plain: z.string().max(256).optional(),
    html: z.string().max(256).optional(),
    markdown: z.string().max(256).optional(),
  })
  .refine((d) => Object.keys(d).length > 0, { message: 'validation.atLeastOneFormat' });

// --- Totals: types/total.json, types/totals.json ------------------------------------------------------

/** The well-known `totals[].type` values; the field itself is an open string. */
export const UCP_TOTAL_TYPES = [
  'subtotal',
  'items_discount',
  'discount',
  'fulfillment',
  'tax',
  'fee',
  'total',
] as const;
const NEGATIVE_TOTALS: readonly string[] = ['discount', 'items_discount'];
const NON_NEGATIVE_TOTALS: readonly string[] = ['subtotal', 'fulfillment', 'tax', 'fee'];
const WELL_KNOWN_TOTALS: readonly string[] = UCP_TOTAL_TYPES;

const sum = (values: readonly { amount: number }[]) => values.reduce((acc, v) => acc + v.amount, 0);

/** A `lines[]` sub-line of a top-level totals entry (totals.json). */
export const ucpTotalLine = z.looseObject({ display_text: z.string(), amount: signedAmount });

/**
 * One cost entry. total.json enforces the sign of the well-known types (discounts < 0; subtotal,
 * fulfillment, tax, fee >= 0); `lines` comes from totals.json, whose sum must equal the entry's amount
 * (checkout.md §Sub-Lines).
 */
export const ucpTotal = z
  .looseObject({
    type: z.string(),
    display_text: z.string().optional(),
    amount: signedAmount,
    lines: z.array(ucpTotalLine).optional(),
  })
  .superRefine((total, ctx) => {
    if (NEGATIVE_TOTALS.includes(total.type) && total.amount >= 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.totalNegative',
        params: { type: total.type },
        path: ['amount'],
      });
    }
    if (NON_NEGATIVE_TOTALS.includes(total.type) && total.amount < 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.totalNotNegative',
        params: { type: total.type },
        path: ['amount'],
      });
    }
    if (total.lines !== undefined && sum(total.lines) !== total.amount) {
      ctx.addIssue({ code: 'custom', message: 'validation.linesAddUp', path: ['lines'] });
    }
  });

/** Plain `total.json` items: line items, fulfillment options, adjustments. No uniqueness rule. */
export const ucpLineTotals = z.array(ucpTotal);

/**
 * totals.json: exactly one `subtotal` and one `total` (minContains/maxContains 1); a type outside the
 * well-known set needs display_text. checkout.md §Verification: sum(all except total) == total, the check
 * platforms make (and must not auto-complete against); we hold our own bodies to it.
 */
export const ucpTotals = z.array(ucpTotal).superRefine((totals, ctx) => {
  totals.forEach((total, i) => {
    if (!WELL_KNOWN_TOTALS.includes(total.type) && total.display_text === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.totalNeedsDisplayText',
        params: { type: total.type },
        path: [i, 'display_text'],
      });
    }
  });
  const subtotals = totals.filter((t) => t.type === 'subtotal');
  const grand = totals.filter((t) => t.type === 'total');
  if (subtotals.length !== 1) {
    ctx.addIssue({ code: 'custom', message: 'validation.oneSubtotal', params: { n: subtotals.length } });
  }
  if (grand.length !== 1) {
    ctx.addIssue({ code: 'custom', message: 'validation.oneTotal', params: { n: grand.length } });
    return;
  }
  const expected = sum(totals.filter((t) => t.type !== 'total'));
  if (expected !== grand[0]!.amount) {
    ctx.addIssue({
      code: 'custom',
      message: 'validation.totalMismatch',
      params: { total: grand[0]!.amount, expected },
    });
  }
});

// --- Messages: types/message*.json --------------------------------------------------------------------

export const UCP_ERROR_SEVERITIES = [
  'recoverable',
  'requires_buyer_input',
  'requires_buyer_review',
  'unrecoverable',
] as const;
const contentType = z.enum(['plain', 'markdown']); // default plain

// `code` is an open string in error_code.json, warning_code.json and info_code.json.
export const ucpMessageError = z.looseObject({
  type: z.literal('error'),
  code: z.string(),
  path: z.string().optional(), // RFC 9535 JSONPath
  content_type: contentType.optional(),
  content: z.string(),
  severity: z.enum(UCP_ERROR_SEVERITIES),
});

export const ucpMessageWarning = z.looseObject({
  type: z.literal('warning'),
  path: z.string().optional(),
  code: z.string(),
  content: z.string(),
  content_type: contentType.optional(),
  // An open string in message_warning.json (default "notice"); the docs define notice and disclosure.
  presentation: z.string().optional(),
  image_url: uri.optional(),
  url: uri.optional(),
});

export const ucpMessageInfo = z.looseObject({
  type: z.literal('info'),
  path: z.string().optional(),
  code: z.string().optional(),
  content_type: contentType.optional(),
  content: z.string(),
});

/** types/message.json: oneOf error | warning | info, told apart by `type`. */
export const ucpMessage = z.discriminatedUnion('type', [ucpMessageError, ucpMessageWarning, ucpMessageInfo]);

// --- Registries in profiles and the `ucp` envelope: service.json, capability.json, payment_handler.json ---

/** ucp.json#/$defs/entity: what services, capabilities and handlers share. */
const entity = {
  version: ucpVersion,
  spec: uri.optional(),
  schema: uri.optional(),
  id: z.string().optional(),
  config: freeObject.optional(),
};

/** transports/embedded_config.json */
export const ucpEmbeddedConfig = z.looseObject({
  delegate: z.array(z.string()).optional(),
  color_scheme: z.array(z.enum(['light', 'dark'])).optional(),
});

export const UCP_TRANSPORTS = ['rest', 'mcp', 'a2a', 'embedded'] as const;

/** service.json#/$defs/business_schema: `endpoint` required except for embedded. */
export const ucpServiceEntry = z.discriminatedUnion('transport', [
  z.looseObject({ ...entity, transport: z.literal('rest'), endpoint: httpsUri }),
  z.looseObject({ ...entity, transport: z.literal('mcp'), endpoint: httpsUri }),
  z.looseObject({ ...entity, transport: z.literal('a2a'), endpoint: httpsUri }), // the Agent Card URL
  z.looseObject({
    ...entity,
    transport: z.literal('embedded'),
    endpoint: httpsUri.optional(),
    config: ucpEmbeddedConfig.optional(),
  }),
]);

/** service.json#/$defs/platform_schema: `spec` always, `schema` for rest, mcp and embedded. */
export const ucpPlatformServiceEntry = z.discriminatedUnion('transport', [
  z.looseObject({
    ...entity,
    spec: uri,
    schema: uri,
    transport: z.literal('rest'),
    endpoint: httpsUri.optional(),
  }),
  z.looseObject({
    ...entity,
    spec: uri,
    schema: uri,
    transport: z.literal('mcp'),
    endpoint: httpsUri.optional(),
  }),
  z.looseObject({ ...entity, spec: uri, transport: z.literal('a2a'), endpoint: httpsUri.optional() }),
  z.looseObject({
    ...entity,
    spec: uri,
    schema: uri,
    transport: z.literal('embedded'),
    endpoint: httpsUri.optional(),
  }),
]);

/** service.json#/$defs/response_schema */
export const ucpResponseServiceEntry = z.discriminatedUnion('transport', [
  z.looseObject({ ...entity, transport: z.literal('rest'), endpoint: httpsUri.optional() }),
  z.looseObject({ ...entity, transport: z.literal('mcp'), endpoint: httpsUri.optional() }),
  z.looseObject({ ...entity, transport: z.literal('a2a'), endpoint: httpsUri.optional() }),
  z.looseObject({
    ...entity,
    transport: z.literal('embedded'),
    endpoint: httpsUri.optional(),
    config: ucpEmbeddedConfig.optional(),
  }),
]);

/**
 * capability.json#/$defs/business_schema (= base = response_schema). overview.md §Spec URL Binding calls
 * spec and schema "REQUIRED for all capabilities", but only the platform schema requires them; we follow
 * the schema (source/schemas/capability.json).
 */
export const ucpCapabilityEntry = z.looseObject({
  ...entity,
  extends: z.union([ucpReverseDomainName, z.array(ucpReverseDomainName).min(1)]).optional(),
});

/** capability.json#/$defs/platform_schema */
export const ucpPlatformCapabilityEntry = ucpCapabilityEntry.extend({ spec: uri, schema: uri });

/** types/available_payment_instrument.json (+ card constraints, card_payment_instrument.json). */
export const ucpAvailablePaymentInstrument = z
  .looseObject({ type: z.string(), constraints: nonEmptyObject.optional() })
  .superRefine((instrument, ctx) => {
    if (instrument.type !== 'card' || instrument.constraints === undefined) return;
    const brands = uniqueArray(z.string()).min(1).optional().safeParse(instrument.constraints.brands);
    if (!brands.success) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.cardBrands',
        path: ['constraints', 'brands'],
      });
    }
  });

/** payment_handler.json#/$defs/business_schema (= base = response_schema): `id` is required. */
export const ucpPaymentHandlerEntry = z.looseObject({
  ...entity,
  id: z.string(),
  available_instruments: z.array(ucpAvailablePaymentInstrument).min(1).optional(),
});

/** payment_handler.json#/$defs/platform_schema */
export const ucpPlatformPaymentHandlerEntry = ucpPaymentHandlerEntry.extend({ spec: uri, schema: uri });

/**
 * A registry keyed by reverse-domain name, each value an array of entries (one per version or
 * transport). `specific` holds the stricter shape of some well-known names (their config).
 */
const registry = <T extends z.ZodType>(entry: T, specific: Record<string, z.ZodType> = {}) =>
  z.record(ucpReverseDomainName, z.array(entry)).superRefine((reg, ctx) => {
    for (const [name, schema] of Object.entries(specific)) {
      reg[name]?.forEach((value, i) => {
        const result = schema.safeParse(value);
        if (result.success) return;
        for (const issue of result.error.issues) {
          // The entry's own issue, at its place in the registry (worded as it was).
          ctx.addIssue({ ...issue, path: [name, i, ...issue.path] } as z.core.$ZodRawIssue);
        }
      });
    }
  });

/**
 * The authority a reverse-domain name claims: its first two labels reversed (`dev.ucp.shopping.checkout`
 * -> `ucp.dev`). Naive for multi-label public suffixes (co.uk), which the spec does not address.
 */
export const ucpNamespaceAuthority = (name: string) => name.split('.').slice(0, 2).reverse().join('.');

/**
 * overview.md §Spec URL Binding: a capability's spec and schema URLs must be on `https://<authority>`
 * (dev.ucp.* -> https://ucp.dev/...); platforms MUST validate it. Applied to the capability registries
 * of profiles.
 */
const capabilityRegistry = <T extends z.ZodType>(entry: T, specific: Record<string, z.ZodType> = {}) =>
  registry(entry, specific).superRefine((reg, ctx) => {
    for (const [name, entries] of Object.entries(reg)) {
      const origin = `https://${ucpNamespaceAuthority(name)}`;
      entries.forEach((value, i) => {
        for (const field of ['spec', 'schema'] as const) {
          const url = (value as Record<string, unknown>)[field];
          if (typeof url === 'string' && URL.canParse(url) && new URL(url).origin !== origin) {
            ctx.addIssue({
              code: 'custom',
              message: 'validation.servedFrom',
              params: { field, origin },
              path: [name, i, field],
            });
          }
        }
      });
    }
  });

// --- The `ucp` envelope of responses: ucp.json ---------------------------------------------------------

const ucpStatus = z.enum(['success', 'error']); // default "success" (not filled in here)

/** ucp.json#/$defs/base */
const envelope = {
  version: ucpVersion,
  status: ucpStatus.optional(),
  services: registry(ucpResponseServiceEntry).optional(),
  capabilities: registry(ucpCapabilityEntry).optional(),
  payment_handlers: registry(ucpPaymentHandlerEntry).optional(),
};

/** ucp.json#/$defs/response_checkout_schema: payment_handlers is required (it may be `{}`). */
export const ucpResponseCheckoutMeta = z.looseObject({
  ...envelope,
  payment_handlers: registry(ucpPaymentHandlerEntry),
});

/** ucp.json#/$defs/response_order_schema (the order GET and the order webhook body). */
export const ucpResponseOrderMeta = z.looseObject(envelope);

/** ucp.json#/$defs/response_catalog_schema (search, lookup and get_product responses): version only. */
export const ucpResponseCatalogMeta = z.looseObject(envelope);

/** ucp.json#/$defs/error: status must be "error". */
export const ucpErrorMeta = z.looseObject({ ...envelope, status: z.literal('error') });

// --- Line items: types/item.json, types/line_item.json --------------------------------------------------

/** item.json, response view. */
export const ucpItemResponse = z.looseObject({
  id: z.string().max(256),
  title: z.string().max(256),
  price: amount, // unit price
  image_url: uri.optional(),
});

/** item.json, request views: title, price and image_url are omitted. */
export const ucpItemRequest = z.looseObject({ id: z.string().max(256) });

const quantity = int.min(1);

export const ucpLineItemResponse = z.looseObject({
  id: z.string().max(256),
  item: ucpItemResponse,
  quantity,
  totals: ucpLineTotals,
  parent_id: z.string().max(256).optional(),
});

export const ucpLineItemCreate = z.looseObject({ item: ucpItemRequest, quantity });

export const ucpLineItemUpdate = z.looseObject({
  id: z.string().max(256).optional(), // keeps the identity of an existing line
  item: ucpItemRequest,
  quantity,
  parent_id: z.string().max(256).optional(),
});

// --- Fulfillment extension: fulfillment.json, types/fulfillment*.json ---------------------------------

const fulfillmentType = z.enum(['shipping', 'pickup']);

/** types/fulfillment_option.json, response only. */
export const ucpFulfillmentOption = z.looseObject({
  id: z.string().max(256),
  title: z.string().max(256),
  description: z.string().max(256).optional(),
  carrier: z.string().max(256).optional(),
  earliest_fulfillment_time: dateTime.optional(),
  latest_fulfillment_time: dateTime.optional(),
  totals: ucpLineTotals,
});

/** types/shipping_destination.json: a postal address with an id (optional in requests). */
export const ucpShippingDestination = ucpPostalAddress.extend({ id: z.string().max(256) });
const shippingDestinationRequest = ucpPostalAddress.extend({ id: z.string().max(256).optional() });

/** types/retail_location.json (its id is omitted in requests). */
export const ucpRetailLocation = z.looseObject({
  id: z.string().max(256),
  name: z.string().max(256),
  address: ucpPostalAddress.optional(),
});
const retailLocationRequest = z.looseObject({
  name: z.string().max(256),
  address: ucpPostalAddress.optional(),
});

// types/fulfillment_destination.json is a oneOf of two open objects that can both match (a retail
// location with an id is also a valid shipping destination: every postal field is optional), so a strict
// oneOf would refuse every retail location. We read it as "retail location when it has a `name`,
// otherwise a shipping destination".
export const ucpFulfillmentDestination = z.union([ucpRetailLocation, ucpShippingDestination]);
const fulfillmentDestinationRequest = z.union([retailLocationRequest, shippingDestinationRequest]);

/** types/fulfillment_group.json, response view. */
export const ucpFulfillmentGroup = z.looseObject({
  id: z.string().max(256),
  line_item_ids: z.array(z.string().max(256)).max(100),
  options: z.array(ucpFulfillmentOption).optional(),
  selected_option_id: z.string().max(256).nullable().optional(),
});

/** types/fulfillment_available_method.json, response only. */
export const ucpFulfillmentAvailableMethod = z.looseObject({
  type: fulfillmentType,
  line_item_ids: z.array(z.string().max(256)).max(100),
  fulfillable_on: z.string().max(256).nullable().optional(), // "now" or an ISO 8601 date
  description: z.string().max(256).optional(),
});

/** types/fulfillment_method.json, response view. */
export const ucpFulfillmentMethod = z.looseObject({
  id: z.string().max(256),
  type: fulfillmentType,
  line_item_ids: z.array(z.string().max(256)).max(100),
  destinations: z.array(ucpFulfillmentDestination).max(10).optional(),
  selected_destination_id: z.string().max(256).nullable().optional(),
  groups: z.array(ucpFulfillmentGroup).max(50).optional(),
});

/** types/fulfillment.json, response view. */
export const ucpFulfillmentResponse = z.looseObject({
  methods: z.array(ucpFulfillmentMethod).max(10).optional(),
  available_methods: z.array(ucpFulfillmentAvailableMethod).optional(),
});

/** Create view: a method needs its type; groups carry only a selection. */
export const ucpFulfillmentCreate = z.looseObject({
  methods: z
    .array(
      z.looseObject({
        type: fulfillmentType,
        line_item_ids: z.array(z.string().max(256)).max(100).optional(),
        destinations: z.array(fulfillmentDestinationRequest).max(10).optional(),
        selected_destination_id: z.string().max(256).nullable().optional(),
        groups: z
          .array(z.looseObject({ selected_option_id: z.string().max(256).nullable().optional() }))
          .max(50)
          .optional(),
      }),
    )
    .max(10)
    .optional(),
});

/** Update view: a method needs its line_item_ids, a group its id. */
export const ucpFulfillmentUpdate = z.looseObject({
  methods: z
    .array(
      z.looseObject({
        id: z.string().max(256).optional(),
        type: fulfillmentType.optional(),
        line_item_ids: z.array(z.string().max(256)).max(100),
        destinations: z.array(fulfillmentDestinationRequest).max(10).optional(),
        selected_destination_id: z.string().max(256).nullable().optional(),
        groups: z
          .array(
            z.looseObject({
              id: z.string().max(256),
              selected_option_id: z.string().max(256).nullable().optional(),
            }),
          )
          .max(50)
          .optional(),
      }),
    )
    .max(10)
    .optional(),
});

/** types/platform_fulfillment_config.json */
export const ucpPlatformFulfillmentConfig = z.looseObject({
  supports_multi_group: z.boolean().optional(), // default false: exactly one group per method
});

/** types/business_fulfillment_config.json (allows_multi_destination is closed). */
export const ucpBusinessFulfillmentConfig = z.looseObject({
  allows_multi_destination: z
    .strictObject({ shipping: z.boolean().optional(), pickup: z.boolean().optional() })
    .optional(),
  allows_method_combinations: z.array(z.array(fulfillmentType)).optional(),
});

// --- Discount extension: discount.json ----------------------------------------------------------------

/** discount.json#/$defs/allocation */
export const ucpDiscountAllocation = z.looseObject({ path: z.string().max(256), amount });

/** discount.json#/$defs/applied_discount; allocations add up to the amount (discount.md). */
export const ucpAppliedDiscount = z
  .looseObject({
    code: z.string().max(256).optional(), // absent for automatic discounts
    title: z.string().max(256),
    amount, // a positive magnitude
    automatic: z.boolean().optional(), // default false
    method: z.enum(['each', 'across']).optional(),
    priority: int.min(1).optional(),
    provisional: z.boolean().optional(), // default false
    eligibility: ucpReverseDomainName.optional(),
    allocations: z.array(ucpDiscountAllocation).optional(),
  })
  .refine((d) => d.allocations === undefined || sum(d.allocations) === d.amount, {
    message: 'validation.allocationsAddUp',
    path: ['allocations'],
  });

/** discount.json#/$defs/discounts_object, response view. */
export const ucpDiscountsResponse = z.looseObject({
  codes: z.array(z.string().max(256)).max(20).optional(), // echoes the submitted codes, rejected ones included
  applied: z.array(ucpAppliedDiscount).optional(),
});

/** Request view (create and update; omitted on complete): codes replace the previous ones, [] clears. */
export const ucpDiscountsRequest = z.looseObject({ codes: z.array(z.string().max(64)).max(20).optional() });

// --- Payment: payment.json, types/payment_instrument.json, types/*credential.json ----------------------

/** card_payment_instrument.json `display`, checked when an instrument's type is "card". */
export const ucpCardDisplay = z.looseObject({
  brand: z.string().max(256).optional(),
  last_digits: z.string().max(256).optional(),
  expiry_month: int.min(1).max(12).optional(),
  expiry_year: int.optional(),
  description: z.string().max(256).optional(),
  card_art: uri.optional(),
});

const instrumentFields = {
  id: z.string().max(256), // assigned by the platform
  handler_id: z.string().max(256), // a handler `id` from ucp.payment_handlers
  type: z.string().max(64),
  selected: z.boolean().optional(), // selected_payment_instrument
  billing_address: ucpPostalAddress.optional(),
  display: freeObject.optional(), // defined per instrument type
};

const checkCardDisplay = (
  instrument: { type: string; display?: Record<string, unknown> },
  ctx: z.RefinementCtx,
) => {
  if (instrument.type !== 'card' || instrument.display === undefined) return;
  const result = ucpCardDisplay.safeParse(instrument.display);
  if (result.success) return;
  for (const issue of result.error.issues) {
    ctx.addIssue({ ...issue, path: ['display', ...issue.path] } as z.core.$ZodRawIssue);
  }
};

/**
 * The credential in requests: payment_credential.json requires only `type`; token_credential.json, the
 * usual shape, adds `token`. Card credentials (raw PANs) "MUST NOT be used for checkout".
 */
export const ucpPaymentCredential = z.looseObject({
  type: z.string().max(256),
  token: z.string().max(256).optional(),
});

/** Selected payment instrument, request view (create, update, complete). */
export const ucpPaymentInstrument = z
  .looseObject({ ...instrumentFields, credential: ucpPaymentCredential.optional() })
  .superRefine(checkCardDisplay);

/**
 * Selected payment instrument, response view: token_credential.json marks `token` ucp_response "omit", and
 * overview.md §Payment Architecture says businesses MUST NOT echo credentials, so a token is refused here.
 */
export const ucpPaymentInstrumentResponse = z
  .looseObject({
    ...instrumentFields,
    credential: z
      .looseObject({
        type: z.string().max(64),
        token: z.never({ error: 'validation.credentialsNotEchoed' }).optional(),
      })
      .optional(),
  })
  .superRefine(checkCardDisplay);

/** payment.json, request view. `instruments` is optional even on complete, where `payment` is required. */
export const ucpPaymentRequest = z.looseObject({
  instruments: z.array(ucpPaymentInstrument).max(10).optional(),
});

/** payment.json, response view. */
export const ucpPaymentResponse = z.looseObject({
  instruments: z.array(ucpPaymentInstrumentResponse).max(10).optional(),
});

// --- AP2 mandate extension: ap2_mandate.json ----------------------------------------------------------

const merchantAuthorization = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/, 'validation.detachedJws');
const checkoutMandate = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+(~[A-Za-z0-9_-]+)*$/, 'validation.sdJwt');

// --- The checkout: checkout.json -----------------------------------------------------------------------

export const UCP_CHECKOUT_STATUSES = [
  'incomplete',
  'requires_escalation',
  'ready_for_complete',
  'complete_in_progress',
  'completed',
  'canceled',
] as const;

/** types/order_confirmation.json: set once the checkout is completed. */
export const ucpOrderConfirmation = z.looseObject({
  id: z.string(),
  label: z.string().optional(),
  permalink_url: uri,
});

/**
 * The checkout, response view, with the fields of the extensions it may carry once negotiated
 * (fulfillment, discounts, buyer.consent, ap2, cart_id). Prose rules enforced:
 * - checkout.md §Error Handling: `ucp.status` is the shape discriminator, "error" means an error
 *   response (ucpErrorResponse) and no resource;
 * - checkout.md §Continue URL / §Business: requires_escalation needs a continue_url and at least one
 *   error of severity requires_buyer_input or requires_buyer_review; continue_url is absolute HTTPS;
 * - checkout.md §Complete Checkout: the completed checkout carries its `order`;
 * - discount.md §Totals: totals[items_discount] equals the sum of line_items[].totals[items_discount].
 */
export const ucpCheckout = z
  .looseObject({
    ucp: ucpResponseCheckoutMeta,
    id: z.string(),
    line_items: z.array(ucpLineItemResponse),
    buyer: ucpBuyer.optional(),
    context: ucpContext.optional(),
    signals: ucpSignals.optional(),
    attribution: ucpAttribution.optional(),
    status: z.enum(UCP_CHECKOUT_STATUSES),
    currency: currencyCode,
    totals: ucpTotals,
    messages: z.array(ucpMessage).optional(),
    links: z.array(ucpLink), // may be []
    expires_at: dateTime.optional(), // "Default TTL is 6 hours from creation if not sent"
    continue_url: httpsUri.optional(),
    payment: ucpPaymentResponse.optional(),
    order: ucpOrderConfirmation.optional(),
    fulfillment: ucpFulfillmentResponse.optional(),
    discounts: ucpDiscountsResponse.optional(),
    ap2: z.looseObject({ merchant_authorization: merchantAuthorization.optional() }).optional(),
    cart_id: z.string().optional(),
  })
  .superRefine((checkout, ctx) => {
    if (checkout.ucp.status === 'error') {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.notAnError',
        params: { what: 'checkout' },
        path: ['ucp', 'status'],
      });
    }
    if (checkout.status === 'requires_escalation') {
      if (checkout.continue_url === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'validation.escalationNeedsUrl',
          path: ['continue_url'],
        });
      }
      const escalating = (checkout.messages ?? []).some(
        (m) =>
          m.type === 'error' &&
          (m.severity === 'requires_buyer_input' || m.severity === 'requires_buyer_review'),
      );
      if (!escalating) {
        ctx.addIssue({
          code: 'custom',
          message: 'validation.escalationNeedsError',
          path: ['messages'],
        });
      }
    }
    if (checkout.status === 'completed' && checkout.order === undefined) {
      ctx.addIssue({ code: 'custom', message: 'validation.completedNeedsOrder', path: ['order'] });
    }
    const itemsDiscount = (totals: readonly { type: string; amount: number }[]) =>
      sum(totals.filter((t) => t.type === 'items_discount'));
    const lineDiscounts = checkout.line_items.reduce((acc, line) => acc + itemsDiscount(line.totals), 0);
    if (itemsDiscount(checkout.totals) !== lineDiscounts) {
      ctx.addIssue({
        code: 'custom',
        message: 'validation.itemsDiscount',
        params: { n: lineDiscounts },
        path: ['totals'],
      });
    }
  });

/** Create view: line_items required; ap2 omitted. */
export const ucpCheckoutCreateRequest = z.looseObject({
  line_items: z.array(ucpLineItemCreate).max(100),
  buyer: ucpBuyer.optional(),
  context: ucpContext.optional(),
  signals: ucpSignals.optional(),
  attribution: ucpAttribution.optional(),
  payment: ucpPaymentRequest.optional(),
  fulfillment: ucpFulfillmentCreate.optional(),
  discounts: ucpDiscountsRequest.optional(),
  cart_id: z.string().max(256).optional(), // cart.json#/$defs/checkout: convert a cart
});

/** Update view: a full replacement; line_items required; cart_id and ap2 omitted. */
export const ucpCheckoutUpdateRequest = z.looseObject({
  line_items: z.array(ucpLineItemUpdate).max(100),
  buyer: ucpBuyer.optional(),
  context: ucpContext.optional(),
  signals: ucpSignals.optional(),
  attribution: ucpAttribution.optional(),
  payment: ucpPaymentRequest.optional(),
  fulfillment: ucpFulfillmentUpdate.optional(),
  discounts: ucpDiscountsRequest.optional(),
});

/**
 * Complete view: payment required; line_items, buyer, context, fulfillment and discounts omitted.
 * ap2.checkout_mandate is required by ap2_mandate.json only when that extension is negotiated, so it is
 * optional here. cart_id has no `complete` annotation in cart.json, so it stays allowed.
 */
export const ucpCheckoutCompleteRequest = z.looseObject({
  signals: ucpSignals.optional(),
  attribution: ucpAttribution.optional(),
  payment: ucpPaymentRequest,
  ap2: z.looseObject({ checkout_mandate: checkoutMandate }).optional(),
  cart_id: z.string().max(256).optional(),
});

/** types/error_response.json: the one closed object. No resource, only why. */
export const ucpErrorResponse = z.strictObject({
  ucp: ucpErrorMeta,
  messages: z.array(ucpMessage).min(1),
  continue_url: uri.optional(),
});

/** The codes overview.md §Error Codes and signatures.md §Error Handling give to transport errors. */
export const UCP_PROTOCOL_ERROR_CODES = [
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
  'profile_not_trusted',
  'signature_missing',
  'signature_invalid',
  'key_not_found',
  'digest_mismatch',
  'algorithm_unsupported',
] as const;

/**
 * The optional body of a 4xx/5xx transport error (overview.md §Transport Bindings, signatures.md). No
 * schema defines it, and it does not match the closed types/error_response.json; `code` stays an open
 * string (409, 429 and 500 have no code in the spec).
 */
export const ucpProtocolError = z.looseObject({
  code: z.string().min(1),
  content: z.string(),
  continue_url: uri.optional(),
});

// --- The order: order.json, types/order_line_item.json, expectation.json, fulfillment_event.json, ------
// --- adjustment.json -------------------------------------------------------------------------------------

const orderLineItemStatus = z.enum(['processing', 'partial', 'fulfilled', 'removed']);

/** The status order_line_item.json derives from the quantities. */
export const ucpDerivedLineItemStatus = (q: { total: number; fulfilled: number }) => {
  if (q.total === 0) return 'removed';
  if (q.fulfilled === q.total) return 'fulfilled';
  if (q.fulfilled > 0) return 'partial';
  return 'processing';
};

export const ucpOrderLineItem = z
  .looseObject({
    id: z.string(),
    item: ucpItemResponse,
    quantity: z.looseObject({
      original: int.min(0).optional(),
      total: int.min(0),
      fulfilled: int.min(0),
    }),
    totals: ucpLineTotals,
    status: orderLineItemStatus,
    parent_id: z.string().optional(),
  })
  .refine((line) => line.status === ucpDerivedLineItemStatus(line.quantity), {
    message: 'validation.derivedStatus',
    path: ['status'],
  });

const lineItemQuantity = z.looseObject({ id: z.string(), quantity: int.min(1) });

/** types/expectation.json */
export const ucpExpectation = z.looseObject({
  id: z.string(),
  line_items: z.array(lineItemQuantity),
  method_type: z.enum(['shipping', 'pickup', 'digital']),
  destination: ucpPostalAddress,
  description: z.string().optional(),
  fulfillable_on: z.string().optional(), // "now" or an ISO 8601 timestamp
});

/**
 * types/fulfillment_event.json, append-only. `type` is open (processing, shipped, in_transit, delivered,
 * ...). tracking_number and tracking_url are described as "required if type != processing", which the
 * schema does not enforce and which cannot hold for pickups or cancellations: not enforced.
 */
export const ucpFulfillmentEvent = z.looseObject({
  id: z.string(),
  occurred_at: dateTime,
  type: z.string(),
  line_items: z.array(lineItemQuantity),
  tracking_number: z.string().optional(),
  tracking_url: uri.optional(),
  carrier: z.string().optional(),
  description: z.string().optional(),
});

/** types/adjustment.json: `type` is open (refund, return, credit, ...); quantities and totals signed. */
export const ucpAdjustment = z.looseObject({
  id: z.string(),
  type: z.string(),
  occurred_at: dateTime,
  status: z.enum(['pending', 'completed', 'failed']),
  line_items: z.array(z.looseObject({ id: z.string(), quantity: int })).optional(),
  totals: ucpLineTotals.optional(),
  description: z.string().optional(),
});

/** order.json, response view (the GET body and the webhook body). */
export const ucpOrder = z
  .looseObject({
    ucp: ucpResponseOrderMeta,
    id: z.string(),
    label: z.string().optional(),
    checkout_id: z.string(),
    permalink_url: uri,
    line_items: z.array(ucpOrderLineItem), // every line ever on the order
    fulfillment: z.looseObject({
      expectations: z.array(ucpExpectation).optional(),
      events: z.array(ucpFulfillmentEvent).optional(),
    }),
    adjustments: z.array(ucpAdjustment).optional(),
    currency: currencyCode,
    totals: ucpTotals,
    messages: z.array(ucpMessage).optional(),
    attribution: ucpAttribution.optional(),
  })
  .refine((order) => order.ucp.status !== 'error', {
    message: 'validation.notAnError',
    params: { what: 'order' },
    path: ['ucp', 'status'],
  });

// --- The catalog: catalog_search.json, catalog_lookup.json and their types/*.json ---------------------

/** types/price.json: the currency is held to ^[A-Z]{3}$ by the schema itself. */
export const ucpPrice = z.looseObject({ amount, currency: currencyCode });

/**
 * types/price_range.json. min <= max and one currency for both are implied by the names only, not
 * stated: not enforced.
 */
export const ucpPriceRange = z.looseObject({ min: ucpPrice, max: ucpPrice });

/** types/media.json: `type` is open (image, video, model_3d, ...). */
export const ucpMedia = z.looseObject({
  type: z.string(),
  url: uri,
  alt_text: z.string().optional(),
  width: int.min(1).optional(),
  height: int.min(1).optional(),
});

/** types/rating.json. value within [scale_min, scale_max] is not stated: not enforced. */
export const ucpRating = z.looseObject({
  value: z.number().min(0),
  scale_min: z.number().min(0).optional(), // default 1 (not filled in here)
  scale_max: z.number().min(1),
  count: int.min(0).optional(),
});

/** types/category.json: `taxonomy` is open (google_product_category, shopify, merchant, ...). */
export const ucpCategory = z.looseObject({ value: z.string(), taxonomy: z.string().optional() });

/** types/option_value.json */
export const ucpOptionValue = z.looseObject({ id: z.string().optional(), label: z.string() });

/** types/product_option.json */
export const ucpProductOption = z.looseObject({ name: z.string(), values: z.array(ucpOptionValue).min(1) });

/** types/selected_option.json: `id`, when present, is an option_value.id the server SHOULD match on. */
export const ucpSelectedOption = z.looseObject({
  name: z.string(),
  id: z.string().optional(),
  label: z.string(),
});

/** lookup.md §Option Selection: "Each option name MUST appear at most once" in `selected`. */
const selectedOptions = z
  .array(ucpSelectedOption)
  .refine((options) => new Set(options.map((o) => o.name)).size === options.length, {
    message: 'validation.optionOnce',
  });

/**
 * types/detail_option_value.json (option_value + availability signals). lookup.md §Output: Availability
 * Signals lists available/exists as true/true, false/true and false/false: a purchasable value exists,
 * so available: true with exists: false is refused.
 */
export const ucpDetailOptionValue = ucpOptionValue
  .extend({ available: z.boolean().optional(), exists: z.boolean().optional() })
  .refine((v) => !(v.available === true && v.exists === false), {
    message: 'validation.availableMustExist',
    path: ['exists'],
  });

/** variant.json `unit_price`: amount precomputed by the business, (price / measure.value) * reference.value. */
export const ucpUnitPrice = z.looseObject({
  amount,
  currency: currencyCode, // pattern ^[A-Z]{3}$ in the schema
  measure: z.looseObject({ value: z.number(), unit: z.string() }), // e.g. 750 ml
  reference: z.looseObject({ value: int, unit: z.string() }), // e.g. per 100 ml
});

/**
 * types/variant.json: its `id` is the item.id of checkout line items. availability.status and
 * barcodes[].type are open strings (in_stock, backorder, preorder, out_of_stock, discontinued; UPC, EAN,
 * ISBN, GTIN, JAN).
 */
export const ucpVariant = z.looseObject({
  id: z.string(),
  sku: z.string().optional(),
  barcodes: z.array(z.looseObject({ type: z.string(), value: z.string() })).optional(),
  handle: z.string().optional(),
  title: z.string(),
  description: ucpDescription,
  url: uri.optional(),
  categories: z.array(ucpCategory).optional(),
  price: ucpPrice,
  list_price: ucpPrice.optional(),
  unit_price: ucpUnitPrice.optional(),
  availability: z
    .looseObject({ available: z.boolean().optional(), status: z.string().optional() })
    .optional(),
  options: z.array(ucpSelectedOption).optional(),
  media: z.array(ucpMedia).optional(),
  rating: ucpRating.optional(),
  tags: z.array(z.string()).optional(),
  metadata: freeObject.optional(),
  seller: z.looseObject({ name: z.string().optional(), links: z.array(ucpLink).optional() }).optional(),
});

/**
 * types/product.json. price_range spans all the product's variants, not only the ones a response
 * carries (lookup returns the featured one, get_product a subset), so it is not checked against them.
 */
export const ucpProduct = z.looseObject({
  id: z.string(),
  handle: z.string().optional(),
  title: z.string(),
  description: ucpDescription,
  url: uri.optional(),
  categories: z.array(ucpCategory).optional(),
  price_range: ucpPriceRange,
  list_price_range: ucpPriceRange.optional(),
  media: z.array(ucpMedia).optional(), // the first is featured
  options: z.array(ucpProductOption).optional(),
  variants: z.array(ucpVariant).min(1), // the first is featured
  rating: ucpRating.optional(),
  tags: z.array(z.string()).optional(),
  metadata: freeObject.optional(),
});

/** types/price_filter.json: amounts in context.currency (businesses SHOULD convert, MAY ignore). */
export const ucpPriceFilter = z.looseObject({ min: amount.optional(), max: amount.optional() });

/** types/search_filters.json (additionalProperties: true: businesses MAY add custom filters). */
export const ucpSearchFilters = z.looseObject({
  categories: z.array(z.string()).optional(), // OR among them; matched against categories[].value
  price: ucpPriceFilter.optional(),
});

/** pagination.json#/$defs/request */
export const ucpPaginationRequest = z.looseObject({
  cursor: z.string().optional(),
  limit: int.min(1).optional(), // default 10; businesses MAY clamp it
});

/** pagination.json#/$defs/response: if has_next_page is true, cursor is required (if/then). */
export const ucpPagination = z
  .looseObject({
    cursor: z.string().optional(),
    has_next_page: z.boolean(),
    total_count: int.min(0).optional(),
  })
  .refine((p) => !p.has_next_page || p.cursor !== undefined, {
    message: 'validation.nextPageCursor',
    path: ['cursor'],
  });

/** types/input_correlation.json: `match` is open (exact, featured, ...). */
export const ucpInputCorrelation = z.looseObject({ id: z.string(), match: z.string().optional() });

const catalogInputs = {
  context: ucpContext.optional(),
  signals: ucpSignals.optional(),
  attribution: ucpAttribution.optional(),
};

/**
 * catalog_search.json#/$defs/search_request. Every field is optional in the schema, but search.md
 * §Search Inputs: a request MUST include a query, one or more filters "or an extension-defined input",
 * and implementations MUST validate that it has one they recognize. We negotiate no input extension, so
 * a query (any string) or a filters object with at least one key is required.
 */
export const ucpCatalogSearchRequest = z
  .looseObject({
    query: z.string().optional(),
    ...catalogInputs,
    filters: ucpSearchFilters.optional(),
    pagination: ucpPaginationRequest.optional(),
  })
  .refine((r) => r.query !== undefined || (r.filters !== undefined && Object.keys(r.filters).length > 0), {
    message: 'validation.searchNeedsQuery',
    path: ['query'],
  });

/**
 * A catalog response with `ucp.status: "error"` is an error response (types/error_response.json), not a
 * catalog payload (checkout.md §Error Handling: ucp.status is the shape discriminator; catalog/rest.md
 * §Product Not Found).
 */
const notAnError =
  (what: 'search' | 'lookup' | 'product') => (body: { ucp: { status?: string } }, ctx: z.RefinementCtx) => {
    if (body.ucp.status !== 'error') return;
    ctx.addIssue({
      code: 'custom',
      message: 'validation.notAnError',
      params: { what },
      path: ['ucp', 'status'],
    });
  };

// catalog/index.md says every catalog error has severity "recoverable", but catalog/rest.md §Product Not
// Found answers with "unrecoverable": severity is left to the message schema.

/** catalog_search.json#/$defs/search_response: products may be [] (no match is not an error). */
export const ucpCatalogSearchResponse = z
  .looseObject({
    ucp: ucpResponseCatalogMeta,
    products: z.array(ucpProduct),
    pagination: ucpPagination.optional(),
    messages: z.array(ucpMessage).optional(),
  })
  .superRefine(notAnError('search'));

/**
 * catalog_lookup.json#/$defs/lookup_request. lookup.md: duplicate ids are deduplicated by the business
 * (so allowed here); a business MAY cap the batch (400 request_too_large), not a schema rule.
 */
export const ucpCatalogLookupRequest = z.looseObject({
  ids: z.array(z.string()).min(1), // product and variant ids MUST be supported; SKU, handle, ... MAY
  filters: ucpSearchFilters.optional(),
  ...catalogInputs,
});

/** catalog_lookup.json#/$defs/lookup_variant: which request ids resolved to the variant, and how. */
export const ucpLookupVariant = ucpVariant.extend({ inputs: z.array(ucpInputCorrelation).min(1) });

/** A lookup_response product: types/product.json whose variants are lookup variants. */
export const ucpLookupProduct = ucpProduct.extend({ variants: z.array(ucpLookupVariant).min(1) });

/** catalog_lookup.json#/$defs/lookup_response: ids not found are left out (MAY be named in info messages). */
export const ucpCatalogLookupResponse = z
  .looseObject({
    ucp: ucpResponseCatalogMeta,
    products: z.array(ucpLookupProduct),
    messages: z.array(ucpMessage).optional(),
  })
  .superRefine(notAnError('lookup'));

/** catalog_lookup.json#/$defs/get_product_request: `id` is a product or a variant id. */
export const ucpGetProductRequest = z.looseObject({
  id: z.string(),
  selected: selectedOptions.optional(), // partial selections are valid
  preferences: z.array(z.string()).optional(), // option names, relaxed from the end first
  filters: ucpSearchFilters.optional(),
  ...catalogInputs,
});

/** catalog_lookup.json#/$defs/detail_product `options[]`: a product_option whose values carry signals. */
export const ucpDetailProductOption = z.looseObject({
  name: z.string(),
  values: z.array(ucpDetailOptionValue).min(1),
});

/**
 * catalog_lookup.json#/$defs/detail_product: types/product.json + the effective `selected` and options
 * with availability signals. Its `selected` is described as "Required when the product has configurable
 * options" (and lookup.md §Output: Effective Selections MUST), which the schema does not enforce: we do,
 * reading "configurable options" as a non-empty `options`. `selected` may be partial (relaxation).
 */
export const ucpDetailProduct = ucpProduct
  .extend({
    selected: selectedOptions.optional(),
    options: z.array(ucpDetailProductOption).optional(),
  })
  .refine((p) => p.options === undefined || p.options.length === 0 || p.selected !== undefined, {
    message: 'validation.optionsSelected',
    path: ['selected'],
  });

/**
 * catalog_lookup.json#/$defs/get_product_response. REST and MCP answer it oneOf types/error_response.json
 * (ucpErrorResponse), which is what a product not found gets.
 */
export const ucpGetProductResponse = z
  .looseObject({
    ucp: ucpResponseCatalogMeta,
    product: ucpDetailProduct,
    messages: z.array(ucpMessage).optional(),
  })
  .superRefine(notAnError('product'));

// --- Profiles: discovery/profile_schema.json ----------------------------------------------------------

/**
 * profile_schema.json#/$defs/signing_key asks only kid and kty, but signatures.md §Key Format defines EC
 * keys alone (ES256 on P-256 required, ES384 on P-384 optional; algorithm derived from crv), so that is
 * what we take. An `alg`, when present, must match the curve.
 */
export const ucpSigningKey = z
  .looseObject({
    kid: z.string(),
    kty: z.literal('EC'),
    crv: z.enum(['P-256', 'P-384']),
    x: z.string(), // base64url
    y: z.string(),
    use: z.enum(['sig', 'enc']).optional(),
    alg: z.enum(['ES256', 'ES384']).optional(),
  })
  .refine((key) => key.alg === undefined || key.alg === (key.crv === 'P-256' ? 'ES256' : 'ES384'), {
    message: 'validation.algMatchesCrv',
    path: ['alg'],
  });

/** identity_linking.json#/$defs/scope_token: `{capability}:{scope}`. */
export const ucpScopeToken = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+:[a-z][a-z0-9_]*$/, 'validation.scopeToken');

/** identity_linking.json business_schema: config.scopes maps scope -> policy ({} = user auth only). */
export const ucpIdentityLinkingConfig = z.looseObject({
  scopes: z.record(ucpScopeToken, z.looseObject({ description: ucpDescription.optional() })),
});

/** order.json#/$defs/platform_schema: where the business POSTs order webhooks. */
export const ucpPlatformOrderConfig = z.looseObject({ webhook_url: httpsUri });

const businessUcp = z.looseObject({
  version: ucpVersion,
  status: ucpStatus.optional(),
  // Older versions -> a complete profile each; leaf (version-specific) profiles must not carry it.
  supported_versions: z.record(ucpVersion, httpsUri).optional(),
  services: registry(ucpServiceEntry),
  capabilities: capabilityRegistry(ucpCapabilityEntry, {
    'dev.ucp.shopping.fulfillment': ucpCapabilityEntry.extend({
      config: ucpBusinessFulfillmentConfig.optional(),
    }),
    'dev.ucp.common.identity_linking': ucpCapabilityEntry.extend({ config: ucpIdentityLinkingConfig }),
  }).optional(),
  payment_handlers: registry(ucpPaymentHandlerEntry),
});

/** profile_schema.json#/$defs/business_profile, served at /.well-known/ucp. signing_keys is a sibling of ucp. */
export const ucpBusinessProfile = z.looseObject({
  ucp: businessUcp,
  signing_keys: z.array(ucpSigningKey).optional(),
});

const platformUcp = z.looseObject({
  version: ucpVersion,
  status: ucpStatus.optional(),
  services: registry(ucpPlatformServiceEntry),
  capabilities: capabilityRegistry(ucpPlatformCapabilityEntry, {
    'dev.ucp.shopping.order': ucpPlatformCapabilityEntry.extend({ config: ucpPlatformOrderConfig }),
    'dev.ucp.shopping.fulfillment': ucpPlatformCapabilityEntry.extend({
      config: ucpPlatformFulfillmentConfig.optional(),
    }),
  }).optional(),
  payment_handlers: registry(ucpPlatformPaymentHandlerEntry),
});

/** profile_schema.json#/$defs/platform_profile, at the URL a platform sends in UCP-Agent. */
export const ucpPlatformProfile = z.looseObject({
  ucp: platformUcp,
  signing_keys: z.array(ucpSigningKey).optional(),
});

// --- MCP binding: mcp.openrpc.json#/components/schemas/meta -------------------------------------------

/** `arguments.meta` of every tool call; idempotency-key is required by complete and cancel only. */
export const ucpMcpMeta = z.looseObject({
  'ucp-agent': z.looseObject({ profile: httpsUri }),
  'idempotency-key': z.guid().optional(), // format: uuid, any version
});

export type UcpPostalAddress = z.infer<typeof ucpPostalAddress>;
export type UcpConsent = z.infer<typeof ucpConsent>;
export type UcpBuyer = z.infer<typeof ucpBuyer>;
export type UcpContext = z.infer<typeof ucpContext>;
export type UcpSignals = z.infer<typeof ucpSignals>;
export type UcpAttribution = z.infer<typeof ucpAttribution>;
export type UcpLink = z.infer<typeof ucpLink>;
export type UcpDescription = z.infer<typeof ucpDescription>;
export type UcpTotalLine = z.infer<typeof ucpTotalLine>;
export type UcpTotal = z.infer<typeof ucpTotal>;
export type UcpTotals = z.infer<typeof ucpTotals>;
export type UcpLineTotals = z.infer<typeof ucpLineTotals>;
export type UcpErrorSeverity = (typeof UCP_ERROR_SEVERITIES)[number];
export type UcpMessageError = z.infer<typeof ucpMessageError>;
export type UcpMessageWarning = z.infer<typeof ucpMessageWarning>;
export type UcpMessageInfo = z.infer<typeof ucpMessageInfo>;
export type UcpMessage = z.infer<typeof ucpMessage>;
export type UcpEmbeddedConfig = z.infer<typeof ucpEmbeddedConfig>;
export type UcpTransport = (typeof UCP_TRANSPORTS)[number];
export type UcpServiceEntry = z.infer<typeof ucpServiceEntry>;
export type UcpPlatformServiceEntry = z.infer<typeof ucpPlatformServiceEntry>;
export type UcpResponseServiceEntry = z.infer<typeof ucpResponseServiceEntry>;
export type UcpCapabilityEntry = z.infer<typeof ucpCapabilityEntry>;
export type UcpPlatformCapabilityEntry = z.infer<typeof ucpPlatformCapabilityEntry>;
export type UcpAvailablePaymentInstrument = z.infer<typeof ucpAvailablePaymentInstrument>;
export type UcpPaymentHandlerEntry = z.infer<typeof ucpPaymentHandlerEntry>;
export type UcpPlatformPaymentHandlerEntry = z.infer<typeof ucpPlatformPaymentHandlerEntry>;
export type UcpResponseCheckoutMeta = z.infer<typeof ucpResponseCheckoutMeta>;
export type UcpResponseOrderMeta = z.infer<typeof ucpResponseOrderMeta>;
export type UcpErrorMeta = z.infer<typeof ucpErrorMeta>;
export type UcpItemResponse = z.infer<typeof ucpItemResponse>;
export type UcpItemRequest = z.infer<typeof ucpItemRequest>;
export type UcpLineItemResponse = z.infer<typeof ucpLineItemResponse>;
export type UcpLineItemCreate = z.infer<typeof ucpLineItemCreate>;
export type UcpLineItemUpdate = z.infer<typeof ucpLineItemUpdate>;
export type UcpFulfillmentOption = z.infer<typeof ucpFulfillmentOption>;
export type UcpShippingDestination = z.infer<typeof ucpShippingDestination>;
export type UcpRetailLocation = z.infer<typeof ucpRetailLocation>;
export type UcpFulfillmentDestination = z.infer<typeof ucpFulfillmentDestination>;
export type UcpFulfillmentGroup = z.infer<typeof ucpFulfillmentGroup>;
export type UcpFulfillmentAvailableMethod = z.infer<typeof ucpFulfillmentAvailableMethod>;
export type UcpFulfillmentMethod = z.infer<typeof ucpFulfillmentMethod>;
export type UcpFulfillmentResponse = z.infer<typeof ucpFulfillmentResponse>;
export type UcpFulfillmentCreate = z.infer<typeof ucpFulfillmentCreate>;
export type UcpFulfillmentUpdate = z.infer<typeof ucpFulfillmentUpdate>;
export type UcpPlatformFulfillmentConfig = z.infer<typeof ucpPlatformFulfillmentConfig>;
export type UcpBusinessFulfillmentConfig = z.infer<typeof ucpBusinessFulfillmentConfig>;
export type UcpDiscountAllocation = z.infer<typeof ucpDiscountAllocation>;
export type UcpAppliedDiscount = z.infer<typeof ucpAppliedDiscount>;
export type UcpDiscountsResponse = z.infer<typeof ucpDiscountsResponse>;
export type UcpDiscountsRequest = z.infer<typeof ucpDiscountsRequest>;
export type UcpCardDisplay = z.infer<typeof ucpCardDisplay>;
export type UcpPaymentCredential = z.infer<typeof ucpPaymentCredential>;
export type UcpPaymentInstrument = z.infer<typeof ucpPaymentInstrument>;
export type UcpPaymentInstrumentResponse = z.infer<typeof ucpPaymentInstrumentResponse>;
export type UcpPaymentRequest = z.infer<typeof ucpPaymentRequest>;
export type UcpPaymentResponse = z.infer<typeof ucpPaymentResponse>;
export type UcpCheckoutStatus = (typeof UCP_CHECKOUT_STATUSES)[number];
export type UcpOrderConfirmation = z.infer<typeof ucpOrderConfirmation>;
export type UcpCheckout = z.infer<typeof ucpCheckout>;
export type UcpCheckoutCreateRequest = z.infer<typeof ucpCheckoutCreateRequest>;
export type UcpCheckoutUpdateRequest = z.infer<typeof ucpCheckoutUpdateRequest>;
export type UcpCheckoutCompleteRequest = z.infer<typeof ucpCheckoutCompleteRequest>;
export type UcpErrorResponse = z.infer<typeof ucpErrorResponse>;
export type UcpProtocolErrorCode = (typeof UCP_PROTOCOL_ERROR_CODES)[number];
export type UcpProtocolError = z.infer<typeof ucpProtocolError>;
export type UcpOrderLineItem = z.infer<typeof ucpOrderLineItem>;
export type UcpExpectation = z.infer<typeof ucpExpectation>;
export type UcpFulfillmentEvent = z.infer<typeof ucpFulfillmentEvent>;
export type UcpAdjustment = z.infer<typeof ucpAdjustment>;
export type UcpOrder = z.infer<typeof ucpOrder>;
export type UcpResponseCatalogMeta = z.infer<typeof ucpResponseCatalogMeta>;
export type UcpPrice = z.infer<typeof ucpPrice>;
export type UcpPriceRange = z.infer<typeof ucpPriceRange>;
export type UcpMedia = z.infer<typeof ucpMedia>;
export type UcpRating = z.infer<typeof ucpRating>;
export type UcpCategory = z.infer<typeof ucpCategory>;
export type UcpOptionValue = z.infer<typeof ucpOptionValue>;
export type UcpProductOption = z.infer<typeof ucpProductOption>;
export type UcpSelectedOption = z.infer<typeof ucpSelectedOption>;
export type UcpDetailOptionValue = z.infer<typeof ucpDetailOptionValue>;
export type UcpUnitPrice = z.infer<typeof ucpUnitPrice>;
export type UcpVariant = z.infer<typeof ucpVariant>;
export type UcpProduct = z.infer<typeof ucpProduct>;
export type UcpPriceFilter = z.infer<typeof ucpPriceFilter>;
export type UcpSearchFilters = z.infer<typeof ucpSearchFilters>;
export type UcpPaginationRequest = z.infer<typeof ucpPaginationRequest>;
export type UcpPagination = z.infer<typeof ucpPagination>;
export type UcpInputCorrelation = z.infer<typeof ucpInputCorrelation>;
export type UcpCatalogSearchRequest = z.infer<typeof ucpCatalogSearchRequest>;
export type UcpCatalogSearchResponse = z.infer<typeof ucpCatalogSearchResponse>;
export type UcpCatalogLookupRequest = z.infer<typeof ucpCatalogLookupRequest>;
export type UcpLookupVariant = z.infer<typeof ucpLookupVariant>;
export type UcpLookupProduct = z.infer<typeof ucpLookupProduct>;
export type UcpCatalogLookupResponse = z.infer<typeof ucpCatalogLookupResponse>;
export type UcpGetProductRequest = z.infer<typeof ucpGetProductRequest>;
export type UcpDetailProductOption = z.infer<typeof ucpDetailProductOption>;
export type UcpDetailProduct = z.infer<typeof ucpDetailProduct>;
export type UcpGetProductResponse = z.infer<typeof ucpGetProductResponse>;
export type UcpSigningKey = z.infer<typeof ucpSigningKey>;
export type UcpIdentityLinkingConfig = z.infer<typeof ucpIdentityLinkingConfig>;
export type UcpPlatformOrderConfig = z.infer<typeof ucpPlatformOrderConfig>;
export type UcpBusinessProfile = z.infer<typeof ucpBusinessProfile>;
export type UcpPlatformProfile = z.infer<typeof ucpPlatformProfile>;
export type UcpMcpMeta = z.infer<typeof ucpMcpMeta>;
