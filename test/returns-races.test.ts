// Returns against Stripe (a local stand-in speaking its wire format to the official SDK): two
// approvals racing refund once; a refund Stripe could not take stays `approved` until the refunds
// job retries it with the same idempotency key, and then the return is `refunded`, once.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { refunds } from '../src/modules/payments/tables.ts';
import { returns } from '../src/modules/returns/tables.ts';
import type { SignedIn } from './helpers/app.ts';
import { admin, buyer, product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout } from './helpers/checkout.ts';
import { paymentSucceededEvent, signedEvent, useFakeStripeApp } from './helpers/fake-stripe.ts';
import { deliver, outboxRows, refundRows, ship } from './helpers/orders.ts';

const SECRET = 'whsec_test_portage_returns_0123456789';

const { t, database, stripe } = useFakeStripeApp(SECRET);
let adm: SignedIn;

beforeAll(async () => {
  // Stopped at the current second (the fake Stripe checks session expiries against real time).
  t.clock.freeze();
  adm = await admin(t.api, database);
});

/** A delivered order paid through (fake) Stripe: 2 × $18.00 + $8.99 shipping + HST 13% of 44.99 (5.85) = $50.84. */
async function deliveredOrder() {
  const s = await seller(t.api);
  const p = await product(t.api, s, { priceCents: 1800, stockQuantity: 5 });
  const b = await buyer(t.api);
  await addToCart(t.api, b, p.id, 2);
  const session = await openCheckout(t.api, b);
  const pi = `pi_test_${session.sessionId.slice(10)}`;
  const event = paymentSucceededEvent(session.sessionId, session.totalCents, pi);
  const { body, signature } = signedEvent(event, SECRET, Math.floor(t.clock.now().getTime() / 1000));
  const paid = await t.api.post('/webhooks/payments', body.toString('utf8'), {
    'content-type': 'application/json',
    'stripe-signature': signature,
  });
  expect(paid.status).toBe(200);
  const orderId: string = paid.body.orderIds[0];
  await ship(t, s, orderId, { trackingNumber: 'T1', carrier: 'Canada Post' });
  await deliver(t, s, orderId);
  return { seller: s, buyer: b, orderId, pi, totalCents: session.totalCents as number };
}

const stripeRefunds = (pi: string) =>
  stripe.requests.filter((r) => r.path === '/v1/refunds' && r.body.payment_intent === pi && r.status === 200);

describe('returns refunded through Stripe', () => {
  it('two approvals racing (the seller and an admin) refund once', async () => {
    const { seller: s, buyer: b, orderId, pi, totalCents } = await deliveredOrder();
    expect(totalCents).toBe(5084);
    const r = await t.api.as(b).post('/returns', { order_id: orderId, reason: 'damaged' });
    const id = r.body.return_id;
    const answers = await Promise.all([
      t.api.as(s).post(`/returns/${id}/approve`),
      t.api.as(adm).post(`/returns/${id}/approve`),
      t.api.as(s).post(`/returns/${id}/approve`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(answers.find((a) => a.status === 200)?.body).toMatchObject({
      status: 'refunded',
      refund_amount_cents: 5084,
    });
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body).toEqual({
        error: expect.stringMatching(
          new RegExp(`^Return ${id} is (approved|refunded): only a pending return`),
        ),
        code: 'CONFLICT',
        statusCode: 409,
      });
    }
    const rows = await refundRows(database, orderId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ returnId: id, amountCents: 5084, status: 'succeeded' });
    expect(stripeRefunds(pi).map((q) => q.body)).toEqual([{ payment_intent: pi, amount: '5084' }]);
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents).toBe(5084);
    expect(await outboxRows(database, `return-approved:${id}`)).toHaveLength(1);
    expect(await outboxRows(database, `return-refunded:${id}`)).toHaveLength(1);
  });

  it('a refund Stripe could not take is retried by the job; the return becomes refunded once', async () => {
    const { seller: s, buyer: b, orderId, pi } = await deliveredOrder();
    const r = await t.api.as(b).post('/returns', { order_id: orderId, reason: 'wrong_item' });
    const id = r.body.return_id;
    // The SDK tries 3 times (2 retries): all 3 fail, so the refund waits for the job.
    for (let i = 0; i < 3; i++) stripe.failNext(503, { type: 'api_error', message: 'down' });
    const approved = await t.api.as(s).post(`/returns/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'approved',
      refund_amount_cents: 5084,
      refunded_at: null,
      message: 'Approved: a refund of $50.84 is being sent to your original payment method.',
    });
    const [waiting] = await refundRows(database, orderId);
    expect(waiting).toMatchObject({ status: 'requested', attempts: 1, lastError: expect.any(String) });
    expect(await outboxRows(database, `return-approved:${id}`)).toHaveLength(1);
    expect(await outboxRows(database, `return-refunded:${id}`)).toEqual([]);
    // Approved and not yet refunded is still open: no second return meanwhile.
    expect((await t.api.as(b).post('/returns', { order_id: orderId, reason: 'other' })).status).toBe(409);

    // Before the backoff (1 minute) nothing is sent; after it the job sends it.
    await t.app.jobs.runOnce();
    expect((await refundRows(database, orderId))[0]?.status).toBe('requested');
    t.clock.advance(61);
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();
    const [done] = await refundRows(database, orderId);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, returnId: id });
    const [row] = await database.db.select().from(returns).where(eq(returns.id, id));
    expect(row).toMatchObject({ status: 'refunded', refundAmountCents: 5084, refundId: done!.id });
    expect(row!.refundedAt?.getTime()).toBe(t.clock.now().getTime());
    expect((await t.api.as(b).get(`/returns/${id}`)).body.status).toBe('refunded');
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents).toBe(5084);
    // Every try carried the refund's id as the idempotency key; Stripe refunded once.
    const tries = stripe.requests.filter((q) => q.path === '/v1/refunds' && q.body.payment_intent === pi);
    expect(new Set(tries.map((q) => q.idempotencyKey))).toEqual(new Set([done!.id]));
    expect(stripeRefunds(pi)).toHaveLength(1);
    expect(await outboxRows(database, `return-refunded:${id}`)).toHaveLength(1);
    expect(await database.db.select().from(refunds).where(eq(refunds.returnId, id))).toHaveLength(1);
  });
});
