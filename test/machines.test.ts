// Every lifecycle is a machine (src/modules/machine.ts): docs/lifecycles.md shows each as the
// table the code defines, and a refusal (a catalogue message) names the state the thing is in.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { render } from '../src/contract/i18n.ts';
import { agentSessionMachine } from '../src/modules/agent-checkout/states.ts';
import { checkoutMachine } from '../src/modules/checkout/states.ts';
import { defineMachine } from '../src/modules/machine.ts';
import { outboxMachine } from '../src/modules/mail/states.ts';
import { orderMachine } from '../src/modules/orders/states.ts';
import { refundMachine } from '../src/modules/payments/states.ts';
import { returnMachine } from '../src/modules/returns/states.ts';
import { shopMachine } from '../src/modules/shops/states.ts';

const doc = readFileSync(new URL('../docs/lifecycles.md', import.meta.url), 'utf8');

describe('lifecycles', () => {
  it.each([
    checkoutMachine,
    orderMachine,
    returnMachine,
    refundMachine,
    outboxMachine,
    agentSessionMachine,
    shopMachine,
  ])('docs/lifecycles.md shows the $name machine as the code defines it', (machine) => {
    expect(doc).toContain(machine.table());
  });

  it.each([
    [
      render('en-CA', orderMachine.refusal('ship', 'pending')),
      'Only a confirmed order can be shipped; this one is pending',
    ],
    [
      render('en-CA', orderMachine.refusal('deliver', 'confirmed')),
      'Only a shipped order can be marked delivered; this one is confirmed',
    ],
    [
      render('en-CA', orderMachine.refusal('cancel', 'shipped')),
      'The order has shipped and can no longer be cancelled; request a return instead (request_return)',
    ],
    [render('en-CA', orderMachine.refusal('ship', 'cancelled')), 'The order is cancelled'],
    [
      render('en-CA', returnMachine.refusal('refund', 'pending')),
      'Only an approved, received return can be refunded; this one is pending',
    ],
  ])('a refusal names the state: %s', (said, expected) => {
    expect(said).toBe(expected);
  });

  it('who may make a transition', () => {
    expect(orderMachine.allows('cancel', 'buyer')).toBe(true);
    expect(orderMachine.allows('ship', 'buyer')).toBe(false);
    expect(orderMachine.allows('expirePending', 'admin')).toBe(false);
  });

  it('a machine naming an unknown state does not load', () => {
    expect(() =>
      defineMachine({
        name: 'thing',
        states: ['a', 'b'],
        transitions: { go: { from: ['a'], to: 'c' as 'b' } },
      }),
    ).toThrow('thing machine: go names an unknown state c');
  });
});
