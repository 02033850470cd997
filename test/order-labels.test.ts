// A seller buys an order's Canada Post label (docs/shipping.md "Labels"), over the API and from the
// console, against the local Canada Post (test/helpers/fake-canada-post.ts): the order ships by it
// as a person's "mark shipped" ships it; one label per order however many ask; nobody else buys or
// prints it; a refusal or an outage changes nothing. Then the tracking job (docs/shipping.md
// "Tracking") marks it delivered when Canada Post says so, with the platforms' webhook, and waits
// longer after each failure.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentSessions } from '../src/modules/agent-checkout/tables.ts';
import { orderLabels, orders, orderTracking } from '../src/modules/orders/tables.ts';
import { ACP_ON, AcpClient, issuePlatform, outboxOf } from './helpers/acp.ts';
import { admin, type SignedIn } from './helpers/app.ts';
import { buyer, expectError, product, seller, uniqueEmail } from './helpers/builders.ts';
import { useCanadaPostApp } from './helpers/canada-post-app.ts';
import { addToCart, checkout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { ordersOfCheckout, outboxRows } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database, carrier } = useCanadaPostApp({
  SHIPPING_TRACKING_RECHECK_SECONDS: '3600',
});
beforeEach(() => carrier.reset());

/** A seller with an address and a shipping profile offering Regular and Expedited Parcel. */
async function shop(): Promise<SignedIn> {
  const s = await seller(t.api);
  const me = await t.api.as(s).patch('/me/seller', {
    legalName: 'Érable et fils',
    street: '100 Queen St W',
    city: 'Toronto',
    postalCode: 'M5H 2N2',
  });
  expect(me.status, JSON.stringify(me.body)).toBe(200);
  const profile = await t.api.as(s).put('/sellers/me/shipping', {
    originPostalCode: 'M5H 2N2',
    originProvince: 'ON',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.EP'],
  });
  expect(profile.status, JSON.stringify(profile.body)).toBe(200);
  return s;
}

/** A paid order of `s` to Montréal, shipped by Expedited Parcel (`service` null: the cheapest option). */
async function orderTo(s: SignedIn, service: string | null = 'DOM.EP') {
  const p = await product(t.api, s, { title: 'Cedar canoe paddle', stockQuantity: 10 });
  const b = await buyer(t.api);
  await addToCart(t.api, b, p.id, 2);
  const res = await checkout(t.api, b, {
    shipping_address: QC_ADDRESS,
    ...(service ? { shipping_choices: [{ seller_id: s.id, option_id: `canada_post:${service}` }] } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [orderId] = await payOk(t.api, res.body.sessionId);
  return { seller: s, buyer: b, orderId: orderId! };
}

const labelOf = (orderId: string) =>
  database.db.select().from(orderLabels).where(eq(orderLabels.orderId, orderId));
/** The order's status as stored (the clock moved past the tokens' life). */
const statusOf = async (orderId: string) =>
  (await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]?.status;
/** The tracking summaries asked of `pin`. */
const summariesOf = (pin: string) =>
  carrier.requests.filter((r) => r.url === `/vis/track/pin/${pin}/summary`);
const shipmentCalls = () => carrier.requests.filter((r) => r.url.endsWith('/shipment'));

describe('buying a label over the API', () => {
  it('buys the chosen service, ships the order by it (the buyer’s email), and answers the same label again', async () => {
    const { seller: s, orderId } = await orderTo(await shop());
    const res = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [sold] = carrier.shipments;
    expect(res.body.label).toEqual({
      carrier: 'canada_post',
      service: 'DOM.EP',
      trackingNumber: sold!.pin,
      sandbox: false,
      labelUrl: `http://portage.test/orders/${encodeURIComponent(orderId)}/label`,
      boughtAt: expect.any(Number),
    });
    expect(res.body.order).toMatchObject({
      id: orderId,
      status: 'shipped',
      carrier: 'Canada Post',
      trackingNumber: sold!.pin,
    });
    expect(sold).toMatchObject({
      service: 'DOM.EP',
      destinationPostalCode: 'H3A3G4',
      reference: res.body.order.number,
    });
    expect(sold!.body).toContain('<company>Maple Goods</company>');
    expect(sold!.body).toContain('<contact-phone>416 555 0199</contact-phone>');
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);

    const pdf = await t.api.as(s).get(`/orders/${orderId}/label`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(String(pdf.body).startsWith('%PDF-')).toBe(true);

    const again = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(again.status).toBe(200);
    expect(again.body.label).toEqual(res.body.label);
    expect(shipmentCalls()).toHaveLength(1);
    // Shipping it by hand now is refused: it ships by its label.
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/ship`, { trackingNumber: 'T1', carrier: 'UPS' }),
      'CONFLICT',
      409,
      'Only a confirmed order can be shipped; this one is shipped',
    );
  });

  it('two buys at once: one label, one call to Canada Post', async () => {
    const { seller: s, orderId } = await orderTo(await shop());
    carrier.setMode({ answer: 'quotes', delayMs: 300 });
    const [a, b] = await Promise.all([
      t.api.as(s).post(`/orders/${orderId}/label`),
      t.api.as(s).post(`/orders/${orderId}/label`),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const refused = a.status === 409 ? a : b;
    expectError(refused, 'CONFLICT', 409, 'A label for this order is being bought; try again in a minute');
    expect(shipmentCalls()).toHaveLength(1);
    expect(await labelOf(orderId)).toHaveLength(1);
  });

  it('nobody else buys it or prints it: a buyer, another seller', async () => {
    const { seller: s, buyer: b, orderId } = await orderTo(await shop());
    const other = await shop();
    expect((await t.api.as(b).post(`/orders/${orderId}/label`)).status).toBe(403);
    expectError(
      await t.api.as(other).post(`/orders/${orderId}/label`),
      'NOT_FOUND',
      404,
      `Order ${orderId} not found`,
    );
    expect(shipmentCalls()).toHaveLength(0);
    expect((await t.api.as(s).post(`/orders/${orderId}/label`)).status).toBe(201);
    expect((await t.api.as(b).get(`/orders/${orderId}/label`)).status).toBe(403);
    expect((await t.api.as(other).get(`/orders/${orderId}/label`)).status).toBe(404);
    expect((await t.api.as(other).get(`/orders/${orderId}/packing-slip`)).status).toBe(404);
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).get(`/orders/${orderId}/label`)).status).toBe(200);
  });

  it('a refusal or an outage says so and changes nothing; the next try buys it', async () => {
    const { seller: s, orderId } = await orderTo(await shop());
    carrier.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/label`),
      'VALIDATION_ERROR',
      422,
      'Canada Post refused the label: 9111 Invalid postal code',
    );
    carrier.setMode({ answer: 'error', status: 503 });
    const down = await t.api.as(s).post(`/orders/${orderId}/label`);
    expectError(
      down,
      'INTERNAL_ERROR',
      503,
      'Canada Post could not sell the label just now and nothing was bought: try again in 30 seconds',
    );
    expect(down.headers['retry-after']).toBe('30');
    expect((await t.api.as(s).get(`/orders/${orderId}`)).body).toMatchObject({
      status: 'confirmed',
      trackingNumber: null,
    });
    expect(await labelOf(orderId)).toEqual([]);
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toEqual([]);
    carrier.setMode({ answer: 'quotes' });
    expect((await t.api.as(s).post(`/orders/${orderId}/label`)).status).toBe(201);
  });

  it('the buyer cannot cancel while its label is being bought', async () => {
    const { seller: s, buyer: b, orderId } = await orderTo(await shop());
    carrier.setMode({ answer: 'quotes', delayMs: 500 });
    const buying = t.api.as(s).post(`/orders/${orderId}/label`);
    for (let i = 0; i < 200 && shipmentCalls().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expectError(
      await t.api.as(b).post(`/orders/${orderId}/cancel`, {}),
      'CONFLICT',
      409,
      'A label is being bought for this order; try again in a minute',
    );
    expect((await buying).status).toBe(201);
  });

  it('refuses a seller without an address, before asking Canada Post', async () => {
    const s = await seller(t.api);
    const { orderId } = await orderTo(s, null);
    carrier.reset();
    const res = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/^Set your shop's address/);
    expect(carrier.requests).toEqual([]);
  });
});

describe('the tracking job', () => {
  it('marks delivered what Canada Post says is, with the platform’s webhook', async () => {
    const s = await shop();
    const boss = await admin(t.api, database);
    const platform = await issuePlatform(t.api, boss);
    const client = new AcpClient(t.api, platform.apiKey, t.clock.now);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const created = await client.create({
      line_items: [{ id: p.id }],
      buyer: { email: uniqueEmail('acp-label'), first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
    });
    expect((await client.pay(created.body.id)).body.status).toBe('completed');
    const [order] = await ordersOfCheckout(database, await checkoutOf(created.body.id));
    const bought = await t.api.as(s).post(`/orders/${order!.id}/label`);
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);

    // Not delivered yet: asked once it is due, then not again before the hour.
    t.clock.advance(3601);
    await t.app.jobs.runOnce();
    expect(await statusOf(order!.id)).toBe('shipped');
    carrier.deliver(bought.body.label.trackingNumber, '2026-11-26');
    await t.app.jobs.runOnce();
    expect(await statusOf(order!.id)).toBe('shipped');
    t.clock.advance(3601);
    await t.app.jobs.runOnce();
    expect(await statusOf(order!.id)).toBe('delivered');
    expect(summariesOf(bought.body.label.trackingNumber)).toHaveLength(2);
    expect(
      await database.db.select().from(orderTracking).where(eq(orderTracking.orderId, order!.id)),
    ).toEqual([]);
    // The platform hears it as it hears a person's "mark delivered": an order_update, completed.
    const events = (await outboxOf(database, created.body.id)).map(
      (r) =>
        (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as {
          type: string;
          data: { status: string; fulfillments: unknown[] };
        },
    );
    expect(events.map((e) => `${e.type} ${e.data.status}`).sort()).toEqual([
      'order_create confirmed',
      'order_update completed',
      'order_update shipped',
    ]);
    expect(events.find((e) => e.data.status === 'completed')!.data.fulfillments).toEqual([
      expect.objectContaining({
        status: 'delivered',
        carrier: 'Canada Post',
        tracking_number: bought.body.label.trackingNumber,
      }),
    ]);
  });

  it('follows a Canada Post parcel shipped by hand too; another carrier’s is left to its seller', async () => {
    const s = await shop();
    const byPost = await orderTo(s);
    const pin = '7023210099887766';
    carrier.mailAtCounter(pin, 'DOM.EP', 'H3A3G4');
    const shipped = await t.api
      .as(s)
      .post(`/orders/${byPost.orderId}/ship`, { trackingNumber: pin, carrier: 'Postes Canada' });
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
    const byOther = await orderTo(s);
    expect(
      (
        await t.api
          .as(s)
          .post(`/orders/${byOther.orderId}/ship`, { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' })
      ).status,
    ).toBe(200);
    expect(
      (await database.db.select().from(orderTracking).where(eq(orderTracking.orderId, byOther.orderId)))
        .length,
    ).toBe(0);

    carrier.deliver(pin, '2026-11-26');
    t.clock.advance(3601);
    await t.app.jobs.runOnce();
    expect(await statusOf(byPost.orderId)).toBe('delivered');
    expect(summariesOf(pin)).toHaveLength(1);
    expect(await statusOf(byOther.orderId)).toBe('shipped');
  });

  it('waits longer after each failure, then delivers once Canada Post answers', async () => {
    t.clock.freeze();
    const { seller: s, orderId } = await orderTo(await shop());
    const bought = await t.api.as(s).post(`/orders/${orderId}/label`);
    carrier.setMode({ answer: 'error', status: 500 });
    const tracked = async () =>
      (await database.db.select().from(orderTracking).where(eq(orderTracking.orderId, orderId)))[0]!;
    const asked = () => summariesOf(bought.body.label.trackingNumber).length;

    t.clock.advance(3601);
    await t.app.jobs.runOnce();
    expect(await tracked()).toMatchObject({
      failures: 1,
      lastError: 'Canada Post answered 500: Server Internal error',
    });
    expect(asked()).toBe(1);
    const first = (await tracked()).nextCheckAt.getTime() - t.clock.now().getTime();
    expect(first).toBe(5 * 60_000);
    t.clock.advance(60);
    await t.app.jobs.runOnce();
    expect(asked()).toBe(1);
    t.clock.advance(5 * 60);
    await t.app.jobs.runOnce();
    expect(await tracked()).toMatchObject({ failures: 2 });
    expect((await tracked()).nextCheckAt.getTime() - t.clock.now().getTime()).toBe(10 * 60_000);

    carrier.setMode({ answer: 'quotes' });
    carrier.deliver(bought.body.label.trackingNumber, '2026-11-27');
    t.clock.advance(10 * 60);
    await t.app.jobs.runOnce();
    expect(await statusOf(orderId)).toBe('delivered');
  });
});

describe('the console', () => {
  it('buys the label from the order’s page, prints it and the packing slip; another seller cannot', async () => {
    const s = await shop();
    const { orderId } = await orderTo(s);
    const b = new Browser(t.app);
    await b.signIn(s);
    const path = `/console/orders/${encodeURIComponent(orderId)}`;
    const page = await b.get(path);
    expect(textOf(page.html)).toContain('Canada Post label');
    expect(textOf(page.html)).toContain('Canada Post Expedited Parcel, from your shipping profile');
    expect(page.html).toContain(`action="${path}/label"`);

    const bought = await b.post(`${path}/label`, {});
    expect(bought.url).toBe(`${path}?done=shipped`);
    const shown = textOf(bought.html);
    expect(shown).toContain(`Shipped with Canada Post, tracking number ${carrier.shipments.at(-1)!.pin}`);
    expect(shown).toContain('Print the label (PDF)');
    const label = await b.get(`${path}/label`);
    expect(label.status).toBe(200);
    expect(label.headers['content-type']).toBe('application/pdf');
    const slip = await b.get(`${path}/packing-slip`);
    expect(slip.status).toBe(200);
    expect(slip.headers['content-type']).toBe('application/pdf');

    const sold = carrier.shipments.length;
    const other = new Browser(t.app);
    await other.signIn(await shop());
    expect((await other.get(`${path}/label`)).status).toBe(404);
    expect((await other.get(`${path}/packing-slip`)).status).toBe(404);
    await other.get('/console/orders');
    expect((await other.post(`${path}/label`, {})).status).toBe(404);
    expect(carrier.shipments).toHaveLength(sold);
  });
});

async function checkoutOf(sessionId: string): Promise<string> {
  const [row] = await database.db.select().from(agentSessions).where(eq(agentSessions.id, sessionId));
  return row!.checkoutId!;
}
