// UCP on Stripe (docs/ucp.md): a platform pays with a Shared Payment Token (spt_…), charged
// through the official SDK against a local server that answers as Stripe does. A payment still
// settling is complete_in_progress; Stripe's confirmation (its webhook) completes the session
// with one order, and the platform hears of it by a signed order webhook, then of its shipping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';
import { signedEvent, stripeEvent, useFakeStripeApp } from './helpers/fake-stripe.ts';
import { ordersOfCheckout, ship } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UCP_QC,
  UcpClient,
  verifiedUcpWebhook,
} from './helpers/ucp.ts';

const SECRET = 'whsec_test_portage_ucp_0123456789abcdef';
const { t, database, stripe } = useFakeStripeApp(SECRET, { PUBLIC_BASE_URL: 'https://portage.test' });

let shop: SignedIn;
let profiles: ProfileServer;
let hooks: Receiver;
let ucp: UcpClient;
beforeAll(async () => {
  shop = await seller(t.api, 'ON');
  profiles = await startProfileServer();
  hooks = await startReceiver();
  profiles.documents.set('/agent.json', { body: platformProfile(hooks.url) });
  ucp = new UcpClient(
    t.api,
    await issueUcpPlatform(t.api, await admin(t.api, database), `${profiles.base}/agent.json`),
  );
});
afterAll(async () => {
  await profiles.close();
  await hooks.close();
});

type Total = { type: string; amount: number };
const amount = (body: { totals: Total[] }, type: string) => body.totals.find((x) => x.type === type)?.amount;

describe('UCP with Stripe shared payment tokens', () => {
  it("offers Stripe's handler; create → PUT to Quebec → complete_in_progress → Stripe's webhook → completed, one order, signed order webhooks", async () => {
    const profile = await t.api.get('/.well-known/ucp');
    expect(Object.keys(profile.body.ucp.payment_handlers)).toEqual(['com.stripe.shared_payment_token']);

    const p = await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 });
    const buyer = { email: uniqueEmail('ucp-stripe') };
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 2 }],
      buyer,
      fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
    });
    expect(created.body.status).toBe('ready_for_complete');
    expect(created.body.continue_url).toBeUndefined();
    const line = `line_${p.id}`;
    const moved = await ucp.update(created.body.id, {
      line_items: [{ id: line, item: { id: p.id }, quantity: 2 }],
      buyer,
      fulfillment: {
        methods: [{ id: 'shipping', type: 'shipping', line_item_ids: [line], destinations: [UCP_QC] }],
      },
    });
    expect(amount(moved.body, 'tax')).not.toBe(amount(created.body, 'tax'));

    const pending = await ucp.complete(
      created.body.id,
      'spt_test_processing_ucp',
      {},
      'stripe_shared_payment_token',
    );
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body.status).toBe('complete_in_progress');
    const [intent] = [...stripe.paymentIntents.values()].filter(
      (pi) =>
        (pi.metadata as Record<string, string>).checkoutSessionId !== undefined &&
        pi.amount === amount(moved.body, 'total'),
    );
    expect(intent).toMatchObject({ currency: 'cad', status: 'processing' });

    const event = stripeEvent('payment_intent.succeeded', {
      ...intent,
      status: 'succeeded',
      amount_received: intent!.amount,
    });
    const { body, signature } = signedEvent(event, SECRET, Math.floor(t.clock.now().getTime() / 1000));
    const hooked = await t.api.post('/webhooks/payments', body.toString('utf8'), {
      'content-type': 'application/json',
      'stripe-signature': signature,
    });
    expect(hooked.status).toBe(200);
    const done = await ucp.get(created.body.id);
    expect(done.body.status).toBe('completed');
    const checkoutId = (intent!.metadata as Record<string, string>).checkoutSessionId!;
    const orders = await ordersOfCheckout(database, checkoutId);
    expect(orders).toHaveLength(1);

    await t.app.jobs.runOnce();
    const mine = () => hooks.received.filter((r) => JSON.parse(r.body).checkout_id === created.body.id);
    expect(mine()).toHaveLength(1);
    expect((await verifiedUcpWebhook(t.api, hooks.url, mine()[0]!)).id).toBe(done.body.order.id);
    await ship(t, shop, orders[0]!.id);
    await t.app.jobs.runOnce();
    expect(mine()).toHaveLength(2);
    const shipped = await verifiedUcpWebhook(t.api, hooks.url, mine()[1]!);
    expect(shipped.fulfillment.events?.map((e) => e.type)).toEqual(['shipped']);
  });
});
