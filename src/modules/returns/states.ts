// A return's lifecycle (machine.ts): the seller (or an admin) decides a requested return: refunded
// without sending anything back (approve), or sent back first (askForParcel: awaiting the parcel,
// then receive); an approved or received one is refunded when the provider confirms its refund
// (or at once when nothing is left to refund).
import { RETURN_STATUSES } from '../../contract/returns.ts';
import { defineMachine } from '../machine.ts';

export const returnMachine = defineMachine({
  name: 'return',
  states: RETURN_STATUSES,
  transitions: {
    approve: { from: ['pending'], to: 'approved', by: ['seller', 'admin'] },
    askForParcel: { from: ['pending'], to: 'awaiting_parcel', by: ['seller', 'admin'], past: 'asked for' },
    reject: { from: ['pending'], to: 'rejected', by: ['seller', 'admin'] },
    receive: { from: ['awaiting_parcel'], to: 'received', by: ['seller', 'admin'] },
    refund: { from: ['approved', 'received'], to: 'refunded' },
  },
});
