// The order's lifecycle (machine.ts): every change of an order's status is one of these
// transitions, applied as one conditional update, so two racing changes cannot both apply.
import { ORDER_STATUSES, type OrderStatus } from '../../contract/orders.ts';
import { defineMachine, type Transition } from '../machine.ts';

export type Actor = 'buyer' | 'seller' | 'admin' | 'system';

export const orderMachine = defineMachine({
  name: 'order',
  states: ORDER_STATUSES,
  transitions: {
    /** A pending order's seller has the stock after all. */
    confirm: { from: ['pending'], to: 'confirmed', by: ['seller', 'admin'] },
    ship: { from: ['confirmed'], to: 'shipped', by: ['seller', 'admin'] },
    deliver: { from: ['shipped'], to: 'delivered', by: ['seller', 'admin'], past: 'marked delivered' },
    /** Before shipping, with a full refund (cancel_order). */
    cancel: { from: ['pending', 'confirmed'], to: 'cancelled', by: ['buyer', 'seller', 'admin'] },
    /** A pending order left 48 hours. */
    expirePending: { from: ['pending'], to: 'cancelled', by: ['system'] },
  },
  refusal(name, status) {
    if (name === 'cancel' && (status === 'shipped' || status === 'delivered')) {
      return `The order has ${status === 'shipped' ? 'shipped' : 'been delivered'} and can no longer be cancelled; request a return instead (request_return)`;
    }
    if (status === 'cancelled') return 'The order is cancelled';
    return undefined;
  },
}) satisfies { transitions: Record<string, Transition<OrderStatus, Actor>> };

export type TransitionName = keyof typeof orderMachine.transitions;
