// An outbox message's lifecycle (machine.ts): pending until a transport accepts it, or until
// its tries run out or the transport refuses it for good (failed, for an operator).
import { defineMachine } from '../machine.ts';
import { MAIL_STATUSES } from './tables.ts';

export const outboxMachine = defineMachine({
  name: 'message',
  states: MAIL_STATUSES,
  transitions: {
    send: { from: ['pending'], to: 'sent' },
    fail: { from: ['pending'], to: 'failed' },
  },
});
