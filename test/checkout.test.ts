// Checkout end to end over HTTP on a real database: validation, exact amounts, reservations,
// the sandbox payment through the signed webhook, and the orders it creates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from './helpers/app.ts';
import { admin, buyer, coupon, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS, openCheckout, pay, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

let database: TestDatabase;
let t: TestApp;

beforeAll(async () => {
  database = await testDatabase();
  t = await testApp(database);
});
afterAll(async () => {
  await t?.close();
  await database?.close();
});

describe('smoke', () => {
  it('goes from cart to a paid order', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 2500, stockQuantity: 3 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 2);
    const session = await openCheckout(t.api, b);
    expect(session).toMatchObject({ status: 'ready_for_payment', subtotalCents: 5000 });
    const inv = await t.api.as(b).get(`/products/${p.id}/inventory`);
    expect(inv.body.stock_quantity).toBe(1);
    const orderIds = await payOk(t.api, session.sessionId);
    expect(orderIds).toHaveLength(1);
    const order = await t.api.as(b).get(`/orders/${orderIds[0]}`);
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({ status: 'confirmed', totalAmountCents: session.totalCents });
    const after = await t.api.as(b).get(`/products/${p.id}/inventory`);
    expect(after.body.stock_quantity).toBe(1);
    const cart = await t.api.as(b).get('/cart');
    expect(cart.body.items).toEqual([]);
  });
});
