// A checkout session's lifecycle (machine.ts): open for payment until its payment completes it,
// or it expires (its 30 minutes pass, a newer checkout of the buyer replaces it, its coupon is
// used up, or the provider paid another amount). The agent-commerce protocols map their own
// states onto these.
import { CHECKOUT_STATUSES } from '../../contract/checkout.ts';
import { defineMachine } from '../machine.ts';

export const checkoutMachine = defineMachine({
  name: 'checkout',
  states: CHECKOUT_STATUSES,
  transitions: {
    complete: { from: ['ready_for_payment'], to: 'complete' },
    expire: { from: ['ready_for_payment'], to: 'expired' },
  },
});
