// The five checkout tools of ACP 2026-04-17's MCP binding (our
// docs/acp.md), one per REST operation under /acp. Their arguments are the binding's
// `{meta, id, payload}`: `meta` stands for the request headers, `id` for the session in the path,
// `payload` for the REST body, checked by the route with the same schemas as over REST. Served
// by POST /mcp only: `portage mcp` holds a login token, which the ACP routes refuse.
import { z } from 'zod';
import {
  acpCancelSessionRequest,
  acpCheckoutSession,
  acpCompleteSessionRequest,
  acpCreateSessionRequest,
  acpUpdateSessionRequest,
} from './acp.ts';
import type { AgentScope } from './scopes.ts';
import type { Tool, ToolAnnotations } from './tools.ts';

/** A header's value: printable ASCII on one line (anything else cannot be sent as one). */
const headerValue = (what: string) =>
  z
    .string()
    .regex(/^[\x20-\x7e]*$/, 'validation.headerValue')
    .describe(what);

/**
 * The binding's `meta`: the ACP headers as fields. Unknown fields are allowed and ignored, as the
 * binding asks (a later version may add headers).
 */
export const acpMeta = z
  .looseObject({
    api_version: headerValue('The ACP version, e.g. "2026-04-17" (sent as API-Version)').min(1),
    idempotency_key: z
      .string()
      .regex(/^[\x20-\x7e]{1,255}$/, 'validation.idempotencyKey')
      .optional()
      .describe(
        'Sent as Idempotency-Key: the same key with the same payload answers the first result again ' +
          'for 24 hours. Optional: without it the key is derived from the call itself',
      ),
    request_id: headerValue('A correlation id (sent as Request-Id)').optional(),
    user_agent: headerValue("The agent's name and version (sent as User-Agent)").optional(),
    accept_language: headerValue(
      'Preferred language of messages, e.g. "en-CA" (sent as Accept-Language)',
    ).optional(),
    signature: headerValue('A request signature (sent as Signature)').optional(),
    timestamp: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the request was signed, RFC 3339 (sent as Timestamp)'),
  })
  .describe('Protocol metadata: what ACP over REST sends as headers. api_version is required');

export type AcpMeta = z.output<typeof acpMeta>;

const sessionId = z
  .string()
  .min(1)
  .max(100)
  .describe('The checkout session id, `acp_cs_…` (from create_checkout_session)');

/** Where a tool's `payload` goes: required, optional, or none (get). */
export type AcpPayloadRule = 'required' | 'optional' | 'absent';

export interface AcpTool<I extends z.ZodObject = z.ZodObject> extends Tool<I, typeof acpCheckoutSession> {
  /** Whether the arguments carry the session's `id`. */
  id: boolean;
  payload: AcpPayloadRule;
}

const annotations = (readOnly: boolean, destructive: boolean): ToolAnnotations => ({
  readOnlyHint: readOnly,
  // Every POST carries an Idempotency-Key (given, or derived from the call): the same
  // arguments again answer the first result.
  idempotentHint: true,
  destructiveHint: destructive,
  openWorldHint: false,
});

const ERRORS =
  "A failure is a JSON-RPC error -32000 whose data is ACP's error {type, code, message, param}; " +
  'param is a JSON path into the payload.';
const AMOUNTS = 'Amounts are integer cents (CAD).';

const acpTool = <I extends z.ZodObject>(t: AcpTool<I>) => t;

export const createCheckoutSessionTool = acpTool({
  name: 'create_checkout_session',
  title: 'Create checkout session (ACP)',
  description:
    'Agentic Commerce Protocol: opens a checkout session for the signed-in buyer. payload is the ACP ' +
    'create request: line_items [{id: a product id from search_products, quantity}], currency "cad", ' +
    'capabilities ({} will do) and fulfillment_details {name, phone_number, address {name, line_one, ' +
    'city, state: the province code, country "CA", postal_code}} (Canada only). Answers the session: ' +
    'ready_for_payment when it is priced and its stock held until expires_at (30 minutes), or ' +
    'not_ready_for_payment with messages saying what to fix through update_checkout_session. ' +
    `${AMOUNTS} Safe to retry: without meta.idempotency_key the same payload within 24 hours answers ` +
    'the same session; to open a second session with the same contents, send a new ' +
    `meta.idempotency_key. ${ERRORS}`,
  input: z.object({
    meta: acpMeta,
    payload: acpCreateSessionRequest.describe('The ACP create request (the REST body)'),
  }),
  output: acpCheckoutSession,
  annotations: annotations(false, false),
  id: false,
  payload: 'required',
});

export const getCheckoutSessionTool = acpTool({
  name: 'get_checkout_session',
  title: 'Get checkout session (ACP)',
  description:
    'Agentic Commerce Protocol: a checkout session of the signed-in buyer as it is now: status, ' +
    `line_items, totals, messages to act on, and once completed its order. ${AMOUNTS} ${ERRORS}`,
  input: z.object({ meta: acpMeta, id: sessionId }),
  output: acpCheckoutSession,
  annotations: annotations(true, false),
  id: true,
  payload: 'absent',
});

export const updateCheckoutSessionTool = acpTool({
  name: 'update_checkout_session',
  title: 'Update checkout session (ACP)',
  description:
    'Agentic Commerce Protocol: changes a checkout session that is not completed or canceled, then ' +
    'prices it and holds its stock again. payload sets any of line_items (replacing them all), ' +
    'fulfillment_details, buyer, coupons or discounts.codes. Answers the session: ready_for_payment, ' +
    `or not_ready_for_payment with messages. ${AMOUNTS} ${ERRORS}`,
  input: z.object({
    meta: acpMeta,
    id: sessionId,
    payload: acpUpdateSessionRequest.describe('The ACP update request (the REST body)'),
  }),
  output: acpCheckoutSession,
  annotations: annotations(false, false),
  id: true,
  payload: 'required',
});

export const completeCheckoutSessionTool = acpTool({
  name: 'complete_checkout_session',
  title: 'Complete checkout session (ACP)',
  description:
    'Agentic Commerce Protocol: pays a ready_for_payment session with a delegated payment token and ' +
    'places the order. This charges the buyer: confirm with the person first. payload.payment_data is ' +
    '{handler_id: from the session\'s capabilities.payment.handlers, instrument: {type: "card", ' +
    'credential: {type: "spt", token}}}; the token comes from that handler\'s delegate payment (for the ' +
    "sandbox's handler, delegate_payment_url in its config). Answers the session, completed with its " +
    'order. Safe to retry: a completed session answers itself again. A declined card is ' +
    `payment_declined; a session that is not ready is not_ready_for_payment. ${ERRORS}`,
  input: z.object({
    meta: acpMeta,
    id: sessionId,
    payload: acpCompleteSessionRequest.describe('The ACP complete request (the REST body)'),
  }),
  output: acpCheckoutSession,
  annotations: annotations(false, true),
  id: true,
  payload: 'required',
});

export const cancelCheckoutSessionTool = acpTool({
  name: 'cancel_checkout_session',
  title: 'Cancel checkout session (ACP)',
  description:
    'Agentic Commerce Protocol: cancels a checkout session that is not completed; its stock is ' +
    'released at once. Cannot be undone. payload is optional: {intent_trace: {reason_code, ' +
    'trace_summary}} says why the buyer left. Answers the session, canceled. A completed or canceled ' +
    `session cannot be canceled (code invalid). ${ERRORS}`,
  input: z.object({
    meta: acpMeta,
    id: sessionId,
    payload: acpCancelSessionRequest.optional().describe('The ACP cancel request (the REST body), optional'),
  }),
  output: acpCheckoutSession,
  annotations: annotations(false, true),
  id: true,
  payload: 'optional',
});

export const ACP_TOOLS: AcpTool[] = [
  createCheckoutSessionTool,
  getCheckoutSessionTool,
  updateCheckoutSessionTool,
  completeCheckoutSessionTool,
  cancelCheckoutSessionTool,
] as AcpTool[];

/** ACP buys as the token's person: the `shop` scope, as the ACP routes require of an agent. */
export const ACP_TOOL_SCOPES: Record<string, AgentScope> = Object.fromEntries(
  ACP_TOOLS.map((t) => [t.name, 'shop' as const]),
);

/** A tool's arguments once their envelope is checked (acpEnvelope). */
export interface AcpArguments {
  meta: AcpMeta;
  id?: string;
  payload?: Record<string, unknown>;
}

/**
 * The arguments as the tool server checks them before any call: the binding's envelope (`meta`,
 * `id`, and `payload` an object where the tool takes one). The payload's fields are checked by
 * the route, which answers ACP's error naming the field (`param`), as over REST.
 */
export function acpEnvelope(t: AcpTool): z.ZodType<AcpArguments> {
  const body = z.looseObject({});
  // Fields a tool does not take are dropped (z.object strips them): id on create, payload on get.
  return z.object({
    meta: acpMeta,
    ...(t.id ? { id: sessionId } : {}),
    ...(t.payload === 'required' ? { payload: body } : {}),
    ...(t.payload === 'optional' ? { payload: body.optional() } : {}),
  }) as z.ZodType<AcpArguments>;
}
