// The order state machine: every change of an order's status is one of these transitions,
// applied as one conditional update (`where status in from`), so two racing changes cannot both
// apply (README "Order states"; ../shared/design/decisions.md, "Checkout, payment, orders").
import type { OrderStatus } from '../../contract/orders.ts';

export type Actor = 'buyer' | 'seller' | 'admin' | 'system';

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  /** Who may make it (the buyer and seller of that order; any admin; the jobs). */
  by: readonly Actor[];
}

export const TRANSITIONS = {
  /** A pending order's seller has the stock after all. */
  confirm: { from: ['pending'], to: 'confirmed', by: ['seller', 'admin'] },
  ship: { from: ['confirmed'], to: 'shipped', by: ['seller', 'admin'] },
  deliver: { from: ['shipped'], to: 'delivered', by: ['seller', 'admin'] },
  /** Before shipping, with a full refund (cancel_order). */
  cancel: { from: ['pending', 'confirmed'], to: 'cancelled', by: ['buyer', 'seller', 'admin'] },
  /** A pending order left 48 hours. */
  expirePending: { from: ['pending'], to: 'cancelled', by: ['system'] },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** Why a transition does not apply to an order in `status` (the 409 message). */
export function refusal(name: TransitionName, status: OrderStatus): string {
  if (name === 'cancel' && (status === 'shipped' || status === 'delivered')) {
    return `The order has ${status === 'shipped' ? 'shipped' : 'been delivered'} and can no longer be cancelled; request a return instead (request_return)`;
  }
  if (status === 'cancelled') return 'The order is cancelled';
  const t: Transition = TRANSITIONS[name];
  return `Only a ${t.from.join(' or ')} order can be ${PAST[name]}; this one is ${status}`;
}

const PAST: Record<TransitionName, string> = {
  confirm: 'confirmed',
  ship: 'shipped',
  deliver: 'marked delivered',
  cancel: 'cancelled',
  expirePending: 'cancelled',
};
