// check_inventory over HTTP against a real database: what can be bought now, and that the cart
// refuses by the same count (docs/api.md "Cart and coupons").
import { describe, expect, it } from 'vitest';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';

const { t } = useTestApp();

describe('GET /products/:id/inventory (check_inventory)', () => {
  it('answers available, only-N-left and out of stock, with the requested quantity', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const inventory = (q: string, who: SignedIn = b) => t.api.as(who).get(`/products/${p.id}/inventory${q}`);

    const one = await inventory('');
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      product_id: p.id,
      variant_id: p.id,
      available: true,
      stock_quantity: 5,
      requested_quantity: 1,
      message: `In stock: 5 of ${p.title} available`,
    });
    expect((await inventory('?quantity=5')).body).toEqual({
      product_id: p.id,
      variant_id: p.id,
      available: true,
      stock_quantity: 5,
      requested_quantity: 5,
      message: `In stock: 5 of ${p.title} available`,
    });
    const tooMany = await inventory('?quantity=6');
    expect(tooMany.status).toBe(200);
    expect(tooMany.body).toEqual({
      product_id: p.id,
      variant_id: p.id,
      available: false,
      stock_quantity: 5,
      requested_quantity: 6,
      message: `Only 5 left of ${p.title}; you asked for 6`,
    });
    // Any signed-in role may ask.
    expect((await inventory('?quantity=2', s)).body.available).toBe(true);

    const none = await product(t.api, s, { stockQuantity: 0 });
    const out = await t.api.as(b).get(`/products/${none.id}/inventory`);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({
      product_id: none.id,
      variant_id: none.id,
      available: false,
      stock_quantity: 0,
      requested_quantity: 1,
      message: `Out of stock: ${none.title}`,
    });
  });

  it('an unknown, draft or inactive product is 404', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const draft = await product(t.api, s, { status: 'draft' });
    const inactive = await product(t.api, s);
    expect((await t.api.as(s).patch(`/products/${inactive.id}`, { status: 'inactive' })).status).toBe(200);
    for (const id of ['products:doesnotexist00000000', 'nope', draft.id, inactive.id]) {
      for (const who of [b, s]) {
        const res = await t.api.as(who).get(`/products/${id}/inventory`);
        expectError(res, 'NOT_FOUND', 404, `Product ${id} not found`);
      }
    }
  });

  it('a quantity below 1 or not whole is 400 naming quantity; no token is 401', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s);
    for (const q of ['0', '-1', '1.5', 'abc']) {
      expectInvalid(await t.api.as(b).get(`/products/${p.id}/inventory?quantity=${q}`), [
        { field: 'quantity', message: 'must be a whole number >= 1' },
      ]);
    }
    const anonymous = await t.api.get(`/products/${p.id}/inventory`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('AUTH_ERROR');
  });
});

describe('availability is one count for check_inventory and the cart', () => {
  it('a stock change by the seller is what both see at once', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    expect((await t.api.as(s).patch(`/products/${p.id}`, { stockQuantity: 2 })).status).toBe(200);
    expect((await t.api.as(b).get(`/products/${p.id}/inventory?quantity=3`)).body).toEqual({
      product_id: p.id,
      variant_id: p.id,
      available: false,
      stock_quantity: 2,
      requested_quantity: 3,
      message: `Only 2 left of ${p.title}; you asked for 3`,
    });
    expectError(
      await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 3 }),
      'CONFLICT',
      409,
      `Only 2 left of ${p.title} (${p.id}); you have 0 in your cart and asked for 3 more`,
    );
    expect((await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 2 })).status).toBe(200);
  });
});
