// The Idempotency-Key of create_checkout (docs/api.md "Agent tools";
// docs/api.md "Idempotency": the same key with the same body
// replays the first answer for 24 hours, with another body it is 409 CONFLICT).
//
// An agent retries a call whose answer it did not get (a timeout, a dropped connection, a
// restarted tool server). The retry must not open a second checkout, so the key cannot be
// random per call: it is derived from what the call means. Hex SHA-256 of:
// - the user id (the token's `sub`): two users' identical inputs never share a key;
// - the canonical JSON of the input as sent (keys sorted, coupon upper-cased, text trimmed):
//   the same input gives the same key whatever the order of its keys; the key names exactly
//   the body it goes with, so the service never sees it with another body;
// - the cart as read just before (GET /cart): its `lastUpdated` and its contents (lines and
//   coupon). The same input for a cart changed since is a new checkout (a new key), while a
//   retry of the same call on the same cart replays. `lastUpdated` is in whole seconds; the
//   contents also tell apart a cart changed twice within one second (add an item, check out,
//   add another, check out again within the second).
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth and undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** What of the cart the key depends on (a subset of GET /cart's answer). */
export interface CartVersion {
  lastUpdated: number;
  coupon_applied: string | null;
  items: { product_id: string; quantity: number; unit_price_cents: number }[];
}

export function checkoutIdempotencyKey(userId: string, input: unknown, cart: CartVersion): string {
  const contents = {
    lastUpdated: cart.lastUpdated,
    coupon: cart.coupon_applied,
    lines: cart.items.map((i) => JSON.stringify([i.product_id, i.quantity, i.unit_price_cents])).sort(),
  };
  // NUL separators: no part can run into the next (ids and JSON hold no NUL).
  return createHash('sha256')
    .update(`${userId}\0${canonicalJson(input)}\0${canonicalJson(contents)}`)
    .digest('hex');
}

/** The `sub` claim of a JWT (read, not verified: the service verifies it), or undefined. */
export function tokenSubject(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' && claims.sub ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Idempotency-Key of an ACP POST sent without one (the MCP binding's meta.idempotency_key is
 * optional): hex SHA-256 of the operation, the session id, the canonical JSON of the body and,
 * for update and complete, the session as read just before (`state`). So a retry of a call
 * replays its first answer (a create does not open a second session), while the same update or
 * complete on a session changed since runs anew rather than replaying a stale answer (set the
 * address to A, then B, then A again; complete, refused as not ready, then fixed and completed).
 * Keys are scoped by the service to the caller and the path: no user id is needed here.
 */
export function acpIdempotencyKey(operation: string, id: string, body: unknown, state?: unknown): string {
  return createHash('sha256')
    .update(`acp\0${operation}\0${id}\0${canonicalJson(body)}\0${canonicalJson(state ?? null)}`)
    .digest('hex');
}
