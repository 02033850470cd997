// The ACP 2026-04-17 wire schemas against realistic bodies of ours (CAD in cents, an Ontario address):
// each parses its example and refuses an unknown field where strict, a missing required field, a
// value outside an enum and a fractional amount; then the spec's cross-field rules.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  ACP_SESSION_STATUSES,
  acpCancelSessionRequest,
  acpCheckoutSession,
  acpCompleteSessionRequest,
  acpCreateSessionRequest,
  acpDelegatePaymentError,
  acpDelegatePaymentRequest,
  acpDelegatePaymentResponse,
  acpDiscoveryResponse,
  acpError,
  acpFulfillmentOption,
  acpItem,
  acpMessage,
  acpUpdateSessionRequest,
  acpWebhookEvent,
} from '../src/contract/acp.ts';

const PRODUCT = 'products:6aJd0Xq2bTfR1vYc9LmN';
const SESSION = 'checkouts:Hq3Zt8VwYb2Kp0LxRm5N';
const ORDER = 'orders:Tn4Bc7Qe1Wd9Ys2Gj6Lk';

const address = {
  name: 'Amélie Tremblay',
  line_one: '290 Bremner Blvd',
  line_two: 'Unit 1204',
  city: 'Toronto',
  state: 'ON',
  country: 'CA',
  postal_code: 'M5V 2T6',
};
const buyer = {
  first_name: 'Amélie',
  last_name: 'Tremblay',
  email: 'amelie.tremblay@example.ca',
  phone_number: '+14165550123',
  account_type: 'registered',
};
// Two bottles of syrup at $24.99, shipping $9.99, HST 13 %.
const totals = [
  { type: 'items_base_amount', display_text: 'Items', amount: 4998 },
  { type: 'subtotal', display_text: 'Subtotal', amount: 4998 },
  { type: 'fulfillment', display_text: 'Shipping', amount: 999 },
  {
    type: 'tax',
    display_text: 'HST',
    amount: 780,
    breakdown: [{ jurisdiction: 'ON', rate: 0.13, amount: 780 }],
  },
  { type: 'total', display_text: 'Total', amount: 6777 },
];
const handler = {
  id: 'card_tokenized',
  name: 'dev.acp.tokenized.card',
  version: '2026-04-17',
  spec: 'https://portage.example/acp/handlers/card',
  requires_delegate_payment: true,
  requires_pci_compliance: false,
  psp: 'stripe',
  config_schema: 'https://portage.example/acp/handlers/card/config.json',
  instrument_schemas: ['https://portage.example/acp/handlers/card/instrument.json'],
  config: { accepted_brands: ['visa', 'mastercard', 'interac'] },
};

const createRequest = {
  buyer,
  line_items: [{ id: PRODUCT, quantity: 2 }],
  currency: 'cad',
  fulfillment_details: { name: address.name, email: buyer.email, address },
  capabilities: { interventions: { supported: ['3ds'] }, extensions: ['discount'] },
  locale: 'en-CA',
  timezone: 'America/Toronto',
};
const updateRequest = {
  line_items: [{ id: PRODUCT, quantity: 3, unit_amount: 2499 }],
  selected_fulfillment_options: [
    { type: 'shipping', option_id: 'canada_post_expedited', item_ids: ['li_1'] },
  ],
  discounts: { codes: ['ERABLE10'] },
};
const completeRequest = {
  buyer,
  payment_data: {
    handler_id: 'card_tokenized',
    instrument: { type: 'card', credential: { type: 'spt', token: 'vt_01J8Z3WXYZ9ABC' } },
    billing_address: address,
  },
  authentication_result: { outcome: 'not_supported' },
  risk_signals: { ip_address: '203.0.113.7', accept_language: 'en-CA' },
  marketing_consents: [{ channel: 'email', opted_in: false }],
};
const cancelRequest = {
  intent_trace: { reason_code: 'shipping_cost', trace_summary: 'Shipping to Toronto too dear' },
};

const order = {
  type: 'order',
  id: ORDER,
  checkout_session_id: SESSION,
  order_number: 'PT-10482',
  permalink_url: 'https://portage.example/orders/PT-10482',
  status: 'confirmed',
  confirmation: { confirmation_number: 'PT-10482', confirmation_email_sent: true },
  line_items: [
    {
      id: 'li_1',
      title: 'Maple syrup, 1 L',
      quantity: { ordered: 2, current: 2 },
      unit_price: 2499,
      subtotal: 4998,
    },
  ],
  totals,
};
const session = {
  id: SESSION,
  protocol: { version: '2026-04-17' },
  capabilities: { payment: { handlers: [handler] } },
  buyer,
  status: 'completed',
  currency: 'cad',
  locale: 'en-CA',
  line_items: [
    {
      id: 'li_1',
      item: { id: PRODUCT },
      quantity: 2,
      name: 'Maple syrup, 1 L',
      unit_amount: 2499,
      availability_status: 'low_stock',
      totals: [{ type: 'items_base_amount', display_text: 'Items', amount: 4998 }],
    },
  ],
  fulfillment_details: { name: address.name, phone_number: '+14165550123', email: buyer.email, address },
  fulfillment_options: [
    {
      type: 'shipping',
      id: 'canada_post_expedited',
      title: 'Canada Post Expedited',
      carrier: 'Canada Post',
      earliest_delivery_time: '2026-05-04T09:00:00-04:00',
      latest_delivery_time: '2026-05-06T17:00:00-04:00',
      totals: [{ type: 'fulfillment', display_text: 'Shipping', amount: 999 }],
    },
  ],
  selected_fulfillment_options: [
    { type: 'shipping', option_id: 'canada_post_expedited', item_ids: ['li_1'] },
  ],
  totals,
  messages: [
    {
      type: 'warning',
      code: 'low_stock',
      param: '$.line_items[0]',
      content_type: 'plain',
      content: '3 left',
    },
  ],
  links: [{ type: 'return_policy', url: 'https://portage.example/returns' }],
  created_at: '2026-05-01T14:02:11Z',
  updated_at: '2026-05-01T14:05:42.318Z',
  order,
};
const error = {
  type: 'invalid_request',
  code: 'invalid',
  message: 'postal_code must look like A1A 1A1',
  param: '$.fulfillment_details.address.postal_code',
};
const discovery = {
  protocol: { name: 'acp', version: '2026-04-17', supported_versions: ['2026-04-17'] },
  api_base_url: 'https://portage.example/acp',
  transports: ['rest', 'mcp'],
  capabilities: { services: ['checkout', 'delegate_payment'], supported_currencies: ['cad'] },
};
const delegateRequest = {
  payment_method: {
    type: 'card',
    card_number_type: 'fpan',
    number: '4242424242424242',
    exp_month: '11',
    exp_year: '2028',
    name: 'Amelie Tremblay',
    cvc: '223',
    checks_performed: ['avs', 'cvv'],
    display_card_funding_type: 'credit',
    display_brand: 'visa',
    display_last4: '4242',
    metadata: {},
  },
  allowance: {
    reason: 'one_time',
    max_amount: 6777,
    currency: 'cad',
    checkout_session_id: SESSION,
    merchant_id: 'portage',
    expires_at: '2026-05-01T15:05:42Z',
  },
  billing_address: address,
  risk_signals: [{ type: 'card_testing', score: 4, action: 'authorized' }],
  metadata: { source: 'agent_checkout' },
};
const delegateResponse = {
  id: 'vt_01J8Z3WXYZ9ABC',
  created: '2026-05-01T14:05:43Z',
  metadata: { source: 'agent_checkout' },
};
const delegateError = {
  type: 'invalid_request',
  code: 'invalid_card',
  message: 'Card expired',
  param: '$.payment_method.exp_year',
};
const webhook = { type: 'order_update', data: { ...order, status: 'shipped' } };

type Path = Array<string | number>;
type Case = {
  name: string;
  schema: z.ZodType;
  valid: unknown;
  strict: boolean;
  required: Path;
  enumField?: Path;
  amount?: Path;
};

const cases: Case[] = [
  {
    name: 'create request',
    schema: acpCreateSessionRequest,
    valid: createRequest,
    strict: true,
    required: ['capabilities'],
    enumField: ['buyer', 'account_type'],
    amount: ['line_items', 0, 'unit_amount'],
  },
  {
    name: 'update request',
    schema: acpUpdateSessionRequest,
    valid: updateRequest,
    strict: true,
    required: ['selected_fulfillment_options', 0, 'option_id'],
    enumField: ['selected_fulfillment_options', 0, 'type'],
    amount: ['line_items', 0, 'unit_amount'],
  },
  {
    name: 'complete request',
    schema: acpCompleteSessionRequest,
    valid: completeRequest,
    strict: true,
    required: ['payment_data'],
    enumField: ['authentication_result', 'outcome'],
  },
  {
    name: 'cancel request',
    schema: acpCancelSessionRequest,
    valid: cancelRequest,
    strict: false,
    required: ['intent_trace', 'reason_code'],
    enumField: ['intent_trace', 'reason_code'],
  },
  {
    name: 'checkout session',
    schema: acpCheckoutSession,
    valid: session,
    strict: true,
    required: ['links'],
    enumField: ['status'],
    amount: ['totals', 4, 'amount'],
  },
  { name: 'error', schema: acpError, valid: error, strict: true, required: ['message'], enumField: ['type'] },
  {
    name: 'discovery response',
    schema: acpDiscoveryResponse,
    valid: discovery,
    strict: true,
    required: ['api_base_url'],
    enumField: ['transports', 0],
  },
  {
    name: 'delegate payment request',
    schema: acpDelegatePaymentRequest,
    valid: delegateRequest,
    strict: true,
    required: ['allowance'],
    enumField: ['payment_method', 'card_number_type'],
    amount: ['allowance', 'max_amount'],
  },
  {
    name: 'delegate payment response',
    schema: acpDelegatePaymentResponse,
    valid: delegateResponse,
    strict: true,
    required: ['created'],
  },
  {
    name: 'delegate payment error',
    schema: acpDelegatePaymentError,
    valid: delegateError,
    strict: true,
    required: ['code'],
    enumField: ['code'],
  },
  {
    name: 'webhook event',
    schema: acpWebhookEvent,
    valid: webhook,
    strict: true,
    required: ['data', 'permalink_url'],
    enumField: ['type'],
    amount: ['data', 'totals', 0, 'amount'],
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

describe.each(cases)('ACP $name', ({ schema, valid, strict, required, enumField, amount }) => {
  it('parses the example as it is', () => {
    expect(schema.parse(valid)).toEqual(valid);
  });

  it(strict ? 'refuses an unknown top-level field' : 'drops an unknown top-level field', () => {
    const extra = setAt(valid, ['coupon_code'], 'ERABLE10');
    if (strict) expect(schema.safeParse(extra).success).toBe(false);
    else expect(schema.parse(extra)).toEqual(valid);
  });

  it(`refuses it without ${required.join('.')}`, () => {
    expect(schema.safeParse(without(valid, required)).success).toBe(false);
  });

  if (enumField) {
    it(`refuses a value of ${enumField.join('.')} outside the enum`, () => {
      expect(schema.safeParse(setAt(valid, enumField, 'not_a_value')).success).toBe(false);
    });
  }

  if (amount) {
    it(`refuses a fractional ${amount.join('.')} (amounts are integer cents)`, () => {
      expect(schema.safeParse(setAt(valid, amount, 2499.5)).success).toBe(false);
    });
  }
});

describe('ACP item quantity (our deviation from the 2026-04-17 Item)', () => {
  it('accepts {id, quantity} and an absent quantity', () => {
    expect(acpItem.parse({ id: PRODUCT, quantity: 2 })).toEqual({ id: PRODUCT, quantity: 2 });
    expect(acpItem.parse({ id: PRODUCT })).toEqual({ id: PRODUCT });
  });

  it.each([0, -1, 1.5, 1000])('refuses quantity %s', (quantity) => {
    expect(acpItem.safeParse({ id: PRODUCT, quantity }).success).toBe(false);
  });

  it("is never in an answer: a line item's item is the spec's Item, the quantity the line's", () => {
    const echoed = setAt(session, ['line_items', 0, 'item'], { id: PRODUCT, quantity: 2 });
    expect(acpCheckoutSession.safeParse(echoed).success).toBe(false);
  });
});

describe('ACP cross-field rules', () => {
  it('needs a handler and an instrument, or a purchase order number, to pay', () => {
    const noInstrument = without(completeRequest, ['payment_data', 'instrument']);
    expect(acpCompleteSessionRequest.safeParse(noInstrument).success).toBe(false);
    const purchaseOrder = { payment_data: { purchase_order_number: 'PO-2026-118', payment_terms: 'net_30' } };
    expect(acpCompleteSessionRequest.safeParse(purchaseOrder).success).toBe(true);
  });

  it('needs outcome_details once 3-D Secure authenticated', () => {
    const authenticated = setAt(completeRequest, ['authentication_result'], { outcome: 'authenticated' });
    expect(acpCompleteSessionRequest.safeParse(authenticated).success).toBe(false);
  });

  it('needs at least one line item to create a session', () => {
    expect(acpCreateSessionRequest.safeParse(setAt(createRequest, ['line_items'], [])).success).toBe(false);
  });

  it('takes date-times as RFC 3339 only: with Z or an offset', () => {
    expect(acpCheckoutSession.safeParse(setAt(session, ['created_at'], '2026-05-01 14:02:11')).success).toBe(
      false,
    );
    expect(acpCheckoutSession.safeParse(setAt(session, ['created_at'], '2026-05-01T14:02:11')).success).toBe(
      false,
    );
  });

  it('tells fulfillment options and messages apart by type', () => {
    const pickup = {
      type: 'pickup',
      id: 'queen_west',
      title: 'Pick up on Queen St W',
      location: { name: 'Portage Queen West', address },
      totals: [{ type: 'fulfillment', display_text: 'Pickup', amount: 0 }],
    };
    expect(acpFulfillmentOption.parse(pickup)).toEqual(pickup);
    expect(acpFulfillmentOption.safeParse({ ...pickup, location: undefined }).success).toBe(false);
    expect(
      acpMessage.safeParse({ type: 'error', content_type: 'plain', content: 'Out of stock' }).success,
    ).toBe(false);
  });

  it('keeps the response strict after adding the order (a webhook order needs its status)', () => {
    expect(acpWebhookEvent.safeParse(without(webhook, ['data', 'status'])).success).toBe(false);
    expect(acpWebhookEvent.safeParse(setAt(webhook, ['data', 'refunds'], [])).success).toBe(false);
    expect(acpCheckoutSession.safeParse(setAt(session, ['order', 'total'], 6777)).success).toBe(false);
  });

  it('lists the session statuses', () => {
    expect(ACP_SESSION_STATUSES).toContain('ready_for_payment');
    expect(acpCheckoutSession.safeParse({ ...session, status: 'open' }).success).toBe(false);
  });
});
