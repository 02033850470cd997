// A refund's lifecycle (machine.ts): requested, then sent to the provider until it succeeds, or
// fails for an operator (a refusal the provider will not change, or every try used).
import { defineMachine } from '../machine.ts';
import { REFUND_STATUSES } from './tables.ts';

export const refundMachine = defineMachine({
  name: 'refund',
  states: REFUND_STATUSES,
  transitions: {
    succeed: { from: ['requested'], to: 'succeeded' },
    fail: { from: ['requested'], to: 'failed' },
  },
});
