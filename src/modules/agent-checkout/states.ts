// An agent checkout session's lifecycle, whichever protocol made it (machine.ts), mapped onto the
// Portage checkout that holds its stock (docs/acp.md "The session machine"). A quote either holds (ready_for_payment) or
// leaves messages to fix (not_ready_for_payment); paying passes through complete_in_progress
// while the provider answers. `completed` is also read from the checkout (its payment) and
// `expired` from the session's end (status.ts effectiveStatus): the payment's transaction never
// updates this row. Once a session has ended, the cleanup job writes `completed` down for a paid
// one (record_payment) and deletes the others a day later (cleanup.ts).
import { defineMachine } from '../machine.ts';

export const SESSION_STATUSES = [
  'not_ready_for_payment',
  'ready_for_payment',
  'complete_in_progress',
  'completed',
  'canceled',
  'expired',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const agentSessionMachine = defineMachine({
  name: 'agent checkout session',
  states: SESSION_STATUSES,
  transitions: {
    hold: { from: ['not_ready_for_payment', 'ready_for_payment'], to: 'ready_for_payment', past: 'quoted' },
    refuse: {
      from: ['not_ready_for_payment', 'ready_for_payment'],
      to: 'not_ready_for_payment',
      past: 'quoted',
    },
    pay: { from: ['ready_for_payment'], to: 'complete_in_progress', past: 'paid' },
    payment_failed: { from: ['complete_in_progress'], to: 'ready_for_payment' },
    cancel: { from: ['not_ready_for_payment', 'ready_for_payment'], to: 'canceled' },
    // The cleanup job writes down what the checkout says (cleanup.ts), once the session has ended.
    record_payment: {
      from: ['not_ready_for_payment', 'ready_for_payment', 'complete_in_progress'],
      to: 'completed',
    },
  },
});
