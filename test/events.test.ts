// The domain events are the public record of an order's life (docs/lifecycles.md): each change
// publishes its event once, in order, carrying ids and states only. A recorder subscribes as
// any module does (the app runs in this process).
import { beforeAll, describe, expect, it } from 'vitest';
import { type DomainEvent, type EventType, subscribe } from '../src/modules/events.ts';
import { useTestApp } from './helpers/app.ts';
import { cancelledOrder, refundedReturn } from './helpers/orders.ts';

const { t } = useTestApp();

const TYPES: EventType[] = [
  'checkout.completed',
  'order.paid',
  'order.confirmed',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'refund.requested',
  'refund.succeeded',
  'refund.failed',
  'return.requested',
  'return.approved',
  'return.rejected',
  'return.refunded',
];
const seen: DomainEvent[] = [];

beforeAll(() => {
  for (const type of TYPES) {
    subscribe(type, async (_ctx, event) => {
      seen.push(event);
    });
  }
});

/** The events about one order (or its checkout), in the order they were published. */
const eventsOf = (orderId: string, checkoutId: string) =>
  seen.filter(
    (e) => ('orderId' in e && e.orderId === orderId) || ('checkoutId' in e && e.checkoutId === checkoutId),
  );

describe('domain events', () => {
  it('a return refunded: paid, shipped, delivered, return requested, approved, refund requested and succeeded, return refunded', async () => {
    const r = await refundedReturn(t);
    const events = eventsOf(r.orderId, r.session.sessionId);
    expect(events.map((e) => e.type)).toEqual([
      'order.paid',
      'checkout.completed',
      'order.shipped',
      'order.delivered',
      'return.requested',
      'return.approved',
      'refund.requested',
      'refund.succeeded',
      'return.refunded',
    ]);
    const refund = events.find((e) => e.type === 'refund.requested');
    expect(events.find((e) => e.type === 'order.paid')).toEqual({
      type: 'order.paid',
      orderId: r.orderId,
      checkoutId: r.session.sessionId,
      buyerId: r.buyer.id,
      sellerId: r.seller.id,
      status: 'confirmed',
    });
    expect(events.filter((e) => e.type.startsWith('return.'))).toEqual(
      ['return.requested', 'return.approved', 'return.refunded'].map((type) => ({
        type,
        returnId: r.returnId,
        orderId: r.orderId,
      })),
    );
    expect(events.find((e) => e.type === 'refund.succeeded')).toEqual({
      ...refund,
      type: 'refund.succeeded',
    });
  });

  it('a cancelled order: paid, cancelled, refunded in full; no event names a person', async () => {
    const c = await cancelledOrder(t);
    const events = eventsOf(c.orderId, c.session.sessionId);
    expect(events.map((e) => e.type)).toEqual([
      'order.paid',
      'checkout.completed',
      'order.cancelled',
      'refund.requested',
      'refund.succeeded',
    ]);
    expect(events.find((e) => e.type === 'refund.succeeded')).toMatchObject({
      orderId: c.orderId,
      returnId: null,
      amountCents: c.order.totalAmountCents,
    });
    const text = JSON.stringify(seen);
    expect(text).not.toContain('@');
    expect(text).not.toContain(c.buyer.email);
  });
});
