// Sellers' discounts (docs/api.md "Discounts"): a shop's own coupons, its automatic discount, how
// they combine with the platform's coupon on the cart and at checkout, who pays for each on the
// order, and what the ledger pays the seller for the platform's coupons (also when refunded).
import { eq } from 'drizzle-orm';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { ledgerEntries } from '../src/modules/ledger/tables.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { ACP_ON, AcpClient, issuePlatform, startReceiver } from './helpers/acp.ts';
import { type Answer, admin, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, coupon, expectError, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { cancel, setClock, signIn } from './helpers/orders.ts';
import { ledgerProblems, roundHalfUp } from './helpers/payouts.ts';
import { issueUcpPlatform, platformProfile, startProfileServer, UCP_ON, UcpClient } from './helpers/ucp.ts';

// UCP wants https URLs in answers: the app's public URL is one.
const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

const orderRow = async (id: string) => {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, id));
  if (!row) throw new Error(`no order ${id}`);
  return row;
};

/** An order's entries in one ledger account, summed. */
const inAccount = async (orderId: string, account: string) =>
  (await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)))
    .filter((e) => e.account === account)
    .reduce((n, e) => n + e.amountCents, 0);

/** A 400 naming `field` among its problems. */
const refused = (res: Answer, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
};

const shopName = async (s: SignedIn) => (await t.api.as(s).get('/sellers/me/shop')).body.name as string;

let boss: SignedIn;
beforeAll(async () => {
  setClock(t, '2026-11-30T15:00:00Z');
  boss = await admin(t.api, database);
});

describe("a shop's coupons", () => {
  it('a seller makes one (201, theirs), lists it; a buyer cannot; codes are one namespace', async () => {
    const s = await seller(t.api, 'ON');
    const code = `SHOP${uniqueWord()}`.toUpperCase();
    const made = await t.api
      .as(s)
      .post('/sellers/me/coupons', { code, discountPercent: 15, terms: 'Shop only' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      code,
      discountPercent: 15,
      discountCents: null,
      minSubtotalCents: 0,
      expirationDate: null,
      maxRedemptions: null,
      maxRedemptionsPerCustomer: null,
      redemptions: 0,
      terms: 'Shop only',
      sellerId: s.id,
      createdAt: expect.any(Number),
    });
    const listed = await t.api.as(s).get('/sellers/me/coupons');
    expect(listed.status).toBe(200);
    expect(listed.body.coupons.map((c: { code: string }) => c.code)).toEqual([code]);

    // Another shop's list and the platform's do not show it; nobody takes its code again.
    const other = await seller(t.api, 'QC');
    expect((await t.api.as(other).get('/sellers/me/coupons')).body).toEqual({ coupons: [] });
    expectError(
      await t.api.as(other).post('/sellers/me/coupons', { code, discountCents: 100 }),
      'CONFLICT',
      409,
      `A coupon with the code ${code} already exists`,
    );
    expectError(
      await t.api.as(boss).post('/admin/coupons', { code, discountCents: 100 }),
      'CONFLICT',
      409,
      `A coupon with the code ${code} already exists`,
    );
    const b = await buyer(t.api);
    expect(
      (await t.api.as(b).post('/sellers/me/coupons', { code: 'MINEMINE', discountCents: 100 })).status,
    ).toBe(403);
    expect((await t.api.get('/sellers/me/coupons')).status).toBe(401);
    refused(await t.api.as(s).post('/sellers/me/coupons', { code: 'X1', discountPercent: 10 }), 'code');
  });

  it('two shops taking one code at once: one has it, the other is refused', async () => {
    const [x, y] = await Promise.all([seller(t.api, 'ON'), seller(t.api, 'QC')]);
    const code = `RACE${uniqueWord()}`.toUpperCase();
    const answers = await Promise.all(
      [x, y].map((s) => t.api.as(s).post('/sellers/me/coupons', { code, discountPercent: 5 })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const owner = answers.find((a) => a.status === 201)!.body.sellerId;
    expect([x.id, y.id]).toContain(owner);
  });

  it("takes off its shop's items only, its minimum counted on them; refused without them", async () => {
    const a = await seller(t.api, 'ON');
    const other = await seller(t.api, 'ON');
    const mine = await product(t.api, a, { priceCents: 3000 });
    const theirs = await product(t.api, other, { priceCents: 5000 });
    const code = `TEN${uniqueWord()}`.toUpperCase();
    await t.api.as(a).post('/sellers/me/coupons', { code, discountPercent: 10, minSubtotalCents: 4000 });

    const b = await buyer(t.api);
    await addToCart(t.api, b, theirs.id, 1);
    expectError(
      await t.api.as(b).post('/cart/coupon', { code }),
      'CONFLICT',
      409,
      `Coupon ${code} is a shop's own: it takes off that shop's items only, and the cart has none`,
    );
    await addToCart(t.api, b, mine.id, 1);
    // $30.00 of the shop's items: under its $40.00 minimum, though the cart holds $80.00.
    expectError(
      await t.api.as(b).post('/cart/coupon', { code }),
      'CONFLICT',
      409,
      `Coupon ${code} needs a subtotal of at least $40.00; the cart's is $30.00`,
    );
    await addToCart(t.api, b, mine.id, 1);
    const applied = await t.api.as(b).post('/cart/coupon', { code });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ applied: true, code, discount_cents: 600 });
    const cart = (await t.api.as(b).get('/cart')).body;
    expect(cart.discount_cents).toBe(600);
    expect(cart.discounts).toEqual([
      {
        kind: 'coupon',
        code,
        sellerId: a.id,
        shopName: await shopName(a),
        amountCents: 600,
        paidBy: 'seller',
      },
    ]);

    // Paid: all of it on the shop's order, the shop's to pay; the other order has none.
    const session = await openCheckout(t.api, b, ON_ADDRESS);
    const [first, second] = await Promise.all((await payOk(t.api, session.sessionId)).map(orderRow));
    const oa = [first, second].find((o) => o?.sellerId === a.id)!;
    const oo = [first, second].find((o) => o?.sellerId === other.id)!;
    expect(oa).toMatchObject({
      subtotalCents: 6000,
      discountCents: 600,
      sellerDiscountCents: 600,
      platformDiscountCents: 0,
    });
    expect(oo).toMatchObject({
      subtotalCents: 5000,
      discountCents: 0,
      sellerDiscountCents: 0,
      platformDiscountCents: 0,
    });
    // The commission is on what the shop sold the items for: 2.5% of $54.00.
    expect(oa.platformFeeCents).toBe(135);
    expect(await inAccount(oa.id, 'platform_promotions')).toBe(0);
    expect(await ledgerProblems(database, t)).toEqual([]);
  });
});

describe("a shop's automatic discount", () => {
  it('set, read, replaced and ended by its seller; bad input refused', async () => {
    const s = await seller(t.api, 'ON');
    expect((await t.api.as(s).get('/sellers/me/automatic-discount')).body).toEqual({ discount: null });
    const set = await t.api
      .as(s)
      .put('/sellers/me/automatic-discount', { percent: 10, minSubtotalCents: 5000, endsOn: '2026-12-31' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      discount: {
        percent: 10,
        minSubtotalCents: 5000,
        startsOn: null,
        endsOn: '2026-12-31',
        updatedAt: expect.any(Number),
      },
    });
    const again = await t.api
      .as(s)
      .put('/sellers/me/automatic-discount', { percent: 20, minSubtotalCents: 0 });
    expect(again.body.discount).toMatchObject({ percent: 20, minSubtotalCents: 0, endsOn: null });
    expect((await t.api.as(s).get('/sellers/me/automatic-discount')).body.discount).toMatchObject({
      percent: 20,
    });

    for (const [body, field] of [
      [{ percent: 0, minSubtotalCents: 0 }, 'percent'],
      [{ percent: 91, minSubtotalCents: 0 }, 'percent'],
      [{ percent: 10.5, minSubtotalCents: 0 }, 'percent'],
      [{ percent: 10, minSubtotalCents: -1 }, 'minSubtotalCents'],
      [{ percent: 10, minSubtotalCents: 0, startsOn: '2026-12-10', endsOn: '2026-12-01' }, 'endsOn'],
      [{ percent: 10, minSubtotalCents: 0, endsOn: '2026-02-30' }, 'endsOn'],
    ] as const) {
      refused(await t.api.as(s).put('/sellers/me/automatic-discount', body), field);
    }
    expect((await t.api.as(s).delete('/sellers/me/automatic-discount')).body).toEqual({ discount: null });
    expectError(
      await t.api.as(s).delete('/sellers/me/automatic-discount'),
      'NOT_FOUND',
      404,
      'The shop has no automatic discount',
    );
    const b = await buyer(t.api);
    expect(
      (await t.api.as(b).put('/sellers/me/automatic-discount', { percent: 10, minSubtotalCents: 0 })).status,
    ).toBe(403);
  });

  it('comes off once its threshold is met, within its days only', async () => {
    const s = await seller(t.api, 'ON');
    const p = await product(t.api, s, { priceCents: 2000 });
    await t.api.as(s).put('/sellers/me/automatic-discount', {
      percent: 10,
      minSubtotalCents: 5000,
      startsOn: '2026-11-30',
      endsOn: '2026-12-01',
    });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 2);
    expect((await t.api.as(b).get('/cart')).body).toMatchObject({
      subtotalCents: 4000,
      discount_cents: 0,
      discounts: [],
    });
    await addToCart(t.api, b, p.id, 1);
    expect((await t.api.as(b).get('/cart')).body).toMatchObject({
      subtotalCents: 6000,
      discount_cents: 600,
      discounts: [
        {
          kind: 'automatic',
          code: null,
          sellerId: s.id,
          shopName: await shopName(s),
          amountCents: 600,
          paidBy: 'seller',
        },
      ],
    });
    setClock(t, '2026-12-02T15:00:00Z');
    const later = await t.api.as(await signIn(t.api, b)).get('/cart');
    expect(later.body).toMatchObject({ subtotalCents: 6000, discount_cents: 0, discounts: [] });
    setClock(t, '2026-11-30T15:00:00Z');
  });
});

describe('the combination rule, and who pays', () => {
  it("each shop's automatic discount first, the platform's coupon on what is left; the platform pays its share", async () => {
    const a = await seller(t.api, 'ON');
    const c = await seller(t.api, 'ON');
    const pa = await product(t.api, a, { priceCents: 3000 });
    const pc = await product(t.api, c, { priceCents: 4000 });
    await t.api.as(a).put('/sellers/me/automatic-discount', { percent: 10, minSubtotalCents: 5000 });
    const platform = await coupon(t.api, boss, { discountPercent: 10 });

    const b = await buyer(t.api);
    await addToCart(t.api, b, pa.id, 2);
    await addToCart(t.api, b, pc.id, 1);
    expect((await t.api.as(b).post('/cart/coupon', { code: platform.code })).status).toBe(200);
    // Shop A: $60.00, 10% automatic = $6.00, $54.00 left; shop C: $40.00 left. The coupon: 10% of
    // $94.00 = $9.40, shared $5.40 and $4.00.
    const cart = (await t.api.as(b).get('/cart')).body;
    expect(cart.discount_cents).toBe(1540);
    expect(cart.discounts).toEqual([
      {
        kind: 'automatic',
        code: null,
        sellerId: a.id,
        shopName: await shopName(a),
        amountCents: 600,
        paidBy: 'seller',
      },
      {
        kind: 'coupon',
        code: platform.code,
        sellerId: null,
        shopName: null,
        amountCents: 940,
        paidBy: 'platform',
      },
    ]);

    const session = await openCheckout(t.api, b, ON_ADDRESS);
    expect(session.discountCents).toBe(1540);
    expect(session.totalCents).toBe(cart.totalAmountCents);
    const rows = await Promise.all((await payOk(t.api, session.sessionId)).map(orderRow));
    const oa = rows.find((o) => o.sellerId === a.id)!;
    const oc = rows.find((o) => o.sellerId === c.id)!;
    expect(oa).toMatchObject({ discountCents: 1140, sellerDiscountCents: 600, platformDiscountCents: 540 });
    expect(oc).toMatchObject({ discountCents: 400, sellerDiscountCents: 0, platformDiscountCents: 400 });
    // The commission on what each shop sold for: A $54.00, C $40.00 (the platform's coupon does not lower it).
    expect([oa.platformFeeCents, oc.platformFeeCents]).toEqual([135, 100]);

    // The invoice and the buyer's order say who gave what (the shop's part, the marketplace's).
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/orders/${encodeURIComponent(oa.id)}/invoice`,
      headers: { authorization: `Bearer ${b.token}` },
    });
    expect(pdf.statusCode).toBe(200);
    const { text } = await extractText(Uint8Array.from(pdf.rawPayload), { mergePages: true });
    const flat = text.replace(/[\s\u00a0\u202f]+/g, ' ');
    expect(flat).toMatch(/Discount from the shop -\$6\.00 Marketplace coupon -\$5\.40/);
    expect((await t.api.as(b).get(`/orders/${oa.id}`)).body).toMatchObject({
      discountCents: 1140,
      sellerDiscountCents: 600,
      platformDiscountCents: 540,
    });

    // The ledger pays each seller for the platform's share: pending = total + promotion - fee - tax.
    for (const o of [oa, oc]) {
      const tax = roundHalfUp(o.platformFeeCents * 13, 100);
      expect(await inAccount(o.id, 'platform_promotions')).toBe(o.platformDiscountCents);
      expect(await inAccount(o.id, 'seller_pending')).toBe(
        -(o.totalAmountCents + o.platformDiscountCents - o.platformFeeCents - tax),
      );
    }
    expect(await ledgerProblems(database, t)).toEqual([]);

    // Cancelled and refunded whole: the seller gives back what they were paid, the platform its share.
    await cancel(t, a, oa.id);
    await t.app.jobs.runOnce();
    expect((await orderRow(oa.id)).refundedCents).toBe(oa.totalAmountCents);
    expect(await inAccount(oa.id, 'platform_promotions')).toBe(0);
    expect(await inAccount(oa.id, 'seller_pending')).toBe(0);
    expect(await inAccount(oa.id, 'platform_commission')).toBe(0);
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it("a dispute of an order with the platform's coupon: its share taken back, and given again when won", async () => {
    const a = await seller(t.api, 'ON');
    const pa = await product(t.api, a, { priceCents: 4000 });
    const platform = await coupon(t.api, boss, { discountCents: 1000 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, pa.id, 1);
    await t.api.as(b).post('/cart/coupon', { code: platform.code });
    const session = await openCheckout(t.api, b, ON_ADDRESS);
    const [id] = await payOk(t.api, session.sessionId);
    const o = await orderRow(id!);
    expect(o).toMatchObject({ platformDiscountCents: 1000, sellerDiscountCents: 0, platformFeeCents: 100 });
    const [row] = await database.db
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, session.sessionId));

    const opened = await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId: row!.paymentIntentId });
    expect(opened.status).toBe(201);
    // The whole payment disputed: the promotion comes back to the platform with it.
    expect(await inAccount(o.id, 'platform_promotions')).toBe(0);
    expect(await ledgerProblems(database, t)).toEqual([]);
    const won = await t.api
      .as(boss)
      .post(`/sandbox/disputes/${opened.body.disputeId}/close`, { outcome: 'won' });
    expect(won.status).toBe(200);
    expect(await inAccount(o.id, 'platform_promotions')).toBe(1000);
    expect(await inAccount(o.id, 'seller_pending')).toBe(
      -(o.totalAmountCents + 1000 - o.platformFeeCents - roundHalfUp(o.platformFeeCents * 13, 100)),
    );
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it("a shop's coupon on top of its automatic discount: on what is left of its items", async () => {
    const a = await seller(t.api, 'ON');
    const pa = await product(t.api, a, { priceCents: 10_000 });
    await t.api.as(a).put('/sellers/me/automatic-discount', { percent: 20, minSubtotalCents: 0 });
    const code = `FIVE${uniqueWord()}`.toUpperCase();
    await t.api.as(a).post('/sellers/me/coupons', { code, discountCents: 500 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, pa.id, 1);
    await t.api.as(b).post('/cart/coupon', { code });
    const cart = (await t.api.as(b).get('/cart')).body;
    expect(
      cart.discounts.map((d: { amountCents: number; paidBy: string }) => [d.amountCents, d.paidBy]),
    ).toEqual([
      [2000, 'seller'],
      [500, 'seller'],
    ]);
    expect(cart.discount_cents).toBe(2500);
  });
});

describe("the agent protocols list each discount, the rule's order said", () => {
  /** A shop with a 10% automatic discount over $50.00, a $30.00 product of it, and a $10.00 platform coupon. */
  const discounted = async () => {
    const s = await seller(t.api, 'ON');
    const p = await product(t.api, s, { priceCents: 3000 });
    await t.api.as(s).put('/sellers/me/automatic-discount', { percent: 10, minSubtotalCents: 5000 });
    const c = await coupon(t.api, boss, { discountCents: 1000 });
    return { s, p, code: c.code as string, shop: await shopName(s) };
  };

  it('ACP: the automatic discount first (priority 1, automatic), the coupon on what is left (priority 2)', async () => {
    const platform = await issuePlatform(t.api, boss);
    const acp = new AcpClient(t.api, platform.apiKey, t.clock.now);
    const { p, code, shop } = await discounted();
    const res = await acp.create({
      line_items: [{ id: p.id, quantity: 2 }],
      buyer: { email: `acp-${uniqueWord()}@example.com`, first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
      discounts: { codes: [code] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // $60.00: 10% automatic = $6.00; the coupon's $10.00 off the $54.00 left.
    expect(res.body.discounts).toEqual({
      codes: [code],
      applied: [
        {
          id: expect.stringMatching(/^automatic_/),
          coupon: { id: expect.stringMatching(/^automatic_/), name: `Shop discount: ${shop}` },
          amount: 600,
          automatic: true,
          priority: 1,
        },
        { id: `discount_${code}`, code, coupon: { id: code, name: code }, amount: 1000, priority: 2 },
      ],
      rejected: [],
    });
    expect(res.body.totals.find((x: { type: string }) => x.type === 'discount')?.amount).toBe(1600);

    // Without a code, the automatic discount alone.
    const plain = await acp.create({
      line_items: [{ id: p.id, quantity: 2 }],
      buyer: { email: `acp-${uniqueWord()}@example.com`, first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
    });
    expect(plain.body.discounts).toMatchObject({
      codes: [],
      applied: [{ amount: 600, automatic: true, priority: 1 }],
    });
  });

  describe('UCP', () => {
    const hooks: { close?: () => Promise<void> }[] = [];
    afterAll(async () => {
      for (const h of hooks) await h.close?.();
    });

    it('the automatic discount (automatic, priority 1) and the coupon (priority 2) in discounts.applied', async () => {
      const profiles = await startProfileServer();
      const receiver = await startReceiver();
      hooks.push(profiles, receiver);
      profiles.documents.set('/agent.json', { body: platformProfile(receiver.url) });
      const ucp = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`));
      const { p, code, shop } = await discounted();
      const res = await ucp.create({
        line_items: [{ item: { id: p.id }, quantity: 2 }],
        buyer: { email: `ucp-${uniqueWord()}@example.com`, first_name: 'Avery', last_name: 'Tremblay' },
        fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
        discounts: { codes: [code] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.discounts).toEqual({
        codes: [code],
        applied: [
          { title: `Shop discount: ${shop}`, amount: 600, automatic: true, priority: 1 },
          { code, title: code, amount: 1000, priority: 2 },
        ],
      });
      expect(res.body.totals.find((x: { type: string }) => x.type === 'discount')?.amount).toBe(-1600);
    });
  });
});
