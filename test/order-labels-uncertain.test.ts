// A label's purchase whose answer is lost (docs/shipping.md "Labels"), over the API against the local
// Canada Post (test/helpers/fake-canada-post.ts): Canada Post may have made — and billed — the
// shipment, so the claim stays `uncertain` (503, "may have been bought") instead of being deleted,
// and the next purchase first looks for that shipment by its customer-request-id (the order's
// number), adopts it when it is there, and buys only once Canada Post says it has none. A definite
// failure still changes nothing. The client's patience is SHIPPING_LABEL_TIMEOUT_MS (500 ms here).
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { UNCERTAIN_SETTLE_SECONDS } from '../src/modules/orders/labels.ts';
import { orderLabels } from '../src/modules/orders/tables.ts';
import type { SignedIn } from './helpers/app.ts';
import { buyer, expectError, product, seller } from './helpers/builders.ts';
import { useCanadaPostApp } from './helpers/canada-post-app.ts';
import { addToCart, checkout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { outboxRows } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database, carrier } = useCanadaPostApp({
  SHIPPING_LABEL_TIMEOUT_MS: '500',
});
beforeEach(() => carrier.reset());

const MAYBE_BOUGHT =
  /^Canada Post did not answer in time and the label may have been bought: nothing more was bought\. Portage checks with Canada Post before buying again; try again in \d+ seconds$/;

/** A paid order, to Montréal by Expedited Parcel, of a seller with an address and a profile. */
async function paidOrder() {
  const s: SignedIn = await seller(t.api);
  expect(
    (
      await t.api.as(s).patch('/me/seller', {
        legalName: 'Érable et fils',
        street: '100 Queen St W',
        city: 'Toronto',
        postalCode: 'M5H 2N2',
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await t.api.as(s).put('/sellers/me/shipping', {
        originPostalCode: 'M5H 2N2',
        originProvince: 'ON',
        rates: 'carrier',
        services: ['DOM.RP', 'DOM.EP'],
      })
    ).status,
  ).toBe(200);
  const p = await product(t.api, s, { title: 'Cedar canoe paddle', stockQuantity: 10 });
  const b = await buyer(t.api);
  await addToCart(t.api, b, p.id, 1);
  const res = await checkout(t.api, b, {
    shipping_address: QC_ADDRESS,
    shipping_choices: [{ seller_id: s.id, option_id: 'canada_post:DOM.EP' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [orderId] = await payOk(t.api, res.body.sessionId);
  const order = await t.api.as(s).get(`/orders/${orderId}`);
  return { seller: s, buyer: b, orderId: orderId!, number: order.body.number as string };
}

const claimOf = async (orderId: string) =>
  (await database.db.select().from(orderLabels).where(eq(orderLabels.orderId, orderId)))[0];
/** The shipments Canada Post (the fake) holds for the order's number. */
const shipmentsOf = (number: string) => carrier.shipments.filter((s) => s.reference === number);
/** The purchases asked of Canada Post (Create Shipment). */
const purchases = () => carrier.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/shipment'));
/** The searches asked of Canada Post (Get Shipments). */
const searches = () => carrier.requests.filter((r) => r.method === 'GET' && r.url.includes('/shipment?'));

describe('a purchase whose answer is lost', () => {
  it('made at Canada Post, its answer stalled past the timeout: 503 "may have been bought"; the retry adopts it', async () => {
    const { seller: s, buyer: b, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', stallAnswerMs: 5000 });
    const lost = await t.api.as(s).post(`/orders/${orderId}/label`);
    expectError(lost, 'INTERNAL_ERROR', 503, MAYBE_BOUGHT);
    expect(Number(lost.headers['retry-after'])).toBeGreaterThan(0);
    expect(await claimOf(orderId)).toMatchObject({ state: 'uncertain', trackingPin: null });
    expect(shipmentsOf(number)).toHaveLength(1);
    expect((await t.api.as(s).get(`/orders/${orderId}`)).body).toMatchObject({ status: 'confirmed' });
    // Maybe bought: the order goes no other way meanwhile.
    expect((await t.api.as(b).post(`/orders/${orderId}/cancel`, {})).status).toBe(409);
    expect(
      (await t.api.as(s).post(`/orders/${orderId}/ship`, { trackingNumber: 'T1', carrier: 'UPS' })).status,
    ).toBe(409);

    // The console's order page says so, and its button checks with Canada Post before buying.
    const pages = new Browser(t.app);
    await pages.signIn(s);
    const page = textOf((await pages.get(`/console/orders/${encodeURIComponent(orderId)}`)).html);
    expect(page).toContain(
      'Canada Post did not answer when this label was being bought: it may have been bought. The button below asks Canada Post first and finishes that purchase if it was made; nothing is bought twice.',
    );
    expect(page).toContain('Check with Canada Post and finish');
    expect(page).not.toContain('Buy the label and mark shipped');

    carrier.setMode({ answer: 'quotes' });
    const retry = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    const [made] = shipmentsOf(number);
    expect(retry.body.label).toMatchObject({ service: 'DOM.EP', trackingNumber: made!.pin, sandbox: false });
    expect(retry.body.order).toMatchObject({
      status: 'shipped',
      carrier: 'Canada Post',
      trackingNumber: made!.pin,
    });
    expect(shipmentsOf(number)).toHaveLength(1);
    expect(purchases()).toHaveLength(1); // the lost one only
    expect(searches().map((r) => r.url)).toEqual([
      `/rs/2004381/2004381/shipment?requestId=${encodeURIComponent(number)}`,
    ]);
    expect(await claimOf(orderId)).toMatchObject({
      state: 'bought',
      shipmentId: made!.id,
      trackingPin: made!.pin,
    });
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);
    const pdf = await t.api.as(s).get(`/orders/${orderId}/label`);
    expect(pdf.status).toBe(200);
    expect(String(pdf.body)).toContain(made!.pin);

    // Asked again: the label, nothing more asked of Canada Post.
    const again = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(again.status).toBe(200);
    expect(shipmentsOf(number)).toHaveLength(1);
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);
  });

  it('a 200 cut off in the middle is uncertain too; the retry adopts it', async () => {
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', breakAnswer: true });
    expectError(await t.api.as(s).post(`/orders/${orderId}/label`), 'INTERNAL_ERROR', 503, MAYBE_BOUGHT);
    expect(await claimOf(orderId)).toMatchObject({ state: 'uncertain' });
    carrier.setMode({ answer: 'quotes' });
    const retry = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(retry.status).toBe(201);
    expect(shipmentsOf(number)).toHaveLength(1);
    expect(retry.body.label.trackingNumber).toBe(shipmentsOf(number)[0]!.pin);
  });

  it('never made (the request timed out before Canada Post acted): nothing bought until "none" can be believed, then exactly one', async () => {
    t.clock.freeze();
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', delayMs: 5000 });
    const lost = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(lost.status).toBe(503);
    expect(lost.body.error).toMatch(MAYBE_BOUGHT);
    expect(shipmentsOf(number)).toHaveLength(0);

    // At once: Canada Post has none yet, but the lost request may still be running there.
    carrier.setMode({ answer: 'quotes' });
    const tooSoon = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(tooSoon.status).toBe(503);
    expect(tooSoon.body.error).toMatch(MAYBE_BOUGHT);
    expect(Number(tooSoon.headers['retry-after'])).toBe(UNCERTAIN_SETTLE_SECONDS);
    expect(searches()).toHaveLength(1);
    expect(purchases()).toHaveLength(1);
    expect(await claimOf(orderId)).toMatchObject({ state: 'uncertain' });

    t.clock.advance(UNCERTAIN_SETTLE_SECONDS + 1);
    const retry = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(shipmentsOf(number)).toHaveLength(1);
    expect(retry.body.label.trackingNumber).toBe(shipmentsOf(number)[0]!.pin);
    expect(searches()).toHaveLength(2);
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);
  });

  it('Canada Post cannot be asked: it stays uncertain (503), and nothing is bought blind', async () => {
    t.clock.freeze();
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', delayMs: 5000 });
    expect((await t.api.as(s).post(`/orders/${orderId}/label`)).status).toBe(503);
    t.clock.advance(UNCERTAIN_SETTLE_SECONDS + 1);
    carrier.setMode({ answer: 'error', status: 503 });
    const down = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(down.status).toBe(503);
    expect(down.body.error).toMatch(MAYBE_BOUGHT);
    expect(searches()).toHaveLength(1);
    expect(purchases()).toHaveLength(1);
    expect(await claimOf(orderId)).toMatchObject({ state: 'uncertain' });
    expect(shipmentsOf(number)).toHaveLength(0);
  });

  it('two retries at once on an uncertain claim: one adoption, the other 409', async () => {
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', stallAnswerMs: 5000 });
    expect((await t.api.as(s).post(`/orders/${orderId}/label`)).status).toBe(503);
    carrier.setMode({ answer: 'quotes', delayMs: 150 });
    const [a, b] = await Promise.all([
      t.api.as(s).post(`/orders/${orderId}/label`),
      t.api.as(s).post(`/orders/${orderId}/label`),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expectError(
      a.status === 409 ? a : b,
      'CONFLICT',
      409,
      'A label for this order is being bought; try again in a minute',
    );
    expect(searches()).toHaveLength(1);
    expect(shipmentsOf(number)).toHaveLength(1);
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);
  });

  it('two retries at once once "none" is believed: one purchase', async () => {
    t.clock.freeze();
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'quotes', delayMs: 5000 });
    expect((await t.api.as(s).post(`/orders/${orderId}/label`)).status).toBe(503);
    t.clock.advance(UNCERTAIN_SETTLE_SECONDS + 1);
    carrier.setMode({ answer: 'quotes', delayMs: 150 });
    const [a, b] = await Promise.all([
      t.api.as(s).post(`/orders/${orderId}/label`),
      t.api.as(s).post(`/orders/${orderId}/label`),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(shipmentsOf(number)).toHaveLength(1);
  });
});

describe('a definite failure', () => {
  it('a 5xx answer: nothing was bought, the claim is gone, the retry buys one', async () => {
    const { seller: s, orderId, number } = await paidOrder();
    carrier.setMode({ answer: 'error', status: 500 });
    const down = await t.api.as(s).post(`/orders/${orderId}/label`);
    expectError(
      down,
      'INTERNAL_ERROR',
      503,
      'Canada Post could not sell the label just now and nothing was bought: try again in 30 seconds',
    );
    expect(await claimOf(orderId)).toBeUndefined();
    carrier.setMode({ answer: 'quotes' });
    const retry = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(retry.status).toBe(201);
    expect(searches()).toEqual([]);
    expect(shipmentsOf(number)).toHaveLength(1);
  });
});
