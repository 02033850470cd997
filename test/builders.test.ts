// The builders of test/helpers (listed in test/README.md) answer the state their name says, as
// the API shows it to the buyer: a test that starts from one can trust it.
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { admin, coupon } from './helpers/builders.ts';
import { standIn } from './helpers/db.ts';
import {
  cancelledOrder,
  deliveredOrder,
  deliveredOrderOf,
  filledCart,
  paidOrder,
  paidOrderOf,
  refundedReturn,
  rejectedReturn,
  requestedReturn,
  shippedOrder,
} from './helpers/orders.ts';

const { t, database } = useTestApp();

describe('orders', () => {
  it('filledCart: the buyer has the product in the cart, and no order', async () => {
    const { buyer: b, product: p } = await filledCart(t, { quantity: 3 });
    const cart = await t.api.as(b).get('/cart');
    expect(
      cart.body.items.map((i: { product_id: string; quantity: number }) => [i.product_id, i.quantity]),
    ).toEqual([[p.id, 3]]);
    expect((await t.api.as(b).get('/orders')).body.total).toBe(0);
  });

  it.each([
    { builder: 'paidOrder', build: () => paidOrder(t), status: 'confirmed' },
    { builder: 'shippedOrder', build: () => shippedOrder(t), status: 'shipped' },
    { builder: 'deliveredOrder', build: () => deliveredOrder(t), status: 'delivered' },
    { builder: 'cancelledOrder', build: () => cancelledOrder(t), status: 'cancelled' },
    {
      builder: "cancelledOrder by: 'seller'",
      build: () => cancelledOrder(t, { by: 'seller' }),
      status: 'cancelled',
    },
  ])('$builder: the buyer sees one order of the product, $status', async ({ build, status }) => {
    const { buyer: b, product: p, orderId } = await build();
    const res = await t.api.as(b).get(`/orders/${orderId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: orderId, status, items: [{ productId: p.id, quantity: 1 }] });
    expect((await t.api.as(b).get('/orders')).body.total).toBe(1);
  });

  it('paidOrderOf and deliveredOrderOf: the products of one seller in one order, with the coupon', async () => {
    const lines = [
      { priceCents: 1500, quantity: 2 },
      { priceCents: 700, quantity: 1 },
    ];
    const code = (await coupon(t.api, await admin(t.api, database), { discountPercent: 10 })).code;
    for (const built of [await paidOrderOf(t, lines, { coupon: code }), await deliveredOrderOf(t, lines)]) {
      const res = await t.api.as(built.buyer).get(`/orders/${built.orderId}`);
      expect(res.body.sellerId).toBe(built.seller.id);
      expect(res.body.items.map((i: { productId: string }) => i.productId).sort()).toEqual(
        built.products.map((p) => p.id).sort(),
      );
    }
    const paid = await paidOrderOf(t, lines, { coupon: code });
    expect((await t.api.as(paid.buyer).get(`/orders/${paid.orderId}`)).body).toMatchObject({
      status: 'confirmed',
      subtotalCents: 3700,
      discountCents: 370,
    });
    const delivered = await deliveredOrderOf(t, lines);
    expect(delivered.order).toMatchObject({ id: delivered.orderId, status: 'delivered', discountCents: 0 });
  });
});

describe('returns', () => {
  it.each([
    { builder: 'requestedReturn', build: () => requestedReturn(t), status: 'pending' },
    { builder: 'refundedReturn', build: () => refundedReturn(t), status: 'refunded' },
    { builder: 'rejectedReturn', build: () => rejectedReturn(t, { note: 'Worn' }), status: 'rejected' },
  ])('$builder: the buyer sees one return of the delivered order, $status', async ({ build, status }) => {
    const { buyer: b, orderId, returnId, return: answered } = await build();
    const res = await t.api.as(b).get(`/returns/${returnId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ return_id: returnId, order_id: orderId, status, whole_order: true });
    expect(answered).toEqual(res.body);
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.status).toBe('delivered');
  });

  it('refundedReturn by an admin, with a note: the order is refunded in full', async () => {
    const boss = await admin(t.api, database);
    const { buyer: b, orderId, return: refunded } = await refundedReturn(t, { by: boss, note: 'Sorry' });
    expect(refunded).toMatchObject({ status: 'refunded', note: 'Sorry' });
    const order = (await t.api.as(b).get(`/orders/${orderId}`)).body;
    expect(order.refundedCents).toBe(order.totalAmountCents);
  });
});

describe('standIn (what useTestApp answers)', () => {
  it('forwards to what is open, and says so when nothing is', async () => {
    let current: { n: number; twice(): number } | undefined;
    const thing = standIn('the thing', () => current);
    expect(() => thing.n).toThrow('the thing is opened in beforeAll and closed in afterAll');
    // Not taken for a promise while closed.
    expect(await Promise.resolve(thing)).toBe(thing);
    current = {
      n: 2,
      twice() {
        return this.n * 2;
      },
    };
    expect(thing.n).toBe(2);
    expect(thing.twice()).toBe(4);
    expect('n' in thing).toBe(true);
    expect({ ...thing }).toEqual({ n: 2, twice: expect.any(Function) });
    // The app and database of this file are open inside a test.
    expect((await t.api.get('/health')).status).toBe(200);
    expect(await database.ping()).toBe(true);
  });
});
