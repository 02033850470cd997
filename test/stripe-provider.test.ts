// The Stripe provider through the official SDK against a local server speaking Stripe's wire
// format (test/helpers/fake-stripe.ts); webhook events are signed by the SDK's own test helper.
// No database: this is the provider alone (docs/api.md "Stripe").
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsConfig } from '../src/config.ts';
import { render } from '../src/contract/i18n.ts';
import {
  type PaymentProvider,
  ProviderError,
  type SessionInput,
  WebhookSignatureError,
} from '../src/modules/payments/provider.ts';
import { createStripeProvider, EXPIRY_GRACE_SECONDS } from '../src/modules/payments/providers/stripe.ts';
import { type FakeStripe, signedEvent, startFakeStripe, stripeEvent } from './helpers/fake-stripe.ts';

const SECRET_KEY = 'sk_test_portageSecretKey0123456789';
const WEBHOOK_SECRET = 'whsec_portage_stripe_provider_test';

let fake: FakeStripe;
let stripe: PaymentProvider;
/** Without the SDK's retries, so that one failure is one answer. */
let noRetry: PaymentProvider;

const paymentsConfig = (overrides: Partial<PaymentsConfig> = {}): PaymentsConfig => ({
  provider: 'stripe',
  webhookSecret: WEBHOOK_SECRET,
  stripeSecretKey: SECRET_KEY,
  publishableKey: 'pk_test_portage',
  stripeApiBase: new URL(fake.url),
  platformFeeBps: 250,
  payoutHoldDays: 7,
  disputeFeeCents: 1500,
  connectWebhookSecret: WEBHOOK_SECRET,
  ...overrides,
});

let seq = 0;
function sessionInput(overrides: Partial<SessionInput> = {}): SessionInput {
  seq++;
  return {
    checkoutId: `chk_${seq}`,
    buyerEmail: 'buyer@example.ca',
    parcels: [
      {
        sellerId: 'seller_a',
        originProvince: 'QC',
        subtotalCents: 6000,
        discountCents: 400,
        shippingCostCents: 899,
        taxLines: [
          { name: 'GST', ratePercent: 5, amountCents: 325 },
          { name: 'QST', ratePercent: 9.975, amountCents: 648 },
        ],
        taxAmountCents: 973,
        totalCents: 0,
        items: [
          {
            productId: 'prod_1',
            name: 'Maple syrup 500 ml',
            quantity: 2,
            unitPriceCents: 1500,
            imageUrl: 'https://cdn.example.ca/syrup.jpg',
          },
          { productId: 'prod_2', name: 'Wool socks', quantity: 1, unitPriceCents: 3000, imageUrl: null },
        ],
      },
      {
        sellerId: 'seller_b',
        originProvince: 'ON',
        subtotalCents: 1500,
        discountCents: 100,
        shippingCostCents: 1299,
        taxLines: [
          { name: 'GST', ratePercent: 5, amountCents: 135 },
          { name: 'QST', ratePercent: 9.975, amountCents: 237 },
        ],
        taxAmountCents: 372,
        totalCents: 0,
        items: [
          {
            productId: 'prod_3',
            name: 'Tea tin',
            quantity: 3,
            unitPriceCents: 500,
            imageUrl: '/img/tea.png',
          },
        ],
      },
    ],
    address: {
      street: '1 Rue Sainte-Catherine',
      city: 'Montréal',
      province: 'QC',
      postalCode: 'H2X 1Z4',
      country: 'CA',
      phone: '+15145550100',
    },
    subtotalCents: 7500,
    discountCents: 500,
    shippingCostCents: 2198,
    taxAmountCents: 1345,
    totalCents: 10543,
    paymentMethods: ['card', 'apple_pay', 'google_pay', 'klarna'],
    expiresAt: new Date(Date.now() + 45 * 60_000),
    idempotencyKey: `checkout:chk_${seq}:session`,
    returnUrl: 'http://localhost:3000/checkout/return',
    pageUrl: 'http://localhost:3000/checkout/pay',
    ...overrides,
  };
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

beforeAll(async () => {
  fake = await startFakeStripe({ apiKey: SECRET_KEY });
  stripe = createStripeProvider(paymentsConfig());
  noRetry = createStripeProvider(paymentsConfig(), { maxNetworkRetries: 0 });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
});

describe('createSession', () => {
  it('opens an embedded Checkout Session with every parameter as sent on the wire', async () => {
    const input = sessionInput();
    const session = await stripe.createSession(input);

    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/coupons 200',
      'POST /v1/checkout/sessions 200',
    ]);
    const [couponReq, sessionReq] = fake.requests;
    // The discount: a one-off coupon of exactly our amount, under a key derived from ours.
    expect(couponReq!.body).toEqual({
      amount_off: '500',
      currency: 'cad',
      duration: 'once',
      max_redemptions: '1',
      name: 'Discount',
      metadata: { checkoutSessionId: input.checkoutId },
    });
    expect(couponReq!.idempotencyKey).toBe(`${input.idempotencyKey}:coupon`);
    const couponId = (couponReq!.response as { id: string }).id;

    expect(sessionReq!.idempotencyKey).toBe(input.idempotencyKey);
    expect(sessionReq!.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(sessionReq!.stripeVersion).toMatch(/^\d{4}-\d{2}-\d{2}/);
    const body = sessionReq!.body;
    expect(body).toEqual({
      mode: 'payment',
      ui_mode: 'embedded_page',
      locale: 'en',
      currency: 'cad',
      line_items: [
        {
          quantity: '2',
          price_data: {
            currency: 'cad',
            unit_amount: '1500',
            tax_behavior: 'exclusive',
            product_data: {
              name: 'Maple syrup 500 ml',
              images: ['https://cdn.example.ca/syrup.jpg'],
              metadata: { productId: 'prod_1', sellerId: 'seller_a' },
            },
          },
        },
        {
          quantity: '1',
          price_data: {
            currency: 'cad',
            unit_amount: '3000',
            tax_behavior: 'exclusive',
            product_data: { name: 'Wool socks', metadata: { productId: 'prod_2', sellerId: 'seller_a' } },
          },
        },
        {
          quantity: '3',
          price_data: {
            currency: 'cad',
            unit_amount: '500',
            tax_behavior: 'exclusive',
            // A relative image URL is not sent: Stripe takes only absolute https images.
            product_data: { name: 'Tea tin', metadata: { productId: 'prod_3', sellerId: 'seller_b' } },
          },
        },
        // Our tax, each component summed over the parcels: Stripe charges exactly our quote.
        {
          quantity: '1',
          price_data: { currency: 'cad', unit_amount: '460', product_data: { name: 'GST 5%' } },
        },
        {
          quantity: '1',
          price_data: { currency: 'cad', unit_amount: '885', product_data: { name: 'QST 9.975%' } },
        },
      ],
      discounts: [{ coupon: couponId }],
      shipping_options: [
        {
          shipping_rate_data: {
            type: 'fixed_amount',
            display_name: 'Shipping, 2 parcels',
            fixed_amount: { amount: '2198', currency: 'cad' },
            tax_behavior: 'exclusive',
          },
        },
      ],
      allowed_payment_method_types: ['card', 'klarna'],
      customer_email: 'buyer@example.ca',
      client_reference_id: input.checkoutId,
      metadata: { checkoutSessionId: input.checkoutId },
      payment_intent_data: {
        metadata: { checkoutSessionId: input.checkoutId },
        transfer_group: input.checkoutId,
      },
      // Our expiry plus a fixed minute of grace (Stripe's 30-minute minimum, counted from its receipt).
      expires_at: String(unix(input.expiresAt) + EXPIRY_GRACE_SECONDS),
      return_url: 'http://localhost:3000/checkout/return?session_id={CHECKOUT_SESSION_ID}',
    });

    const stored = fake.sessions.get(session.providerSessionId)!;
    expect(session.providerSessionId).toMatch(/^cs_test_/);
    expect(session.clientSecret).toBe(stored.client_secret);
    expect(session.clientSecret).toMatch(new RegExp(`^${session.providerSessionId}_secret_`));
    // Embedded: Stripe gives no URL; the person pays on our return page, which mounts it.
    expect(stored.url).toBeNull();
    expect(session.url).toBe(input.pageUrl);
    // The fake's own sum of what was sent (items and our tax lines - coupon + shipping) is our
    // quote's total, to the cent.
    expect(stored.amount_total).toBe(input.totalCents);
  });

  it('a retried call with the same idempotency key gets the same session and makes no second coupon', async () => {
    const input = sessionInput();
    const first = await stripe.createSession(input);
    const sessionsBefore = fake.sessions.size;
    const second = await stripe.createSession(input);
    expect(second).toEqual(first);
    expect(fake.sessions.size).toBe(sessionsBefore);
    const coupons = fake.requests.filter((r) => r.path === '/v1/coupons');
    expect(coupons.map((r) => r.idempotencyKey)).toEqual([
      `${input.idempotencyKey}:coupon`,
      `${input.idempotencyKey}:coupon`,
    ]);
    const sessionBodies = fake.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(sessionBodies[0]!.rawBody).toBe(sessionBodies[1]!.rawBody);
  });

  it('without a discount sends no coupon; free shipping of one parcel is named so', async () => {
    const base = sessionInput();
    const input = sessionInput({
      discountCents: 0,
      shippingCostCents: 0,
      parcels: [{ ...base.parcels[0]!, discountCents: 0, shippingCostCents: 0 }],
      paymentMethods: ['card'],
    });
    await stripe.createSession(input);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/checkout/sessions']);
    const body = fake.requests[0]!.body;
    expect(body.discounts).toBeUndefined();
    expect(body.shipping_options).toEqual([
      {
        shipping_rate_data: {
          type: 'fixed_amount',
          display_name: 'Free shipping, 1 parcel',
          fixed_amount: { amount: '0', currency: 'cad' },
          tax_behavior: 'exclusive',
        },
      },
    ]);
    expect(body.allowed_payment_method_types).toEqual(['card']);
  });

  it('a 30-minute reservation opens a session Stripe accepts, and a later retry still replays it', async () => {
    // The fake holds Stripe's rule: expires_at at least 30 minutes after it receives the request.
    const input = sessionInput({ expiresAt: new Date(Date.now() + 30 * 60_000) });
    const first = await stripe.createSession(input);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await stripe.createSession(input)).toEqual(first);
    const bodies = fake.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(bodies.map((r) => r.status)).toEqual([200, 200]);
    expect(bodies[1]!.rawBody).toBe(bodies[0]!.rawBody);
  });

  it('a return URL with a query keeps it', async () => {
    await stripe.createSession(sessionInput({ returnUrl: 'https://shop.example.ca/checkout?from=cart' }));
    expect(fake.requests.at(-1)!.body.return_url).toBe(
      'https://shop.example.ca/checkout?from=cart&session_id={CHECKOUT_SESSION_ID}',
    );
  });

  it('a 500 is retried by the SDK under the same idempotency key, and the retry succeeds', async () => {
    const input = sessionInput({ discountCents: 0 });
    fake.failNext(500, { type: 'api_error', message: 'Something went wrong on our end.' });
    const session = await stripe.createSession(input);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 200]);
    expect(fake.requests.map((r) => r.idempotencyKey)).toEqual([input.idempotencyKey, input.idempotencyKey]);
    expect(session.providerSessionId).toMatch(/^cs_test_/);
  });
});

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  const e = err as ProviderError;
  const shown = ['en-CA', 'fr-CA'].map((l) => render(l as 'en-CA', e.publicMessage));
  for (const text of [e.message, ...shown, String(e.stack)]) expect(text).not.toContain(SECRET_KEY);
  return e;
}

describe('errors', () => {
  it('a card refusal is not retryable and shows Stripe’s message to the person', async () => {
    fake.failNext(402, {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    });
    const e = await providerError(noRetry.createSession(sessionInput({ discountCents: 0 })));
    expect(e.retryable).toBe(false);
    expect(render('en-CA', e.publicMessage)).toBe('Your card was declined.');
    // Stripe writes in English: the French reader gets ours, by the refusal's code.
    expect(render('fr-CA', e.publicMessage)).toBe('Votre carte a été refusée.');
    expect(e.message).toContain('card_declined');
  });

  it('a 500, a rate limit and an unreachable Stripe are retryable', async () => {
    fake.failNext(500, { type: 'api_error', message: 'Something went wrong on our end.' });
    const e500 = await providerError(noRetry.createSession(sessionInput({ discountCents: 0 })));
    expect(e500.retryable).toBe(true);
    expect(render('en-CA', e500.publicMessage)).toMatch(/try again/);

    fake.failNext(429, {
      type: 'invalid_request_error',
      code: 'rate_limit',
      message: 'Too many requests hit the API too quickly.',
    });
    const e429 = await providerError(
      noRetry.refund({ paymentIntentId: 'pi_1', amountCents: 100, idempotencyKey: 'r1' }),
    );
    expect(e429.retryable).toBe(true);

    const closed = await startFakeStripe();
    await closed.close();
    const gone = createStripeProvider(paymentsConfig({ stripeApiBase: new URL(closed.url) }), {
      maxNetworkRetries: 0,
    });
    const eConn = await providerError(gone.createSession(sessionInput({ discountCents: 0 })));
    expect(eConn.retryable).toBe(true);
  });

  it('a refused request is not retryable; no message carries the secret key', async () => {
    // Stripe echoes the key masked; a proxy or a future message might not: we scrub both.
    fake.failNext(400, { type: 'invalid_request_error', message: `Bad request made with ${SECRET_KEY}` });
    const e = await providerError(noRetry.createSession(sessionInput({ discountCents: 0 })));
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('[key]');

    const wrongKey = createStripeProvider(paymentsConfig({ stripeSecretKey: 'sk_test_wrongKey987654321' }));
    const e401 = await providerError(wrongKey.createSession(sessionInput({ discountCents: 0 })));
    expect(e401.retryable).toBe(false);
    expect(e401.message).toContain('401');
    expect(e401.message).not.toContain('sk_test_wrong');
    expect(render('en-CA', e401.publicMessage)).toBe('The payment could not be processed');
    expect(render('fr-CA', e401.publicMessage)).toBe('Le paiement n’a pas pu être traité');
  });

  it('needs a secret key', () => {
    expect(() => createStripeProvider(paymentsConfig({ stripeSecretKey: undefined }))).toThrow(
      /STRIPE_SECRET_KEY/,
    );
  });
});

describe('expireSession and refund', () => {
  it('expires an open session; an expired or unknown one is left alone', async () => {
    const session = await stripe.createSession(sessionInput({ discountCents: 0 }));
    await stripe.expireSession(session.providerSessionId);
    expect(fake.sessions.get(session.providerSessionId)!.status).toBe('expired');
    await expect(stripe.expireSession(session.providerSessionId)).resolves.toBeUndefined();
    await expect(stripe.expireSession('cs_test_unknown')).resolves.toBeUndefined();
    expect(fake.requests.slice(-3).map((r) => `${r.path} ${r.status}`)).toEqual([
      `/v1/checkout/sessions/${session.providerSessionId}/expire 200`,
      `/v1/checkout/sessions/${session.providerSessionId}/expire 400`,
      '/v1/checkout/sessions/cs_test_unknown/expire 404',
    ]);

    const completed = await stripe.createSession(sessionInput({ discountCents: 0 }));
    fake.sessions.get(completed.providerSessionId)!.status = 'complete';
    await expect(stripe.expireSession(completed.providerSessionId)).resolves.toBeUndefined();
    expect(fake.sessions.get(completed.providerSessionId)!.status).toBe('complete');

    fake.failNext(503, { type: 'api_error', message: 'Service unavailable' });
    const e = await providerError(noRetry.expireSession(completed.providerSessionId));
    expect(e.retryable).toBe(true);
  });

  it('refunds a payment intent under our idempotency key; a retry gets the same refund', async () => {
    const input = { paymentIntentId: 'pi_test_123', amountCents: 4321, idempotencyKey: 'refund:ord_1' };
    const first = await stripe.refund(input);
    expect(first.refundId).toMatch(/^re_test_/);
    const req = fake.requests.at(-1)!;
    expect(req.path).toBe('/v1/refunds');
    expect(req.body).toEqual({ payment_intent: 'pi_test_123', amount: '4321' });
    expect(req.idempotencyKey).toBe('refund:ord_1');
    expect(await stripe.refund(input)).toEqual(first);

    const e = await providerError(stripe.refund({ ...input, paymentIntentId: 'nope', idempotencyKey: 'r2' }));
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('resource_missing');
  });
});

describe('parseWebhook', () => {
  const t = Math.floor(Date.now() / 1000);
  const at = (seconds: number) => new Date(seconds * 1000);
  const succeeded = stripeEvent(
    'payment_intent.succeeded',
    {
      id: 'pi_test_abc',
      object: 'payment_intent',
      amount: 10543,
      amount_received: 10543,
      currency: 'cad',
      metadata: { checkoutSessionId: 'chk_42' },
      status: 'succeeded',
    },
    'evt_test_paid',
  );

  it('maps a payment_intent.succeeded signed by the SDK', () => {
    const { body, signature } = signedEvent(succeeded, WEBHOOK_SECRET, t);
    expect(stripe.parseWebhook(body, signature, at(t + 5))).toEqual({
      kind: 'payment_succeeded',
      eventId: 'evt_test_paid',
      paymentIntentId: 'pi_test_abc',
      checkoutId: 'chk_42',
      amountCents: 10543,
    });
  });

  it('maps checkout.session.expired; an unrelated event is ignored; no metadata gives no checkout', () => {
    const expired = stripeEvent(
      'checkout.session.expired',
      {
        id: 'cs_test_x',
        object: 'checkout.session',
        metadata: { checkoutSessionId: 'chk_7' },
        status: 'expired',
      },
      'evt_test_expired',
    );
    const e = signedEvent(expired, WEBHOOK_SECRET, t);
    expect(stripe.parseWebhook(e.body, e.signature, at(t))).toEqual({
      kind: 'session_expired',
      eventId: 'evt_test_expired',
      checkoutId: 'chk_7',
      providerSessionId: 'cs_test_x',
    });

    const other = signedEvent(
      stripeEvent('charge.succeeded', { id: 'ch_1' }, 'evt_test_other'),
      WEBHOOK_SECRET,
      t,
    );
    expect(stripe.parseWebhook(other.body, other.signature, at(t))).toEqual({
      kind: 'ignored',
      eventId: 'evt_test_other',
      type: 'charge.succeeded',
    });

    const foreign = signedEvent(
      stripeEvent('payment_intent.succeeded', {
        id: 'pi_x',
        object: 'payment_intent',
        amount: 900,
        metadata: {},
      }),
      WEBHOOK_SECRET,
      t,
    );
    expect(stripe.parseWebhook(foreign.body, foreign.signature, at(t))).toMatchObject({
      kind: 'payment_succeeded',
      checkoutId: undefined,
      amountCents: 900,
    });
  });

  it('refuses a tampered body, another secret, a missing or malformed header', () => {
    const { body, signature } = signedEvent(succeeded, WEBHOOK_SECRET, t);
    const tampered = Buffer.from(body.toString().replace('10543', '1'));
    expect(() => stripe.parseWebhook(tampered, signature, at(t))).toThrow(WebhookSignatureError);

    const other = signedEvent(succeeded, 'whsec_someone_else_entirely', t);
    expect(() => stripe.parseWebhook(other.body, other.signature, at(t))).toThrow(WebhookSignatureError);

    expect(() => stripe.parseWebhook(body, undefined, at(t))).toThrow(WebhookSignatureError);
    expect(() => stripe.parseWebhook(body, '', at(t))).toThrow(WebhookSignatureError);
    expect(() => stripe.parseWebhook(body, 'garbage', at(t))).toThrow(WebhookSignatureError);
    expect(() => stripe.parseWebhook(body, `t=${t}`, at(t))).toThrow(WebhookSignatureError);
  });

  it('a signed body that is not JSON is refused too', () => {
    const { body, signature } = signedEvent('not json', WEBHOOK_SECRET, t);
    expect(() => stripe.parseWebhook(body, signature, at(t))).toThrow(WebhookSignatureError);
  });

  it('holds 5 minutes of tolerance against our clock, not the machine’s', () => {
    const { body, signature } = signedEvent(succeeded, WEBHOOK_SECRET, t);
    expect(stripe.parseWebhook(body, signature, at(t + 300)).kind).toBe('payment_succeeded');
    expect(() => stripe.parseWebhook(body, signature, at(t + 301))).toThrow(/tolerance/);
    expect(stripe.parseWebhook(body, signature, at(t - 300)).kind).toBe('payment_succeeded');
    expect(() => stripe.parseWebhook(body, signature, at(t - 301))).toThrow(WebhookSignatureError);

    // A clock moved a year ahead: an event signed then is fresh for it.
    const later = t + 365 * 86_400;
    const moved = signedEvent(succeeded, WEBHOOK_SECRET, later);
    expect(stripe.parseWebhook(moved.body, moved.signature, at(later + 10)).kind).toBe('payment_succeeded');
  });
});
