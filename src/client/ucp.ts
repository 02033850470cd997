// The UCP calls of the typed client: the checkout sessions, orders and catalog under /ucp/v1
// (docs/ucp.md), as a platform. `meta` is the MCP binding's: the platform's profile (sent as
// UCP-Agent) and, for a write, an Idempotency-Key (derived from the call when none is given). Each
// answers the UCP payload: the checkout or order, or the business outcome without one
// (`ucp.status: "error"`); a protocol error is thrown as UcpApiError.
import { freshCreate } from './fresh-create.ts';
import { type HttpClient, pathSegment } from './http.ts';
import { acpIdempotencyKey } from './idempotency.ts';

/** The UCP MCP binding's `meta`: the platform's profile, and an Idempotency-Key for a write. */
export interface UcpRequestMeta {
  'ucp-agent': { profile: string };
  'idempotency-key'?: string;
}

/**
 * POST /ucp/v1/checkout-sessions. With a derived key, as createAcpSession: a retry answers the
 * checkout the first call opened as it is now, unless it has ended (canceled, completed): then
 * the call opens a new one.
 */
export async function createUcpCheckout(
  http: HttpClient,
  checkout: unknown,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  if (meta['idempotency-key'] !== undefined) {
    return ucpCall(http, 'POST', '/checkout-sessions', meta, { operation: 'create', body: checkout });
  }
  return freshCreate({
    create: (after, replayed) =>
      ucpCall(http, 'POST', '/checkout-sessions', meta, {
        operation: 'create',
        body: checkout,
        ...(after === undefined ? {} : { key: { after } }),
        replayed,
      }),
    idOf: (answer) => (typeof answer.id === 'string' ? answer.id : undefined),
    now: (id) => getUcpCheckout(http, id, meta),
    ended: (answer) => ['canceled', 'completed'].includes(String(answer.status)),
  });
}

/** GET /ucp/v1/checkout-sessions/{id}. */
export function getUcpCheckout(
  http: HttpClient,
  id: string,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  return ucpCall(http, 'GET', `/checkout-sessions/${pathSegment(id, http.messageLocale)}`, meta);
}

/** PUT /ucp/v1/checkout-sessions/{id}: the whole checkout again. */
export function updateUcpCheckout(
  http: HttpClient,
  id: string,
  checkout: unknown,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  // A derived key covers the checkout as it is: the same body after another change is a new call.
  return ucpCall(http, 'PUT', `/checkout-sessions/${pathSegment(id, http.messageLocale)}`, meta, {
    operation: `update ${id}`,
    body: checkout,
    state: { id, of: (c) => c },
  });
}

/** POST /ucp/v1/checkout-sessions/{id}/complete. */
export function completeUcpCheckout(
  http: HttpClient,
  id: string,
  checkout: unknown,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  // A derived key covers what is paid for and whether it is still to pay: a retry while it pays
  // (complete_in_progress) keeps the key; a checkout changed, or paid on the person's page
  // since, is a new call (its refusal or escalation is not replayed).
  return ucpCall(http, 'POST', `/checkout-sessions/${pathSegment(id, http.messageLocale)}/complete`, meta, {
    operation: `complete ${id}`,
    body: checkout,
    state: {
      id,
      of: ({ status, order: _o, messages: _m, continue_url: _c, expires_at: _e, ...paidFor }) => ({
        ...paidFor,
        paying: status === 'complete_in_progress' ? 'ready_for_complete' : status,
      }),
    },
  });
}

/** POST /ucp/v1/checkout-sessions/{id}/cancel. */
export function cancelUcpCheckout(
  http: HttpClient,
  id: string,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  return ucpCall(http, 'POST', `/checkout-sessions/${pathSegment(id, http.messageLocale)}/cancel`, meta, {
    operation: `cancel ${id}`,
    body: {},
  });
}

/** GET /ucp/v1/orders/{id}. */
export function getUcpOrder(
  http: HttpClient,
  id: string,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  return ucpCall(http, 'GET', `/orders/${pathSegment(id, http.messageLocale)}`, meta);
}

/** POST /ucp/v1/catalog/search, /catalog/lookup, /catalog/product: reads (no Idempotency-Key). */
export function ucpCatalog(
  http: HttpClient,
  operation: 'search' | 'lookup' | 'product',
  catalog: unknown,
  meta: UcpRequestMeta,
): Promise<Record<string, unknown>> {
  return ucpCall(http, 'POST', `/catalog/${operation}`, meta, { body: catalog });
}

async function ucpCall(
  http: HttpClient,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  meta: UcpRequestMeta,
  write?: {
    operation?: string;
    body: unknown;
    /** What of the checkout, read just before, the derived key covers too. */
    state?: { id: string; of: (checkout: Record<string, unknown>) => unknown };
    /** What else a derived key covers (a create's: the ended checkout it replaces). */
    key?: unknown;
    replayed?: () => void;
  },
): Promise<Record<string, unknown>> {
  const profile = meta['ucp-agent'].profile.replace(/["\\]/g, '');
  let idempotencyKey = write?.operation ? meta['idempotency-key'] : undefined;
  if (write?.operation && idempotencyKey === undefined) {
    const { 'idempotency-key': _, ...read } = meta;
    const state = write.state ? write.state.of(await getUcpCheckout(http, write.state.id, read)) : write.key;
    idempotencyKey = acpIdempotencyKey(`ucp ${write.operation}`, profile, write.body, state);
  }
  return (await http.request(method, `/ucp/v1${path}`, {
    headers: { 'ucp-agent': `profile="${profile}"` },
    body: write?.body,
    idempotencyKey,
    errors: 'ucp',
    ...(write?.replayed ? { replayed: write.replayed } : {}),
  })) as Record<string, unknown>;
}
