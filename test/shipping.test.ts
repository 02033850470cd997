// Sellers' shipping over HTTP on a real database (docs/shipping.md): the profile (PUT, GET,
// DELETE /sellers/me/shipping), the options a checkout offers per parcel priced by the built-in
// rate table (no carrier configured), the buyer's choice per parcel, and what the order keeps of
// it (its option and promised date).
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';

const { t, database } = useTestApp();

/** A Friday, 10:00 in Toronto: a parcel handed over the next business day goes on Monday the 23rd. */
const FRIDAY = '2026-11-20T15:00:00.000Z';

/** A Toronto shop offering the four Canada Post services, one day of handling, the default box. */
const CARRIER_PROFILE = {
  originPostalCode: 'm5h-2n2',
  originProvince: 'ON',
  handlingDays: 1,
  rates: 'carrier',
  services: ['DOM.PC', 'DOM.XP', 'DOM.EP', 'DOM.RP'],
};

beforeAll(() => setClock(t, FRIDAY));

describe('the shipping profile: PUT, GET, DELETE /sellers/me/shipping', () => {
  it('is a seller’s own: 401 without a token, 403 for a buyer', async () => {
    expect((await t.api.put('/sellers/me/shipping', CARRIER_PROFILE)).status).toBe(401);
    const b = await buyer(t.api);
    expect((await t.api.as(b).get('/sellers/me/shipping')).status).toBe(403);
    expect((await t.api.as(b).put('/sellers/me/shipping', CARRIER_PROFILE)).status).toBe(403);
  });

  it('is 404 until set; set, it answers every field with its defaults; removed, 404 again', async () => {
    const s = await seller(t.api);
    expectError(await t.api.as(s).get('/sellers/me/shipping'), 'NOT_FOUND', 404);
    const put = await t.api.as(s).put('/sellers/me/shipping', CARRIER_PROFILE);
    expect(put.status).toBe(200);
    const expected = {
      originPostalCode: 'M5H 2N2',
      originProvince: 'ON',
      handlingDays: 1,
      rates: 'carrier',
      services: ['DOM.PC', 'DOM.XP', 'DOM.EP', 'DOM.RP'],
      flatCents: null,
      freeOverCents: null,
      parcel: { lengthCm: 30, widthCm: 23, heightCm: 13, weightKg: 0.5 },
      updatedAt: Date.parse(FRIDAY) / 1000,
    };
    expect(put.body).toEqual(expected);
    expect((await t.api.as(s).get('/sellers/me/shipping')).body).toEqual(expected);

    // A flat rate keeps no services; the whole profile is replaced.
    const flat = await t.api.as(s).put('/sellers/me/shipping', {
      ...CARRIER_PROFILE,
      rates: 'flat',
      flatCents: 700,
      freeOverCents: 5000,
      parcel: { lengthCm: 20.5, widthCm: 15, heightCm: 5, weightKg: 0.25 },
    });
    expect(flat.body).toMatchObject({
      rates: 'flat',
      services: [],
      flatCents: 700,
      freeOverCents: 5000,
      parcel: { lengthCm: 20.5, widthCm: 15, heightCm: 5, weightKg: 0.25 },
    });

    expect((await t.api.as(s).delete('/sellers/me/shipping')).status).toBe(204);
    expectError(await t.api.as(s).get('/sellers/me/shipping'), 'NOT_FOUND', 404);
    expectError(await t.api.as(s).delete('/sellers/me/shipping'), 'NOT_FOUND', 404);
  });

  it('refuses a postal code of another province, carrier rates without services, a flat rate without its price, a box in millimetres', async () => {
    const s = await seller(t.api);
    expectInvalid(
      await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, originProvince: 'QC' }),
      [{ field: 'originPostalCode', message: 'postal codes in QC start with G or H or J' }],
    );
    expectInvalid(await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, services: [] }), [
      { field: 'services', message: "name at least one service when rates are 'carrier'" },
    ]);
    expectInvalid(
      await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, services: ['DOM.RP', 'DOM.RP'] }),
      [{ field: 'services', message: 'names a service twice' }],
    );
    expectInvalid(await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, rates: 'flat' }), [
      { field: 'flatCents', message: "is needed when rates are 'flat'" },
    ]);
    const box = { lengthCm: 30.25, widthCm: 20, heightCm: 10, weightKg: 1 };
    expectInvalid(await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, parcel: box }), [
      { field: 'parcel.lengthCm', message: 'must have one decimal at most' },
    ]);
    expect(
      (await t.api.as(s).put('/sellers/me/shipping', { ...CARRIER_PROFILE, services: ['DOM.XX'] })).status,
    ).toBe(400);
    expectError(await t.api.as(s).get('/sellers/me/shipping'), 'NOT_FOUND', 404);
  });
});

describe('checkout: the options of a parcel, by the rate table', () => {
  let shop: SignedIn;
  let productId: string;

  beforeAll(async () => {
    shop = await seller(t.api);
    expect((await t.api.as(shop).put('/sellers/me/shipping', CARRIER_PROFILE)).status).toBe(200);
    // 1 kg in a 30 x 23 x 13 cm box: billed by volume, 1.495 kg, so one kilogram above the first.
    productId = (await product(t.api, shop, { priceCents: 1000, stockQuantity: 20 })).id;
  });

  /** Toronto to Montréal (zone 3), mailed Monday 23rd: the table's four services, cheapest first. */
  const TORONTO_TO_MONTREAL = [
    {
      id: 'canada_post:DOM.RP',
      carrier: 'canada_post',
      service: 'DOM.RP',
      name: 'Canada Post Regular Parcel',
      priceCents: 1749,
      deliveryDate: '2026-11-30',
      ratedBy: 'table',
    },
    {
      id: 'canada_post:DOM.EP',
      carrier: 'canada_post',
      service: 'DOM.EP',
      name: 'Canada Post Expedited Parcel',
      priceCents: 1964,
      deliveryDate: '2026-11-27',
      ratedBy: 'table',
    },
    {
      id: 'canada_post:DOM.XP',
      carrier: 'canada_post',
      service: 'DOM.XP',
      name: 'Canada Post Xpresspost',
      priceCents: 2939,
      deliveryDate: '2026-11-25',
      ratedBy: 'table',
    },
    {
      id: 'canada_post:DOM.PC',
      carrier: 'canada_post',
      service: 'DOM.PC',
      name: 'Canada Post Priority',
      priceCents: 4859,
      deliveryDate: '2026-11-24',
      ratedBy: 'table',
    },
  ];

  it('offers every service with its price and date, chooses the cheapest, and taxes the shipping chosen', async () => {
    const b = await buyer(t.api);
    await addToCart(t.api, b, productId);
    const res = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [parcel] = res.body.parcels;
    expect(parcel.shippingOptions).toEqual(TORONTO_TO_MONTREAL);
    expect(parcel.shippingOption).toEqual(TORONTO_TO_MONTREAL[0]);
    // QC: GST 5% and QST 9.975% of 1000 + 1749 = 2749: 137 + 274.
    expect(res.body).toMatchObject({ shippingCostCents: 1749, taxAmountCents: 411, totalCents: 3160 });
  });

  it('takes the buyer’s choice per parcel; the order keeps the option and its promised date', async () => {
    const b = await buyer(t.api);
    await addToCart(t.api, b, productId, 1);
    const res = await checkout(t.api, b, {
      shipping_address: QC_ADDRESS,
      shipping_choices: [{ seller_id: shop.id, option_id: 'canada_post:DOM.XP' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.parcels[0].shippingOption).toEqual(TORONTO_TO_MONTREAL[2]);
    // 1000 + 2939 = 3939: GST 196.95 -> 197, QST 392.92 -> 393.
    expect(res.body).toMatchObject({ shippingCostCents: 2939, taxAmountCents: 590, totalCents: 4529 });

    const [orderId] = await payOk(t.api, res.body.sessionId);
    const rows = await database.db
      .select({ shippingOption: orders.shippingOption, estimatedDelivery: orders.estimatedDelivery })
      .from(orders)
      .where(eq(orders.id, orderId!));
    expect(rows).toEqual([{ shippingOption: 'canada_post:DOM.XP', estimatedDelivery: '2026-11-25' }]);
    const list = await t.api.as(b).get('/orders');
    expect(list.body.orders[0]).toMatchObject({ id: orderId, estimatedDelivery: '2026-11-25' });
  });

  it('choosing again is a new session at the new price; choosing the cheapest by name is the same one', async () => {
    const b = await buyer(t.api);
    await addToCart(t.api, b, productId);
    const first = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    const same = await checkout(t.api, b, {
      shipping_address: QC_ADDRESS,
      shipping_choices: [{ seller_id: shop.id, option_id: 'canada_post:DOM.RP' }],
    });
    expect(same.status).toBe(200);
    expect(same.body.sessionId).toBe(first.body.sessionId);
    const faster = await checkout(t.api, b, {
      shipping_address: QC_ADDRESS,
      shipping_choices: [{ seller_id: shop.id, option_id: 'canada_post:DOM.PC' }],
    });
    expect(faster.status).toBe(201);
    expect(faster.body.sessionId).not.toBe(first.body.sessionId);
    expect(faster.body.shippingCostCents).toBe(4859);
  });

  it('refuses an option its parcel does not have with 400 naming shipping_choices and the choices, holding nothing', async () => {
    const b = await buyer(t.api);
    await addToCart(t.api, b, productId);
    const res = await checkout(t.api, b, {
      shipping_address: QC_ADDRESS,
      shipping_choices: [{ seller_id: shop.id, option_id: 'portage:standard' }],
    });
    const message = `portage:standard is not a shipping option of the parcel from seller ${shop.id}; choose one of: canada_post:DOM.RP, canada_post:DOM.EP, canada_post:DOM.XP, canada_post:DOM.PC`;
    expectInvalid(res, [{ field: 'shipping_choices', message }]);
    const held = await database.db
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.buyerId, b.id));
    expect(held).toEqual([]);
  });

  it('grows the box to hold a long item: a 150 cm paddle is billed by its volume', async () => {
    const paddle = await product(t.api, shop, {
      priceCents: 1000,
      weight: 1.1,
      dimensions: { width: 20, height: 5, depth: 150 },
    });
    const b = await buyer(t.api);
    await addToCart(t.api, b, paddle.id);
    const res = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    // A 150 x 23 x 13 cm box: 44,850 cm³ is 7.475 kg at 6,000 cm³ a kg, so 7 kg above the
    // first: Regular Parcel in zone 3 is 1599 + 7 x 150.
    expect(res.body.parcels[0].shippingOption).toMatchObject({ id: 'canada_post:DOM.RP', priceCents: 2649 });
  });

  it('names the services in French for a French reader', async () => {
    const b = await buyer(t.api);
    await addToCart(t.api, b, productId);
    const res = await checkout(t.api, b, { shipping_address: QC_ADDRESS }, { 'accept-language': 'fr-CA' });
    expect(res.body.parcels[0].shippingOptions.map((o: { name: string }) => o.name)).toEqual([
      'Postes Canada Colis standard',
      'Postes Canada Colis accélérés',
      'Postes Canada Xpresspost',
      'Postes Canada Priorité',
    ]);
  });

  it('a seller without a profile keeps the platform’s flat rate, as one option', async () => {
    const plain = await seller(t.api);
    const p = await product(t.api, plain, { priceCents: 1000 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id);
    const res = await checkout(t.api, b, { shipping_address: ON_ADDRESS });
    expect(res.body.parcels[0].shippingOptions).toEqual([
      {
        id: 'portage:standard',
        carrier: 'portage',
        service: 'standard',
        name: 'Standard shipping',
        priceCents: 899,
        deliveryDate: '2026-11-25',
        ratedBy: 'platform',
      },
    ]);
  });

  it('a flat-rate seller charges their rate, free from their threshold', async () => {
    const flat = await seller(t.api, 'QC');
    await t.api.as(flat).put('/sellers/me/shipping', {
      originPostalCode: 'H2X 1Y4',
      originProvince: 'QC',
      handlingDays: 2,
      rates: 'flat',
      flatCents: 650,
      freeOverCents: 3000,
    });
    const cheap = await product(t.api, flat, { priceCents: 1000 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, cheap.id);
    const res = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    // Handling 2 + 3 days within the province from Friday: Friday the 27th.
    expect(res.body.parcels[0].shippingOption).toEqual({
      id: 'seller:flat',
      carrier: 'seller',
      service: 'flat',
      name: 'Shipping by the seller',
      priceCents: 650,
      deliveryDate: '2026-11-27',
      ratedBy: 'seller',
    });
    await addToCart(t.api, b, cheap.id, 2);
    const free = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    expect(free.body.parcels[0].shippingOption.priceCents).toBe(0);
    expect(free.body.shippingCostCents).toBe(0);
  });
});
