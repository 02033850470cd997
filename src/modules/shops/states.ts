// A shop's state as a machine (docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)"):
// an admin approves or refuses a shop
// waiting for approval, suspends an open or waiting one, reinstates a suspended one. A refusal is
// a suspension of a shop never opened: its reason is told, and reinstating opens it.
import { text } from '../../contract/i18n.ts';
import { SHOP_STATUSES } from '../../contract/shops.ts';
import { defineMachine } from '../machine.ts';

export const shopMachine = defineMachine({
  name: 'shop',
  states: SHOP_STATUSES,
  transitions: {
    approve: { from: ['pending'], to: 'active', by: ['admin'] },
    refuse: { from: ['pending'], to: 'suspended', by: ['admin'] },
    suspend: { from: ['active', 'pending'], to: 'suspended', by: ['admin'] },
    reinstate: { from: ['suspended'], to: 'active', by: ['admin'] },
  },
  refusal: (action, status) => text('error.shops.cannotMove', { action, status }),
});
