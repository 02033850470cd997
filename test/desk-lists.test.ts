// The admins' lists of orders and users (issue 43): GET /admin/orders searched by number or the
// beginning of a buyer's email, filtered by status, Toronto days, province and shop, paged by a
// cursor that loses and repeats no order when orders share a timestamp; an order's history (paid,
// shipped, delivered, returned and refunded); GET /admin/users by email or name beginning, role,
// suspension; a user's history. Admins only; every parameter bounded.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql.ts';
import { admin, buyer, type SignedIn, useTestApp } from './helpers/app.ts';
import { expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { cancel, deliver, paidOrder, refundedReturn, ship } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

type Row = { id: string; number: string; status: string; createdAt: number } & Record<string, unknown>;

const list = async (boss: SignedIn, query: string) => {
  const res = await t.api.as(boss).get(`/admin/orders${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { orders: Row[]; nextBefore: string | null; broad: boolean };
};

const setCreated = (orderId: string, iso: string) =>
  rowsOf(database.db, sql`update orders set created_at = ${iso}::timestamptz where id = ${orderId}`);

/** Every page of a list, following nextBefore: answers the ids in the order read. */
async function allPages(boss: SignedIn, query: string, limit: number) {
  const ids: string[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const page = await list(
      boss,
      `${query}&limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ''}`,
    );
    expect(page.orders.length).toBeLessThanOrEqual(limit);
    ids.push(...page.orders.map((o) => o.id));
    before = page.nextBefore;
    if (!before) return ids;
  }
  throw new Error('more than 50 pages');
}

/** A paid order of the product `productId` bought by `b`, shipped to `address`. */
async function orderOf(productId: string, b: SignedIn, address = QC_ADDRESS) {
  await addToCart(t.api, b, productId, 1);
  const session = await openCheckout(t.api, b, address);
  const [orderId] = await payOk(t.api, session.sessionId);
  return orderId!;
}

describe('GET /admin/orders', () => {
  it('refuses the anonymous (401), a buyer and a seller (403)', async () => {
    expectError(await t.api.get('/admin/orders'), 'AUTH_ERROR', 401);
    const b = await buyer(t.api);
    const s = await seller(t.api);
    expectError(await t.api.as(b).get('/admin/orders'), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(s).get(`/admin/orders?shop=${s.id}`), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(s).get('/admin/orders/orders:nope'), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(b).get(`/admin/users/${b.id}`), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(s).get('/admin/users'), 'AUTHZ_ERROR', 403);
  });

  it('refuses bad parameters with the usual 400', async () => {
    const boss = await admin(t.api, database);
    const get = (q: string) => t.api.as(boss).get(`/admin/orders${q}`);
    expectInvalid(await get('?limit=0'), [{ field: 'limit', message: 'must be at least 1' }]);
    expectInvalid(await get('?limit=101'), [{ field: 'limit', message: 'must be at most 100' }]);
    expectInvalid(await get('?status=lost'), [
      { field: 'status', message: expect.stringContaining('must be one of') as unknown as string },
    ]);
    expectInvalid(await get('?province=ZZ'), [
      { field: 'province', message: expect.stringContaining('must be one of') as unknown as string },
    ]);
    expectInvalid(await get('?from=2026-02-30'), [
      { field: 'from', message: 'must be a real calendar date from 2000-01-01 on' },
    ]);
    expectInvalid(await get('?from=2026-03-02&to=2026-03-01'), [
      { field: 'from', message: 'must not be after to (2026-03-01)' },
    ]);
    expectInvalid(await get('?before=2026-000001'), [
      { field: 'before', message: 'must be the nextBefore of the previous page' },
    ]);
    expectInvalid(await get('?shop=nobody'), [{ field: 'shop', message: 'must be a user’s ID (users:…)' }]);
    expectInvalid(await get(`?q=${'a'.repeat(321)}`), [
      { field: 'q', message: 'must be at most 320 characters' },
    ]);
    expectError(await get('/orders:nope'), 'NOT_FOUND', 404);
    expectError(await get('/nothing'), 'NOT_FOUND', 404);
  });

  it('filters by shop, status, province and Toronto days; finds by number and by email beginning', async () => {
    const boss = await admin(t.api, database);
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 1500, stockQuantity: 50 });
    const b1 = await buyer(t.api, 'lists.alpha');
    const b2 = await buyer(t.api, 'lists.beta');
    const inQc = await orderOf(p.id, b1);
    const inOn = (await paidOrder(t, { seller: s, product: p, buyer: b2 })).orderId;
    const shipped = (await paidOrder(t, { seller: s, product: p, buyer: b2 })).orderId;
    await ship(t, s, shipped);
    const cancelled = (await paidOrder(t, { seller: s, product: p, buyer: b1 })).orderId;
    await cancel(t, b1, cancelled);
    // 23:30 on 9 March in Toronto (EDT) is already 10 March in UTC.
    await setCreated(inQc, '2026-03-10T03:30:00Z');
    await setCreated(inOn, '2026-03-10T04:30:00Z');
    await setCreated(shipped, '2026-03-11T12:00:00Z');
    await setCreated(cancelled, '2026-03-12T12:00:00Z');

    const shop = `?shop=${s.id}`;
    expect((await list(boss, shop)).orders.map((o) => o.id)).toEqual([cancelled, shipped, inOn, inQc]);
    const one = (await list(boss, shop)).orders.find((o) => o.id === inQc)!;
    expect(one).toEqual({
      id: inQc,
      number: expect.stringMatching(/^\d{4}-\d{6}$/),
      status: 'confirmed',
      buyerId: b1.id,
      buyerEmail: b1.email,
      sellerId: s.id,
      shopName: 'Maple Goods',
      province: 'QC',
      totalAmountCents: expect.any(Number),
      refundedCents: 0,
      itemCount: 1,
      createdAt: Date.parse('2026-03-10T03:30:00Z') / 1000,
    });
    const ids = async (q: string) => (await list(boss, `${shop}${q}`)).orders.map((o) => o.id);
    expect(await ids('&status=shipped')).toEqual([shipped]);
    expect(await ids('&status=cancelled')).toEqual([cancelled]);
    expect(await ids('&status=delivered')).toEqual([]);
    expect(await ids('&province=QC')).toEqual([inQc]);
    expect(await ids('&province=ON&status=confirmed')).toEqual([inOn]);
    expect(await ids('&to=2026-03-09')).toEqual([inQc]);
    expect(await ids('&from=2026-03-10&to=2026-03-11')).toEqual([shipped, inOn]);
    expect(await ids('&from=2026-03-12')).toEqual([cancelled]);
    expect(
      (await list(boss, '?province=QC&status=confirmed&from=2026-03-09&to=2026-03-09')).orders.map(
        (o) => o.id,
      ),
    ).toEqual([inQc]);

    // By number (anywhere, any shop), with filters still applied; by id.
    expect((await list(boss, `?q=${one.number}`)).orders.map((o) => o.id)).toEqual([inQc]);
    expect((await list(boss, `?q=${one.number}&status=shipped`)).orders).toEqual([]);
    expect((await list(boss, `?q=${encodeURIComponent(inQc)}`)).orders.map((o) => o.id)).toEqual([inQc]);
    // By a buyer's email, whole (any case) or its beginning.
    expect(
      (await list(boss, `?q=${encodeURIComponent(b1.email.toUpperCase())}`)).orders.map((o) => o.id),
    ).toEqual([cancelled, inQc]);
    const start = b2.email.slice(0, b2.email.indexOf('@') - 2);
    const byStart = await list(boss, `?q=${encodeURIComponent(start)}`);
    expect(byStart.orders.map((o) => o.id)).toEqual([shipped, inOn]);
    expect(byStart.broad).toBe(false);
    expect(
      (await list(boss, `?q=${encodeURIComponent(b1.email)}&status=cancelled`)).orders.map((o) => o.id),
    ).toEqual([cancelled]);
    expect((await list(boss, '?q=nobody.here@')).orders).toEqual([]);
  });

  it('says when an email beginning matched more accounts than it searches', async () => {
    const boss = await admin(t.api, database);
    for (let i = 0; i < 21; i++) await buyer(t.api, 'broad');
    const page = await list(boss, '?q=broad.');
    expect(page.broad).toBe(true);
  });

  it('pages newest first with a cursor: no order lost or repeated when they share a timestamp', async () => {
    const boss = await admin(t.api, database);
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 1000, stockQuantity: 50 });
    const b = await buyer(t.api);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await paidOrder(t, { seller: s, product: p, buyer: b })).orderId);
    // Five share one second, two are older.
    for (const id of made.slice(0, 5)) await setCreated(id, '2026-05-01T15:00:00Z');
    await setCreated(made[5]!, '2026-04-01T15:00:00Z');
    await setCreated(made[6]!, '2026-04-01T15:00:00Z');
    const expected = [...made.slice(0, 5)].sort().reverse().concat([made[5]!, made[6]!].sort().reverse());
    for (const limit of [1, 2, 3, 100]) {
      const read = await allPages(boss, `?shop=${s.id}`, limit);
      expect(read).toEqual(expected);
    }
    // A page's nextBefore is its last order; the last page says null.
    const first = await list(boss, `?shop=${s.id}&limit=3`);
    expect(first.nextBefore).toBe(first.orders[2]!.id);
    expect((await list(boss, `?shop=${s.id}&limit=7`)).nextBefore).toBeNull();
    // A cursor naming no order reads nothing.
    expect((await list(boss, `?shop=${s.id}&before=orders:unknown`)).orders).toEqual([]);
  });
});

describe('GET /admin/orders/:id', () => {
  it('shows a paid, shipped, delivered, returned and refunded order with its history', async () => {
    const boss = await admin(t.api, database);
    const r = await refundedReturn(t, { by: boss, reason: 'damaged' });
    const res = await t.api.as(boss).get(`/admin/orders/${encodeURIComponent(r.orderId)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    expect(body.order).toMatchObject({
      id: r.orderId,
      status: 'delivered',
      buyerId: r.buyer.id,
      sellerId: r.seller.id,
    });
    expect(body.order.refundedCents).toBeGreaterThan(0);
    expect(body.buyer).toEqual({ id: r.buyer.id, email: r.buyer.email, name: 'Test buyer' });
    expect(body.shop).toEqual({ id: r.seller.id, name: 'Maple Goods' });
    expect(body.returns).toEqual([
      {
        id: r.returnId,
        status: 'refunded',
        reason: 'damaged',
        refundAmountCents: body.order.refundedCents,
        createdAt: expect.any(Number),
      },
    ]);
    expect(body.refunds).toEqual([
      {
        id: expect.any(String),
        amountCents: body.order.refundedCents,
        reason: expect.any(String),
        status: 'succeeded',
        returnId: r.returnId,
        createdAt: expect.any(Number),
        completedAt: expect.any(Number),
      },
    ]);
    const events = (body.history as Array<{ event: string; detail: string | null; at: number }>).map(
      (h) => h.event,
    );
    for (const e of [
      'order.placed',
      'order.confirmed',
      'payment.event',
      'order.shipped',
      'order.delivered',
      'return.requested',
      'return.decided',
      'refund.requested',
      'refund.succeeded',
      'return.refunded',
      'admin.action',
    ]) {
      expect(events, e).toContain(e);
    }
    expect(events.indexOf('order.placed')).toBeLessThan(events.indexOf('order.shipped'));
    expect(events.indexOf('order.shipped')).toBeLessThan(events.indexOf('order.delivered'));
    const ats = body.history.map((h: { at: number }) => h.at);
    expect(ats).toEqual([...ats].sort((a: number, b: number) => a - b));
    expect(body.history).toContainEqual({
      at: expect.any(Number),
      event: 'order.shipped',
      detail: 'Canada Post 1Z 999',
      ref: null,
    });
    // The admin's decision, from the audit log.
    expect(body.history.find((h: { event: string }) => h.event === 'admin.action').detail).toBe(
      `return.approve ${boss.email}`,
    );
  });

  it('shows a cancelled order with its refund', async () => {
    const boss = await admin(t.api, database);
    const paid = await paidOrder(t);
    await cancel(t, paid.buyer, paid.orderId, 'Changed my mind');
    const res = await t.api.as(boss).get(`/admin/orders/${encodeURIComponent(paid.orderId)}`);
    expect(res.body.order.status).toBe('cancelled');
    expect(res.body.history).toContainEqual({
      at: expect.any(Number),
      event: 'order.cancelled',
      detail: 'Changed my mind',
      ref: null,
    });
    expect(res.body.refunds).toHaveLength(1);
  });
});

describe('GET /admin/users', () => {
  const users = async (boss: SignedIn, query: string) => {
    const res = await t.api.as(boss).get(`/admin/users${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { users: Array<Record<string, unknown> & { id: string }>; nextBefore: string | null };
  };

  it('searches an email or a name beginning, filters by role and suspension, pages', async () => {
    const boss = await admin(t.api, database);
    const tag = `zq${Date.now().toString(36)}`;
    const made: SignedIn[] = [];
    for (let i = 0; i < 3; i++) made.push(await buyer(t.api, `${tag}.${i}`));
    const s = await seller(t.api);
    await rowsOf(database.db, sql`update users set name = ${`Émilie ${tag}`} where id = ${s.id}`);
    // By a name's beginning (any case): in name order, paged.
    const named = `?q=${encodeURIComponent(`TEST ${tag}.`)}`;
    const first = await users(boss, `${named}&limit=2`);
    expect(first.users.map((u) => u.id)).toEqual([made[0]!.id, made[1]!.id]);
    expect(first.users[0]).toEqual({
      id: made[0]!.id,
      email: made[0]!.email,
      name: `Test ${tag}.0`,
      role: 'buyer',
      emailVerified: false,
      createdAt: expect.any(Number),
      suspendedAt: null,
    });
    expect(first.nextBefore).toBe(made[1]!.id);
    const second = await users(boss, `${named}&limit=2&before=${encodeURIComponent(first.nextBefore!)}`);
    expect(second.users.map((u) => u.id)).toEqual([made[2]!.id]);
    expect(second.nextBefore).toBeNull();
    // With @, an email or its beginning, any case.
    expect(
      (await users(boss, `?q=${encodeURIComponent(made[1]!.email.toUpperCase())}`)).users.map((u) => u.id),
    ).toEqual([made[1]!.id]);
    const local = made[0]!.email.slice(0, made[0]!.email.indexOf('@') + 1);
    expect((await users(boss, `?q=${encodeURIComponent(local)}`)).users.map((u) => u.id)).toEqual([
      made[0]!.id,
    ]);
    expect((await users(boss, `?q=${encodeURIComponent(`${tag}.0.@`)}`)).users).toEqual([]);
    expect(
      (await users(boss, `?q=${encodeURIComponent(`émilie ${tag}`.toUpperCase())}`)).users.map((u) => u.id),
    ).toEqual([s.id]);
    expect((await users(boss, `?q=${encodeURIComponent(`Test ${tag}`)}&role=buyer`)).users).toHaveLength(3);
    expect((await users(boss, `?q=${encodeURIComponent(`Test ${tag}`)}&role=seller`)).users).toHaveLength(0);
    // Suspended.
    expect((await t.api.as(boss).post(`/admin/users/${made[2]!.id}/suspend`)).status).toBe(200);
    expect((await users(boss, `${named}&suspended=true`)).users.map((u) => u.id)).toEqual([made[2]!.id]);
    expect((await users(boss, `${named}&suspended=false`)).users.map((u) => u.id)).toEqual([
      made[0]!.id,
      made[1]!.id,
    ]);
    const suspended = await users(boss, '?suspended=true&limit=100');
    expect(suspended.users.every((u) => u.suspendedAt !== null)).toBe(true);
    // Newest first without a search, across pages with nothing lost.
    const all: string[] = [];
    let before: string | null = null;
    do {
      const page = await users(
        boss,
        `?role=buyer&limit=5${before ? `&before=${encodeURIComponent(before)}` : ''}`,
      );
      all.push(...page.users.map((u) => u.id));
      before = page.nextBefore;
    } while (before);
    expect(new Set(all).size).toBe(all.length);
    for (const m of made) expect(all).toContain(m.id);
    expect(all.indexOf(made[2]!.id)).toBeLessThan(all.indexOf(made[0]!.id));
  });

  it('refuses bad parameters', async () => {
    const boss = await admin(t.api, database);
    const get = (q: string) => t.api.as(boss).get(`/admin/users${q}`);
    expectInvalid(await get('?suspended=yes'), [{ field: 'suspended', message: 'must be true or false' }]);
    expectInvalid(await get('?role=owner'), [
      { field: 'role', message: expect.stringContaining('must be one of') as unknown as string },
    ]);
    expectInvalid(await get('?before=orders:x'), [
      { field: 'before', message: 'must be the nextBefore of the previous page' },
    ]);
    expectInvalid(await get('?limit=500'), [{ field: 'limit', message: 'must be at most 100' }]);
    expectError(await get('/users:nobody'), 'NOT_FOUND', 404);
  });
});

describe('GET /admin/users/:id', () => {
  it("shows a buyer's orders, returns and reviews, and the admins' actions on them", async () => {
    const boss = await admin(t.api, database);
    const r = await refundedReturn(t);
    const review = await t.api
      .as(r.buyer)
      .post('/reviews', { product_id: r.product.id, rating: 4, title: 'Solid', comment: 'Good paddle.' });
    expect(review.status, JSON.stringify(review.body)).toBe(201);
    expect((await t.api.as(boss).post(`/admin/users/${r.buyer.id}/suspend`)).status).toBe(200);
    expect((await t.api.as(boss).post(`/admin/users/${r.buyer.id}/reinstate`)).status).toBe(200);
    const res = await t.api.as(boss).get(`/admin/users/${encodeURIComponent(r.buyer.id)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const u = res.body;
    expect(u.user).toMatchObject({ id: r.buyer.id, email: r.buyer.email, role: 'buyer', suspendedAt: null });
    expect(u.shop).toBeNull();
    expect(u.sales).toBeNull();
    expect(u.orders).toMatchObject({ count: 1, more: false });
    expect(u.orders.recent.map((o: Row) => o.id)).toEqual([r.orderId]);
    expect(u.returns).toEqual({
      count: 1,
      more: false,
      recent: [
        {
          id: r.returnId,
          orderId: r.orderId,
          status: 'refunded',
          reason: 'damaged',
          createdAt: expect.any(Number),
        },
      ],
    });
    expect(u.reviews.count).toBe(1);
    expect(u.reviews.recent[0]).toMatchObject({ productId: r.product.id, rating: 4, title: 'Solid' });
    expect(u.adminActions.map((a: { action: string }) => a.action)).toEqual([
      'user.reinstate',
      'user.suspend',
    ]);
    expect(u.adminActions[0].actorEmail).toBe(boss.email);

    // A seller: their shop and its orders.
    const sres = await t.api.as(boss).get(`/admin/users/${encodeURIComponent(r.seller.id)}`);
    expect(sres.body.shop).toMatchObject({ name: 'Maple Goods', province: 'ON', slug: expect.any(String) });
    expect(sres.body.sales).toMatchObject({ count: 1, more: false });
    expect(sres.body.sales.recent[0].id).toBe(r.orderId);
    expect(sres.body.orders).toEqual({ count: 0, more: false, recent: [] });
  });
});

describe('the desk pages', () => {
  it('lists, filters and opens orders and users, and refuses non-admins', async () => {
    const boss = await admin(t.api, database);
    const paid = await paidOrder(t);
    await ship(t, paid.seller, paid.orderId);
    await deliver(t, paid.seller, paid.orderId);
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const found = await desk.get(`/desk/orders?shop=${encodeURIComponent(paid.seller.id)}&status=delivered`);
    expect(found.status).toBe(200);
    const number = (await t.api.as(boss).get(`/admin/orders/${encodeURIComponent(paid.orderId)}`)).body.order
      .number as string;
    expect(textOf(found.html)).toContain(number);
    expect(found.html).toContain(`href="/desk/orders/${encodeURIComponent(paid.orderId)}"`);
    const none = await desk.get(`/desk/orders?shop=${encodeURIComponent(paid.seller.id)}&status=cancelled`);
    expect(textOf(none.html)).toContain('No order matches.');
    const bad = await desk.get('/desk/orders?from=2026-13-01');
    expect(bad.status).toBe(400);

    const order = await desk.get(`/desk/orders/${encodeURIComponent(paid.orderId)}`);
    expect(order.status).toBe(200);
    expect(textOf(order.html)).toContain(`Order ${number}`);
    expect(order.html).toContain(`href="/desk/users/${encodeURIComponent(paid.buyer.id)}"`);
    expect(textOf(order.html)).toContain('Shipped');
    expect((await desk.get('/desk/orders/orders%3Anope')).status).toBe(404);

    const user = await desk.get(`/desk/users/${encodeURIComponent(paid.buyer.id)}`);
    expect(user.status).toBe(200);
    expect(textOf(user.html)).toContain(paid.buyer.email);
    expect(user.html).toContain(`action="/desk/users/${encodeURIComponent(paid.buyer.id)}/suspend"`);
    const listed = await desk.get(`/desk/users?q=${encodeURIComponent(paid.buyer.email)}`);
    expect(listed.html).toContain(`href="/desk/users/${encodeURIComponent(paid.buyer.id)}"`);

    const b = new Browser(t.app);
    await b.signIn(paid.buyer);
    expect((await b.get('/desk/orders')).status).toBe(403);
    expect((await b.get(`/desk/users/${encodeURIComponent(paid.buyer.id)}`)).status).toBe(403);
  });
});
