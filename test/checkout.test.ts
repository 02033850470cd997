// Checkout over HTTP on a real database: the address rules, exact amounts (the cart's estimate
// equals the checkout to the cent), reservations, the open session reused, the sandbox payment
// through the signed webhook, and the provider failing.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { reservations } from '../src/modules/inventory/tables.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS, openCheckout, pay, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { filledCart, stockOf as stockOfProduct } from './helpers/orders.ts';

const { t, database } = useTestApp();

const stockOf = (productId: string) => stockOfProduct(database, productId);

/** A buyer with one unit of a fresh $25.00 product in the cart. */
const buyerWithCart = (stock = 10) => filledCart(t, { fields: { priceCents: 2500 }, stock });

describe('POST /checkout: the address', () => {
  const cases: Array<[string, Record<string, unknown>, { field: string; message: string }]> = [
    [
      'a lower-case postal code',
      { postalCode: 'm5h 2n2' },
      {
        field: 'shipping_address.postalCode',
        message: 'must look like A1A 1A1: upper-case letters, one space in the middle',
      },
    ],
    [
      'a postal code without its space',
      { postalCode: 'M5H2N2' },
      {
        field: 'shipping_address.postalCode',
        message: 'must look like A1A 1A1: upper-case letters, one space in the middle',
      },
    ],
    [
      "a postal code of another province's letters",
      { postalCode: 'H3A 3G4' },
      {
        field: 'shipping_address.postalCode',
        message: 'postal codes in ON start with K or L or M or N or P',
      },
    ],
    [
      'a phone without +1',
      { phone: '4165550123' },
      { field: 'shipping_address.phone', message: 'must be +1 followed by 10 digits (E.164)' },
    ],
    [
      'a phone of 9 digits',
      { phone: '+1416555012' },
      { field: 'shipping_address.phone', message: 'must be +1 followed by 10 digits (E.164)' },
    ],
    [
      'a country other than CA',
      { country: 'US' },
      { field: 'shipping_address.country', message: 'must be CA: Portage ships within Canada only' },
    ],
    [
      'a province not in the list',
      { province: 'XX' },
      {
        field: 'shipping_address.province',
        message: 'must be one of ON, BC, AB, MB, SK, NS, NB, PE, NL, QC, YT, NT, NU',
      },
    ],
    ['an empty street', { street: '  ' }, { field: 'shipping_address.street', message: 'must not be empty' }],
  ];

  it.each(cases)(
    'refuses %s with 400 naming the field, and holds nothing',
    async (_name, change, problem) => {
      const { buyer: b, product: p } = await buyerWithCart();
      const res = await checkout(t.api, b, { shipping_address: { ...ON_ADDRESS, ...change } });
      expectInvalid(res, [problem]);
      expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 0 });
    },
  );

  it('refuses a missing address and a missing phone', async () => {
    const { buyer: b } = await buyerWithCart();
    expectInvalid(await checkout(t.api, b, {}), [{ field: 'shipping_address', message: 'is required' }]);
    const { phone: _phone, ...noPhone } = ON_ADDRESS;
    expectInvalid(await checkout(t.api, b, { shipping_address: noPhone }), [
      { field: 'shipping_address.phone', message: 'is required' },
    ]);
  });

  it('takes each province with its own letters, Nunavut and the Northwest Territories sharing X', async () => {
    for (const [province, postalCode] of [
      ['NU', 'X0A 0H0'],
      ['NT', 'X1A 2P7'],
      ['YT', 'Y1A 1A1'],
      ['BC', 'V6B 1A1'],
    ]) {
      const { buyer: b } = await buyerWithCart();
      const res = await checkout(t.api, b, { shipping_address: { ...ON_ADDRESS, province, postalCode } });
      expect(res.status, `${province}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });
});

describe('POST /checkout: refusals', () => {
  it('refuses an empty cart with 409', async () => {
    const b = await buyer(t.api);
    expectError(
      await checkout(t.api, b),
      'CONFLICT',
      409,
      'Your cart is empty: add products before checking out',
    );
  });

  it('is for buyers: a seller gets 403, nobody signed in 401', async () => {
    const s = await seller(t.api);
    expectError(await checkout(t.api, s), 'AUTHZ_ERROR', 403);
    expectError(await t.api.post('/checkout', { shipping_address: ON_ADDRESS }), 'AUTH_ERROR', 401);
  });

  it('refuses a perishable item leaving its seller province, naming it, and holds nothing', async () => {
    const s = await seller(t.api, 'BC');
    const p = await product(t.api, s, { title: 'Fresh spot prawns', isPerishable: true, stockQuantity: 4 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 1);
    const res = await checkout(t.api, b);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      error: expect.stringContaining('Fresh spot prawns'),
    });
    expect(await stockOf(p.id)).toEqual({ stock: 4, reserved: 0 });
    const bc = await checkout(t.api, b, {
      shipping_address: { ...ON_ADDRESS, province: 'BC', postalCode: 'V6B 1A1' },
    });
    expect(bc.status).toBe(201);
  });

  it('refuses an unknown coupon given at checkout with 404, and a coupon whose minimum is not met with 409', async () => {
    const a = await admin(t.api, database);
    const { buyer: b } = await buyerWithCart();
    expectError(
      await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: 'NOPE-NOT-HERE' }),
      'NOT_FOUND',
      404,
    );
    const c = await coupon(t.api, a, { discountPercent: 10, minSubtotalCents: 100_000 });
    const res = await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: c.code });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('needs a subtotal of at least $1000.00');
  });

  it('answers 409 naming what is short when the stock is gone, and holds nothing', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Birch canoe paddle', stockQuantity: 3 });
    const q = await product(t.api, s, { stockQuantity: 5 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 3);
    await addToCart(t.api, b, q.id, 2);
    const other = await buyer(t.api);
    await addToCart(t.api, other, p.id, 2);
    await openCheckout(t.api, other);
    const res = await checkout(t.api, b);
    expectError(
      res,
      'CONFLICT',
      409,
      `Only 1 left of Birch canoe paddle (${p.id}); your cart has 3. Change the cart and check out again`,
    );
    expect(await stockOf(q.id)).toEqual({ stock: 5, reserved: 0 });
    expect(await stockOf(p.id)).toEqual({ stock: 3, reserved: 2 });
  });

  // A checkout's products are held in id order, all at once; a hold that lapsed (the job has not
  // given it back yet) stands in the way of one of them: that one is taken back from the lapsed
  // hold, and every product after it is held too.
  for (const lapsedAt of ['first', 'last'] as const) {
    it(`takes the units of a lapsed hold the job has not released yet (the ${lapsedAt} product of three)`, async () => {
      const s = await seller(t.api);
      const made = await Promise.all([1, 2, 3].map(() => product(t.api, s, { stockQuantity: 2 })));
      const ids: string[] = made.map((p) => p.id).sort();
      const gone = lapsedAt === 'first' ? ids[0]! : ids[2]!;
      const early = await buyer(t.api);
      await addToCart(t.api, early, gone, 2);
      const lapsed = await openCheckout(t.api, early);
      t.clock.advance(31 * 60);

      const b = await buyer(t.api);
      for (const id of ids) await addToCart(t.api, b, id, id === gone ? 2 : 1);
      const res = await checkout(t.api, b);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      for (const id of ids) expect(await stockOf(id)).toEqual({ stock: 2, reserved: id === gone ? 2 : 1 });
      const held = await database.db
        .select({ productId: reservations.variantId, released: reservations.releasedAt })
        .from(reservations)
        .where(eq(reservations.checkoutId, lapsed.sessionId));
      expect(held).toEqual([{ productId: gone, released: expect.any(Date) }]);
      await payOk(t.api, res.body.sessionId);
      for (const id of ids) expect(await stockOf(id)).toEqual({ stock: id === gone ? 0 : 1, reserved: 0 });
    });
  }
});

describe('POST /checkout: the session', () => {
  it('answers the spec fields, holds the stock 30 minutes, and creates no order', async () => {
    t.clock.freeze();
    const { buyer: b, product: p } = await buyerWithCart();
    const res = await checkout(t.api, b);
    expect(res.status).toBe(201);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(res.body).toMatchObject({
      sessionId: expect.stringMatching(/^checkouts:/),
      sessionUrl: `http://portage.test/sandbox/checkout/${encodeURIComponent(res.body.sessionId)}`,
      clientSecret: expect.stringMatching(/^cs_sandbox_\w+_secret_\w+$/),
      publishableKey: 'pk_sandbox_portage',
      subtotalCents: 2500,
      shippingCostCents: 899,
      discountCents: 0,
      taxAmountCents: 442,
      totalCents: 3841,
      status: 'ready_for_payment',
      paymentMethods: ['card', 'apple_pay', 'google_pay', 'klarna'],
      expiresAt: now + 1800,
      orderIds: [],
      orderNumbers: [],
    });
    expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 1 });
    const inv = await t.api.as(b).get(`/products/${p.id}/inventory?quantity=10`);
    expect(inv.body).toMatchObject({ available: false, stock_quantity: 9 });
    const orders = await t.api.as(b).get('/orders');
    expect(orders.body.total).toBe(0);
    const got = await t.api.as(b).get(`/checkout/${res.body.sessionId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('gives an unchanged cart its open session back (200), and a changed cart a new one that ends the old', async () => {
    const { buyer: b, product: p } = await buyerWithCart();
    const first = await checkout(t.api, b);
    const again = await checkout(t.api, b);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 1 });

    await addToCart(t.api, b, p.id, 2);
    const changed = await checkout(t.api, b);
    expect(changed.status).toBe(201);
    expect(changed.body.sessionId).not.toBe(first.body.sessionId);
    expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 3 });
    const old = await t.api.as(b).get(`/checkout/${first.body.sessionId}`);
    expect(old.body.status).toBe('expired');
    expectError(await pay(t.api, first.body.sessionId), 'CONFLICT', 409);

    const otherAddress = await checkout(t.api, b, { shipping_address: QC_ADDRESS });
    expect(otherAddress.status).toBe(201);
    expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 3 });
  });

  it("is another buyer's 404", async () => {
    const { buyer: b } = await buyerWithCart();
    const session = await openCheckout(t.api, b);
    const other = await buyer(t.api);
    expectError(
      await t.api.as(other).get(`/checkout/${session.sessionId}`),
      'NOT_FOUND',
      404,
      `Checkout session ${session.sessionId} not found`,
    );
    expectError(await t.api.as(other).get('/checkout/checkouts:nope'), 'NOT_FOUND', 404);
  });
});

describe('exact amounts: two sellers, a coupon, to ON and to QC', () => {
  // Seller A ships from ON: 2 x $40.00 (1 kg). Seller B ships from QC: 1 x $15.50 (2 kg).
  // Coupon 7% of $95.50 = $6.685 -> $6.69, split by largest remainder: A $5.60, B $1.09.
  it('charges what the cart estimated, to the cent, tax per parcel', async () => {
    const a = await admin(t.api, database);
    const sa = await seller(t.api, 'ON');
    const sb = await seller(t.api, 'QC');
    const pa = await product(t.api, sa, { priceCents: 4000, stockQuantity: 20, weight: 1 });
    const pb = await product(t.api, sb, { priceCents: 1550, stockQuantity: 20, weight: 2 });
    const c = await coupon(t.api, a, { discountPercent: 7 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, pa.id, 2);
    await addToCart(t.api, b, pb.id, 1);
    expect((await t.api.as(b).post('/cart/coupon', { code: c.code })).status).toBe(200);

    // To ON. A: 8000 - 560 + free shipping = 7440, HST 13% 967.2 -> 967. B: 1550 - 109 + 1299
    // (another province) = 2740, HST 356.2 -> 356.
    const cart = (await t.api.as(b).get('/cart')).body;
    expect(cart).toMatchObject({ taxProvince: 'ON', totalAmountCents: 11503 });
    const on = await openCheckout(t.api, b, ON_ADDRESS);
    expect(on).toMatchObject({
      subtotalCents: 9550,
      discountCents: 669,
      shippingCostCents: 1299,
      taxAmountCents: 1323,
      totalCents: 11503,
      coupon: c.code,
      taxLines: [{ name: 'HST', ratePercent: 13, amountCents: 1323 }],
    });
    expect(on.totalCents).toBe(cart.totalAmountCents);
    expect(on.parcels.map((p: { discountCents: number }) => p.discountCents).sort()).toEqual([109, 560]);

    // To QC. A (ON -> QC): 7440, GST 372, QST 9.975% 742.14 -> 742. B (QC -> QC, $8.99): 2340,
    // GST 117, QST 233.415 -> 233.
    const qc = await openCheckout(t.api, b, QC_ADDRESS);
    expect(qc).toMatchObject({
      subtotalCents: 9550,
      discountCents: 669,
      shippingCostCents: 899,
      taxAmountCents: 1464,
      totalCents: 11244,
      taxLines: [
        { name: 'GST', ratePercent: 5, amountCents: 489 },
        { name: 'QST', ratePercent: 9.975, amountCents: 975 },
      ],
    });
    const orderIds = await payOk(t.api, qc.sessionId);
    expect(orderIds).toHaveLength(2);
    const orders = await Promise.all(orderIds.map((id) => t.api.as(b).get(`/orders/${id}`)));
    expect(orders.map((o) => o.body.totalAmountCents).reduce((x, y) => x + y)).toBe(11244);
    const bySeller = Object.fromEntries(orders.map((o) => [o.body.sellerId, o.body]));
    expect(bySeller[sa.id]).toMatchObject({
      subtotalCents: 8000,
      discountCents: 560,
      shippingCostCents: 0,
      taxAmountCents: 1114,
      totalAmountCents: 8554,
      // 2.5% of the items: the platform's coupon is the platform's to pay (docs/api.md "Discounts").
      platformFeeCents: 200,
      sellerDiscountCents: 0,
      platformDiscountCents: 560,
      taxLines: [
        { name: 'GST', ratePercent: 5, amountCents: 372 },
        { name: 'QST', ratePercent: 9.975, amountCents: 742 },
      ],
    });
    expect(bySeller[sb.id]).toMatchObject({
      subtotalCents: 1550,
      discountCents: 109,
      shippingCostCents: 899,
      taxAmountCents: 350,
      totalAmountCents: 2690,
      platformFeeCents: 39,
      sellerDiscountCents: 0,
      platformDiscountCents: 109,
    });

    // The next cart is estimated for the last shipping address's province, QC, and matches again.
    await addToCart(t.api, b, pa.id, 2);
    await addToCart(t.api, b, pb.id, 1);
    await t.api.as(b).post('/cart/coupon', { code: c.code });
    const next = (await t.api.as(b).get('/cart')).body;
    expect(next).toMatchObject({ taxProvince: 'QC', totalAmountCents: 11244 });
    expect((await openCheckout(t.api, b, QC_ADDRESS)).totalCents).toBe(next.totalAmountCents);
  });
});

describe('paying in the sandbox', () => {
  it('declines 4000000000000002 with PAYMENT_PROVIDER_ERROR and keeps the hold; 4242 then pays', async () => {
    const { buyer: b, product: p } = await buyerWithCart(2);
    const session = await openCheckout(t.api, b);
    expectError(
      await pay(t.api, session.sessionId, '4000 0000 0000 0002'),
      'PAYMENT_PROVIDER_ERROR',
      400,
      'Your card was declined (sandbox test card 4000 0000 0000 0002)',
    );
    expect((await t.api.as(b).get('/orders')).body.total).toBe(0);
    expect(await stockOf(p.id)).toEqual({ stock: 2, reserved: 1 });
    expectError(await pay(t.api, session.sessionId, '5555555555554444'), 'PAYMENT_PROVIDER_ERROR', 400);
    const orderIds = await payOk(t.api, session.sessionId);
    expect(await stockOf(p.id)).toEqual({ stock: 1, reserved: 0 });
    // Paying again is the same payment: the same orders, nothing more.
    const again = await pay(t.api, session.sessionId);
    expect(again.body.orderIds).toEqual(orderIds);
    expect(await stockOf(p.id)).toEqual({ stock: 1, reserved: 0 });
    const got = await t.api.as(b).get(`/checkout/${session.sessionId}`);
    expect(got.body).toMatchObject({ status: 'complete', orderIds });
  });

  it('refuses to pay an expired session; the expiry job gave its stock back', async () => {
    const { buyer: b, product: p } = await buyerWithCart(2);
    const session = await openCheckout(t.api, b);
    t.clock.advance(30 * 60 + 1);
    expectError(
      await pay(t.api, session.sessionId),
      'CONFLICT',
      409,
      'This checkout session has expired and its stock was released; check out again',
    );
    await t.app.jobs.runOnce();
    expect(await stockOf(p.id)).toEqual({ stock: 2, reserved: 0 });
    const [row] = await database.db
      .select({ status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, session.sessionId));
    expect(row?.status).toBe('expired');
    // A day after it ended, the expiry job deletes the reservation's row.
    const live = () =>
      database.db.select().from(reservations).where(eq(reservations.checkoutId, session.sessionId));
    expect(await live()).toHaveLength(1);
    t.clock.advance(86_400 + 1);
    await t.app.jobs.runOnce();
    expect(await live()).toHaveLength(0);
    expect(await stockOf(p.id)).toEqual({ stock: 2, reserved: 0 });
  });

  it('shows the payment page with the summary, and not for an unknown session', async () => {
    const { buyer: b } = await buyerWithCart();
    const session = await openCheckout(t.api, b);
    const page = await t.api.get(new URL(session.sessionUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('$38.41');
    expect(page.body).toContain('HST 13%');
    const unknown = await t.api.get('/sandbox/checkout/checkouts:unknown');
    expect(unknown.status).toBe(404);
  });
});

describe('POST /checkout with an Idempotency-Key', () => {
  it('replays the same key and body, refuses it with another body, and runs two at once once', async () => {
    const { buyer: b, product: p } = await buyerWithCart();
    const key = { 'idempotency-key': 'agent-retry-0001' };
    const first = await checkout(t.api, b, { shipping_address: ON_ADDRESS }, key);
    expect(first.status).toBe(201);
    const again = await checkout(t.api, b, { shipping_address: ON_ADDRESS }, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expectError(
      await checkout(t.api, b, { shipping_address: QC_ADDRESS }, key),
      'CONFLICT',
      409,
      'This Idempotency-Key was used with another request',
    );
    expect(await stockOf(p.id)).toEqual({ stock: 10, reserved: 1 });

    const other = await buyerWithCart();
    const both = await Promise.all(
      [1, 2].map(() =>
        checkout(t.api, other.buyer, { shipping_address: ON_ADDRESS }, { 'idempotency-key': 'twice' }),
      ),
    );
    const statuses = both.map((r) => r.status).sort();
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const sessions = new Set(both.filter((r) => r.status === 201).map((r) => r.body.sessionId));
    expect(sessions.size).toBe(1);
    expect(await stockOf(other.product.id)).toEqual({ stock: 10, reserved: 1 });
  });
});
