// The order's lifecycle (machine.ts): every change of an order's status is one of these
// transitions, applied as one conditional update, so two racing changes cannot both apply.
import { text } from '../../contract/i18n.ts';
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
    /** The tracking job (`system`) when the carrier says the parcel was delivered. */
    deliver: { from: ['shipped'], to: 'delivered', by: ['seller', 'admin', 'system'] },
    /** Before shipping, with a full refund (cancel_order). */
    cancel: { from: ['pending', 'confirmed'], to: 'cancelled', by: ['buyer', 'seller', 'admin'] },
    /** A pending order left 48 hours. */
    expirePending: { from: ['pending'], to: 'cancelled', by: ['system'] },
  },
  // Every refusal of an order is one of its catalogue messages (error.orders.*).
  refusal(name, status) {
    if (name === 'cancel' && status === 'shipped') return text('error.orders.cannotCancelShipped');
    if (name === 'cancel' && status === 'delivered') return text('error.orders.cannotCancelDelivered');
    if (status === 'cancelled') return text('error.orders.isCancelled');
    return text('error.orders.wrongState', { transition: name, status });
  },
}) satisfies { transitions: Record<string, Transition<OrderStatus, Actor>> };

export type TransitionName = keyof typeof orderMachine.transitions;
