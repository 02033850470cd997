// What a session is now, and the ids both protocols show: a session's status read from its row
// and the checkout holding it, a line's id, its order's id.
import type { checkoutSessions } from '../checkout/tables.ts';
import type { SessionStatus } from './states.ts';
import type { agentSessions } from './tables.ts';

type SessionRow = typeof agentSessions.$inferSelect;
type CheckoutRow = typeof checkoutSessions.$inferSelect;

/** A record id's key, without its table: `checkouts:abc` is `abc` (ids shown to platforms). */
export const keyOf = (id: string) => id.slice(id.indexOf(':') + 1);

/** The id a session's order has on the wire: one per checkout (docs/acp.md "Principles"). */
export const orderIdOf = (checkoutId: string) => `order_${keyOf(checkoutId)}`;

/** A line's id: its product's, so that a platform can tell lines apart across updates. */
export const lineId = (productId: string) => `line_${productId}`;

/**
 * The session's status as it stands: paid is completed whatever was stored; then the stored
 * status, unless the checkout says more (its hold ended: expired, or not ready when a newer
 * checkout replaced it). A payment in progress stays so while its hold does.
 */
export function effectiveStatus(
  row: SessionRow,
  checkout: CheckoutRow | undefined,
  now: Date,
): SessionStatus {
  if (checkout?.status === 'complete') return 'completed';
  if (row.status === 'canceled') return row.status;
  if (row.status === 'complete_in_progress') {
    // Money that lands after the hold ended is refunded (purchase/flow.ts): the session expired.
    return checkout?.status === 'ready_for_payment' ? row.status : 'expired';
  }
  if (row.expiresAt <= now) return 'expired';
  if (row.status === 'not_ready_for_payment') return row.status;
  if (checkout?.status !== 'ready_for_payment' || checkout.expiresAt <= now) {
    return 'not_ready_for_payment';
  }
  return row.status;
}

/** Whether the checkout's quote is what the session shows (held, paying or paid). */
export const isHeld = (status: SessionStatus) =>
  status === 'ready_for_payment' || status === 'complete_in_progress' || status === 'completed';

/** The item id a platform gave for a held item: its variant's (a product sold one way: the product's own). */
export { variantOf as itemIdOf } from '../orders/create.ts';
