// The same checkout on Stripe: the app configured with Stripe keys talks to a local server that
// answers the official SDK as Stripe does; events are signed by the SDK's own test helper.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { refunds } from '../src/modules/payments/tables.ts';
import { expectError, seller } from './helpers/builders.ts';
import { checkout, ON_ADDRESS, openCheckout } from './helpers/checkout.ts';
import { paymentSucceededEvent, signedEvent, stripeEvent, useFakeStripeApp } from './helpers/fake-stripe.ts';
import { filledCart, stockOf as stockOfProduct } from './helpers/orders.ts';

const SECRET = 'whsec_test_portage_0123456789abcdef';

const { t, database, stripe } = useFakeStripeApp(SECRET);

const stockOf = (productId: string) => stockOfProduct(database, productId);

const ready = (stock = 5) =>
  filledCart(t, { fields: { title: 'Maple syrup, amber', priceCents: 1800 }, stock, quantity: 2 });

const succeeded = (checkoutId: string, amount: number, pi = `pi_test_${checkoutId.slice(10)}`) =>
  paymentSucceededEvent(checkoutId, amount, pi);

function deliver(event: unknown, at = Math.floor(t.clock.now().getTime() / 1000)) {
  const { body, signature } = signedEvent(event as Record<string, unknown>, SECRET, at);
  return t.api.post('/webhooks/payments', body.toString('utf8'), {
    'content-type': 'application/json',
    'stripe-signature': signature,
  });
}

describe('checkout on Stripe', () => {
  it('opens an embedded Checkout Session with our idempotency key and metadata, and our page mounts it', async () => {
    const { buyer: b } = await ready();
    const session = await openCheckout(t.api, b);
    expect(session).toMatchObject({
      publishableKey: 'pk_test_portage123',
      clientSecret: expect.stringMatching(/^cs_test_/),
      sessionUrl: `http://portage.test/checkout/${encodeURIComponent(session.sessionId)}/pay`,
      totalCents: 3600 + 899 + 585,
      status: 'ready_for_payment',
    });
    const created = stripe.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === `checkout:${session.sessionId}`,
    );
    expect(created?.body).toMatchObject({
      mode: 'payment',
      ui_mode: 'embedded_page',
      currency: 'cad',
      locale: 'en',
      payment_intent_data: { metadata: { checkoutSessionId: session.sessionId } },
    });
    const page = await t.api.get(new URL(session.sessionUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain('https://js.stripe.com/v3/');
    expect(page.body).toContain(session.clientSecret);
    expect(page.headers['content-security-policy']).toContain('script-src https://js.stripe.com');
  });

  it('gives Stripe the shipping the buyer chose as its one rate: the service, our price, its business days', async () => {
    const shop = await seller(t.api);
    await t.api.as(shop).put('/sellers/me/shipping', {
      originPostalCode: 'M5H 2N2',
      originProvince: 'ON',
      handlingDays: 2,
      rates: 'carrier',
      services: ['DOM.RP', 'DOM.XP'],
    });
    const { buyer: b } = await filledCart(t, {
      seller: shop,
      fields: { priceCents: 1800 },
      stock: 5,
      quantity: 2,
    });
    const chosen = await checkout(t.api, b, {
      shipping_address: ON_ADDRESS,
      shipping_choices: [{ seller_id: shop.id, option_id: 'canada_post:DOM.XP' }],
    });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(201);
    const option = chosen.body.parcels[0].shippingOption;
    expect(option.id).toBe('canada_post:DOM.XP');
    const created = stripe.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === `checkout:${chosen.body.sessionId}`,
    );
    expect(created?.body.shipping_options).toEqual([
      {
        shipping_rate_data: {
          type: 'fixed_amount',
          display_name: 'Canada Post Xpresspost',
          fixed_amount: { amount: String(option.priceCents), currency: 'cad' },
          tax_behavior: 'exclusive',
          // Two days of handling and Xpresspost's one day within Toronto.
          delivery_estimate: {
            minimum: { unit: 'business_day', value: '3' },
            maximum: { unit: 'business_day', value: '3' },
          },
        },
      },
    ]);
  });

  it("speaks the buyer's language on Stripe's form: its locale and our tax lines' names", async () => {
    const { buyer: b } = await ready();
    expect((await t.api.as(b).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    const session = await openCheckout(t.api, b);
    const created = stripe.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === `checkout:${session.sessionId}`,
    );
    const body = created?.body as {
      locale: string;
      line_items: Array<{ price_data: { product_data: { name: string } } }>;
    };
    expect(body.locale).toBe('fr-CA');
    expect(body.line_items.map((l) => l.price_data.product_data.name)).toContainEqual(
      expect.stringMatching(/^TVH 13[\s\u00a0\u202f]%$/),
    );
  });

  it('turns payment_intent.succeeded into the order once, and refunds through Stripe on cancel', async () => {
    const { buyer: b, product: p } = await ready();
    const session = await openCheckout(t.api, b);
    const event = succeeded(session.sessionId, session.totalCents);
    const first = await deliver(event);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, duplicate: false, orderIds: [expect.any(String)] });
    expect(await deliver(event)).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(await stockOf(p.id)).toEqual({ stock: 3, reserved: 0 });
    const orderId = first.body.orderIds[0];
    const order = await t.api.as(b).get(`/orders/${orderId}`);
    expect(order.body).toMatchObject({
      status: 'confirmed',
      paymentIntentId: `pi_test_${session.sessionId.slice(10)}`,
    });

    const cancelled = await t.api.as(b).post(`/orders/${orderId}/cancel`, { reason: 'Changed my mind' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', refund_amount_cents: session.totalCents });
    const refund = stripe.requests.filter((r) => r.path === '/v1/refunds');
    expect(refund.at(-1)?.body).toEqual({
      payment_intent: `pi_test_${session.sessionId.slice(10)}`,
      amount: String(session.totalCents),
    });
    expect(refund.at(-1)?.idempotencyKey).toMatch(/^refund_/);
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 0 });
    const [row] = await database.db.select().from(refunds).where(eq(refunds.orderId, orderId));
    expect(row).toMatchObject({
      status: 'succeeded',
      amountCents: session.totalCents,
      providerRefundId: expect.any(String),
    });
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents).toBe(session.totalCents);
  });

  it('retries a refund Stripe could not take, with the same idempotency key', async () => {
    const { buyer: b } = await ready();
    const session = await openCheckout(t.api, b);
    const [orderId] = (await deliver(succeeded(session.sessionId, session.totalCents))).body.orderIds;
    // The SDK tries 3 times (2 retries): all 3 fail, so the refund waits for the job.
    for (let i = 0; i < 3; i++) stripe.failNext(503, { type: 'api_error', message: 'down' });
    const cancelled = await t.api.as(b).post(`/orders/${orderId}/cancel`, {});
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      refund_amount_cents: session.totalCents,
      refundedCents: 0,
    });
    const [pending] = await database.db.select().from(refunds).where(eq(refunds.orderId, orderId));
    expect(pending?.status).toBe('requested');
    t.clock.advance(61);
    await t.app.jobs.runOnce();
    const [done] = await database.db.select().from(refunds).where(eq(refunds.orderId, orderId));
    expect(done?.status).toBe('succeeded');
    const keys = stripe.requests.filter((r) => r.path === '/v1/refunds').map((r) => r.idempotencyKey);
    expect(new Set(keys.slice(-2)).size).toBe(1);
  });

  it('makes no order from a payment of another amount than quoted, and refunds what was paid', async () => {
    const { buyer: b, product: p } = await ready();
    const session = await openCheckout(t.api, b);
    const pi = `pi_test_short_${session.sessionId.slice(10)}`;
    const res = await deliver(succeeded(session.sessionId, 100, pi));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: false, orderIds: [] });
    expect((await t.api.as(b).get('/orders')).body.total).toBe(0);
    expect((await t.api.as(b).get(`/checkout/${session.sessionId}`)).body.status).toBe('expired');
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 0 });
    const refund = stripe.requests.filter((r) => r.path === '/v1/refunds').at(-1);
    expect(refund?.body).toEqual({ payment_intent: pi, amount: '100' });
    const [row] = await database.db.select().from(refunds).where(eq(refunds.paymentIntentId, pi));
    expect(row).toMatchObject({ status: 'succeeded', amountCents: 100, reason: 'amount_mismatch' });
  });

  it('makes no order from a payment for a session a newer checkout replaced, and refunds it whole through Stripe', async () => {
    const { buyer: b, product: p } = await ready();
    const replaced = await openCheckout(t.api, b);
    const newer = await openCheckout(t.api, b, { ...ON_ADDRESS, street: '200 King St W' });
    expect(newer.sessionId).not.toBe(replaced.sessionId);
    const pi = `pi_test_replaced_${replaced.sessionId.slice(10)}`;
    const res = await deliver(succeeded(replaced.sessionId, replaced.totalCents, pi));
    expect(res.body).toEqual({ received: true, duplicate: false, orderIds: [] });
    expect((await t.api.as(b).get('/orders')).body.total).toBe(0);
    expect((await t.api.as(b).get(`/checkout/${replaced.sessionId}`)).body.status).toBe('expired');
    // Only the newer checkout holds the units.
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 2 });
    const refund = stripe.requests.filter((r) => r.path === '/v1/refunds').at(-1);
    expect(refund?.body).toEqual({ payment_intent: pi, amount: String(replaced.totalCents) });
    const [row] = await database.db.select().from(refunds).where(eq(refunds.paymentIntentId, pi));
    expect(row).toMatchObject({
      status: 'succeeded',
      amountCents: replaced.totalCents,
      reason: 'checkout_closed',
    });
  });

  it('refunds a second, different payment of a checkout already paid, once', async () => {
    const { buyer: b, product: p } = await ready();
    const session = await openCheckout(t.api, b);
    const first = await deliver(succeeded(session.sessionId, session.totalCents));
    const second = succeeded(
      session.sessionId,
      session.totalCents,
      `pi_test_again_${session.sessionId.slice(10)}`,
    );
    const again = await deliver(second);
    expect(again.body).toEqual({ received: true, duplicate: false, orderIds: first.body.orderIds });
    expect(await deliver(second)).toMatchObject({ body: { duplicate: true } });
    const refundsOfSecond = stripe.requests.filter(
      (r) =>
        r.path === '/v1/refunds' && r.body.payment_intent === `pi_test_again_${session.sessionId.slice(10)}`,
    );
    expect(refundsOfSecond.map((r) => r.body.amount)).toEqual([String(session.totalCents)]);
    expect((await t.api.as(b).get('/orders')).body.total).toBe(1);
    expect(await stockOf(p.id)).toEqual({ stock: 3, reserved: 0 });
  });

  it('refunds a second payment once whatever its event ids: the same event three times and another event at once', async () => {
    const { buyer: b } = await ready();
    const session = await openCheckout(t.api, b);
    const first = await deliver(succeeded(session.sessionId, session.totalCents));
    expect(first.body.orderIds).toHaveLength(1);
    const pi = `pi_test_twice_${session.sessionId.slice(10)}`;
    const event = succeeded(session.sessionId, session.totalCents, pi);
    // Another id for the same payment: what a delegated charge records (`charge:<payment>`)
    // while the provider's webhook brings its own.
    const otherEvent = { ...event, id: `evt_test_other_${session.sessionId.slice(10)}` };
    const answers = await Promise.all([deliver(event), deliver(event), deliver(event), deliver(otherEvent)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.duplicate).length).toBe(2);
    const rows = await database.db.select().from(refunds).where(eq(refunds.paymentIntentId, pi));
    expect(rows.map((r) => ({ reason: r.reason, amountCents: r.amountCents, status: r.status }))).toEqual([
      { reason: 'duplicate_payment', amountCents: session.totalCents, status: 'succeeded' },
    ]);
    const sent = stripe.requests.filter((r) => r.path === '/v1/refunds' && r.body.payment_intent === pi);
    expect(sent.map((r) => r.body.amount)).toEqual([String(session.totalCents)]);
  });

  it('releases the stock on checkout.session.expired', async () => {
    const { buyer: b, product: p } = await ready();
    const session = await openCheckout(t.api, b);
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 2 });
    const providerSession = [...stripe.sessions.values()].find(
      (s) => (s.metadata as { checkoutSessionId?: string })?.checkoutSessionId === session.sessionId,
    );
    const res = await deliver(
      stripeEvent('checkout.session.expired', {
        id: providerSession?.id,
        object: 'checkout.session',
        status: 'expired',
        metadata: { checkoutSessionId: session.sessionId },
      }),
    );
    expect(res.status).toBe(200);
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 0 });
    expect((await t.api.as(b).get(`/checkout/${session.sessionId}`)).body.status).toBe('expired');
  });

  it('answers PAYMENT_PROVIDER_ERROR when Stripe refuses the session, and holds nothing', async () => {
    const { buyer: b, product: p } = await ready();
    stripe.failNext(400, { type: 'invalid_request_error', message: 'No such tax registration' });
    const res = await checkout(t.api, b, { shipping_address: ON_ADDRESS });
    expectError(res, 'PAYMENT_PROVIDER_ERROR', 400);
    expect(JSON.stringify(res.body)).not.toContain('sk_test');
    expect(await stockOf(p.id)).toEqual({ stock: 5, reserved: 0 });
    expect((await checkout(t.api, b, { shipping_address: ON_ADDRESS })).status).toBe(201);
  });

  it('refuses an event signed with another secret or too old', async () => {
    const { buyer: b } = await ready();
    const session = await openCheckout(t.api, b);
    const event = succeeded(session.sessionId, session.totalCents);
    const { body, signature } = signedEvent(
      event,
      'whsec_someone_else_entirely',
      Math.floor(t.clock.now().getTime() / 1000),
    );
    const forged = await t.api.post('/webhooks/payments', body.toString('utf8'), {
      'content-type': 'application/json',
      'stripe-signature': signature,
    });
    expectError(forged, 'VALIDATION_ERROR', 400, 'Invalid webhook signature');
    expectError(
      await deliver(event, Math.floor(t.clock.now().getTime() / 1000) - 301),
      'VALIDATION_ERROR',
      400,
      'Invalid webhook signature',
    );
    expect((await t.api.as(b).get('/orders')).body.total).toBe(0);
  });
});
