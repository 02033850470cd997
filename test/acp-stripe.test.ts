// ACP on Stripe: a platform pays with a Shared Payment Token (spt_…), charged through the
// official SDK against a local server that answers as Stripe does (test/helpers/fake-stripe.ts).
// The synchronous answer and Stripe's webhook of the same payment make one order, whichever
// comes first.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { acpWebhookEvent } from '../src/contract/acp.ts';
import { verifySignature } from '../src/modules/payments/signature.ts';
import { refunds } from '../src/modules/payments/tables.ts';
import {
  ACP_QC,
  AcpClient,
  checkoutOfSession,
  heldSessionOf,
  issuePlatform,
  type Platform,
  startReceiver,
} from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { admin, seller, uniqueEmail } from './helpers/builders.ts';
import { signedEvent, stripeEvent, useFakeStripeApp } from './helpers/fake-stripe.ts';
import { acpProblems, expectOfficial } from './helpers/official-schemas.ts';
import { liveReservedUnits, ordersOfCheckout, ship, stockOf } from './helpers/orders.ts';

const SECRET = 'whsec_test_portage_acp_0123456789abcdef';
const { t, database, stripe } = useFakeStripeApp(SECRET);

let boss: SignedIn;
let shop: SignedIn;
let platform: Platform;
let acp: AcpClient;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  platform = await issuePlatform(t.api, boss);
  acp = new AcpClient(t.api, platform.apiKey, t.clock.now, 'stripe_shared_payment_token');
});

type Total = { type: string; amount: number };
const amount = (body: { totals: Total[] }, type: string) => body.totals.find((x) => x.type === type)?.amount;

const heldSession = (client = acp, quantity = 1) =>
  heldSessionOf(t.api, shop, client, {
    quantity,
    buyer: { email: uniqueEmail('acp-stripe'), first_name: 'Avery', last_name: 'Tremblay' },
  });
const checkoutOf = (sessionId: string) => checkoutOfSession(database, sessionId);

const intentsOf = (checkoutId: string) =>
  [...stripe.paymentIntents.values()].filter(
    (pi) => (pi.metadata as Record<string, string>).checkoutSessionId === checkoutId,
  );

/** Stripe's webhook of a payment intent, signed as Stripe signs it. */
function deliverSucceeded(intent: Record<string, unknown>) {
  const event = stripeEvent('payment_intent.succeeded', {
    ...intent,
    status: 'succeeded',
    amount_received: intent.amount,
  });
  const { body, signature } = signedEvent(event, SECRET, Math.floor(t.clock.now().getTime() / 1000));
  return t.api.post('/webhooks/payments', body.toString('utf8'), {
    'content-type': 'application/json',
    'stripe-signature': signature,
  });
}

const refundsOf = (checkoutId: string) =>
  database.db.select().from(refunds).where(eq(refunds.orderId, checkoutId));

describe('ACP with Stripe shared payment tokens', () => {
  it('offers the tokenized card handler, and no sandbox vault', async () => {
    const { session } = await heldSession();
    expect(session.capabilities.payment.handlers).toEqual([
      expect.objectContaining({
        id: 'stripe_shared_payment_token',
        name: 'dev.acp.tokenized.card',
        psp: 'stripe',
      }),
    ]);
    const vault = await acp.delegate(session.id);
    expect(vault.status).toBe(404);
    const discovery = await t.api.get('/.well-known/acp.json');
    expect(discovery.body.capabilities.services).toEqual(['checkout', 'orders']);
  });

  it('create → update to Quebec → complete: one PaymentIntent for the total, one order, order_create then order_update; the late webhook changes nothing', async () => {
    const receiver = await startReceiver();
    try {
      const own = await issuePlatform(t.api, boss, receiver.url);
      const client = new AcpClient(t.api, own.apiKey, t.clock.now, 'stripe_shared_payment_token');
      const { session, product: p } = await heldSession(client, 2);
      const moved = await client.update(session.id, { fulfillment_details: ACP_QC });
      expect(amount(moved.body, 'tax')).not.toBe(amount(session, 'tax'));
      const total = amount(moved.body, 'total')!;

      const done = await client.complete(session.id, 'spt_test_visa_123');
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.status).toBe('completed');
      const checkoutId = await checkoutOf(session.id);
      const [intent] = intentsOf(checkoutId);
      expect(intent).toMatchObject({ amount: total, currency: 'cad', status: 'succeeded' });
      const call = stripe.requests.find((r) => r.path === '/v1/payment_intents')!;
      expect(call.body).toMatchObject({
        confirm: 'true',
        payment_method_data: { shared_payment_granted_token: 'spt_test_visa_123' },
        metadata: { checkoutSessionId: checkoutId },
      });
      expect(call.idempotencyKey).toMatch(/^acp-complete:/);
      const [order] = await ordersOfCheckout(database, checkoutId);
      expect(order).toMatchObject({
        totalAmountCents: total,
        paymentIntentId: intent!.id,
        status: 'confirmed',
      });
      expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });

      // Stripe's own webhook of the same payment, after the answer: nothing more.
      expect((await deliverSucceeded(intent!)).status).toBe(200);
      expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
      expect(await refundsOf(checkoutId)).toEqual([]);

      await t.app.jobs.runOnce();
      await ship(t, shop, order!.id, { trackingNumber: '7316 1234 5678', carrier: 'Purolator' });
      await t.app.jobs.runOnce();
      const events = receiver.received.map((r) => acpWebhookEvent.parse(JSON.parse(r.body)));
      for (const e of events) expectOfficial(acpProblems('webhookEvent', e), e);
      expect(events.map((e) => e.type)).toEqual(['order_create', 'order_update']);
      for (const r of receiver.received) {
        expect(() =>
          verifySignature(
            Buffer.from(r.body),
            r.headers['merchant-signature'] as string,
            own.webhookSecret,
            t.clock.now(),
          ),
        ).not.toThrow();
      }
      expect(events[1]!.data).toMatchObject({ status: 'shipped', checkout_session_id: session.id });
    } finally {
      await receiver.close();
    }
  });

  it("Stripe's webhook arriving before its answer: one order, and complete answers it", async () => {
    const { session } = await heldSession();
    const checkoutId = await checkoutOf(session.id);
    let hooked: number | undefined;
    stripe.beforePaymentIntentAnswer = async (intent) => {
      hooked = (await deliverSucceeded(intent)).status;
    };
    try {
      const done = await acp.complete(session.id, 'spt_test_webhook_first');
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.status).toBe('completed');
      expect(hooked).toBe(200);
    } finally {
      stripe.beforePaymentIntentAnswer = undefined;
    }
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
    expect(await refundsOf(checkoutId)).toEqual([]);
  });

  it('20 concurrent completes with one token: one charge, one order', async () => {
    const { session, product: p } = await heldSession(acp, 2);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => acp.complete(session.id, 'spt_test_many')),
    );
    const checkoutId = await checkoutOf(session.id);
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(new Set(answers.map((a) => a.body.status))).toEqual(new Set(['completed']));
    expect(intentsOf(checkoutId)).toHaveLength(1);
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });
  });

  it('a declined token is 402 payment_declined with no order; another token then pays', async () => {
    const { session } = await heldSession();
    const declined = await acp.complete(session.id, 'spt_test_declined_1');
    expect(declined.status).toBe(402);
    expect(declined.body).toMatchObject({
      type: 'invalid_request',
      code: 'payment_declined',
      param: '$.payment_data',
    });
    expect((await acp.get(session.id)).body.status).toBe('ready_for_payment');
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(0);
    expect((await acp.complete(session.id, 'spt_test_second')).body.status).toBe('completed');
  });

  it('a payment that needs 3-D Secure is refused: nobody is there to confirm it', async () => {
    const { session } = await heldSession();
    const res = await acp.complete(session.id, 'spt_test_3ds_card');
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('payment_declined');
    expect((await acp.get(session.id)).body.status).toBe('ready_for_payment');
  });

  it('a payment still processing answers complete_in_progress; its webhook completes the session', async () => {
    const { session } = await heldSession();
    const pending = await acp.complete(session.id, 'spt_test_processing_1');
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body.status).toBe('complete_in_progress');
    expect((await acp.cancel(session.id)).status).toBe(405);
    const checkoutId = await checkoutOf(session.id);
    const [intent] = intentsOf(checkoutId);
    expect((await deliverSucceeded(intent!)).status).toBe(200);
    const done = await acp.get(session.id);
    expect(done.body.status).toBe('completed');
    expect(done.body.order).toMatchObject({ checkout_session_id: session.id });
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
  });

  it('while a payment is in progress, another token is refused (no second charge); its webhook completes it', async () => {
    const { session } = await heldSession();
    expect((await acp.complete(session.id, 'spt_test_processing_first')).body.status).toBe(
      'complete_in_progress',
    );
    const other = await acp.complete(session.id, 'spt_test_another_card');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      code: 'complete_in_progress',
      param: '$.payment_data.instrument.credential.token',
    });
    const checkoutId = await checkoutOf(session.id);
    expect(intentsOf(checkoutId)).toHaveLength(1);
    // The same token again asks Stripe under the same key: still one payment intent.
    expect((await acp.complete(session.id, 'spt_test_processing_first')).body.status).toBe(
      'complete_in_progress',
    );
    expect(intentsOf(checkoutId)).toHaveLength(1);
    expect((await deliverSucceeded(intentsOf(checkoutId)[0]!)).status).toBe(200);
    expect((await acp.get(session.id)).body.status).toBe('completed');
    expect(await refundsOf(checkoutId)).toEqual([]);
  });

  it('a payment still settling when its hold ends: expired, cancel refused (405), and its money refunded when it lands', async () => {
    const { session, product: p } = await heldSession();
    expect((await acp.complete(session.id, 'spt_test_processing_late')).body.status).toBe(
      'complete_in_progress',
    );
    const checkoutId = await checkoutOf(session.id);
    t.clock.advance(31 * 60);
    try {
      await t.app.jobs.runOnce();
      expect((await acp.get(session.id)).body.status).toBe('expired');
      const cancel = await acp.cancel(session.id);
      expect(cancel.status).toBe(405);
      expect(await liveReservedUnits(database, p.id)).toBe(0);
      expect((await deliverSucceeded(intentsOf(checkoutId)[0]!)).status).toBe(200);
      expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(0);
      expect((await refundsOf(checkoutId)).map((r) => r.amountCents)).toEqual([amount(session, 'total')]);
      expect((await acp.get(session.id)).body.status).toBe('expired');
    } finally {
      t.clock.advance(-31 * 60);
    }
  });

  it('Stripe unreachable: 503 with Retry-After, the session complete_in_progress; the retry charges once', async () => {
    const { session } = await heldSession();
    for (let i = 0; i < 3; i++) stripe.failNext(500, { type: 'api_error', message: 'Something went wrong' });
    const down = await acp.complete(session.id, 'spt_test_retry');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ type: 'service_unavailable', code: 'payment_provider_unavailable' });
    expect(down.headers['retry-after']).toBe('5');
    expect((await acp.get(session.id)).body.status).toBe('complete_in_progress');
    const again = await acp.complete(session.id, 'spt_test_retry');
    expect(again.body.status).toBe('completed');
    const checkoutId = await checkoutOf(session.id);
    expect(intentsOf(checkoutId)).toHaveLength(1);
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
  });

  it('a canceled session is never charged; a token that is not an spt_ is refused before Stripe', async () => {
    const { session, product: p } = await heldSession();
    const before = stripe.requests.length;
    expect((await acp.complete(session.id, 'vt_not_stripe')).status).toBe(400);
    await acp.cancel(session.id);
    expect(await liveReservedUnits(database, p.id)).toBe(0);
    const late = await acp.complete(session.id, 'spt_test_after_cancel');
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('canceled');
    expect(stripe.requests.length).toBe(before);
  });
});
