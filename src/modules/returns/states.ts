// A return's lifecycle (machine.ts): the seller (or an admin) decides a requested return; an
// approved one is refunded when the provider confirms its refund (or at once when nothing is
// left to refund).
import { RETURN_STATUSES } from '../../contract/returns.ts';
import { defineMachine } from '../machine.ts';

export const returnMachine = defineMachine({
  name: 'return',
  states: RETURN_STATUSES,
  transitions: {
    approve: { from: ['pending'], to: 'approved', by: ['seller', 'admin'] },
    reject: { from: ['pending'], to: 'rejected', by: ['seller', 'admin'] },
    refund: { from: ['approved'], to: 'refunded' },
  },
});
