// Returns as a workflow (issue 43): a buyer returns some units of a line; the seller approves with
// instructions to send them back (no refund yet, the buyer's email says how), marks the parcel
// received and puts some units back on sale, and then the refund goes; receipts raced; refusals
// of units and restocks; a return left pending past two business days escalated to the admins,
// who see it in their queue. The pages: the buyer's units, the seller's ask and receive forms.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { refunds } from '../src/modules/payments/tables.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid, seller } from './helpers/builders.ts';
import { deliveredOrder, outboxRows, requestedReturn, setClock, signIn, stockOf } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

const FRIDAY = '2026-11-27T15:00:00.000Z';
const INSTRUCTIONS = 'Send it to 12 Rue du Port, Québec QC G1K 4E4, tracked. Keep the receipt.';

beforeEach(() => {
  setClock(t, FRIDAY);
});

const refundsOf = (returnId: string) =>
  database.db.select().from(refunds).where(eq(refunds.returnId, returnId));

/** Three units of one $20.00 product (stock 10) delivered; its buyer returns `units` of them. */
async function threeDelivered(units?: number) {
  const d = await deliveredOrder(t, { quantity: 3, stock: 10 });
  const variant = d.product.variants[0]!.id;
  const asked = await t.api.as(d.buyer).post('/returns', {
    order_id: d.orderId,
    reason: 'not_as_described',
    items: [d.product.id],
    ...(units === undefined ? {} : { quantities: { [d.product.id]: units } }),
  });
  expect(asked.status, JSON.stringify(asked.body)).toBe(201);
  return { ...d, variant, returnId: asked.body.return_id as string, asked: asked.body };
}

describe('sent back, then received', () => {
  it('approve with instructions waits for the parcel; receipt restocks what the seller says, then refunds', async () => {
    const r = await threeDelivered(2);
    expect(r.asked).toMatchObject({
      whole_order: false,
      lines: [{ id: r.variant, product_id: r.product.id, name: r.product.title, quantity: 2 }],
    });
    const estimate = r.asked.estimated_refund_amount_cents;
    // 2 of 3 units at $20.00 with their HST, no shipping: 2 × 2000 × 1.13.
    expect(estimate).toBe(4520);

    const asked = await t.api
      .as(r.seller)
      .post(`/returns/${r.returnId}/approve`, { instructions: INSTRUCTIONS });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body).toMatchObject({
      status: 'awaiting_parcel',
      instructions: INSTRUCTIONS,
      refund_amount_cents: null,
      order_refunded_cents: 0,
      decided_at: expect.any(Number),
      received_at: null,
      message:
        'Approved: send the items back as the seller says (see instructions); $45.20 is refunded once they arrive.',
    });
    expect(await refundsOf(r.returnId)).toEqual([]);
    const [mail] = await outboxRows(database, `return-approved:${r.returnId}`);
    expect(mail!.textBody).toContain(`How to send them back: ${INSTRUCTIONS}`);
    expect(mail!.textBody).toContain(
      'about $45.20 is refunded to your original payment method once they arrive',
    );

    // Received: one of the two goes back on sale; the refund follows (the sandbox confirms at once).
    const before = await stockOf(database, r.variant);
    const received = await t.api
      .as(r.seller)
      .post(`/returns/${r.returnId}/receive`, { restock: { [r.variant]: 1 } });
    expect(received.status, JSON.stringify(received.body)).toBe(200);
    expect(received.body).toMatchObject({
      status: 'refunded',
      restocked: { [r.variant]: 1 },
      received_at: expect.any(Number),
      refund_amount_cents: 4520,
      order_refunded_cents: 4520,
    });
    expect(await stockOf(database, r.variant)).toEqual({ ...before, stock: before.stock + 1 });
    expect(await refundsOf(r.returnId)).toEqual([
      expect.objectContaining({ amountCents: 4520, status: 'succeeded' }),
    ]);

    // Once is all: a second receipt is 409, nothing moves.
    expectError(
      await t.api.as(r.seller).post(`/returns/${r.returnId}/receive`, {}),
      'CONFLICT',
      409,
      'Only an awaiting_parcel return can be received; this one is refunded',
    );
    expect(await stockOf(database, r.variant)).toEqual({ ...before, stock: before.stock + 1 });

    // The last unit: completes the order, so what is left of it (shipping included) goes back.
    const rest = await t.api
      .as(r.buyer)
      .post('/returns', { order_id: r.orderId, reason: 'other', items: [r.product.id] });
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body).toMatchObject({ whole_order: true, lines: [{ id: r.variant, quantity: 1 }] });
    expect(rest.body.estimated_refund_amount_cents).toBe(r.order.totalAmountCents - 4520);
  });

  it('refuses units beyond what is left, a line not named, and restocks beyond what came back', async () => {
    const d = await deliveredOrder(t, { quantity: 2, stock: 10 });
    expectInvalid(
      await t.api.as(d.buyer).post('/returns', {
        order_id: d.orderId,
        reason: 'other',
        items: [d.product.id],
        quantities: { [d.product.id]: 3 },
      }),
      [{ field: `quantities.${d.product.id}`, message: 'must be at most 2' }],
    );
    expectInvalid(
      await t.api
        .as(d.buyer)
        .post('/returns', { order_id: d.orderId, reason: 'other', quantities: { [d.product.id]: 1 } }),
      [{ field: `quantities.${d.product.id}`, message: 'must name one line of the order among the items' }],
    );
    const r = await t.api.as(d.buyer).post('/returns', { order_id: d.orderId, reason: 'other' });
    await t.api.as(d.seller).post(`/returns/${r.body.return_id}/approve`, { instructions: 'Mail it back.' });
    const line = d.product.variants[0]!.id;
    expectInvalid(
      await t.api.as(d.seller).post(`/returns/${r.body.return_id}/receive`, { restock: { [line]: 3 } }),
      [{ field: `restock.${line}`, message: 'must be at most 2' }],
    );
    expectInvalid(
      await t.api
        .as(d.seller)
        .post(`/returns/${r.body.return_id}/receive`, { restock: { 'variants:nope': 1 } }),
      [{ field: 'restock.variants:nope', message: 'must be a line of this return' }],
    );
    // Its buyer may not mark it received; another seller does not see it.
    expectError(await t.api.as(d.buyer).post(`/returns/${r.body.return_id}/receive`, {}), 'AUTHZ_ERROR', 403);
    expectError(
      await t.api.as(await seller(t.api)).post(`/returns/${r.body.return_id}/receive`, {}),
      'NOT_FOUND',
      404,
    );
    // A pending return cannot be received.
    const other = await requestedReturn(t, {});
    expectError(
      await t.api.as(other.seller).post(`/returns/${other.returnId}/receive`, {}),
      'CONFLICT',
      409,
      'Only an awaiting_parcel return can be received; this one is pending',
    );
  });

  it('two receipts at once: one applies, the stock and the refund move once', async () => {
    const r = await threeDelivered();
    await t.api.as(r.seller).post(`/returns/${r.returnId}/approve`, { instructions: 'Mail it back.' });
    const before = await stockOf(database, r.variant);
    const answers = await Promise.all(
      [0, 1].map(() =>
        t.api.as(r.seller).post(`/returns/${r.returnId}/receive`, { restock: { [r.variant]: 3 } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await stockOf(database, r.variant)).toEqual({ ...before, stock: before.stock + 3 });
    expect(await refundsOf(r.returnId)).toHaveLength(1);
  });
});

describe('escalation', () => {
  it('a return pending at the end of two business days goes to the admins; the seller can still decide', async () => {
    const r = await requestedReturn(t, {}); // asked on Friday
    const boss = await admin(t.api, database);
    const queue = async () => {
      const res = await t.api.as(await signIn(t.api, boss)).get('/admin/returns/escalated');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.returns.map((x: { return_id: string }) => x.return_id) as string[];
    };
    // Tuesday 17:00 in Toronto: the second business day (Monday, Tuesday) has not ended.
    setClock(t, '2026-12-01T22:00:00.000Z');
    await t.app.jobs.runOnce('returns-escalation');
    expect(await queue()).not.toContain(r.returnId);
    // Wednesday: escalated, once.
    setClock(t, '2026-12-02T15:00:00.000Z');
    await t.app.jobs.runOnce('returns-escalation');
    await t.app.jobs.runOnce('returns-escalation');
    expect(await queue()).toContain(r.returnId);
    const seen = await t.api.as(await signIn(t.api, r.seller)).get(`/returns/${r.returnId}`);
    expect(seen.body).toMatchObject({
      status: 'pending',
      escalated_at: Date.parse('2026-12-02T15:00:00.000Z') / 1000,
    });
    // The desk's queue shows it; the admin asks for the items back there: out of the queue.
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const page = await desk.get('/desk/returns');
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(r.orderId);
    const refused = await desk.post(`/desk/returns/${encodeURIComponent(r.returnId)}/ask`, {
      instructions: '',
    });
    expect(refused.status).toBe(400);
    const asked = await desk.post(`/desk/returns/${encodeURIComponent(r.returnId)}/ask`, {
      instructions: 'Mail it back.',
    });
    expect(asked.url).toBe('/desk/returns?done=asked');
    expect(textOf(asked.html)).toContain('The buyer is asked to send the items back.');
    expect(await queue()).not.toContain(r.returnId);
    expect((await t.api.as(await signIn(t.api, r.seller)).get(`/returns/${r.returnId}`)).body).toMatchObject({
      status: 'awaiting_parcel',
      instructions: 'Mail it back.',
    });
    const b = await buyer(t.api);
    expectError(await t.api.as(b).get('/admin/returns/escalated'), 'AUTHZ_ERROR', 403);
  });
});

describe('a parcel that never comes', () => {
  it('is escalated 15 business days after it was asked for; the admin refunds the buyer from the desk', async () => {
    const r = await requestedReturn(t, {}); // Friday November 27
    await t.api.as(r.seller).post(`/returns/${r.returnId}/approve`, { instructions: 'Mail it back.' });
    const boss = await admin(t.api, database);
    // 15 business days after Friday November 27 is Friday December 18: escalated the day after.
    setClock(t, '2026-12-18T20:00:00.000Z');
    await t.app.jobs.runOnce('returns-escalation');
    expect(
      (await t.api.as(await signIn(t.api, boss)).get(`/returns/${r.returnId}`)).body.escalated_at,
    ).toBeNull();
    setClock(t, '2026-12-19T15:00:00.000Z');
    await t.app.jobs.runOnce('returns-escalation');
    const desk = new Browser(t.app);
    await desk.signIn(await signIn(t.api, boss));
    const page = await desk.get('/desk/returns');
    expect(textOf(page.html)).toContain('You asked: Mail it back.');
    const refunded = await desk.post(`/desk/returns/${encodeURIComponent(r.returnId)}/receive`, {});
    expect(refunded.url).toBe('/desk/returns?done=received');
    expect(textOf(refunded.html)).toContain('The buyer is refunded.');
    expect((await t.api.as(await signIn(t.api, boss)).get(`/returns/${r.returnId}`)).body).toMatchObject({
      status: 'refunded',
      restocked: { [r.product.variants[0]!.id]: 0 },
    });
  });
});

describe('the pages', () => {
  it('the buyer returns one unit of three; the seller asks for it back, then receives it', async () => {
    const d = await deliveredOrder(t, { quantity: 3, stock: 10 });
    const shopper = new Browser(t.app);
    await shopper.signIn(d.buyer);
    const page = await shopper.get(`/account/orders/${encodeURIComponent(d.orderId)}`);
    const variant = d.product.variants[0]!.id;
    expect(page.html).toContain(`name="quantity.${variant}"`);
    const sent = await shopper.post(`/account/orders/${encodeURIComponent(d.orderId)}/return`, {
      reason: 'damaged',
      line: variant,
      [`quantity.${variant}`]: '1',
    });
    expect(sent.status, textOf(sent.html).slice(0, 400)).toBe(200);
    const [asked] = (await t.api.as(d.buyer).get('/returns')).body.returns;
    expect(asked).toMatchObject({
      order_id: d.orderId,
      lines: [{ id: variant, quantity: 1 }],
      whole_order: false,
    });

    const console = new Browser(t.app);
    await console.signIn(d.seller);
    await console.get('/console/returns');
    const empty = await console.post(`/console/returns/${encodeURIComponent(asked.return_id)}/ask`, {
      instructions: '',
    });
    expect(empty.status).toBe(400);
    const ok = await console.post(`/console/returns/${encodeURIComponent(asked.return_id)}/ask`, {
      instructions: 'Mail it back.',
    });
    expect(ok.url).toBe('/console/returns?done=asked');
    expect(textOf(ok.html)).toContain('You asked: Mail it back.');
    expect(ok.html).toContain(`name="restock.0.${variant}" type="number" value="1"`);
    const before = await stockOf(database, variant);
    const received = await console.post(`/console/returns/${encodeURIComponent(asked.return_id)}/receive`, {
      [`restock.0.${variant}`]: '0',
    });
    expect(received.url).toBe('/console/returns?done=received');
    expect(textOf(received.html)).toContain('The parcel is received; the refund is on its way.');
    expect(await stockOf(database, variant)).toEqual(before);
    expect((await t.api.as(d.seller).get(`/returns/${asked.return_id}`)).body).toMatchObject({
      status: 'refunded',
      restocked: { [variant]: 0 },
    });
  });
});
