// The cart and coupons over HTTP against a real database: the cart's limits and concurrency,
// the estimate (shipping and Ontario HST per seller parcel, computed here by hand), coupons
// (admin creation, applying, every refusal) and the cart's rate limit. Availability itself:
// inventory-check.test.ts.

import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cartItems, carts } from '../src/modules/cart/tables.ts';
import { productVariants } from '../src/modules/catalog/tables.ts';
import { defaultSku } from '../src/modules/catalog/variants.ts';
import { couponRedemptions, coupons } from '../src/modules/coupons/tables.ts';
import { type SignedIn, testApp, useTestApp } from './helpers/app.ts';
import {
  admin,
  buyer,
  coupon,
  errorBody,
  expectError,
  expectInvalid,
  type Product,
  product,
  seller,
  uniqueWord,
} from './helpers/builders.ts';

const { t, database } = useTestApp();
let root: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
});

const add = (who: SignedIn, productId: string, quantity: number) =>
  t.api.as(who).post('/cart/items', { product_id: productId, quantity });
const getCart = (who: SignedIn) => t.api.as(who).get('/cart');
const removeItem = (who: SignedIn, productId: string, quantity?: number) =>
  t.api.as(who).delete(`/cart/items/${productId}${quantity === undefined ? '' : `?quantity=${quantity}`}`);
const applyCoupon = (who: SignedIn, code: string) => t.api.as(who).post('/cart/coupon', { code });

async function cartRows(who: SignedIn) {
  return database.db
    .select({ productId: cartItems.productId, quantity: cartItems.quantity })
    .from(cartItems)
    .where(eq(cartItems.userId, who.id));
}

async function cartRow(who: SignedIn) {
  const [row] = await database.db.select().from(carts).where(eq(carts.userId, who.id));
  return row;
}

/** The cart line of a product sold one way as get_cart shows it: its one variant has its id. */
const line = (p: Product, quantity: number, lineTotal: number, imageUrl: string | null = null) => ({
  product_id: p.id,
  variant_id: p.id,
  variant_title: '',
  sku: defaultSku(p.id),
  title: p.title,
  quantity,
  unit_price_cents: p.priceCents,
  line_total_cents: lineTotal,
  image_url: imageUrl,
});

const hst = (amountCents: number) => [{ name: 'HST', ratePercent: 13, amountCents }];

/** A date (YYYY-MM-DD) in America/Toronto, `days` from today. */
function torontoDay(days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Toronto',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('GET /cart', () => {
  it('a new buyer has an empty cart with every field, estimated for ON; nothing is stored', async () => {
    const b = await buyer(t.api);
    const res = await getCart(b);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [],
      itemCount: 0,
      subtotalCents: 0,
      discount_cents: 0,
      discounts: [],
      coupon_applied: null,
      coupon_problem: null,
      shippingCostCents: 0,
      shipping_problem: null,
      taxAmountCents: 0,
      taxLines: hst(0),
      taxProvince: 'ON',
      totalAmountCents: 0,
      lastUpdated: expect.any(Number),
    });
    expect(Math.abs(res.body.lastUpdated - nowSeconds())).toBeLessThanOrEqual(5);
    expect(await cartRow(b)).toBeUndefined();
  });

  it('a seller is 403 AUTHZ_ERROR on every cart route; no token is 401 AUTH_ERROR', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const forbidden = errorBody('AUTHZ_ERROR', 403, 'AUTHZ_ERROR: This needs the buyer role; you are seller');
    const calls = [
      () => t.api.as(s).get('/cart'),
      () => t.api.as(s).post('/cart/items', { product_id: p.id, quantity: 1 }),
      () => t.api.as(s).delete(`/cart/items/${p.id}`),
      () => t.api.as(s).post('/cart/coupon', { code: 'ANY' }),
      () => t.api.as(s).delete('/cart/coupon'),
    ];
    for (const call of calls) expect(await call()).toMatchObject({ status: 403, body: forbidden });
    expect(await cartRows(s)).toEqual([]);

    for (const res of [
      await t.api.get('/cart'),
      await t.api.post('/cart/items', { product_id: p.id, quantity: 1 }),
      await t.api.delete(`/cart/items/${p.id}`),
      await t.api.post('/cart/coupon', { code: 'ANY' }),
    ]) {
      expectError(res, 'AUTH_ERROR', 401, 'AUTH_ERROR: Missing token; send Authorization: Bearer <token>');
    }
    const bad = await t.api.as('not-a-jwt').get('/cart');
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('AUTH_ERROR');
  });
});

describe('POST /cart/items (add_to_cart)', () => {
  it('answers {product_id, quantity, added, cart}; adding again adds up; the lines carry every field', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const img = 'https://img.example.ca/tray.jpg';
    const p = await product(t.api, s, { priceCents: 1250, imageUrl: img });
    const plain = await product(t.api, s, { priceCents: 300 });

    const first = await add(b, p.id, 2);
    expect(first.status).toBe(200);
    // 2500 + 899 shipping (ON to ON) = 3399; HST 13% = 441.87 -> 442.
    expect(first.body).toEqual({
      product_id: p.id,
      variant_id: p.id,
      quantity: 2,
      added: true,
      cart: {
        items: [line(p, 2, 2500, img)],
        itemCount: 2,
        subtotalCents: 2500,
        discount_cents: 0,
        discounts: [],
        coupon_applied: null,
        coupon_problem: null,
        shippingCostCents: 899,
        shipping_problem: null,
        taxAmountCents: 442,
        taxLines: hst(442),
        taxProvince: 'ON',
        totalAmountCents: 3841,
        lastUpdated: expect.any(Number),
      },
    });
    expect(Math.abs(first.body.cart.lastUpdated - nowSeconds())).toBeLessThanOrEqual(5);

    const again = await add(b, p.id, 3);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ product_id: p.id, quantity: 5, added: true });
    // 6250 + 899 = 7149; HST 929.37 -> 929.
    expect(again.body.cart).toMatchObject({
      items: [line(p, 5, 6250, img)],
      itemCount: 5,
      subtotalCents: 6250,
      shippingCostCents: 899,
      taxAmountCents: 929,
      totalAmountCents: 8078,
    });

    const other = await add(b, plain.id, 1);
    expect(other.body).toMatchObject({ product_id: plain.id, quantity: 1, added: true });
    // Lines in the order they were added. 6 kg (1 kg each): 899 + 100 for the 6th kg = 999;
    // 6550 + 999 = 7549; HST 981.37 -> 981.
    expect(other.body.cart).toMatchObject({
      items: [line(p, 5, 6250, img), line(plain, 1, 300)],
      itemCount: 6,
      subtotalCents: 6550,
      shippingCostCents: 999,
      taxAmountCents: 981,
      totalAmountCents: 8530,
    });
    expect((await getCart(b)).body).toEqual(other.body.cart);

    const rows = await cartRows(b);
    expect(rows.sort((x, y) => x.quantity - y.quantity)).toEqual([
      { productId: plain.id, quantity: 1 },
      { productId: p.id, quantity: 5 },
    ]);
    // Adding to the cart takes nothing from the stock (stock is reserved at checkout).
    const [stock] = await database.db.select().from(productVariants).where(eq(productVariants.id, p.id));
    expect(stock!.stockQuantity).toBe(10);
  });

  it('more than available is 409 CONFLICT giving the available quantity; nothing changes', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const over = await add(b, p.id, 6);
    expectError(
      over,
      'CONFLICT',
      409,
      `Only 5 left of ${p.title} (${p.id}); you have 0 in your cart and asked for 6 more`,
    );
    expect(await cartRows(b)).toEqual([]);

    expect((await add(b, p.id, 4)).status).toBe(200);
    const more = await add(b, p.id, 2);
    expectError(
      more,
      'CONFLICT',
      409,
      `Only 5 left of ${p.title} (${p.id}); you have 4 in your cart and asked for 2 more`,
    );
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 4 }]);
    expect((await add(b, p.id, 1)).body.quantity).toBe(5);

    const none = await product(t.api, s, { stockQuantity: 0 });
    const out = await add(b, none.id, 1);
    expectError(
      out,
      'CONFLICT',
      409,
      `Only 0 left of ${none.title} (${none.id}); you have 0 in your cart and asked for 1 more`,
    );
  });

  it('more than 100 of one product is 409', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 500, priceCents: 100 });
    expect((await add(b, p.id, 60)).status).toBe(200);
    const over = await add(b, p.id, 41);
    expectError(
      over,
      'CONFLICT',
      409,
      `A cart holds at most 100 of one product; you have 60 of ${p.title} (${p.id}) and asked for 41 more`,
    );
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 60 }]);
    const full = await add(b, p.id, 40);
    expect(full.status).toBe(200);
    expect(full.body.quantity).toBe(100);
    expect((await add(b, p.id, 1)).status).toBe(409);
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 100 }]);
  });

  it('a 51st distinct product is 409; more of a product already there is still fine', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const made: Product[] = [];
    for (let i = 0; i < 51; i++) made.push(await product(t.api, s, { priceCents: 100, stockQuantity: 5 }));
    for (const p of made.slice(0, 50)) expect((await add(b, p.id, 1)).status).toBe(200);
    const last = made[50]!;
    const res = await add(b, last.id, 1);
    expectError(res, 'CONFLICT', 409, 'A cart holds at most 50 products; remove one first');
    expect(await cartRows(b)).toHaveLength(50);
    expect((await add(b, made[0]!.id, 1)).body).toMatchObject({ quantity: 2, added: true });

    // Removing a line makes room again.
    expect((await removeItem(b, made[1]!.id)).status).toBe(200);
    expect((await add(b, last.id, 1)).status).toBe(200);
    const rows = await cartRows(b);
    expect(rows).toHaveLength(50);
    expect(rows.map((r) => r.productId)).toContain(last.id);
    expect(rows.map((r) => r.productId)).not.toContain(made[1]!.id);
    const cart = (await getCart(b)).body;
    expect(cart).toMatchObject({ itemCount: 51, subtotalCents: 5100 });
    expect(cart.items).toHaveLength(50);
  });

  it('a quantity of 0, -1, 1.5, 101 or not a number is 400 VALIDATION_ERROR naming quantity', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 500 });
    for (const quantity of [0, -1, 1.5, 101, '2', null]) {
      const res = await t.api.as(b).post('/cart/items', { product_id: p.id, quantity });
      expectInvalid(res, [{ field: 'quantity', message: 'must be a whole number from 1 to 100' }]);
      expect(res.body.error).toMatch(/quantity/);
    }
    const missing = await t.api.as(b).post('/cart/items', { product_id: p.id });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'quantity', message: expect.any(String) }]);
    const noProduct = await t.api.as(b).post('/cart/items', { quantity: 1 });
    expect(noProduct.status).toBe(400);
    expect(noProduct.body.details.map((d: { field: string }) => d.field)).toEqual(['product_id']);
    expect(await cartRows(b)).toEqual([]);
    expect(await cartRow(b)).toBeUndefined();
  });

  it('an unknown, draft, inactive or deleted product is 404', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const draft = await product(t.api, s, { status: 'draft' });
    const inactive = await product(t.api, s);
    await t.api.as(s).patch(`/products/${inactive.id}`, { status: 'inactive' });
    const deleted = await product(t.api, s);
    await t.api.as(s).delete(`/products/${deleted.id}`);
    for (const id of [
      'products:doesnotexist00000000',
      'users:abc',
      'nope',
      draft.id,
      inactive.id,
      deleted.id,
    ]) {
      const res = await add(b, id, 1);
      expectError(res, 'NOT_FOUND', 404, `Product ${id} not found`);
    }
    expect(await cartRows(b)).toEqual([]);
  });

  it('a product that stops being sold leaves the totals but stays in the cart until sold again', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2000 });
    expect((await add(b, p.id, 2)).status).toBe(200);
    await t.api.as(s).patch(`/products/${p.id}`, { status: 'inactive' });
    const hidden = (await getCart(b)).body;
    expect(hidden).toMatchObject({
      items: [],
      itemCount: 0,
      subtotalCents: 0,
      shippingCostCents: 0,
      taxAmountCents: 0,
      totalAmountCents: 0,
    });
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 2 }]);
    expect((await add(b, p.id, 1)).status).toBe(404);
    await t.api.as(s).patch(`/products/${p.id}`, { status: 'active' });
    // 4000 + 899 = 4899; HST 636.87 -> 637.
    expect((await getCart(b)).body).toMatchObject({
      items: [line(p, 2, 4000)],
      subtotalCents: 4000,
      shippingCostCents: 899,
      taxAmountCents: 637,
      totalAmountCents: 5536,
    });
  });
});

describe('concurrent adds', () => {
  it('one buyer adding 3 and 3 of a product with 5 in stock at once: one 200, one 409, 3 in the cart', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const answers = await Promise.all([add(b, p.id, 3), add(b, p.id, 3)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const ok = answers.find((a) => a.status === 200)!;
    const refused = answers.find((a) => a.status === 409)!;
    expect(ok.body).toMatchObject({ product_id: p.id, quantity: 3, added: true });
    expect(refused.body).toEqual(
      errorBody(
        'CONFLICT',
        409,
        `Only 5 left of ${p.title} (${p.id}); you have 3 in your cart and asked for 3 more`,
      ),
    );
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 3 }]);
    expect((await getCart(b)).body.itemCount).toBe(3);
  });

  it('four adds of 2 at once with 5 in stock: exactly two succeed, 4 in the cart', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const answers = await Promise.all([1, 2, 3, 4].map(() => add(b, p.id, 2)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409]);
    expect(
      answers
        .filter((a) => a.status === 200)
        .map((a) => a.body.quantity)
        .sort(),
    ).toEqual([2, 4]);
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 4 }]);
  });

  it('two buyers adding the last unit at once both succeed: the cart reserves nothing', async () => {
    const s = await seller(t.api);
    const [b1, b2] = [await buyer(t.api), await buyer(t.api)];
    const p = await product(t.api, s, { stockQuantity: 1 });
    const answers = await Promise.all([add(b1, p.id, 1), add(b2, p.id, 1)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    for (const a of answers) expect(a.body).toMatchObject({ product_id: p.id, quantity: 1, added: true });
    expect(await cartRows(b1)).toEqual([{ productId: p.id, quantity: 1 }]);
    expect(await cartRows(b2)).toEqual([{ productId: p.id, quantity: 1 }]);
    const [row] = await database.db.select().from(productVariants).where(eq(productVariants.id, p.id));
    expect(row!.stockQuantity).toBe(1);
    const inventory = await t.api.as(b1).get(`/products/${p.id}/inventory`);
    expect(inventory.body).toMatchObject({ available: true, stock_quantity: 1 });
  });
});

describe('DELETE /cart/items/:productId (remove_from_cart)', () => {
  it('removes some units, then the whole line; more than present removes what was there', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 1000 });
    const other = await product(t.api, s, { priceCents: 500 });
    await add(b, p.id, 5);
    await add(b, other.id, 3);

    const some = await removeItem(b, p.id, 2);
    expect(some.status).toBe(200);
    // 3000 + 1500 = 4500; 6 kg (1 kg each): 899 + 100 = 999; 5499; HST 714.87 -> 715.
    expect(some.body).toEqual({
      removed: true,
      quantity_removed: 2,
      cart: expect.objectContaining({
        items: [line(p, 3, 3000), line(other, 3, 1500)],
        itemCount: 6,
        subtotalCents: 4500,
        shippingCostCents: 999,
        taxAmountCents: 715,
        totalAmountCents: 6214,
      }),
    });
    expect(some.body.cart).toEqual((await getCart(b)).body);
    expect(await cartRows(b)).toContainEqual({ productId: p.id, quantity: 3 });

    const all = await removeItem(b, p.id);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ removed: true, quantity_removed: 3 });
    expect(all.body.cart).toMatchObject({ items: [line(other, 3, 1500)], itemCount: 3, subtotalCents: 1500 });
    expect(await cartRows(b)).toEqual([{ productId: other.id, quantity: 3 }]);

    const tooMany = await removeItem(b, other.id, 10);
    expect(tooMany.status).toBe(200);
    expect(tooMany.body).toMatchObject({ removed: true, quantity_removed: 3 });
    expect(tooMany.body.cart).toMatchObject({
      items: [],
      itemCount: 0,
      subtotalCents: 0,
      shippingCostCents: 0,
      taxAmountCents: 0,
      totalAmountCents: 0,
    });
    expect(await cartRows(b)).toEqual([]);
  });

  it('a product not in the cart is 404; a bad quantity is 400', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s);
    const notInCart = await product(t.api, s);
    await add(b, p.id, 2);
    for (const id of [notInCart.id, 'products:doesnotexist00000000', 'nope']) {
      const res = await removeItem(b, id);
      expectError(res, 'NOT_FOUND', 404, `Product ${id} is not in your cart`);
    }
    for (const q of ['0', '-2', '1.5']) {
      expectInvalid(await t.api.as(b).delete(`/cart/items/${p.id}?quantity=${q}`), [
        { field: 'quantity', message: 'must be a whole number >= 1' },
      ]);
    }
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 2 }]);
    // Another buyer's line is not theirs to remove.
    const stranger = await buyer(t.api);
    expect((await removeItem(stranger, p.id)).status).toBe(404);
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 2 }]);
  });
});

describe('PUT /cart/items/:productId (the cart view’s buttons)', () => {
  const setQuantity = (who: SignedIn, productId: string, quantity: unknown) =>
    t.api.as(who).put(`/cart/items/${productId}`, { quantity });

  it('sets a line’s quantity up and down and answers the cart; 0 removes the line', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 1000, stockQuantity: 10 });
    await add(b, p.id, 1);
    const up = await setQuantity(b, p.id, 4);
    expect(up.status).toBe(200);
    expect(up.body.items).toEqual([line(p, 4, 4000)]);
    expect(up.body).toEqual((await getCart(b)).body);
    expect((await setQuantity(b, p.id, 2)).body.items).toEqual([line(p, 2, 2000)]);
    expect((await setQuantity(b, p.id, 0)).body.items).toEqual([]);
    expect(await cartRows(b)).toEqual([]);
    // A product not in the cart yet is added, as add_to_cart would.
    expect((await setQuantity(b, p.id, 3)).body.items).toEqual([line(p, 3, 3000)]);
  });

  it('is checked as add_to_cart and remove_from_cart are: stock, bounds, a line to remove', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 2 });
    const other = await product(t.api, s);
    await add(b, p.id, 1);
    expect((await setQuantity(b, p.id, 3)).status).toBe(409);
    for (const q of [-1, 1.5, 101, '2']) {
      expectInvalid(await setQuantity(b, p.id, q), [
        { field: 'quantity', message: 'must be a whole number from 0 to 100' },
      ]);
    }
    expectError(
      await setQuantity(b, other.id, 0),
      'NOT_FOUND',
      404,
      `Product ${other.id} is not in your cart`,
    );
    expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 1 }]);
  });

  it('two quantities set at once end at one of them, never their sum', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 20 });
    for (let round = 0; round < 3; round++) {
      const b = await buyer(t.api);
      await add(b, p.id, 1);
      const answers = await Promise.all([setQuantity(b, p.id, 3), setQuantity(b, p.id, 5)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const [row] = await cartRows(b);
      expect([3, 5]).toContain(row!.quantity);
    }
  });
});

describe('the estimate: shipping and HST for an Ontario buyer', () => {
  it('within Ontario below $75.00: $8.99 shipping, HST 13% on items + shipping', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2500 });
    await add(b, p.id, 2);
    // 5000 + 899 = 5899; HST 766.87 -> 767; total 6666.
    expect((await getCart(b)).body).toEqual({
      items: [line(p, 2, 5000)],
      itemCount: 2,
      subtotalCents: 5000,
      discount_cents: 0,
      discounts: [],
      coupon_applied: null,
      coupon_problem: null,
      shippingCostCents: 899,
      shipping_problem: null,
      taxAmountCents: 767,
      taxLines: hst(767),
      taxProvince: 'ON',
      totalAmountCents: 6666,
      lastUpdated: expect.any(Number),
    });
  });

  it('rounds the HST half-up: 13% of 1050 = 136.50 -> 137', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 151 });
    await add(b, p.id, 1);
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 151,
      shippingCostCents: 899,
      taxAmountCents: 137,
      taxLines: hst(137),
      totalAmountCents: 1187,
    });
  });

  it('rounds the HST per seller parcel: two parcels of 1050 are 137 + 137, not 13% of 2100', async () => {
    const b = await buyer(t.api);
    const one = await product(t.api, await seller(t.api, 'ON'), { priceCents: 151 });
    const two = await product(t.api, await seller(t.api, 'ON'), { priceCents: 151 });
    await add(b, one.id, 1);
    await add(b, two.id, 1);
    // Each parcel: 151 + 899 = 1050; HST 136.50 -> 137. Two parcels: 274 (13% of the whole
    // 2100 would be 273.00); total 302 + 1798 + 274 = 2374.
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 302,
      shippingCostCents: 1798,
      taxAmountCents: 274,
      taxLines: hst(274),
      totalAmountCents: 2374,
    });
  });

  it('ships free from $75.00 (7500 cents) up; 7499 still pays', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2500 });
    await add(b, p.id, 3);
    // 7500, free shipping; HST 975.
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 7500,
      shippingCostCents: 0,
      shipping_problem: null,
      taxAmountCents: 975,
      taxLines: hst(975),
      totalAmountCents: 8475,
    });

    const b2 = await buyer(t.api);
    const just = await product(t.api, s, { priceCents: 7499 });
    await add(b2, just.id, 1);
    // 7499 + 899 = 8398; HST 1091.74 -> 1092.
    expect((await getCart(b2)).body).toMatchObject({
      subtotalCents: 7499,
      shippingCostCents: 899,
      taxAmountCents: 1092,
      totalAmountCents: 9490,
    });
  });

  it('from another province (BC): $12.99; one parcel per seller', async () => {
    const bc = await seller(t.api, 'BC');
    const on = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const far = await product(t.api, bc, { priceCents: 2000 });
    await add(b, far.id, 1);
    // 2000 + 1299 = 3299; HST 428.87 -> 429. The tax is the destination's (ON HST), not BC's.
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 2000,
      shippingCostCents: 1299,
      taxAmountCents: 429,
      taxLines: hst(429),
      taxProvince: 'ON',
      totalAmountCents: 3728,
    });

    const near = await product(t.api, on, { priceCents: 3000 });
    await add(b, near.id, 1);
    // 5000 + 1299 + 899 = 7198; HST 935.74 -> 936.
    expect((await getCart(b)).body).toMatchObject({
      items: [line(far, 1, 2000), line(near, 1, 3000)],
      subtotalCents: 5000,
      shippingCostCents: 2198,
      taxAmountCents: 936,
      totalAmountCents: 8134,
    });
  });

  it('adds $1.00 per started kg above 5 kg', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const heavy = await product(t.api, s, { priceCents: 1000, weight: 2.5 });
    await add(b, heavy.id, 3);
    // 7.5 kg: 899 + 3 x 100 = 1199; 3000 + 1199 = 4199; HST 545.87 -> 546.
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 3000,
      shippingCostCents: 1199,
      taxAmountCents: 546,
      totalAmountCents: 4745,
    });
  });

  it('a digital product ships free', async () => {
    const s = await seller(t.api, 'BC');
    const b = await buyer(t.api);
    const ebook = await product(t.api, s, { priceCents: 1999, isDigital: true });
    await add(b, ebook.id, 1);
    // 1999; HST 259.87 -> 260.
    expect((await getCart(b)).body).toMatchObject({
      items: [line(ebook, 1, 1999)],
      subtotalCents: 1999,
      shippingCostCents: 0,
      shipping_problem: null,
      taxAmountCents: 260,
      totalAmountCents: 2259,
    });
  });

  it('a perishable product from a QC seller: shipping_problem names it, and an estimate is still given', async () => {
    const qc = await seller(t.api, 'QC');
    const b = await buyer(t.api);
    const cheese = await product(t.api, qc, {
      title: `Fromage ${uniqueWord()}`,
      priceCents: 1500,
      isPerishable: true,
    });
    const added = await add(b, cheese.id, 1);
    expect(added.status).toBe(200);
    const problem =
      `${cheese.title} (${cheese.id}) is perishable and ships only within the seller's province, QC; ` +
      'remove it or ship to an address in QC';
    // Priced as if it could go: 1500 + 1299 = 2799; HST 363.87 -> 364.
    const expected = {
      items: [line(cheese, 1, 1500)],
      subtotalCents: 1500,
      shippingCostCents: 1299,
      shipping_problem: problem,
      taxAmountCents: 364,
      taxLines: hst(364),
      taxProvince: 'ON',
      totalAmountCents: 3163,
    };
    expect(added.body.cart).toMatchObject(expected);
    expect((await getCart(b)).body).toMatchObject(expected);
    expect(problem).toContain(cheese.title);

    // A perishable product of an Ontario seller ships within the province: no problem.
    const b2 = await buyer(t.api);
    const local = await product(t.api, await seller(t.api, 'ON'), { priceCents: 1500, isPerishable: true });
    await add(b2, local.id, 1);
    expect((await getCart(b2)).body).toMatchObject({ shippingCostCents: 899, shipping_problem: null });
  });

  it('perishable items of two sellers that cannot reach Ontario: shipping_problem names both', async () => {
    const b = await buyer(t.api);
    const cheese = await product(t.api, await seller(t.api, 'QC'), {
      title: `Fromage ${uniqueWord()}`,
      priceCents: 1500,
      isPerishable: true,
    });
    const salmon = await product(t.api, await seller(t.api, 'BC'), {
      title: `Salmon ${uniqueWord()}`,
      priceCents: 2500,
      isPerishable: true,
    });
    await add(b, cheese.id, 1);
    await add(b, salmon.id, 1);
    const cart = (await getCart(b)).body;
    expect(cart.shipping_problem).toContain(`${cheese.title} (${cheese.id}) is perishable`);
    expect(cart.shipping_problem).toContain(`${salmon.title} (${salmon.id}) is perishable`);
    // Both parcels priced as if they could go: 1500 + 1299 = 2799 -> 363.87 -> 364;
    // 2500 + 1299 = 3799 -> 493.87 -> 494.
    expect(cart).toMatchObject({ shippingCostCents: 2598, taxAmountCents: 858, totalAmountCents: 7456 });
  });
});

describe('POST /admin/coupons', () => {
  it('an admin creates a percent coupon (201): code upper-cased, every field answered and stored', async () => {
    const code = `spring-${uniqueWord()}`;
    const res = await t.api.as(root).post('/admin/coupons', {
      code: ` ${code} `,
      discountPercent: 15,
      minSubtotalCents: 2000,
      expirationDate: '2099-12-31',
      maxRedemptions: 100,
      maxRedemptionsPerCustomer: 1,
      terms: 'One per customer',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      code: code.toUpperCase(),
      discountPercent: 15,
      discountCents: null,
      minSubtotalCents: 2000,
      expirationDate: '2099-12-31',
      maxRedemptions: 100,
      maxRedemptionsPerCustomer: 1,
      redemptions: 0,
      terms: 'One per customer',
      sellerId: null,
      createdAt: expect.any(Number),
    });
    expect(Math.abs(res.body.createdAt - nowSeconds())).toBeLessThanOrEqual(5);
    const [row] = await database.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()));
    expect(row).toMatchObject({
      code: code.toUpperCase(),
      discountPercent: 15,
      discountCents: null,
      minSubtotalCents: 2000,
      expiresOn: '2099-12-31',
      maxRedemptions: 100,
      maxRedemptionsPerCustomer: 1,
      terms: 'One per customer',
      createdBy: root.id,
    });
  });

  it('a fixed coupon takes the defaults', async () => {
    const code = `FIVE_${uniqueWord()}`.toUpperCase();
    const res = await t.api.as(root).post('/admin/coupons', { code, discountCents: 500 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      code,
      discountPercent: null,
      discountCents: 500,
      minSubtotalCents: 0,
      expirationDate: null,
      maxRedemptions: null,
      maxRedemptionsPerCustomer: null,
      redemptions: 0,
      terms: '',
      sellerId: null,
      createdAt: expect.any(Number),
    });
  });

  it('a duplicate code, in any case, is 409', async () => {
    const code = `dup${uniqueWord()}`;
    expect((await t.api.as(root).post('/admin/coupons', { code, discountCents: 100 })).status).toBe(201);
    for (const again of [code, code.toUpperCase()]) {
      const res = await t.api.as(root).post('/admin/coupons', { code: again, discountPercent: 50 });
      expectError(res, 'CONFLICT', 409, `A coupon with the code ${code.toUpperCase()} already exists`);
    }
    const rows = await database.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ discountCents: 100, discountPercent: null });
  });

  it('both or neither of discountPercent and discountCents, a bad date or bad numbers: 400', async () => {
    const code = `bad${uniqueWord()}`;
    const post = (body: Record<string, unknown>) => t.api.as(root).post('/admin/coupons', { code, ...body });
    const exactlyOne = [
      { field: 'discountPercent', message: 'give exactly one of discountPercent and discountCents' },
    ];
    expectInvalid(await post({ discountPercent: 10, discountCents: 100 }), exactlyOne);
    expectInvalid(await post({}), exactlyOne);
    expectInvalid(await post({ discountCents: 100, expirationDate: '2099-02-30' }), [
      { field: 'expirationDate', message: 'must be a real calendar date from 2000-01-01 on' },
    ]);
    for (const expirationDate of ['31/12/2099', 'tomorrow', '2099-1-5']) {
      const res = await post({ discountCents: 100, expirationDate });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details).toContainEqual({
        field: 'expirationDate',
        message: 'must be a date YYYY-MM-DD',
      });
    }
    expectInvalid(await post({ discountPercent: 0 }), [
      { field: 'discountPercent', message: 'must be above 0' },
    ]);
    expectInvalid(await post({ discountPercent: 101 }), [
      { field: 'discountPercent', message: 'must be at most 100' },
    ]);
    expectInvalid(await post({ discountCents: 9.5 }), [
      { field: 'discountCents', message: 'must be whole cents' },
    ]);
    expect(
      (await t.api.as(root).post('/admin/coupons', { code: 'no spaces', discountCents: 1 })).status,
    ).toBe(400);
    expect(await database.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()))).toEqual([]);
  });

  it('numbers beyond a 32-bit integer and year 0000 are 400 naming the field, never a 500', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ discountCents: 3_000_000_000 }, 'discountCents'],
      [{ discountCents: 100, minSubtotalCents: 3_000_000_000 }, 'minSubtotalCents'],
      [{ discountCents: 100, maxRedemptions: 3_000_000_000 }, 'maxRedemptions'],
      [{ discountCents: 100, maxRedemptionsPerCustomer: 3_000_000_000 }, 'maxRedemptionsPerCustomer'],
      [{ discountCents: 100, expirationDate: '0000-01-01' }, 'expirationDate'],
    ];
    const answers = [];
    for (const [body] of cases) {
      const code = `range${uniqueWord()}`.toUpperCase();
      const res = await t.api.as(root).post('/admin/coupons', { code, ...body });
      const stored = await database.db.select().from(coupons).where(eq(coupons.code, code));
      answers.push({
        body,
        status: res.status,
        code: res.body.code,
        fields: res.body.details?.map((d: { field: string }) => d.field),
        stored: stored.length,
      });
    }
    // Every case at once, so that one report shows all of them.
    expect(answers).toEqual(
      cases.map(([body, field]) => ({
        body,
        status: 400,
        code: 'VALIDATION_ERROR',
        fields: [field],
        stored: 0,
      })),
    );
  });

  it('a buyer or a seller creating a coupon is 403', async () => {
    const code = `mine${uniqueWord()}`;
    const b = await buyer(t.api);
    const res = await t.api.as(b).post('/admin/coupons', { code, discountPercent: 90 });
    expectError(res, 'AUTHZ_ERROR', 403, 'AUTHZ_ERROR: This needs the admin role; you are buyer');
    const s = await seller(t.api);
    expect((await t.api.as(s).post('/admin/coupons', { code, discountPercent: 90 })).status).toBe(403);
    expect((await t.api.post('/admin/coupons', { code, discountPercent: 90 })).status).toBe(401);
    expect(await database.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()))).toEqual([]);
  });
});

describe('POST /cart/coupon (apply_coupon)', () => {
  it('a percent coupon, in any case: 10% of 5999 = 600 (half-up); tax on the discounted amount', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 5999 });
    await add(b, p.id, 1);
    const { code } = await coupon(t.api, root, { discountPercent: 10, terms: 'Ten off, once' });

    const res = await applyCoupon(b, code.toLowerCase());
    expect(res.status).toBe(200);
    // 5999 - 600 + 899 = 6298; HST 818.74 -> 819; total 7117.
    expect(res.body).toEqual({
      applied: true,
      code,
      discount_cents: 600,
      discount_percent: 10,
      new_total_cents: 7117,
      expiration_date: null,
      terms: 'Ten off, once',
    });
    const cart = (await getCart(b)).body;
    expect(cart).toMatchObject({
      subtotalCents: 5999,
      discount_cents: 600,
      coupon_applied: code,
      coupon_problem: null,
      shippingCostCents: 899,
      taxAmountCents: 819,
      taxLines: hst(819),
      totalAmountCents: 7117,
    });
    expect(cart.totalAmountCents).toBe(res.body.new_total_cents);
    expect((await cartRow(b))!.couponCode).toBe(code);
    // Applying is not redeeming: a redemption is counted when an order is paid.
    expect(
      await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.code, code)),
    ).toEqual([]);
  });

  it('a fixed coupon answers its expiry date and terms, and discount_percent null', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2500 });
    await add(b, p.id, 2);
    const { code } = await coupon(t.api, root, {
      discountCents: 1500,
      expirationDate: '2099-06-30',
      terms: 'Summer',
    });
    const res = await applyCoupon(b, code);
    expect(res.status).toBe(200);
    // 5000 - 1500 + 899 = 4399; HST 571.87 -> 572; total 4971.
    expect(res.body).toEqual({
      applied: true,
      code,
      discount_cents: 1500,
      discount_percent: null,
      new_total_cents: 4971,
      expiration_date: '2099-06-30',
      terms: 'Summer',
    });
    expect((await getCart(b)).body).toMatchObject({
      discount_cents: 1500,
      coupon_applied: code,
      taxAmountCents: 572,
      totalAmountCents: 4971,
    });
  });

  it('a fixed coupon larger than the subtotal discounts at most the subtotal', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 1000 });
    await add(b, p.id, 1);
    const { code } = await coupon(t.api, root, { discountCents: 5000 });
    const res = await applyCoupon(b, code);
    expect(res.status).toBe(200);
    // 1000 - 1000 + 899 = 899; HST 116.87 -> 117; total 1016.
    expect(res.body).toMatchObject({ applied: true, discount_cents: 1000, new_total_cents: 1016 });
    expect((await getCart(b)).body).toMatchObject({
      subtotalCents: 1000,
      discount_cents: 1000,
      shippingCostCents: 899,
      taxAmountCents: 117,
      totalAmountCents: 1016,
    });
  });

  it('an unknown code is 404 NOT_FOUND', async () => {
    const b = await buyer(t.api);
    const res = await applyCoupon(b, 'nosuchcode');
    expectError(res, 'NOT_FOUND', 404, 'No coupon with the code NOSUCHCODE');
    expect(await cartRow(b)).toBeUndefined();
  });

  it('an expired coupon (last day yesterday) is 409; one whose last day is today still works', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    await add(b, (await product(t.api, s, { priceCents: 2000 })).id, 1);
    const yesterday = torontoDay(-1);
    const { code: expired } = await coupon(t.api, root, { discountPercent: 10, expirationDate: yesterday });
    const res = await applyCoupon(b, expired);
    expectError(res, 'CONFLICT', 409, `Coupon ${expired} expired on ${yesterday}`);
    expect(res.body.error).toContain('expired');
    expect((await cartRow(b))!.couponCode).toBeNull();

    const today = torontoDay(0);
    const { code: lastDay } = await coupon(t.api, root, { discountPercent: 10, expirationDate: today });
    const ok = await applyCoupon(b, lastDay);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ applied: true, discount_cents: 200, expiration_date: today });
  });

  it('a minimum subtotal not met is 409 with both amounts', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2500 });
    await add(b, p.id, 1);
    const { code } = await coupon(t.api, root, { discountPercent: 10, minSubtotalCents: 5000 });
    const res = await applyCoupon(b, code);
    expectError(
      res,
      'CONFLICT',
      409,
      `Coupon ${code} needs a subtotal of at least $50.00; the cart's is $25.00`,
    );
    expect((await cartRow(b))!.couponCode).toBeNull();
  });

  it('an exhausted coupon is 409', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const someoneElse = await buyer(t.api);
    await add(b, (await product(t.api, s)).id, 1);
    const { code } = await coupon(t.api, root, { discountCents: 300, maxRedemptions: 1 });
    await database.db
      .insert(couponRedemptions)
      .values({ code, userId: someoneElse.id, orderId: `orders:exhausted-${uniqueWord()}` });
    const res = await applyCoupon(b, code);
    expectError(res, 'CONFLICT', 409, `Coupon ${code} has been used up (1 redemptions)`);
    expect((await cartRow(b))!.couponCode).toBeNull();
  });

  it('the per-customer limit refuses that buyer (409) but not another', async () => {
    const s = await seller(t.api, 'ON');
    const p = await product(t.api, s, { priceCents: 2000 });
    const used = await buyer(t.api);
    const fresh = await buyer(t.api);
    await add(used, p.id, 1);
    await add(fresh, p.id, 1);
    const { code } = await coupon(t.api, root, {
      discountCents: 300,
      maxRedemptionsPerCustomer: 1,
      maxRedemptions: 10,
    });
    await database.db
      .insert(couponRedemptions)
      .values({ code, userId: used.id, orderId: `orders:mine-${uniqueWord()}` });
    const refused = await applyCoupon(used, code);
    expectError(
      refused,
      'CONFLICT',
      409,
      `You have already used coupon ${code} 1 time(s), its limit per customer`,
    );
    const ok = await applyCoupon(fresh, code);
    expect(ok.status).toBe(200);
    // 2000 - 300 + 899 = 2599; HST 337.87 -> 338; total 2937.
    expect(ok.body).toMatchObject({ applied: true, code, discount_cents: 300, new_total_cents: 2937 });
    expect((await cartRow(fresh))!.couponCode).toBe(code);
    expect((await cartRow(used))!.couponCode).toBeNull();
  });

  it('a code with other characters is 400 naming code', async () => {
    const b = await buyer(t.api);
    expectInvalid(await t.api.as(b).post('/cart/coupon', { code: 'no spaces' }), [
      { field: 'code', message: 'letters, digits, - and _ only' },
    ]);
    expect((await t.api.as(b).post('/cart/coupon', {})).status).toBe(400);
  });

  it('below the minimum after applying: coupon kept, discount 0, coupon_problem says why; DELETE removes it', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2500 });
    await add(b, p.id, 2);
    const { code } = await coupon(t.api, root, { discountPercent: 10, minSubtotalCents: 5000 });
    const applied = await applyCoupon(b, code);
    // 5000 - 500 + 899 = 5399; HST 701.87 -> 702; total 6101.
    expect(applied.body).toMatchObject({ applied: true, discount_cents: 500, new_total_cents: 6101 });

    const lowered = await removeItem(b, p.id, 1);
    expect(lowered.status).toBe(200);
    const problem = `Coupon ${code} needs a subtotal of at least $50.00; the cart's is $25.00`;
    // 2500 + 899 = 3399; HST 441.87 -> 442; total 3841.
    const expected = {
      subtotalCents: 2500,
      discount_cents: 0,
      coupon_applied: code,
      coupon_problem: problem,
      shippingCostCents: 899,
      taxAmountCents: 442,
      totalAmountCents: 3841,
    };
    expect(lowered.body.cart).toMatchObject(expected);
    expect((await getCart(b)).body).toMatchObject(expected);
    expect((await cartRow(b))!.couponCode).toBe(code);

    // Back above the minimum, the discount returns.
    await add(b, p.id, 1);
    expect((await getCart(b)).body).toMatchObject({ discount_cents: 500, coupon_problem: null });

    const removed = await t.api.as(b).delete('/cart/coupon');
    expect(removed.status).toBe(200);
    // 5000 + 899 = 5899; HST 767; total 6666.
    expect(removed.body).toMatchObject({
      items: [line(p, 2, 5000)],
      subtotalCents: 5000,
      discount_cents: 0,
      discounts: [],
      coupon_applied: null,
      coupon_problem: null,
      taxAmountCents: 767,
      totalAmountCents: 6666,
    });
    expect((await getCart(b)).body).toEqual(removed.body);
    expect((await cartRow(b))!.couponCode).toBeNull();
  });

  it('a coupon that gets used up after it was applied gives nothing, saying why', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    await add(b, (await product(t.api, s, { priceCents: 2000 })).id, 1);
    const { code } = await coupon(t.api, root, { discountCents: 500, maxRedemptions: 1 });
    expect((await applyCoupon(b, code)).status).toBe(200);
    await database.db
      .insert(couponRedemptions)
      .values({ code, userId: (await buyer(t.api)).id, orderId: `orders:late-${uniqueWord()}` });
    expect((await getCart(b)).body).toMatchObject({
      discount_cents: 0,
      coupon_applied: code,
      coupon_problem: `Coupon ${code} has been used up (1 redemptions)`,
    });
  });

  it('a percent with more decimals than the money math takes is never a 500', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    await add(b, (await product(t.api, s, { priceCents: 6000 })).id, 1);
    const code = `third${uniqueWord()}`.toUpperCase();
    const created = await t.api.as(root).post('/admin/coupons', { code, discountPercent: 33.3333 });
    if (created.status === 400) {
      // Refused up front, naming the field...
      expect(created.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'discountPercent' }],
      });
    } else {
      // ...or accepted and then priced: 33.3333% of 6000 = 1999.998 -> 2000.
      expect(created.status).toBe(201);
      const res = await applyCoupon(b, code);
      expect(res.status).toBe(200);
      expect(res.body.discount_cents).toBe(2000);
      expect((await getCart(b)).status).toBe(200);
    }
  });
});

describe('rate limit', () => {
  it('the 21st cart request of a buyer within a minute is 429 RATE_LIMIT with Retry-After', async () => {
    const limited = await testApp(database, { env: { RATE_LIMITS: 'on' } });
    try {
      const s = await seller(t.api);
      const p = await product(t.api, s, { stockQuantity: 100 });
      const b = await buyer(t.api);
      const other = await buyer(t.api);
      const api = limited.api.as(b);
      // Every cart route counts in one group.
      for (let i = 0; i < 10; i++) expect((await api.get('/cart')).status).toBe(200);
      for (let i = 0; i < 5; i++) {
        expect((await api.post('/cart/items', { product_id: p.id, quantity: 1 })).status).toBe(200);
      }
      for (let i = 0; i < 4; i++)
        expect((await api.delete(`/cart/items/${p.id}?quantity=1`)).status).toBe(200);
      expect((await api.delete('/cart/coupon')).status).toBe(200);

      const res = await api.post('/cart/items', { product_id: p.id, quantity: 1 });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        error: expect.stringMatching(/^Too many requests; retry in \d+ seconds? \(limit 20 a minute\)$/),
        code: 'RATE_LIMIT',
        statusCode: 429,
      });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await api.get('/cart')).status).toBe(429);
      // The refused add changed nothing.
      expect(await cartRows(b)).toEqual([{ productId: p.id, quantity: 1 }]);
      // Counted per user: another buyer is not limited, and other groups are not either.
      expect((await limited.api.as(other).get('/cart')).status).toBe(200);
      expect((await api.get(`/products/${p.id}/inventory`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('cart_items storage', () => {
  it('one row per buyer and variant: the quantity adds up; a product sold one way is its one variant', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s);
    // Named by its default SKU (made from the id's key) or not named at all: the same line.
    const withVariant = await t.api
      .as(b)
      .post('/cart/items', { product_id: p.id, quantity: 2, variant: defaultSku(p.id) });
    expect(withVariant.status).toBe(200);
    await add(b, p.id, 2);
    const rows = await database.db
      .select()
      .from(cartItems)
      .where(and(eq(cartItems.userId, b.id), eq(cartItems.productId, p.id)));
    expect(rows).toEqual([
      { userId: b.id, productId: p.id, variantId: p.id, quantity: 4, addedAt: expect.any(Date) },
    ]);
    expect(await cartRow(b)).toMatchObject({ userId: b.id, couponCode: null });
  });
});
