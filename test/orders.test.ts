// The order lifecycle over HTTP on a real database: a paid two-seller cart becomes one order per
// seller; listing and visibility; shipping, delivery and cancellation with its refund; a paid
// checkout whose reservation lapsed and whose stock is gone (pending); expiry; a declined card;
// the order email leaving the outbox (docs/api.md "Orders", "Order states", "Mail";
// docs/operations.md "Background jobs").
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, pay, paymentEvent, postEvent } from './helpers/checkout.ts';
import {
  deliver,
  emlFiles,
  liveReservedUnits,
  ordersOfCheckout,
  outboxRows,
  paidOrder,
  paymentEventRows,
  redemptionsOf,
  refundRows,
  sessionRow,
  setClock,
  shippedOrder,
  signIn,
  stockOf,
} from './helpers/orders.ts';
import { parseEml } from './helpers/smtp.ts';

const { t, database } = useTestApp();
let adm: SignedIn;

/** A Friday, 10:00 in Toronto: 3 business days later is Wednesday, 7 is the Tuesday after next. */
const CONFIRMED_AT = '2026-11-20T15:00:00.000Z';
const unix = (iso: string) => Date.parse(iso) / 1000;
const { phone: _phone, ...ON_STORED } = ON_ADDRESS;

const YT_ADDRESS = {
  street: '2121 2nd Ave',
  city: 'Whitehorse',
  province: 'YT',
  postalCode: 'Y1A 1C8',
  country: 'CA',
  phone: '+18675550123',
};

beforeAll(async () => {
  setClock(t, CONFIRMED_AT);
  adm = await admin(t.api, database);
});

const notFoundBody = (id: string) => ({ error: `Order ${id} not found`, code: 'NOT_FOUND', statusCode: 404 });

describe('a paid two-seller cart', () => {
  it('becomes one order per seller with exact amounts, fees, snapshot and delivery dates; stock, cart, coupon and outbox follow', async () => {
    expect(t.clock.now().toISOString()).toBe(CONFIRMED_AT);
    const on = await seller(t.api, 'ON');
    const qc = await seller(t.api, 'QC');
    const pa = await product(t.api, on, { priceCents: 3000, stockQuantity: 10 });
    const pb = await product(t.api, qc, { priceCents: 2600, stockQuantity: 5 });
    const c = await coupon(t.api, adm, { discountPercent: 10 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, pa.id, 2);
    await addToCart(t.api, b, pb.id, 1);
    expect((await t.api.as(b).post('/cart/coupon', { code: c.code })).status).toBe(200);

    const session = await openCheckout(t.api, b, ON_ADDRESS);
    // 10% of 8600 = 860, split 600 / 260 by subtotal. ON parcel: 6000 - 600 + 899 shipping,
    // HST 13% of 6299 = 818.87 -> 819. QC parcel to ON: 2600 - 260 + 1299, HST of 3639 = 473.07 -> 473.
    expect(session).toMatchObject({
      subtotalCents: 8600,
      discountCents: 860,
      shippingCostCents: 2198,
      taxAmountCents: 1292,
      totalCents: 11230,
    });
    expect(await stockOf(database, pa.id)).toEqual({ stock: 10, reserved: 2 });
    expect(await stockOf(database, pb.id)).toEqual({ stock: 5, reserved: 1 });

    const paid = await pay(t.api, session.sessionId);
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({
      paid: true,
      sessionId: session.sessionId,
      paymentIntentId: expect.stringMatching(/^pi_sandbox_/),
      orderIds: [expect.any(String), expect.any(String)],
    });
    const pi = paid.body.paymentIntentId;

    const rows = await ordersOfCheckout(database, session.sessionId);
    expect(rows.map((r) => r.sellerId).sort()).toEqual([on.id, qc.id].sort());
    const idOf = (sellerId: string) => rows.find((r) => r.sellerId === sellerId)!.id;
    const numberOf = (sellerId: string) => rows.find((r) => r.sellerId === sellerId)!.number;
    // One number per order, of the year it was paid in, taken one after the other.
    const ranks = rows.map((r) => Number(/^2026-(\d{6})$/.exec(r.number)![1])).sort((x, y) => x - y);
    expect(ranks[1]! - ranks[0]!).toBe(1);
    const created = unix(CONFIRMED_AT);
    const common = {
      buyerId: b.id,
      status: 'confirmed',
      shippingAddress: ON_STORED,
      trackingNumber: null,
      carrier: null,
      createdAt: created,
      confirmedAt: created,
      shippedAt: null,
      deliveredAt: null,
      cancelledAt: null,
      paymentIntentId: pi,
      refundRequested: false,
      refundedCents: 0,
    };
    const onOrder = await t.api.as(b).get(`/orders/${idOf(on.id)}`);
    expect(onOrder.status).toBe(200);
    expect(onOrder.body).toEqual({
      ...common,
      id: idOf(on.id),
      number: numberOf(on.id),
      sellerId: on.id,
      invoiceUrl: `http://portage.test/orders/${encodeURIComponent(idOf(on.id))}/invoice`,
      items: [{ productId: pa.id, name: pa.title, quantity: 2, unitPriceCents: 3000, imageUrl: null }],
      subtotalCents: 6000,
      discountCents: 600,
      // The platform's coupon: the platform pays it, and the commission is on the items.
      sellerDiscountCents: 0,
      platformDiscountCents: 600,
      shippingCostCents: 899,
      taxAmountCents: 819,
      taxLines: [{ name: 'HST', ratePercent: 13, amountCents: 819 }],
      // 2.5% of 6000 = 150.
      platformFeeCents: 150,
      totalAmountCents: 7118,
      // Within ON: Friday + 3 business days.
      estimatedDelivery: '2026-11-25',
      itemCount: 2,
    });
    const qcOrder = await t.api.as(b).get(`/orders/${idOf(qc.id)}`);
    expect(qcOrder.body).toEqual({
      ...common,
      id: idOf(qc.id),
      number: numberOf(qc.id),
      sellerId: qc.id,
      invoiceUrl: `http://portage.test/orders/${encodeURIComponent(idOf(qc.id))}/invoice`,
      items: [{ productId: pb.id, name: pb.title, quantity: 1, unitPriceCents: 2600, imageUrl: null }],
      subtotalCents: 2600,
      discountCents: 260,
      sellerDiscountCents: 0,
      platformDiscountCents: 260,
      shippingCostCents: 1299,
      taxAmountCents: 473,
      taxLines: [{ name: 'HST', ratePercent: 13, amountCents: 473 }],
      // 2.5% of 2600 = 65.
      platformFeeCents: 65,
      totalAmountCents: 4112,
      // QC to ON: Friday + 7 business days.
      estimatedDelivery: '2026-12-01',
      itemCount: 1,
    });
    expect(onOrder.body.totalAmountCents + qcOrder.body.totalAmountCents).toBe(session.totalCents);
    expect(onOrder.body.shippingAddress).not.toHaveProperty('phone');

    // Stock committed from the reservation; nothing reserved any more.
    expect(await stockOf(database, pa.id)).toEqual({ stock: 8, reserved: 0 });
    expect(await stockOf(database, pb.id)).toEqual({ stock: 4, reserved: 0 });
    // Cart emptied, coupon counted once, one order email written.
    const cart = await t.api.as(b).get('/cart');
    expect(cart.body.items).toEqual([]);
    expect(await redemptionsOf(database, c.code)).toHaveLength(1);
    const mails = await outboxRows(database, `order-paid:${session.sessionId}`);
    expect(mails.map((m) => ({ kind: m.kind, to: m.toAddress, status: m.status }))).toEqual([
      { kind: 'order-paid', to: b.email, status: 'pending' },
    ]);
    // The checkout session says complete and names its orders.
    const s = await t.api.as(b).get(`/checkout/${session.sessionId}`);
    expect(s.body).toMatchObject({ status: 'complete', orderIds: rows.map((r) => r.id) });

    // Paying again changes nothing.
    const again = await pay(t.api, session.sessionId);
    expect(again.body.orderIds.sort()).toEqual(paid.body.orderIds.sort());
    expect(await ordersOfCheckout(database, session.sessionId)).toHaveLength(2);
    expect(await redemptionsOf(database, c.code)).toHaveLength(1);
    expect(await outboxRows(database, `order-paid:${session.sessionId}`)).toHaveLength(1);
    expect(await stockOf(database, pa.id)).toEqual({ stock: 8, reserved: 0 });
  });

  it('estimates 12 business days to the territories', async () => {
    const s = await seller(t.api, 'ON');
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 1000 });
    await addToCart(t.api, b, p.id, 1);
    const session = await openCheckout(t.api, b, YT_ADDRESS);
    const [orderId] = (await pay(t.api, session.sessionId)).body.orderIds;
    const order = await t.api.as(b).get(`/orders/${orderId}`);
    expect(order.body).toMatchObject({ estimatedDelivery: '2026-12-08', shippingCostCents: 2499 });
  });
});

describe('a cart of many products', () => {
  // The products are locked by a statement with a value per product up to 8 of them, by one
  // with an array past that (inventory's lockProducts): both sizes sell exactly what was bought.
  it.each([3, 10])('sells exactly what %i products held, in one order per seller', async (count) => {
    const sellers = [await seller(t.api, 'ON'), await seller(t.api, 'QC')];
    const b = await buyer(t.api);
    const bought: Array<{ id: string; quantity: number }> = [];
    for (let i = 0; i < count; i++) {
      const p = await product(t.api, sellers[i % 2]!, { priceCents: 1000 + i, stockQuantity: 20 });
      bought.push({ id: p.id, quantity: 1 + (i % 3) });
      await addToCart(t.api, b, p.id, 1 + (i % 3));
    }
    const session = await openCheckout(t.api, b);
    const paid = await pay(t.api, session.sessionId);
    expect(paid.status).toBe(200);
    expect(paid.body.orderIds).toHaveLength(2);
    for (const { id, quantity } of bought) {
      expect(await stockOf(database, id)).toEqual({ stock: 20 - quantity, reserved: 0 });
    }
    const orders = await ordersOfCheckout(database, session.sessionId);
    expect(orders.map((o) => o.status)).toEqual(['confirmed', 'confirmed']);
    expect(orders.reduce((n, o) => n + o.itemCount, 0)).toBe(bought.reduce((n, l) => n + l.quantity, 0));
  });
});

describe('listing and visibility', () => {
  it('filters by status, sorts, pages and counts; other buyers and sellers see nothing', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 1500, stockQuantity: 20 });
    const b = await buyer(t.api);
    const ids: string[] = [];
    for (const quantity of [1, 2, 3]) {
      const o = await paidOrder(t, { seller: s, product: p, buyer: b, quantity });
      ids.push(o.orderId);
      t.clock.advance(1);
    }
    const cancelled = await t.api.as(b).post(`/orders/${ids[1]}/cancel`, { reason: 'Changed my mind' });
    expect(cancelled.status).toBe(200);

    const all = await t.api.as(b).get('/orders');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(all.body.orders.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all.body.orders[0]).toEqual({
      id: ids[2],
      number: expect.stringMatching(/^2026-\d{6}$/),
      buyerId: b.id,
      sellerId: s.id,
      status: 'confirmed',
      totalAmountCents: expect.any(Number),
      createdAt: expect.any(Number),
      confirmedAt: expect.any(Number),
      itemCount: 3,
      estimatedDelivery: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });

    const oldest = await t.api.as(b).get('/orders?sort=oldest');
    expect(oldest.body.orders.map((o: { id: string }) => o.id)).toEqual(ids);
    const confirmed = await t.api.as(b).get('/orders?status=confirmed');
    expect(confirmed.body).toMatchObject({ total: 2 });
    expect(confirmed.body.orders.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[0]]);
    const gone = await t.api.as(b).get('/orders?status=cancelled');
    expect(gone.body.orders.map((o: { id: string; status: string }) => [o.id, o.status])).toEqual([
      [ids[1], 'cancelled'],
    ]);
    const page = await t.api.as(b).get('/orders?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.orders.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
    const past = await t.api.as(b).get('/orders?limit=5&offset=3');
    expect(past.body).toEqual({ orders: [], total: 3, limit: 5, offset: 3 });
    expectInvalid(await t.api.as(b).get('/orders?status=lost'), [
      { field: 'status', message: 'must be one of pending, confirmed, shipped, delivered, cancelled' },
    ]);

    // Another buyer sees none of them, and not one by its id.
    const other = await buyer(t.api, 'other');
    expect((await t.api.as(other).get('/orders')).body).toEqual({
      orders: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
    const hidden = await t.api.as(other).get(`/orders/${ids[0]}`);
    expect({ status: hidden.status, body: hidden.body }).toEqual({
      status: 404,
      body: notFoundBody(ids[0]!),
    });
    const unknown = 'orders:AAAAAAAAAAAAAAAAAAAA';
    expect((await t.api.as(b).get(`/orders/${unknown}`)).body).toEqual(notFoundBody(unknown));

    // Its seller sees it and lists it; another seller gets 404.
    const bySeller = await t.api.as(s).get(`/orders/${ids[0]}`);
    expect(bySeller.status).toBe(200);
    expect(bySeller.body).toMatchObject({ id: ids[0], sellerId: s.id, buyerId: b.id });
    const sales = await t.api.as(s).get('/sellers/me/orders?sort=oldest');
    expect(sales.body).toMatchObject({ total: 3 });
    expect(sales.body.orders.map((o: { id: string }) => o.id)).toEqual(ids);
    const stranger = await seller(t.api);
    const notTheirs = await t.api.as(stranger).get(`/orders/${ids[0]}`);
    expect({ status: notTheirs.status, body: notTheirs.body }).toEqual({
      status: 404,
      body: notFoundBody(ids[0]!),
    });
    expect((await t.api.as(stranger).get('/sellers/me/orders')).body).toMatchObject({ total: 0 });
  });
});

describe('shipping and delivery', () => {
  it('lets only its seller ship and deliver, each once, in order', async () => {
    const { seller: s, buyer: b, orderId } = await paidOrder(t);
    const { orderId: unshipped } = await paidOrder(t, { seller: s });
    const ship = { trackingNumber: '1Z 999 AA1', carrier: 'Canada Post' };

    const stranger = await seller(t.api);
    const byStranger = await t.api.as(stranger).post(`/orders/${orderId}/ship`, ship);
    expect({ status: byStranger.status, body: byStranger.body }).toEqual({
      status: 404,
      body: notFoundBody(orderId),
    });
    expectError(
      await t.api.as(b).post(`/orders/${orderId}/ship`, ship),
      'AUTHZ_ERROR',
      403,
      'AUTHZ_ERROR: This needs the seller role; you are buyer',
    );
    expectInvalid(
      await t.api.as(s).post(`/orders/${orderId}/ship`, { trackingNumber: 'AB#1', carrier: 'UPS' }),
      [{ field: 'trackingNumber', message: 'letters, digits, spaces and - only' }],
    );

    const shipped = await t.api.as(s).post(`/orders/${orderId}/ship`, ship);
    expect(shipped.status).toBe(200);
    expect(shipped.body).toMatchObject({
      id: orderId,
      status: 'shipped',
      trackingNumber: '1Z 999 AA1',
      carrier: 'Canada Post',
      shippedAt: Math.floor(t.clock.now().getTime() / 1000),
      deliveredAt: null,
    });
    const mails = await outboxRows(database, `order-shipped:${orderId}`);
    expect(mails.map((m) => [m.kind, m.toAddress])).toEqual([['order-shipped', b.email]]);
    expect(mails[0]!.textBody).toContain('1Z 999 AA1');

    expectError(
      await t.api.as(s).post(`/orders/${orderId}/ship`, ship),
      'CONFLICT',
      409,
      'Only a confirmed order can be shipped; this one is shipped',
    );
    expectError(
      await t.api.as(s).post(`/orders/${unshipped}/deliver`),
      'CONFLICT',
      409,
      'Only a shipped order can be marked delivered; this one is confirmed',
    );
    const delivered = await t.api.as(s).post(`/orders/${orderId}/deliver`);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ status: 'delivered', deliveredAt: expect.any(Number) });
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/deliver`),
      'CONFLICT',
      409,
      'Only a shipped order can be marked delivered; this one is delivered',
    );
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);
  });
});

describe('cancellation (cancel_order)', () => {
  it('cancels a confirmed order for its buyer, refunds it in full and puts its units back', async () => {
    const { seller: s, buyer: b, product: p, orderId } = await paidOrder(t, { quantity: 3, stock: 7 });
    expect(await stockOf(database, p.id)).toEqual({ stock: 4, reserved: 0 });

    const stranger = await buyer(t.api, 'stranger');
    const byStranger = await t.api.as(stranger).post(`/orders/${orderId}/cancel`, {});
    expect({ status: byStranger.status, body: byStranger.body }).toEqual({
      status: 404,
      body: notFoundBody(orderId),
    });

    const res = await t.api.as(b).post(`/orders/${orderId}/cancel`, { reason: 'Ordered by mistake' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: orderId,
      status: 'cancelled',
      cancelledAt: Math.floor(t.clock.now().getTime() / 1000),
      refundRequested: true,
    });
    expect(res.body.refund_amount_cents).toBe(res.body.totalAmountCents);
    expect(res.body.totalAmountCents).toBeGreaterThan(0);

    // The refund went to the provider after commit: the order says so now.
    const after = await t.api.as(b).get(`/orders/${orderId}`);
    expect(after.body).toMatchObject({ status: 'cancelled', refundedCents: res.body.totalAmountCents });
    const refunds = await refundRows(database, orderId);
    expect(refunds.map((r) => ({ amount: r.amountCents, status: r.status, reason: r.reason }))).toEqual([
      { amount: res.body.totalAmountCents, status: 'succeeded', reason: 'cancelled' },
    ]);
    // Its units are back, exactly.
    expect(await stockOf(database, p.id)).toEqual({ stock: 7, reserved: 0 });
    // One cancellation email, one refund email.
    expect((await outboxRows(database, `order-cancelled:${orderId}`)).map((m) => m.kind)).toEqual([
      'order-cancelled',
    ]);
    expect((await outboxRows(database, `refund:${refunds[0]!.id}`)).map((m) => m.kind)).toEqual(['refund']);

    // Twice: 409, nothing more refunded or restocked.
    expectError(
      await t.api.as(b).post(`/orders/${orderId}/cancel`, {}),
      'CONFLICT',
      409,
      'The order is cancelled',
    );
    expect(await refundRows(database, orderId)).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 7, reserved: 0 });
    // Its seller cannot ship it any more.
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/ship`, { trackingNumber: 'X1', carrier: 'UPS' }),
      'CONFLICT',
      409,
      'The order is cancelled',
    );
  });

  it('refuses a shipped order, naming request_return', async () => {
    const parcel = { trackingNumber: 'T1', carrier: 'Purolator' };
    const { seller: s, buyer: b, orderId } = await shippedOrder(t, { parcel });
    const res = await t.api.as(b).post(`/orders/${orderId}/cancel`, {});
    expectError(
      res,
      'CONFLICT',
      409,
      'The order has shipped and can no longer be cancelled; request a return instead (request_return)',
    );
    expect(await refundRows(database, orderId)).toEqual([]);
    await deliver(t, s, orderId);
    expectError(await t.api.as(b).post(`/orders/${orderId}/cancel`, {}), 'CONFLICT', 409, /request_return/);
  });

  it('lets its seller cancel, with the same refund and restock', async () => {
    const { seller: s, buyer: b, product: p, orderId } = await paidOrder(t, { quantity: 2, stock: 2 });
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });
    const res = await t.api.as(s).post(`/orders/${orderId}/cancel`, { reason: 'Damaged in storage' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', refund_amount_cents: res.body.totalAmountCents });
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents).toBe(res.body.totalAmountCents);
    expect(await stockOf(database, p.id)).toEqual({ stock: 2, reserved: 0 });
  });
});

describe('expiry', () => {
  it('ends a session left 30 minutes and gives its units back exactly once', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 3);
    const session = await openCheckout(t.api, b);
    const inventory = () => t.api.as(b).get(`/products/${p.id}/inventory?quantity=1`);
    expect((await inventory()).body).toMatchObject({ stock_quantity: 2, available: true });

    t.clock.advance(30 * 60 - 1);
    await t.app.jobs.runOnce();
    expect((await t.api.as(b).get(`/checkout/${session.sessionId}`)).body.status).toBe('ready_for_payment');
    expect(await stockOf(database, p.id)).toEqual({ stock: 5, reserved: 3 });

    t.clock.advance(1);
    const first = await t.app.jobs.runOnce();
    expect(first['checkout-expiry']).toBeGreaterThanOrEqual(1);
    expect((await t.api.as(b).get(`/checkout/${session.sessionId}`)).body.status).toBe('expired');
    expect((await inventory()).body).toMatchObject({ stock_quantity: 5, available: true });
    expect(await stockOf(database, p.id)).toEqual({ stock: 5, reserved: 0 });

    const second = await t.app.jobs.runOnce();
    expect(second['checkout-expiry']).toBe(0);
    expect(await stockOf(database, p.id)).toEqual({ stock: 5, reserved: 0 });
    expect(await liveReservedUnits(database, p.id)).toBe(0);
    // The sandbox refuses to take a payment for it.
    expectError(
      await pay(t.api, session.sessionId),
      'CONFLICT',
      409,
      'This checkout session has expired and its stock was released; check out again',
    );
  });
});

describe('a declined card', () => {
  it('is 400 PAYMENT_PROVIDER_ERROR with no order and the reservation kept; the good card then pays', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 4 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 2);
    const session = await openCheckout(t.api, b);
    const declined = await pay(t.api, session.sessionId, '4000000000000002');
    expect({ status: declined.status, body: declined.body }).toEqual({
      status: 400,
      body: {
        error: 'Your card was declined (sandbox test card 4000 0000 0000 0002)',
        code: 'PAYMENT_PROVIDER_ERROR',
        statusCode: 400,
      },
    });
    expect(await ordersOfCheckout(database, session.sessionId)).toEqual([]);
    expect(await paymentEventRows(database, session.sessionId)).toEqual([]);
    expect(await stockOf(database, p.id)).toEqual({ stock: 4, reserved: 2 });
    expect((await t.api.as(b).get(`/checkout/${session.sessionId}`)).body.status).toBe('ready_for_payment');

    const paid = await pay(t.api, session.sessionId, '4242 4242 4242 4242');
    expect(paid.status).toBe(200);
    expect(paid.body.orderIds).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 2, reserved: 0 });
  });
});

describe('the order email', () => {
  it('leaves the outbox on the next jobs pass as an .eml file', async () => {
    const { buyer: b, session, orderId } = await paidOrder(t);
    const [row] = await outboxRows(database, `order-paid:${session.sessionId}`);
    expect(row).toMatchObject({ status: 'pending', toAddress: b.email });
    await t.app.jobs.runOnce();
    const [sent] = await outboxRows(database, `order-paid:${session.sessionId}`);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1 });
    const files = (await emlFiles(t)).filter((f) => f.endsWith(`-${row!.id}.eml`));
    expect(files).toHaveLength(1);
    const eml = await readFile(path.join(t.config.dataDir, 'mail', files[0]!), 'utf8');
    expect(eml).toContain(`To: ${b.email}`);
    // The names come with the locked session in the payment's transaction: the buyer's, and the shop's.
    const { text } = parseEml(eml);
    expect(text).toContain('Hello Test buyer,');
    expect(text).toMatch(/From Maple Goods \(order number 2026-\d{6}\)/);
    // Its links: the order's page in the account, and its invoice, signed (GET /invoices/:token
    // answers it signed out).
    expect(text?.match(/https?:\/\/\S+/g)).toEqual([
      `http://portage.test/account/orders/${encodeURIComponent(orderId)}`,
      expect.stringMatching(/^http:\/\/portage\.test\/invoices\/[\w.-]+\?locale=en-CA$/),
    ]);
    // Another pass sends nothing again.
    await t.app.jobs.runOnce();
    expect((await emlFiles(t)).filter((f) => f.endsWith(`-${row!.id}.eml`))).toHaveLength(1);
  });
});

describe('a paid checkout whose reservation lapsed and whose stock is gone', () => {
  /** Buyer 1 checks out the last `stock` units and lets the session lapse; buyer 2 buys them. */
  async function lapsedAndSoldOut(stock: number, sellerProvince = 'ON') {
    const s = await seller(t.api, sellerProvince);
    const p = await product(t.api, s, { priceCents: 4000, stockQuantity: stock });
    const first = await buyer(t.api, 'first');
    await addToCart(t.api, first, p.id, stock);
    const lapsed = await openCheckout(t.api, first);
    // The hold lapsed, and the expiry job has not ended the session yet: a payment the provider
    // took in that window still makes an order (an ended session's payment is refunded instead:
    // test/closed-checkouts.test.ts).
    t.clock.advance(31 * 60);
    expect((await sessionRow(database, lapsed.sessionId))?.status).toBe('ready_for_payment');
    const second = await buyer(t.api, 'second');
    await paidOrder(t, { seller: s, product: p, buyer: second, quantity: stock });
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });

    // The provider took buyer 1's money anyway (the sandbox page refuses an expired session; a
    // provider's event is what arrives in real life).
    const event = paymentEvent(lapsed.sessionId, lapsed.totalCents);
    const res = await postEvent(t, event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: false, orderIds: [expect.any(String)] });
    const orderId: string = res.body.orderIds[0];
    return { s, p, first: await signIn(t.api, first), lapsed, orderId, event };
  }

  it('gives a pending order that its seller confirms once restocked', async () => {
    const lapsed = await lapsedAndSoldOut(2, 'QC');
    const { p, first, orderId, event } = lapsed;
    let s = lapsed.s;
    const order = await t.api.as(first).get(`/orders/${orderId}`);
    expect(order.body).toMatchObject({
      status: 'pending',
      confirmedAt: null,
      paymentIntentId: event.data.object.id,
      itemCount: 2,
    });
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });
    expect((await t.api.as(first).get('/orders?status=pending')).body).toMatchObject({ total: 1 });

    expectError(
      await t.api.as(s).post(`/orders/${orderId}/confirm`),
      'CONFLICT',
      409,
      'Not enough stock to confirm this order yet: restock the products first',
    );
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/ship`, { trackingNumber: 'T2', carrier: 'UPS' }),
      'CONFLICT',
      409,
      'Only a confirmed order can be shipped; this one is pending',
    );
    const restock = await t.api.as(s).patch(`/products/${p.id}`, { stockQuantity: 1 });
    expect(restock.status).toBe(200);
    expectError(await t.api.as(s).post(`/orders/${orderId}/confirm`), 'CONFLICT', 409);
    expect(await stockOf(database, p.id)).toEqual({ stock: 1, reserved: 0 });

    expect((await t.api.as(s).patch(`/products/${p.id}`, { stockQuantity: 3 })).status).toBe(200);
    // Confirmed on a Monday: a QC seller's parcel to ON arrives 7 business days later.
    const monday = '2026-11-23T15:00:00.000Z';
    setClock(t, monday);
    s = await signIn(t.api, s);
    const confirmed = await t.api.as(s).post(`/orders/${orderId}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      status: 'confirmed',
      confirmedAt: unix(monday),
      estimatedDelivery: '2026-12-02',
    });
    expect(await stockOf(database, p.id)).toEqual({ stock: 1, reserved: 0 });
    expectError(
      await t.api.as(s).post(`/orders/${orderId}/confirm`),
      'CONFLICT',
      409,
      'Only a pending order can be confirmed; this one is confirmed',
    );
    // The same event again changes nothing.
    const replay = await postEvent(t, event);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await stockOf(database, p.id)).toEqual({ stock: 1, reserved: 0 });
  });

  it('cancels and refunds a pending order left 48 hours, and does not restock what never left', async () => {
    const { p, first, orderId } = await lapsedAndSoldOut(1);
    const total = (await t.api.as(first).get(`/orders/${orderId}`)).body.totalAmountCents;

    t.clock.advance(48 * 3600 - 60);
    await t.app.jobs.runOnce();
    const waiting = await signIn(t.api, first);
    expect((await t.api.as(waiting).get(`/orders/${orderId}`)).body.status).toBe('pending');

    t.clock.advance(60);
    const pass = await t.app.jobs.runOnce();
    expect(pass['pending-orders']).toBeGreaterThanOrEqual(1);
    const after = await t.api.as(waiting).get(`/orders/${orderId}`);
    expect(after.body).toMatchObject({
      status: 'cancelled',
      cancelledAt: expect.any(Number),
      refundRequested: true,
      refundedCents: total,
    });
    expect((await refundRows(database, orderId)).map((r) => [r.amountCents, r.status])).toEqual([
      [total, 'succeeded'],
    ]);
    expect(await outboxRows(database, `order-cancelled:${orderId}`)).toHaveLength(1);
    // Its units never left the stock: nothing comes back.
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });
    await t.app.jobs.runOnce();
    expect(await refundRows(database, orderId)).toHaveLength(1);
  });
});
