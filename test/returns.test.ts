// Returns over HTTP on a real database (docs/api.md "Returns"; docs/decisions.md "Returns"):
// the window on a frozen clock at its edges, estimates to the cent (a coupon, tax,
// partial and whole returns), one open return per order, who may see and decide a return, and the
// refund path with the sandbox provider: approve -> refund sent -> return refunded, order
// refundedCents, the buyer's emails in the outbox, no restock.
import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { refunds } from '../src/modules/payments/tables.ts';
import { returns } from '../src/modules/returns/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import {
  cancelledOrder,
  deliveredOrder,
  deliveredOrderOf,
  outboxRows,
  paidOrder,
  refundRows,
  requestedReturn,
  setClock,
  shippedOrder,
  signIn,
  stockOf,
} from './helpers/orders.ts';

const { t, database } = useTestApp();
let adm: SignedIn;

const START = '2026-11-20T15:00:00.000Z';
const DAY = 86_400;
const unixNow = () => Math.floor(t.clock.now().getTime() / 1000);
const PENDING_MESSAGE =
  'Return requested. The seller reviews it within 2 business days; you will get an email with the decision.';

beforeAll(async () => {
  setClock(t, START);
  adm = await admin(t.api, database);
});
// The clock moves by days: the admin signs in again before each test (tokens live an hour).
beforeEach(async () => {
  adm = await signIn(t.api, adm);
});

// The orders returned here are 2 × $20.00 unless told: $55.36 with shipping and HST.

const requestReturn = (who: SignedIn, body: Record<string, unknown>) => t.api.as(who).post('/returns', body);

describe('the return window', () => {
  it('is RETURN_WINDOW_DAYS days (30 unless set; 1 to 365)', () => {
    expect(loadConfig({}).returnWindowDays).toBe(30);
    expect(loadConfig({ RETURN_WINDOW_DAYS: '14' }).returnWindowDays).toBe(14);
    for (const bad of ['0', '366', '7.5', 'thirty']) {
      expect(() => loadConfig({ RETURN_WINDOW_DAYS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ RETURN_WINDOW_DAYS: '0' })).toThrow(
      'RETURN_WINDOW_DAYS: must be between 1 and 365 (got "0")',
    );
  });

  it('is open at deliveredAt + 30 days to the second, closed one second later; only delivered orders', async () => {
    const s = await seller(t.api);
    const first = await deliveredOrder(t, { quantity: 2, seller: s });
    const second = await deliveredOrder(t, { quantity: 2, seller: s });
    const deliveredAt = unixNow();
    expect(first.order.deliveredAt).toBe(deliveredAt);
    expect(second.order.deliveredAt).toBe(deliveredAt);

    t.clock.advance(30 * DAY);
    const b1 = await signIn(t.api, first.buyer);
    const res = await requestReturn(b1, { order_id: first.orderId, reason: 'damaged' });
    expect(res.status).toBe(201);
    // 2 × $20.00 + $8.99 shipping + HST 13% of 48.99 (6.37) = $55.36: a whole-order return.
    expect(res.body).toEqual({
      return_id: expect.stringMatching(/^returns:[A-Za-z0-9_-]{20}$/),
      order_id: first.orderId,
      status: 'pending',
      reason: 'damaged',
      created_at: deliveredAt + 30 * DAY,
      window_closes_at: deliveredAt + 30 * DAY,
      estimated_refund_amount_cents: 5536,
      message: PENDING_MESSAGE,
      description: null,
      items: [first.product.id],
      whole_order: true,
      buyer_id: first.buyer.id,
      seller_id: s.id,
      refund_amount_cents: null,
      order_refunded_cents: 0,
      note: null,
      instructions: null,
      lines: [{ id: first.product.id, product_id: first.product.id, name: first.product.title, quantity: 2 }],
      restocked: null,
      decided_at: null,
      received_at: null,
      escalated_at: null,
      refunded_at: null,
    });
    expect(first.order.totalAmountCents).toBe(5536);

    t.clock.advance(1);
    const b2 = await signIn(t.api, second.buyer);
    const late = await requestReturn(b2, { order_id: second.orderId, reason: 'damaged' });
    const closedAt = new Date((deliveredAt + 30 * DAY) * 1000).toISOString().replace('.000Z', 'Z');
    expectError(
      late,
      'CONFLICT',
      409,
      `The return window of order ${second.orderId} closed at ${closedAt} (30 days after delivery)`,
    );
    expect(await database.db.select().from(returns).where(eq(returns.orderId, second.orderId))).toEqual([]);
  });

  it('refuses confirmed and shipped orders (409), saying why', async () => {
    const confirmed = await paidOrder(t);
    expectError(
      await requestReturn(confirmed.buyer, { order_id: confirmed.orderId, reason: 'other' }),
      'CONFLICT',
      409,
      `Order ${confirmed.orderId} has not been delivered (it is confirmed): only a delivered order can be returned; an order that has not shipped can be cancelled instead (cancel_order)`,
    );
    const shipped = await shippedOrder(t, { parcel: { trackingNumber: 'T1', carrier: 'Purolator' } });
    expectError(
      await requestReturn(shipped.buyer, { order_id: shipped.orderId, reason: 'other' }),
      'CONFLICT',
      409,
      `Order ${shipped.orderId} has shipped but is not delivered yet: a return can be requested once it is delivered`,
    );
    const cancelled = await cancelledOrder(t);
    expectError(
      await requestReturn(cancelled.buyer, { order_id: cancelled.orderId, reason: 'other' }),
      'CONFLICT',
      409,
      `Order ${cancelled.orderId} is cancelled: only a delivered order can be returned`,
    );
  });
});

describe('estimated refunds', () => {
  it('are the items’ share of what was paid, to the cent, with a coupon and tax; whole = what is left', async () => {
    const c = await coupon(t.api, adm, { discountPercent: 15 });
    const {
      buyer: b,
      seller: s,
      products,
      orderId,
      order,
    } = await deliveredOrderOf(
      t,
      [
        { priceCents: 1999, quantity: 3 },
        { priceCents: 1234, quantity: 1 },
      ],
      { coupon: c.code },
    );
    // Subtotal 3 × 19.99 + 12.34 = 72.31; 15% off = 10.8465 -> 10.85; 61.46 < 75 so shipping 8.99
    // (ON to ON); HST 13% of (72.31 - 10.85 + 8.99 = 70.45) = 9.1585 -> 9.16; total 79.61.
    expect(order).toMatchObject({
      subtotalCents: 7231,
      discountCents: 1085,
      shippingCostCents: 899,
      taxAmountCents: 916,
      totalAmountCents: 7961,
    });
    const p1 = products[0]!;
    const p2 = products[1]!;

    // Partial [p1]: its lines' subtotal 59.97; paid for it 5997 × 6146 / 7231 = 5097.14... -> 5097;
    // its tax 916 × 5097 / 7045 = 662.72... -> 663; estimate 5097 + 663 = 5760 (no shipping).
    const partial = await requestReturn(b, { order_id: orderId, reason: 'not_as_described', items: [p1.id] });
    expect(partial.status).toBe(201);
    expect(partial.body).toMatchObject({
      estimated_refund_amount_cents: 5760,
      items: [p1.id],
      whole_order: false,
    });
    const approved = await t.api.as(s).post(`/returns/${partial.body.return_id}/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'refunded', refund_amount_cents: 5760 });

    // The rest of the order (no items): p2, completing the order, so what is left of its total,
    // shipping included: 7961 - 5760 = 2201 (p2 alone as a partial would be 1049 + 136 = 1185).
    const whole = await requestReturn(b, { order_id: orderId, reason: 'damaged' });
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({
      estimated_refund_amount_cents: 2201,
      items: [p2.id],
      whole_order: true,
      order_refunded_cents: 5760,
    });
    // p1 was returned: naming it again is 409, naming it.
    const rejected = await t.api.as(s).post(`/returns/${whole.body.return_id}/reject`, { note: 'Used' });
    expect(rejected.status).toBe(200);
    expectError(
      await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [p2.id, p1.id] }),
      'CONFLICT',
      409,
      `Already returned: ${p1.title} (${p1.id}, in ${partial.body.return_id}); return only what is left of order ${orderId}`,
    );
    const onlyP2 = await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [p2.id] });
    expect(onlyP2.body).toMatchObject({ estimated_refund_amount_cents: 2201, whole_order: true });
  });

  it('a whole-order return of an unrefunded order is its total exactly', async () => {
    const c = await coupon(t.api, adm, { discountPercent: 15 });
    const {
      buyer: b,
      orderId,
      order,
    } = await deliveredOrderOf(t, [{ priceCents: 1999, quantity: 3 }], {
      coupon: c.code,
    });
    const res = await requestReturn(b, {
      order_id: orderId,
      reason: 'wrong_item',
      description: 'Blue, not red',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      estimated_refund_amount_cents: order.totalAmountCents,
      description: 'Blue, not red',
      whole_order: true,
    });
  });

  it('refunds each item once: the same line again is 409; the rest of the order is what is left', async () => {
    const {
      buyer: b,
      seller: s,
      products,
      orderId,
      order,
    } = await deliveredOrderOf(t, [
      { priceCents: 3000, quantity: 1 },
      { priceCents: 1000, quantity: 1 },
    ]);
    // 40.00 + 8.99 shipping, HST 13% of 48.99 = 6.37: total 55.36.
    expect(order.totalAmountCents).toBe(5536);
    const big = products[0]!;
    // [big]: 3000 paid (no discount), tax 637 × 3000 / 4899 = 390.08... -> 390: 3390.
    const first = await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [big.id] });
    expect(first.body.estimated_refund_amount_cents).toBe(3390);
    expect((await t.api.as(s).post(`/returns/${first.body.return_id}/approve`)).body.status).toBe('refunded');
    // The same product again: returned already, 409 naming it (each unit is refunded once).
    expectError(
      await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [big.id] }),
      'CONFLICT',
      409,
      `Already returned: ${big.title} (${big.id}, in ${first.body.return_id}); return only what is left of order ${orderId}`,
    );
    // The rest completes the order: what is left, 5536 - 3390.
    const second = await requestReturn(b, { order_id: orderId, reason: 'damaged' });
    expect(second.body).toMatchObject({ estimated_refund_amount_cents: 2146, order_refunded_cents: 3390 });
    const approved = await t.api.as(s).post(`/returns/${second.body.return_id}/approve`);
    expect(approved.body).toMatchObject({
      status: 'refunded',
      refund_amount_cents: 2146,
      order_refunded_cents: 5536,
    });

    const rows = await refundRows(database, orderId);
    expect(rows.map((r) => r.amountCents).sort()).toEqual([2146, 3390]);
    expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents).toBe(5536);
    expectError(
      await requestReturn(b, { order_id: orderId, reason: 'damaged' }),
      'CONFLICT',
      409,
      `Order ${orderId} has been refunded in full: there is nothing left to refund`,
    );
  });
});

describe('each unit is refunded once', () => {
  it('the same line returned five times, one after the other and then five at once: one refund', async () => {
    const {
      buyer: b,
      seller: s,
      products,
      orderId,
    } = await deliveredOrderOf(t, [
      { priceCents: 1000, quantity: 1 },
      { priceCents: 9000, quantity: 1 },
    ]);
    const cheap = products[0]!;
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) {
      const asked = await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [cheap.id] });
      answers.push(asked.status);
      if (asked.status === 201) await t.api.as(s).post(`/returns/${asked.body.return_id}/approve`);
    }
    expect(answers).toEqual([201, 409, 409, 409, 409]);
    const atOnce = await Promise.all(
      Array.from({ length: 5 }, () =>
        requestReturn(b, { order_id: orderId, reason: 'damaged', items: [cheap.id] }),
      ),
    );
    expect(atOnce.map((r) => r.status)).toEqual([409, 409, 409, 409, 409]);
    const rows = await refundRows(database, orderId);
    // 10.00 of 100.00 items, tax 13% of its share: 1000 + round(1417 × 1000 / 10899) = 1130.
    expect(rows.map((r) => r.amountCents)).toEqual([1130]);
  });
});

describe('one open return per order', () => {
  it('refuses a second open return (409); after a rejection a new one may be requested', async () => {
    const { buyer: b, seller: s, orderId } = await deliveredOrder(t, { quantity: 2 });
    const first = await requestReturn(b, { order_id: orderId, reason: 'damaged' });
    expect(first.status).toBe(201);
    expectError(
      await requestReturn(b, { order_id: orderId, reason: 'other' }),
      'CONFLICT',
      409,
      `Order ${orderId} already has an open return (${first.body.return_id}, pending): wait for the seller's decision`,
    );
    const rejected = await t.api
      .as(s)
      .post(`/returns/${first.body.return_id}/reject`, { note: 'The seal is broken' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      note: 'The seal is broken',
      decided_at: unixNow(),
      refund_amount_cents: null,
    });
    const again = await requestReturn(b, { order_id: orderId, reason: 'other' });
    expect(again.status).toBe(201);
    expect(again.body.return_id).not.toBe(first.body.return_id);
    // Deciding twice: only a pending return can be decided.
    expectError(
      await t.api.as(s).post(`/returns/${first.body.return_id}/approve`),
      'CONFLICT',
      409,
      `Return ${first.body.return_id} is rejected: only a pending return can be decided`,
    );
  });

  it('two concurrent requests make one return: one 201, one 409', async () => {
    const { buyer: b, orderId } = await deliveredOrder(t, { quantity: 2 });
    const answers = await Promise.all([
      requestReturn(b, { order_id: orderId, reason: 'damaged' }),
      requestReturn(b, { order_id: orderId, reason: 'wrong_item' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ code: 'CONFLICT', statusCode: 409 });
    expect(await database.db.select().from(returns).where(eq(returns.orderId, orderId))).toHaveLength(1);
  });

  it('marks the order refundRequested', async () => {
    const { buyer: b, orderId } = await deliveredOrder(t, { quantity: 2 });
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundRequested).toBe(false);
    await requestReturn(b, { order_id: orderId, reason: 'damaged' });
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body.refundRequested).toBe(true);
  });
});

describe('input and ownership', () => {
  it('answers 404 for an unknown, malformed or another buyer’s order; 400 for foreign or repeated items', async () => {
    const { buyer: b, orderId, product: p } = await deliveredOrder(t, { quantity: 2 });
    const other = await buyer(t.api);
    expectError(
      await requestReturn(other, { order_id: orderId, reason: 'damaged' }),
      'NOT_FOUND',
      404,
      `Order ${orderId} not found`,
    );
    expectError(
      await requestReturn(b, { order_id: 'orders:nope', reason: 'damaged' }),
      'NOT_FOUND',
      404,
      'Order orders:nope not found',
    );
    expectError(
      await requestReturn(b, { order_id: 'x', reason: 'damaged' }),
      'NOT_FOUND',
      404,
      'Order x not found',
    );
    const foreign = await t.api.as(b).post('/returns', {
      order_id: orderId,
      reason: 'damaged',
      items: [p.id, 'products:elsewhere'],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({
      error: `Not products of order ${orderId}: products:elsewhere`,
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'items', message: `must be products of order ${orderId}` }],
    });
    expectInvalid(await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [p.id, p.id] }), [
      { field: 'items', message: 'must not name a product twice' },
    ]);
    expectInvalid(await requestReturn(b, { order_id: orderId, reason: 'damaged', items: [] }), [
      {
        field: 'items',
        message: 'must name at least one product; leave items out to return the whole order',
      },
    ]);
    expectInvalid(await requestReturn(b, { order_id: orderId, reason: 'broken' }), [
      { field: 'reason', message: 'must be one of damaged, wrong_item, not_as_described, other' },
    ]);
    expect(await database.db.select().from(returns).where(eq(returns.orderId, orderId))).toEqual([]);
  });

  it('shows a return to its buyer, its seller and admins only; lists are own, newest first, paginated', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 20 });
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await requestedReturn(t, { seller: s, buyer: b, product: p, reason: 'other' })).returnId);
      t.clock.advance(1);
    }
    const [oldest, middle, newest] = made as [string, string, string];
    const page = await t.api.as(b).get('/returns?limit=2&offset=0');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.returns.map((r: { return_id: string }) => r.return_id)).toEqual([newest, middle]);
    const next = await t.api.as(b).get('/returns?limit=2&offset=2');
    expect(next.body.returns.map((r: { return_id: string }) => r.return_id)).toEqual([oldest]);

    expect((await t.api.as(b).get(`/returns/${oldest}`)).body.return_id).toBe(oldest);
    expect((await t.api.as(s).get(`/returns/${oldest}`)).status).toBe(200);
    expect((await t.api.as(adm).get(`/returns/${oldest}`)).status).toBe(200);
    const stranger = await buyer(t.api);
    expectError(
      await t.api.as(stranger).get(`/returns/${oldest}`),
      'NOT_FOUND',
      404,
      `Return ${oldest} not found`,
    );
    expectError(await t.api.as(await seller(t.api)).get(`/returns/${oldest}`), 'NOT_FOUND', 404);
    expectError(await t.api.as(b).get('/returns/returns:unknown'), 'NOT_FOUND', 404);
    expect((await t.api.as(stranger).get('/returns')).body).toEqual({
      returns: [],
      total: 0,
      limit: 20,
      offset: 0,
    });

    await t.api.as(s).post(`/returns/${middle}/reject`, { note: 'No' });
    const sellers = await t.api.as(s).get('/sellers/me/returns');
    expect(sellers.body.total).toBe(3);
    expect(sellers.body.returns.map((r: { return_id: string }) => r.return_id)).toEqual([
      newest,
      middle,
      oldest,
    ]);
    const pending = await t.api.as(s).get('/sellers/me/returns?status=pending');
    expect(pending.body).toMatchObject({ total: 2 });
    expect(pending.body.returns.map((r: { return_id: string }) => r.return_id)).toEqual([newest, oldest]);
    expect((await t.api.as(await seller(t.api)).get('/sellers/me/returns')).body.total).toBe(0);
    expectError(await t.api.as(b).get('/sellers/me/returns'), 'AUTHZ_ERROR', 403);
  });
});

describe('deciding', () => {
  it('another seller gets 404, the buyer 403; nothing changes', async () => {
    const { buyer: b, orderId, returnId: id } = await requestedReturn(t, { quantity: 2 });
    const other = await seller(t.api);
    expectError(
      await t.api.as(other).post(`/returns/${id}/approve`),
      'NOT_FOUND',
      404,
      `Return ${id} not found`,
    );
    expectError(
      await t.api.as(other).post(`/returns/${id}/reject`, { note: 'No' }),
      'NOT_FOUND',
      404,
      `Return ${id} not found`,
    );
    expectError(await t.api.as(b).post(`/returns/${id}/approve`), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(b).post(`/returns/${id}/reject`, { note: 'No' }), 'AUTHZ_ERROR', 403);
    expect((await t.api.as(b).get(`/returns/${id}`)).body.status).toBe('pending');
    expect(await refundRows(database, orderId)).toEqual([]);
  });

  it('a rejection needs a note and emails the buyer', async () => {
    const { buyer: b, seller: s, orderId, returnId } = await requestedReturn(t, { quantity: 2 });
    expectInvalid(await t.api.as(s).post(`/returns/${returnId}/reject`, { note: '  ' }), [
      { field: 'note', message: 'must say why the return is rejected' },
    ]);
    const rejected = await t.api.as(s).post(`/returns/${returnId}/reject`, { note: 'Outside <b>policy</b>' });
    expect(rejected.body.message).toBe(
      'Not accepted by the seller (see note). You may request a new return of this order while its return window is open.',
    );
    const [mail] = await outboxRows(database, `return-rejected:${returnId}`);
    expect(mail).toMatchObject({ toAddress: b.email, kind: 'return-rejected' });
    expect(mail!.textBody).toContain('Reason given: Outside <b>policy</b>');
    expect(mail!.htmlBody).toContain('Outside &#60;b&#62;policy&#60;/b&#62;');
    expect(await refundRows(database, orderId)).toEqual([]);
  });

  it('an admin can approve; approval refunds through the provider and the return becomes refunded', async () => {
    const { buyer: b, seller: s, product: p, orderId } = await deliveredOrder(t, { quantity: 2 });
    const stockBefore = await stockOf(database, p.id);
    const r = await requestReturn(b, { order_id: orderId, reason: 'damaged' });
    const id = r.body.return_id;
    const approved = await t.api.as(adm).post(`/returns/${id}/approve`, { note: 'Sorry about that' });
    expect(approved.status).toBe(200);
    const now = unixNow();
    expect(approved.body).toEqual({
      ...r.body,
      status: 'refunded',
      message: 'Refunded: $55.36 went back to your original payment method.',
      refund_amount_cents: 5536,
      order_refunded_cents: 5536,
      note: 'Sorry about that',
      decided_at: now,
      refunded_at: now,
    });
    expect((await t.api.as(s).get(`/returns/${id}`)).body).toEqual(approved.body);

    const [refund] = await refundRows(database, orderId);
    expect(refund).toMatchObject({
      amountCents: 5536,
      status: 'succeeded',
      reason: 'return',
      returnId: id,
      attempts: 1,
      providerRefundId: expect.stringMatching(/^re_sandbox/),
    });
    const [row] = await database.db.select().from(returns).where(eq(returns.id, id));
    expect(row).toMatchObject({ refundId: refund!.id, decidedBy: adm.id });
    expect((await t.api.as(b).get(`/orders/${orderId}`)).body).toMatchObject({
      status: 'delivered',
      refundedCents: 5536,
      refundRequested: true,
    });
    // A refunded return does not restock: the seller adjusts stock after inspecting it.
    expect(await stockOf(database, p.id)).toEqual(stockBefore);

    const approvedMail = await outboxRows(database, `return-approved:${id}`);
    expect(approvedMail).toHaveLength(1);
    expect(approvedMail[0]).toMatchObject({
      toAddress: b.email,
      subject: expect.stringMatching(/^Your return of Cedar box \S+ is approved$/),
    });
    expect(approvedMail[0]!.textBody).toContain(`Return number ${id}, order number `);
    expect(approvedMail[0]!.textBody).toContain('A refund of $55.36 is on its way');
    expect(approvedMail[0]!.textBody).toContain('Note from the seller: Sorry about that');
    const refundedMail = await outboxRows(database, `return-refunded:${id}`);
    expect(refundedMail).toHaveLength(1);
    expect(refundedMail[0]).toMatchObject({
      subject: expect.stringMatching(/^Refund of \$55\.36 for your return of Cedar box \S+$/),
    });
    expect(refundedMail[0]!.textBody).toContain('We refunded $55.36');
    expect(refundedMail[0]!.htmlBody).toContain('<li>2 × ');
    // One email about the money: the generic refund email is not written for a return's refund.
    expect(await outboxRows(database, `refund:${refund!.id}`)).toEqual([]);

    // Approved and refunded: decided, and the return is closed (a new one may follow).
    expectError(await t.api.as(s).post(`/returns/${id}/approve`), 'CONFLICT', 409);
    expect(await database.db.select().from(refunds).where(eq(refunds.returnId, id))).toHaveLength(1);
  });
});
