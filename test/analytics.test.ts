// Analytics over HTTP on a real database: the figures of a small data set computed by hand
// (payments, a cancellation, a partial refund, an abandoned checkout), new and returning
// customers across the window's edge, Toronto day edges on a frozen clock, the top lists'
// order and cap, who may ask, and the rollups equal to a recomputation from the base tables
// after a mixed sequence including racing payments (docs/api.md "Analytics";
// docs/decisions.md "Analytics").
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, type Product, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { ordersOfCheckout, setClock, signIn } from './helpers/orders.ts';

const { t, database } = useTestApp();

/** Signs in again at the current clock (tokens last an hour; the tests move the clock by days). */
const fresh = (who: SignedIn) => signIn(t.api, who);

/** A buyer pays for `lines` (product, quantity) at `iso`; answers the checkout's orders by seller. */
async function buyAt(iso: string, who: SignedIn, lines: Array<[Product, number]>) {
  setClock(t, iso);
  const me = await fresh(who);
  for (const [p, quantity] of lines) await addToCart(t.api, me, p.id, quantity);
  const session = await openCheckout(t.api, me, ON_ADDRESS);
  await payOk(t.api, session.sessionId);
  return ordersOfCheckout(database, session.sessionId);
}

async function adminAt(iso: string) {
  setClock(t, iso);
  return admin(t.api, database);
}

const get = async (who: SignedIn, url: string) => {
  const res = await t.api.as(who).get(url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('a small known data set (March 2031, digital products: no shipping, HST 13%)', () => {
  // Sellers S1 (P1 $20.00, P2 $5.00) and S2 (P3 $50.00), all in Ontario, selling to Ontario.
  let s1: SignedIn;
  let s2: SignedIn;
  let p1: Product;
  let p2: Product;
  let p3: Product;
  let b1: SignedIn;
  let b2: SignedIn;
  let b3: SignedIn;
  let b4: SignedIn;

  beforeAll(async () => {
    setClock(t, '2031-02-01T15:00:00Z');
    s1 = await seller(t.api);
    s2 = await seller(t.api);
    p1 = await product(t.api, s1, { isDigital: true, priceCents: 2000, stockQuantity: 100 });
    p2 = await product(t.api, s1, { isDigital: true, priceCents: 500, stockQuantity: 100 });
    p3 = await product(t.api, s2, { isDigital: true, priceCents: 5000, stockQuantity: 100 });
    [b1, b2, b3, b4] = [await buyer(t.api), await buyer(t.api), await buyer(t.api), await buyer(t.api)];

    // Feb 10: B1 buys P1 x1 -> O0, 2000 + 260 tax = 2260 (before the March window).
    const [o0] = await buyAt('2031-02-10T17:00:00Z', b1, [[p1, 1]]);
    expect(o0!.totalAmountCents).toBe(2260);
    // Mar 5: B1 buys P1 x2 and P3 x1 -> O1 (S1) 4000 + 520 = 4520, O2 (S2) 5000 + 650 = 5650.
    const two = await buyAt('2031-03-05T17:00:00Z', b1, [
      [p1, 2],
      [p3, 1],
    ]);
    const bySeller = new Map(two.map((o) => [o.sellerId, o]));
    expect(bySeller.get(s1.id)!.totalAmountCents).toBe(4520);
    expect(bySeller.get(s2.id)!.totalAmountCents).toBe(5650);
    // Mar 6: B2 buys P2 x3 -> O3 (S1) 1500 + 195 = 1695.
    const [o3] = await buyAt('2031-03-06T17:00:00Z', b2, [[p2, 3]]);
    expect(o3!.totalAmountCents).toBe(1695);
    // Mar 7: B3 buys P3 x2 -> O4 (S2) 10000 + 1300 = 11300, then cancels it (refunded in full).
    const [o4] = await buyAt('2031-03-07T17:00:00Z', b3, [[p3, 2]]);
    const cancelled = await t.api
      .as(await fresh(b3))
      .post(`/orders/${o4!.id}/cancel`, { reason: 'changed my mind' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.refund_amount_cents).toBe(11300);
    // Mar 8: B4 buys P1 x1 -> O5 (S1) 2260; then $10.00 of it is refunded. (Returns are another
    // module: the refund's effect on the order, refunded_cents, is written directly here.)
    const [o5] = await buyAt('2031-03-08T17:00:00Z', b4, [[p1, 1]]);
    await database.db.update(orders).set({ refundedCents: 1000 }).where(eq(orders.id, o5!.id));
    // Mar 9: B2 opens a checkout for P1 and never pays (created, not paid).
    setClock(t, '2031-03-09T17:00:00Z');
    const again = await fresh(b2);
    await addToCart(t.api, again, p1.id, 1);
    await openCheckout(t.api, again, ON_ADDRESS);
  });

  it('gives the platform figures of March to an admin', async () => {
    const adm = await adminAt('2031-04-15T12:00:00Z');
    const body = await get(adm, '/admin/analytics?start_date=2031-03-01&end_date=2031-03-31');
    expect(body).toEqual({
      period: 'custom',
      // O1 4520 + O2 5650 + O3 1695 + O5 (2260 - 1000) = 13125; O4 is cancelled.
      total_revenue_cents: 13125,
      total_orders: 4,
      // 13125 / 4 = 3281.25
      average_order_value_cents: 3281,
      // O1 2 + O2 1 + O3 3 + O5 1
      total_items_sold: 7,
      top_products: [
        // P1: O1 2 x 2000 + O5 1 x 2000 (item revenue; the refund is the order's)
        { product_id: p1.id, title: p1.title, units_sold: 3, revenue_cents: 6000 },
        // P3: O2 1 x 5000 (O4's 2 units are cancelled)
        { product_id: p3.id, title: p3.title, units_sold: 1, revenue_cents: 5000 },
        // P2: O3 3 x 500
        { product_id: p2.id, title: p2.title, units_sold: 3, revenue_cents: 1500 },
      ],
      top_sellers: [
        // S1: O1 4520 + O3 1695 + O5 1260
        { seller_id: s1.id, name: 'Maple Goods', revenue_cents: 7475, orders: 3 },
        // S2: O2 5650
        { seller_id: s2.id, name: 'Maple Goods', revenue_cents: 5650, orders: 1 },
      ],
      // Sessions created Mar 5, 6, 7, 8 (paid) and Mar 9 (not): 4 / 5.
      conversion_rate: 0.8,
      // B1 first bought in February; B2 and B4 first in March; B3's only order is cancelled.
      returning_customers: 1,
      new_customers: 2,
      start_date: '2031-03-01',
      end_date: '2031-03-31',
      timezone: 'America/Toronto',
    });
    // The same window as a period: the month ending March 31 starts on March 1.
    setClock(t, '2031-03-31T20:00:00Z');
    const asPeriod = await get(await fresh(adm), '/admin/analytics?period=month');
    expect(asPeriod).toEqual({ ...body, period: 'month' });
  });

  it('counts B1 as new when the window starts at their first order', async () => {
    const adm = await adminAt('2031-04-15T12:00:00Z');
    const body = await get(adm, '/admin/analytics?start_date=2031-02-10&end_date=2031-03-31');
    // O0 adds 2260 and 1 unit; B1's first order is now inside the window; its session too (5 / 6).
    expect(body).toMatchObject({
      total_revenue_cents: 15385,
      total_orders: 5,
      // 15385 / 5
      average_order_value_cents: 3077,
      total_items_sold: 8,
      conversion_rate: 0.8333,
      returning_customers: 0,
      new_customers: 3,
    });
    expect(body.top_products[0]).toEqual({
      product_id: p1.id,
      title: p1.title,
      units_sold: 4,
      revenue_cents: 8000,
    });
  });

  it('answers zeros and empty lists for a day with only a cancelled order', async () => {
    const adm = await adminAt('2031-04-15T12:00:00Z');
    const body = await get(adm, '/admin/analytics?start_date=2031-03-07&end_date=2031-03-07');
    expect(body).toEqual({
      period: 'custom',
      total_revenue_cents: 0,
      total_orders: 0,
      average_order_value_cents: 0,
      total_items_sold: 0,
      top_products: [],
      top_sellers: [],
      // B3's session was paid (the order was cancelled afterwards): 1 / 1.
      conversion_rate: 1,
      returning_customers: 0,
      new_customers: 0,
      start_date: '2031-03-07',
      end_date: '2031-03-07',
      timezone: 'America/Toronto',
    });
  });

  it('gives each seller the same figures for their own orders and products only', async () => {
    setClock(t, '2031-04-15T12:00:00Z');
    const mine = await get(
      await fresh(s1),
      '/sellers/me/analytics?start_date=2031-03-01&end_date=2031-03-31',
    );
    expect(mine).toEqual({
      period: 'custom',
      // O1 4520 + O3 1695 + O5 1260
      total_revenue_cents: 7475,
      total_orders: 3,
      // 7475 / 3 = 2491.67
      average_order_value_cents: 2492,
      total_items_sold: 6,
      top_products: [
        { product_id: p1.id, title: p1.title, units_sold: 3, revenue_cents: 6000 },
        { product_id: p2.id, title: p2.title, units_sold: 3, revenue_cents: 1500 },
      ],
      top_sellers: [{ seller_id: s1.id, name: 'Maple Goods', revenue_cents: 7475, orders: 3 }],
      // Sessions holding S1's products: Mar 5, 6, 8 (paid), Mar 9 (not): 3 / 4.
      conversion_rate: 0.75,
      // B1 bought from S1 in February; B2 and B4 first in March.
      returning_customers: 1,
      new_customers: 2,
      start_date: '2031-03-01',
      end_date: '2031-03-31',
      timezone: 'America/Toronto',
    });
    const theirs = await get(
      await fresh(s2),
      '/sellers/me/analytics?start_date=2031-03-01&end_date=2031-03-31',
    );
    expect(theirs).toMatchObject({
      total_revenue_cents: 5650,
      total_orders: 1,
      average_order_value_cents: 5650,
      total_items_sold: 1,
      top_products: [{ product_id: p3.id, title: p3.title, units_sold: 1, revenue_cents: 5000 }],
      top_sellers: [{ seller_id: s2.id, name: 'Maple Goods', revenue_cents: 5650, orders: 1 }],
      // Sessions holding P3: Mar 5 and Mar 7, both paid.
      conversion_rate: 1,
      // B1's first order from S2 is in March; B3's is cancelled.
      returning_customers: 0,
      new_customers: 1,
    });
  });
});

describe('the window', () => {
  it('places an order on its Toronto day: 23:30 in Toronto is 04:30 UTC the next day', async () => {
    setClock(t, '2032-01-05T15:00:00Z');
    const s = await seller(t.api);
    const p = await product(t.api, s, { isDigital: true, priceCents: 1000, stockQuantity: 10 });
    const b = await buyer(t.api);
    // Jan 9, 23:30 in Toronto (EST, UTC-5), and Jan 10, 00:30.
    await buyAt('2032-01-10T04:30:00Z', b, [[p, 1]]);
    await buyAt('2032-01-10T05:30:00Z', b, [[p, 2]]);

    const adm = await adminAt('2032-01-10T04:45:00Z');
    // Still Jan 9 in Toronto: today holds the first order only (1000 + 130).
    const today = await get(adm, '/admin/analytics?period=day');
    expect(today).toMatchObject({
      period: 'day',
      start_date: '2032-01-09',
      end_date: '2032-01-09',
      total_revenue_cents: 1130,
      total_orders: 1,
      total_items_sold: 1,
      new_customers: 1,
      returning_customers: 0,
    });
    const jan10 = await get(adm, '/admin/analytics?start_date=2032-01-10&end_date=2032-01-10');
    // The second order (2000 + 260): its buyer first bought the day before, so returning.
    expect(jan10).toMatchObject({
      total_revenue_cents: 2260,
      total_orders: 1,
      total_items_sold: 2,
      new_customers: 0,
      returning_customers: 1,
    });
    const both = await get(adm, '/admin/analytics?start_date=2032-01-09&end_date=2032-01-10');
    expect(both).toMatchObject({ total_orders: 2, new_customers: 1, returning_customers: 0 });
  });

  it('ends a period today in Toronto: week = 7 days, month and year back to the same date', async () => {
    const adm = await adminAt('2032-03-31T16:00:00Z');
    const windows = async (q: string) => {
      const b = await get(adm, `/admin/analytics?${q}`);
      return [b.period, b.start_date, b.end_date];
    };
    expect(await windows('')).toEqual(['month', '2032-03-01', '2032-03-31']);
    expect(await windows('period=day')).toEqual(['day', '2032-03-31', '2032-03-31']);
    expect(await windows('period=week')).toEqual(['week', '2032-03-25', '2032-03-31']);
    expect(await windows('period=year')).toEqual(['year', '2031-04-01', '2032-03-31']);
    // With only end_date, the period ends that day; with only start_date, the window ends today.
    expect(await windows('period=month&end_date=2032-02-29')).toEqual(['month', '2032-01-30', '2032-02-29']);
    expect(await windows('start_date=2032-03-20')).toEqual(['custom', '2032-03-20', '2032-03-31']);
    expect(await windows('period=year&start_date=2031-01-01&end_date=2031-12-31')).toEqual([
      'custom',
      '2031-01-01',
      '2031-12-31',
    ]);
  });

  it('refuses a start after the end, bad dates, a bad period and windows over 1096 days (400)', async () => {
    const adm = await adminAt('2032-03-31T16:00:00Z');
    const res = await t.api.as(adm).get('/admin/analytics?start_date=2032-03-02&end_date=2032-03-01');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'start_date 2032-03-02 is after end_date 2032-03-01',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'start_date', message: 'must not be after end_date (2032-03-01)' }],
    });
    for (const [q, field, message] of [
      ['start_date=2032-02-30', 'start_date', 'must be a real calendar date from 2000-01-01 on'],
      ['end_date=yesterday', 'end_date', 'must be a date YYYY-MM-DD'],
      ['period=decade', 'period', 'must be one of day, week, month, year'],
      [
        'start_date=2028-01-01&end_date=2032-03-31',
        'start_date',
        'must be at most 1,096 days before end_date',
      ],
      ['start_date=2032-04-01', 'start_date', 'must not be after end_date (2032-03-31)'],
    ]) {
      const bad = await t.api.as(adm).get(`/admin/analytics?${q}`);
      expect({ q, status: bad.status, body: bad.body }).toEqual({
        q,
        status: 400,
        body: {
          error: expect.any(String),
          code: 'VALIDATION_ERROR',
          statusCode: 400,
          details: [{ field, message }],
        },
      });
    }
    // Exactly 1096 days is allowed.
    expect(
      (await t.api.as(adm).get('/admin/analytics?start_date=2029-04-01&end_date=2032-03-31')).status,
    ).toBe(200);
  });
});

describe('who may ask', () => {
  it('is admins for the platform (buyer and seller 403, anonymous 401), sellers for their own', async () => {
    setClock(t, '2032-05-01T16:00:00Z');
    const b = await buyer(t.api);
    const s = await seller(t.api);
    for (const who of [b, s]) {
      expectError(
        await t.api.as(who).get('/admin/analytics?period=year'),
        'AUTHZ_ERROR',
        403,
        /needs the admin role/,
      );
    }
    expectError(await t.api.get('/admin/analytics'), 'AUTH_ERROR', 401);
    expectError(await t.api.get('/sellers/me/analytics'), 'AUTH_ERROR', 401);
    expectError(await t.api.as(b).get('/sellers/me/analytics'), 'AUTHZ_ERROR', 403);
    // A new seller with no sales: zeros, empty lists.
    expect(await get(s, '/sellers/me/analytics?period=year')).toMatchObject({
      total_orders: 0,
      top_products: [],
      top_sellers: [],
      conversion_rate: 0,
    });
  });
});

describe('the top lists', () => {
  it('hold 10, by revenue then id', async () => {
    setClock(t, '2033-06-01T15:00:00Z');
    // 12 sellers with one product each: $10, $20, ... $110, and the 12th also $110 (a tie).
    const sellers: SignedIn[] = [];
    const products: Product[] = [];
    for (let k = 1; k <= 12; k++) {
      const s = await seller(t.api);
      sellers.push(s);
      products.push(await product(t.api, s, { isDigital: true, priceCents: Math.min(k, 11) * 1000 }));
    }
    const b = await buyer(t.api);
    await buyAt(
      '2033-06-02T15:00:00Z',
      b,
      products.map((p) => [p, 1]),
    );
    const adm = await adminAt('2033-06-03T15:00:00Z');
    const body = await get(adm, '/admin/analytics?start_date=2033-06-02&end_date=2033-06-02');
    // The two $110 products (and their sellers) first, the lower id of the two first; then $100 ... $30.
    const [a, c] = [products[10]!, products[11]!].sort((x, y) => (x.id < y.id ? -1 : 1));
    const tieSellers = [sellers[10]!.id, sellers[11]!.id].sort();
    expect(body.top_products.map((p: { product_id: string }) => p.product_id)).toEqual([
      a!.id,
      c!.id,
      ...products
        .slice(2, 10)
        .reverse()
        .map((p) => p.id),
    ]);
    expect(body.top_products.map((p: { revenue_cents: number }) => p.revenue_cents)).toEqual([
      11000, 11000, 10000, 9000, 8000, 7000, 6000, 5000, 4000, 3000,
    ]);
    expect(body.top_sellers.map((s: { seller_id: string }) => s.seller_id)).toEqual([
      ...tieSellers,
      ...sellers
        .slice(2, 10)
        .reverse()
        .map((s) => s.id),
    ]);
    // 11000 + 13% tax = 12430 for each of the two.
    expect(body.top_sellers[0]).toEqual({
      seller_id: tieSellers[0],
      name: 'Maple Goods',
      revenue_cents: 12430,
      orders: 1,
    });
    expect(body.total_orders).toBe(12);
  });
});

// ---- exactness --------------------------------------------------------------------------------

/** Adds every pending change to the rollups (what the `analytics` job and every read do). */
async function fold() {
  await database.db.execute(sql`select portage_analytics_fold(1000000)`);
}

/** Every rollup row that holds something, in a fixed order, once every change is folded in. */
async function rollups() {
  await fold();
  const q = (text: string) => rowsOf<Record<string, unknown>>(database.db, sql.raw(text));
  return {
    totals:
      await q(`select scope, grain, start::text, shard, orders, revenue_cents::int8::text as revenue, items,
        customers, new_customers, continued_customers, sessions_created, sessions_paid
      from analytics_totals
      where (orders, revenue_cents, items, customers, new_customers, continued_customers, sessions_created, sessions_paid)
        <> (0, 0, 0, 0, 0, 0, 0, 0)
      order by scope collate "C", grain, start, shard`),
    productDays: await q(`select product_id, day::text, seller_id, units, revenue_cents::int8::text as revenue
      from analytics_product_days where (units, revenue_cents) <> (0, 0) order by product_id collate "C", day`),
    productMonths:
      await q(`select product_id, month::text, seller_id, units, revenue_cents::int8::text as revenue
      from analytics_product_months where (units, revenue_cents) <> (0, 0) order by product_id collate "C", month`),
    customerDays: await q(`select scope, buyer_id, day::text, orders, prev_day::text
      from analytics_customer_days order by scope collate "C", buyer_id collate "C", day`),
  };
}

describe('the rollups', () => {
  it('equal a recomputation from the base tables after payments (some racing), cancellations and refunds', async () => {
    setClock(t, '2034-01-31T23:00:00Z');
    const s1 = await seller(t.api);
    const s2 = await seller(t.api);
    const ps = [
      await product(t.api, s1, { isDigital: true, priceCents: 1500, stockQuantity: 500 }),
      await product(t.api, s1, { isDigital: true, priceCents: 2500, stockQuantity: 500 }),
      await product(t.api, s2, { isDigital: true, priceCents: 999, stockQuantity: 500 }),
    ];
    const buyers = [await buyer(t.api), await buyer(t.api), await buyer(t.api), await buyer(t.api)];
    const placed: string[] = [];
    // Days around a month's end and a Toronto midnight; each buyer several times.
    const moments = [
      '2034-02-01T04:30:00Z',
      '2034-02-01T05:30:00Z',
      '2034-02-28T12:00:00Z',
      '2034-03-01T12:00:00Z',
    ];
    for (const [i, at] of moments.entries()) {
      setClock(t, at);
      const signed = await Promise.all(buyers.map(fresh));
      for (const [j, b] of signed.entries()) {
        await addToCart(t.api, b, ps[(i + j) % 3]!.id, 1 + ((i * j) % 3));
        await addToCart(t.api, b, ps[(i + j + 1) % 3]!.id, 1);
      }
      const sessions = await Promise.all(signed.map((b) => openCheckout(t.api, b, ON_ADDRESS)));
      // The four buyers pay at the same moment, while two folds add what is already committed.
      const [paid] = await Promise.all([
        Promise.all(sessions.map((s) => payOk(t.api, s.sessionId))),
        fold(),
        fold(),
      ]);
      placed.push(...paid.flat());
    }
    // Cancellations (full refunds) of orders on several days, one by its seller.
    setClock(t, '2034-03-01T13:00:00Z');
    for (const id of [placed[0]!, placed[5]!, placed[9]!]) {
      const [row] = await database.db.select().from(orders).where(eq(orders.id, id));
      const who = buyers.find((u) => u.id === row!.buyerId)!;
      const res = await t.api.as(await fresh(who)).post(`/orders/${id}/cancel`, {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    // A cancellation racing a payment for the same products on the same day (the cancelled
    // order's products and rollup rows are locked in the order checkout locks them: no deadlock).
    {
      setClock(t, '2034-03-01T14:00:00Z');
      const [racer, canceller] = await Promise.all([fresh(buyers[1]!), fresh(buyers[2]!)]);
      for (const p of ps) await addToCart(t.api, racer, p.id, 1);
      const session = await openCheckout(t.api, racer, ON_ADDRESS);
      // One of their orders that the steps below leave alone.
      const later = new Set([0, 2, 5, 7, 9, 12].map((i) => placed[i]));
      const open = (await database.db.select().from(orders).where(eq(orders.buyerId, canceller.id))).find(
        (o) => o.status === 'confirmed' && !later.has(o.id),
      );
      const [paid, cancelled] = await Promise.all([
        payOk(t.api, session.sessionId),
        t.api.as(canceller).post(`/orders/${open!.id}/cancel`, {}),
      ]);
      expect(paid.length).toBe(2);
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    }
    // A seller cancels one; partial refunds on two others (written as a refund would).
    const [bySeller] = await database.db.select().from(orders).where(eq(orders.id, placed[12]!));
    const owner = bySeller!.sellerId === s1.id ? s1 : s2;
    expect((await t.api.as(await fresh(owner)).post(`/orders/${placed[12]}/cancel`, {})).status).toBe(200);
    for (const id of [placed[2]!, placed[7]!]) {
      await database.db
        .update(orders)
        .set({ refundedCents: sql`${orders.refundedCents} + 321` })
        .where(eq(orders.id, id));
    }
    // An abandoned checkout.
    const last = await fresh(buyers[0]!);
    await addToCart(t.api, last, ps[0]!.id, 1);
    await openCheckout(t.api, last, ON_ADDRESS);

    const kept = await rollups();
    expect(kept.customerDays.length).toBeGreaterThan(0);
    expect(await rowsOf(database.db, sql`select seq from analytics_changes`)).toEqual([]);
    await database.db.execute(sql`select portage_analytics_rebuild()`);
    expect(await rollups()).toEqual(kept);
  });

  it('count a payment in the next read, and the analytics job folds the queued changes in batches', async () => {
    const pending = async () =>
      Number(
        (await rowsOf<{ n: string }>(database.db, sql`select count(*) as n from analytics_changes`))[0]!.n,
      );
    await fold();
    setClock(t, '2036-07-01T15:00:00Z');
    const s = await seller(t.api);
    const p = await product(t.api, s, { isDigital: true, priceCents: 1000, stockQuantity: 100 });
    const who = await buyer(t.api);
    const window = '/sellers/me/analytics?start_date=2036-07-01&end_date=2036-07-01';
    // Queued in the payment's transactions: the session opened, its order, the session paid.
    await buyAt('2036-07-01T15:00:00Z', who, [[p, 2]]);
    expect(await pending()).toBe(3);
    // A read folds first: it counts the payment at once.
    const first = await get(await fresh(s), window);
    expect(first).toMatchObject({ total_orders: 1, total_revenue_cents: 2260, total_items_sold: 2 });
    expect(first.conversion_rate).toBe(1);
    expect(await pending()).toBe(0);
    // The job folds what the payments queued.
    await buyAt('2036-07-01T16:00:00Z', who, [[p, 1]]);
    expect((await t.app.jobs.runOnce()).analytics).toBe(3);
    expect(await pending()).toBe(0);
    expect((await t.app.jobs.runOnce()).analytics).toBe(0);
    expect(await get(await fresh(s), window)).toMatchObject({ total_orders: 2, total_items_sold: 3 });
  });

  it("stay exact when a buyer's earlier day is counted after a later one (a payment committed late)", async () => {
    setClock(t, '2035-05-01T15:00:00Z');
    const s = await seller(t.api);
    const p = await product(t.api, s, { isDigital: true, priceCents: 1000, stockQuantity: 100 });
    const [first, second] = [await buyer(t.api), await buyer(t.api)];
    // Each payment folded on its own, so that the later day is in the rollups first.
    // first: 10 May, then 8 May (new on the 8th, continued on the 10th).
    await buyAt('2035-05-10T15:00:00Z', first, [[p, 1]]);
    await fold();
    await buyAt('2035-05-08T15:00:00Z', first, [[p, 1]]);
    await fold();
    // second: 2 May, 10 May, then 8 May (a day between two).
    await buyAt('2035-05-02T15:00:00Z', second, [[p, 1]]);
    await fold();
    await buyAt('2035-05-10T15:00:00Z', second, [[p, 1]]);
    await fold();
    await buyAt('2035-05-08T15:00:00Z', second, [[p, 2]]);

    const kept = await rollups();
    const days = (who: SignedIn) =>
      kept.customerDays
        .filter((r) => r.buyer_id === who.id && r.scope === '*')
        .map((r) => [r.day, r.orders, r.prev_day]);
    expect(days(first)).toEqual([
      ['2035-05-08', 1, null],
      ['2035-05-10', 1, '2035-05-08'],
    ]);
    expect(days(second)).toEqual([
      ['2035-05-02', 1, null],
      ['2035-05-08', 1, '2035-05-02'],
      ['2035-05-10', 1, '2035-05-08'],
    ]);
    await database.db.execute(sql`select portage_analytics_rebuild()`);
    expect(await rollups()).toEqual(kept);
  });
});

describe('refunded returns', () => {
  it('refunded before migration 0033 are taken off by its backfill', async () => {
    // The first refunded return of this file's database: the backfill takes every one off.
    expect(await rowsOf(database.db, sql`select id from returns where status = 'refunded'`)).toEqual([]);
    await fold();
    setClock(t, '2038-06-04T15:00:00Z');
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 2500, stockQuantity: 10 });
    const b = await buyer(t.api);
    const [order] = await buyAt('2038-06-04T15:00:00Z', b, [[p, 2]]);
    setClock(t, '2038-06-05T15:00:00Z');
    const me = await fresh(s);
    expect(
      (
        await t.api
          .as(me)
          .post(`/orders/${order!.id}/ship`, { trackingNumber: '1Z 2', carrier: 'Canada Post' })
      ).status,
    ).toBe(200);
    expect((await t.api.as(me).post(`/orders/${order!.id}/deliver`)).status).toBe(200);
    const requested = await t.api
      .as(await fresh(b))
      .post('/returns', { order_id: order!.id, reason: 'damaged' });
    // Refunded as before the migration: without its trigger.
    await database.db.execute(sql`alter table returns disable trigger returns_analytics`);
    try {
      const approved = await t.api.as(me).post(`/returns/${requested.body.return_id}/approve`, {});
      expect(approved.body.status).toBe('refunded');
    } finally {
      await database.db.execute(sql`alter table returns enable trigger returns_analytics`);
    }
    const window = '/sellers/me/analytics?start_date=2038-06-04&end_date=2038-06-04';
    expect(await get(me, window)).toMatchObject({ total_items_sold: 2, total_revenue_cents: 0 });

    const backfill = readFileSync(path.join(MIGRATIONS_DIR, '0033_analytics_refunded_returns.sql'), 'utf8')
      .split('--> statement-breakpoint')
      .filter((statement) => statement.includes('-- The returns refunded before this migration'));
    expect(backfill).toHaveLength(1);
    await database.db.execute(sql.raw(backfill[0]!));
    const after = await get(me, window);
    expect(after).toMatchObject({
      total_orders: 1,
      total_items_sold: 0,
      total_revenue_cents: 0,
      top_products: [],
    });
    const folded = await rollups();
    await database.db.execute(sql`select portage_analytics_rebuild()`);
    expect(await rollups()).toEqual(folded);
  });

  it('take their units off the items sold and their products, as the refund takes its money off revenue', async () => {
    await fold();
    setClock(t, '2038-05-04T15:00:00Z');
    const s = await seller(t.api);
    const kept = await product(t.api, s, { priceCents: 3000, stockQuantity: 10 });
    const sent = await product(t.api, s, { priceCents: 8999, stockQuantity: 10 });
    const whole = await product(t.api, s, { priceCents: 1500, stockQuantity: 10 });
    const b = await buyer(t.api);
    const [partial] = await buyAt('2038-05-04T15:00:00Z', b, [
      [kept, 1],
      [sent, 2],
    ]);
    const [full] = await buyAt('2038-05-04T16:00:00Z', b, [[whole, 3]]);
    const window = '/sellers/me/analytics?start_date=2038-05-04&end_date=2038-05-04';
    const before = await get(await fresh(s), window);
    expect(before).toMatchObject({ total_orders: 2, total_items_sold: 6 });

    setClock(t, '2038-05-05T15:00:00Z');
    const me = await fresh(s);
    for (const o of [partial!, full!]) {
      expect(
        (await t.api.as(me).post(`/orders/${o.id}/ship`, { trackingNumber: '1Z 1', carrier: 'Canada Post' }))
          .status,
      ).toBe(200);
      expect((await t.api.as(me).post(`/orders/${o.id}/deliver`)).status).toBe(200);
    }
    const buyerNow = await fresh(b);
    const returned = async (orderId: string, items?: string[]) => {
      const res = await t.api
        .as(buyerNow)
        .post('/returns', { order_id: orderId, reason: 'damaged', ...(items ? { items } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const approved = await t.api.as(me).post(`/returns/${res.body.return_id}/approve`, {});
      expect(approved.body.status).toBe('refunded');
      return approved.body.refund_amount_cents as number;
    };
    const refunded = (await returned(partial!.id, [sent.id])) + (await returned(full!.id));

    const after = await get(await fresh(s), window);
    // The orders still count (they were paid); their refunds come off revenue, the returned units
    // off the items sold, and the products sold only what was kept.
    expect(after).toMatchObject({
      total_orders: 2,
      total_revenue_cents: before.total_revenue_cents - refunded,
      total_items_sold: 1,
    });
    expect(after.top_products).toEqual([
      { product_id: kept.id, title: kept.title, units_sold: 1, revenue_cents: 3000 },
    ]);
    // The same figures as recomputing from the base tables.
    const folded = await rollups();
    await database.db.execute(sql`select portage_analytics_rebuild()`);
    expect(await rollups()).toEqual(folded);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'one fold at a time (PostgreSQL only: another connection folds)',
  () => {
    it('the job skips its pass while another fold runs; a read waits for it, then counts everything', async () => {
      await fold();
      setClock(t, '2037-03-02T15:00:00Z');
      const s = await seller(t.api);
      const p = await product(t.api, s, { isDigital: true, priceCents: 1000, stockQuantity: 100 });
      await buyAt('2037-03-02T15:00:00Z', await buyer(t.api), [[p, 1]]);
      // Another instance's fold, held open.
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        await other.query('begin');
        await other.query(`select pg_advisory_xact_lock(hashtext('analytics:fold'))`);
        expect((await t.app.jobs.runOnce()).analytics).toBe(0);
        let answered = false;
        const read = get(await fresh(s), '/sellers/me/analytics?start_date=2037-03-02&end_date=2037-03-02');
        void read.finally(() => {
          answered = true;
        });
        await new Promise((r) => setTimeout(r, 300));
        expect(answered).toBe(false);
        await other.query('commit');
        expect(await read).toMatchObject({ total_orders: 1, total_revenue_cents: 1130, total_items_sold: 1 });
      } finally {
        await other.end();
      }
    });
  },
);

describe('the top products of many products', () => {
  it('are exactly those of adding up every product, whatever the spread (candidates, bounds, fallback)', async () => {
    // Synthetic rollup rows in 2040 (products that do not exist: no titles), removed afterwards.
    const rows: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let p = 0; p < 300; p++) {
      const id = `products:synthetic${String(p).padStart(3, '0')}`;
      const seller = `users:synthetic${p % 7}`;
      for (let m = 1; m <= 12; m++) {
        // Some products popular all year, some in one month, most flat: ties and near-ties.
        const popular = p < 5 ? 50 : p % 37 === m ? 80 : 0;
        for (const day of [3, 17]) {
          const units = Math.floor(random() * 4) + popular;
          const date = `2040-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          rows.push(`('${id}', '${date}', '${seller}', ${units}, ${units * (100 + (p % 5) * 10)})`);
        }
      }
    }
    await database.db.execute(
      sql.raw(
        `insert into analytics_product_days (product_id, day, seller_id, units, revenue_cents) values ${rows.join(',')}`,
      ),
    );
    await database.db.execute(
      sql.raw(`insert into analytics_product_months (product_id, month, seller_id, units, revenue_cents)
        select product_id, date_trunc('month', day)::date, seller_id, sum(units), sum(revenue_cents)
        from analytics_product_days where product_id like 'products:synthetic%' group by 1, 2, 3`),
    );
    try {
      const adm = await adminAt('2041-01-15T12:00:00Z');
      for (const [a, b] of [
        ['2040-01-01', '2040-12-31'],
        ['2040-01-10', '2040-11-20'],
        ['2040-03-17', '2040-03-17'],
        ['2040-02-04', '2040-06-16'],
      ] as const) {
        const naive = await rowsOf<{ product_id: string; units: number; revenue: number }>(
          database.db,
          sql`select product_id, sum(units)::int as units, sum(revenue_cents)::int as revenue
                from analytics_product_days where product_id like 'products:synthetic%' and day between ${a}::date and ${b}::date
                group by product_id having sum(units) > 0
                order by sum(revenue_cents) desc, product_id collate "C" limit 10`,
        );
        const body = await get(adm, `/admin/analytics?start_date=${a}&end_date=${b}`);
        expect(body.top_products, `${a}..${b}`).toEqual(
          naive.map((r) => ({
            product_id: r.product_id,
            title: '',
            units_sold: r.units,
            revenue_cents: r.revenue,
          })),
        );
      }
    } finally {
      await database.db.execute(
        sql`delete from analytics_product_days where product_id like 'products:synthetic%'`,
      );
      await database.db.execute(
        sql`delete from analytics_product_months where product_id like 'products:synthetic%'`,
      );
    }
  });
});
