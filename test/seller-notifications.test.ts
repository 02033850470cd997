// A seller's notifications over HTTP (docs/api.md "Seller notifications"): what each event writes
// to the inbox and the outbox, in the seller's language; the choices by kind; read marks and
// pages; the low-stock threshold, its crossings and a race of two sales across it; who may call.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import type { NotificationAnswer } from '../src/modules/notifications/service.ts';
import { noticeOutbox, sellerNotifications } from '../src/modules/notifications/tables.ts';
import { admin, type SignedIn, testApp, useTestApp, verified } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, paymentEvent, payOk, postEvent } from './helpers/checkout.ts';
import { outboxRows, paidOrder, requestedReturn, signIn } from './helpers/orders.ts';
import { enablePayouts, TEST_BANK } from './helpers/payouts.ts';

const { t, database } = useTestApp();

/** The notices job's pass: what the changes queued reaches inboxes and the outbox. */
const told = () => t.app.jobs.runOnce('notices');

/** The seller's notice emails (or any outbox rows) whose key starts with `prefix`, once told. */
const mails = async (prefix: string) => {
  await told();
  return outboxRows(database, prefix);
};

const inbox = async (who: SignedIn, query = '') => {
  await told();
  const res = await t.api.as(who).get(`/sellers/me/notifications${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { notifications: NotificationAnswer[]; unread: number; nextBefore: string | null };
};

const rowsOf = async (who: SignedIn) => {
  await told();
  return database.db.select().from(sellerNotifications).where(eq(sellerNotifications.sellerId, who.id));
};

const setLocale = (who: SignedIn, locale: 'en-CA' | 'fr-CA' | null) =>
  database.db.update(users).set({ locale }).where(eq(users.id, who.id));

const choose = (who: SignedIn, settings: Array<{ kind: string; email: boolean; inbox: boolean }>) =>
  t.api.as(who).put('/sellers/me/notification-settings', { settings });

/** `units` of `productId` bought and paid by a new buyer: the order's id. */
async function buy(productId: string, units: number, who?: SignedIn): Promise<string> {
  const b = who ?? (await verified(database, await buyer(t.api)));
  await addToCart(t.api, b, productId, units);
  const session = await openCheckout(t.api, b, ON_ADDRESS);
  const [orderId] = await payOk(t.api, session.sessionId);
  return orderId!;
}

describe('a new order', () => {
  it("tells its seller in the inbox and by email, in the seller's language, without the buyer", async () => {
    const order = await paidOrder(t, { quantity: 2, fields: { title: 'Cedar box' } });
    const seen = (await t.api.as(order.seller).get(`/orders/${order.orderId}`)).body;
    const number = seen.number as string;
    const total = seen.totalAmountCents as number;
    const listed = await inbox(order.seller);
    expect(listed).toEqual({
      notifications: [
        {
          id: expect.stringMatching(/^notifications:/),
          kind: 'order_placed',
          subjectId: order.orderId,
          message: `New order ${number}: $${(total / 100).toFixed(2)}, 2 items`,
          link: `/console/orders/${encodeURIComponent(order.orderId)}`,
          facts: { orderNumber: number, totalCents: total, units: 2 },
          createdAt: expect.any(Number),
          readAt: null,
        },
      ],
      unread: 1,
      nextBefore: null,
    });

    const [mail, ...more] = await mails(`notice:order_placed:${order.orderId}`);
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ toAddress: order.seller.email, kind: 'notice-order_placed' });
    expect(mail!.subject).toBe(listed.notifications[0]!.message);
    expect(mail!.textBody).toContain(
      `See it in your console: http://portage.test/console/orders/${encodeURIComponent(order.orderId)}`,
    );
    expect(mail!.textBody).toContain(
      'Choose what you are told of by email: http://portage.test/console/notifications#settings',
    );
    expect(`${mail!.textBody}${mail!.htmlBody}`).not.toContain(order.buyer.email);

    // The buyer has no inbox; anyone else's answer is their own (empty).
    expectError(await t.api.as(order.buyer).get('/sellers/me/notifications'), 'AUTHZ_ERROR', 403);
    expectError(await t.api.get('/sellers/me/notifications'), 'AUTH_ERROR', 401);
    const other = await seller(t.api);
    expect(await inbox(other)).toEqual({ notifications: [], unread: 0, nextBefore: null });
  });

  it('in French for a French-speaking seller, the API in the reader’s language', async () => {
    const s = await seller(t.api);
    await setLocale(s, 'fr-CA');
    const p = await product(t.api, s, { priceCents: 2500, stockQuantity: 5 });
    const orderId = await buy(p.id, 1);
    const [mail] = await mails(`notice:order_placed:${orderId}`);
    expect(mail!.subject).toMatch(/^Nouvelle commande \d{4}-\d{6}\s: [\d\s]+,\d\d\s\$, 1 article$/);
    expect(mail!.htmlBody).toContain('<html lang="fr-CA">');
    const fr = await t.api.as(s).get('/sellers/me/notifications', { 'Accept-Language': 'fr-CA' });
    expect(fr.body.notifications[0].message).toBe(mail!.subject);
  });

  it('an order paid after its stock was sold elsewhere: waiting for stock, and no low stock from it', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 4000, stockQuantity: 2 });
    await t.api.as(s).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: 0 });
    const first = await buyer(t.api);
    await addToCart(t.api, first, p.id, 2);
    const lapsed = await openCheckout(t.api, first);
    t.clock.offsetMs += 31 * 60_000;
    const sold = await buy(p.id, 2); // 2 -> 0: the crossing of 0
    const paid = await postEvent(t, paymentEvent(lapsed.sessionId, lapsed.totalCents));
    expect(paid.status).toBe(200);
    const [pendingId] = paid.body.orderIds;
    const listed = (await inbox(s)).notifications.map((n) => [n.kind, n.subjectId]);
    // Newest first; the sale's two notices were written at one instant, in either order.
    expect(listed[0]).toEqual(['order_waiting_for_stock', pendingId]);
    expect(listed.slice(1)).toEqual(
      expect.arrayContaining([
        ['order_placed', sold],
        ['stock_low', p.variants[0]!.id],
      ]),
    );
    expect(listed).toHaveLength(3);
    const [mail] = await mails(`notice:order_waiting_for_stock:${pendingId}`);
    expect(mail!.subject).toMatch(
      /^Order \d{4}-\d{6} is waiting for stock: confirm or cancel it within 48 hours \(\$[\d.]+\)$/,
    );
  });

  it('one checkout of two sellers: each hears of their own order only', async () => {
    const a = await seller(t.api);
    const b = await seller(t.api);
    const pa = await product(t.api, a, { stockQuantity: 5 });
    const pb = await product(t.api, b, { stockQuantity: 5 });
    const shopper = await buyer(t.api);
    await addToCart(t.api, shopper, pa.id, 1);
    await addToCart(t.api, shopper, pb.id, 3);
    const session = await openCheckout(t.api, shopper, ON_ADDRESS);
    const ids = await payOk(t.api, session.sessionId);
    const [na] = (await inbox(a)).notifications;
    const [nb] = (await inbox(b)).notifications;
    expect(ids).toContain(na!.subjectId);
    expect(ids).toContain(nb!.subjectId);
    expect(na!.subjectId).not.toBe(nb!.subjectId);
    expect([na!.facts.units, nb!.facts.units]).toEqual([1, 3]);
  });
});

describe('the queue', () => {
  it('two instances passing at once tell each notice once', async () => {
    const other = await testApp(database);
    try {
      const s = await seller(t.api);
      const p = await product(t.api, s, { stockQuantity: 20 });
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.push(await buy(p.id, 1));
      other.clock.offsetMs = t.clock.offsetMs;
      const passes = await Promise.all([told(), other.app.jobs.runOnce('notices'), told()]);
      // Each queued notice was taken by one pass (on PostgreSQL the passes overlap: skip locked).
      expect(passes.reduce((n, p) => n + (p.notices ?? 0), 0)).toBe(5);
      expect(await database.db.select().from(noticeOutbox)).toEqual([]);
      const rows = await rowsOf(s);
      expect(rows.map((r) => r.subjectId).sort()).toEqual([...ids].sort());
      for (const id of ids) expect(await outboxRows(database, `notice:order_placed:${id}`)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('the choices', () => {
  it('lists every kind on for both, saves some, and honours them', async () => {
    const s = await seller(t.api);
    const before = await t.api.as(s).get('/sellers/me/notification-settings');
    expect(before.status).toBe(200);
    expect(before.body.settings).toEqual(
      [
        'order_placed',
        'order_waiting_for_stock',
        'return_requested',
        'review_posted',
        'stock_low',
        'payout_sent',
        'payout_failed',
        'dispute_opened',
        'order_message',
      ].map((kind) => ({ kind, email: true, inbox: true })),
    );
    const saved = await choose(s, [{ kind: 'order_placed', email: false, inbox: true }]);
    expect(saved.status).toBe(200);
    expect(saved.body.settings[0]).toEqual({ kind: 'order_placed', email: false, inbox: true });
    expect(
      saved.body.settings.slice(1).every((x: { email: boolean; inbox: boolean }) => x.email && x.inbox),
    ).toBe(true);

    const p = await product(t.api, s, { stockQuantity: 10 });
    const first = await buy(p.id, 1);
    expect(await mails(`notice:order_placed:${first}`)).toEqual([]);
    expect((await inbox(s)).notifications.map((n) => n.subjectId)).toEqual([first]);

    // Inbox off too: nothing at all.
    await choose(s, [{ kind: 'order_placed', email: false, inbox: false }]);
    const second = await buy(p.id, 1);
    expect(await mails(`notice:order_placed:${second}`)).toEqual([]);
    expect((await inbox(s)).notifications.map((n) => n.subjectId)).toEqual([first]);

    // Email back on, inbox off: the email alone.
    await choose(s, [{ kind: 'order_placed', email: true, inbox: false }]);
    const third = await buy(p.id, 1);
    expect(await mails(`notice:order_placed:${third}`)).toHaveLength(1);
    expect((await rowsOf(s)).map((r) => r.subjectId)).toEqual([first]);
  });

  it('refuses a kind given twice, an unknown kind, a missing field and extra fields', async () => {
    const s = await seller(t.api);
    expectInvalid(
      await choose(s, [
        { kind: 'order_placed', email: true, inbox: true },
        { kind: 'order_placed', email: false, inbox: true },
      ]),
      [{ field: 'settings', message: 'each kind at most once' }],
    );
    const unknown = await choose(s, [{ kind: 'weather', email: true, inbox: true }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].field).toBe('settings.0.kind');
    const extra = await t.api.as(s).put('/sellers/me/notification-settings', {
      settings: [{ kind: 'stock_low', email: true, inbox: true, sms: true }],
    });
    expect(extra.status).toBe(400);
    expect((await t.api.as(s).get('/sellers/me/notification-settings')).body.settings[0]).toEqual({
      kind: 'order_placed',
      email: true,
      inbox: true,
    });
  });
});

describe('the inbox', () => {
  it('pages newest first, marks read by id (only the caller’s) or all', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 20 });
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(await buy(p.id, 1));
      t.clock.offsetMs += 1000;
    }
    const first = await inbox(s, '?limit=2');
    expect(first.notifications.map((n) => n.subjectId)).toEqual([ids[2], ids[1]]);
    expect(first.unread).toBe(3);
    expect(first.nextBefore).toBe(first.notifications[1]!.id);
    const second = await inbox(s, `?limit=2&before=${encodeURIComponent(first.nextBefore!)}`);
    expect(second.notifications.map((n) => n.subjectId)).toEqual([ids[0]]);
    expect(second.nextBefore).toBeNull();

    // Another seller cannot mark these, nor page from them.
    const other = await seller(t.api);
    const theirs = await t.api
      .as(other)
      .post('/sellers/me/notifications/read', { ids: [first.notifications[0]!.id] });
    expect(theirs.body).toEqual({ unread: 0 });
    expect((await inbox(s)).unread).toBe(3);
    expect((await inbox(other, `?before=${encodeURIComponent(first.nextBefore!)}`)).notifications).toEqual(
      [],
    );
    expectError(await t.api.as(s).get('/sellers/me/notifications?before=orders:x'), 'NOT_FOUND', 404);

    const one = await t.api
      .as(s)
      .post('/sellers/me/notifications/read', { ids: [first.notifications[0]!.id] });
    expect(one.body).toEqual({ unread: 2 });
    const unreadOnly = await inbox(s, '?unread=true');
    expect(unreadOnly.notifications.map((n) => n.subjectId)).toEqual([ids[1], ids[0]]);
    expect((await inbox(s)).notifications[0]!.readAt).toEqual(expect.any(Number));

    expectInvalid(await t.api.as(s).post('/sellers/me/notifications/read', { ids: ['x'], all: true }), [
      { field: 'body', message: 'give ids or all, not both' },
    ]);
    expect((await t.api.as(s).post('/sellers/me/notifications/read', { all: true })).body).toEqual({
      unread: 0,
    });
    expect((await inbox(s, '?unread=true')).notifications).toEqual([]);
  });
});

describe('low stock', () => {
  it('tells at the crossing, not again below it, and again after a restock; in the seller’s inbox only', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Maple syrup', priceCents: 1500, stockQuantity: 6 });
    const set = await t.api.as(s).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: 3 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ productId: p.id, threshold: 3 });
    expect((await t.api.as(s).get('/sellers/me/low-stock-thresholds')).body).toEqual({
      thresholds: [{ productId: p.id, threshold: 3 }],
    });

    await buy(p.id, 2); // 6 -> 4: above
    expect((await rowsOf(s)).filter((r) => r.kind === 'stock_low')).toEqual([]);
    await buy(p.id, 1); // 4 -> 3: the crossing
    const low = (await inbox(s)).notifications.find((n) => n.kind === 'stock_low')!;
    expect(low).toMatchObject({
      subjectId: p.variants[0]!.id,
      message: 'Low stock: Maple syrup has 3 units left (alert at 3)',
      link: `/console/products/${encodeURIComponent(p.id)}`,
      facts: { productId: p.id, productTitle: 'Maple syrup', variantTitle: '', stock: 3, threshold: 3 },
    });
    expect(await mails(`notice:stock_low:${p.variants[0]!.id}:`)).toHaveLength(1);
    await t.api.as(s).post('/sellers/me/notifications/read', { all: true });

    await buy(p.id, 1); // 3 -> 2: already below, nothing new
    expect(await mails(`notice:stock_low:${p.variants[0]!.id}:`)).toHaveLength(1);
    expect((await inbox(s, '?unread=true')).notifications.filter((n) => n.kind === 'stock_low')).toEqual([]);

    // Restocked to 10, then sold down past 3 again: told again (the row raised, a second email).
    expect((await t.api.as(s).patch(`/products/${p.id}`, { stockQuantity: 10 })).status).toBe(200);
    t.clock.offsetMs += 1000;
    await buy(p.id, 8); // 10 -> 2
    const again = (await inbox(s, '?unread=true')).notifications.filter((n) => n.kind === 'stock_low');
    expect(again.map((n) => n.facts.stock)).toEqual([2]);
    expect(await mails(`notice:stock_low:${p.variants[0]!.id}:`)).toHaveLength(2);
    expect((await rowsOf(s)).filter((r) => r.kind === 'stock_low')).toHaveLength(1);

    // Cleared: no alert at all.
    expect(
      (await t.api.as(s).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: null })).body,
    ).toEqual({
      productId: p.id,
      threshold: null,
    });
    expect((await t.api.as(s).get('/sellers/me/low-stock-thresholds')).body).toEqual({ thresholds: [] });
  });

  it("refuses another seller's product, an unknown one and a bad threshold", async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const other = await seller(t.api);
    expectError(
      await t.api.as(other).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: 2 }),
      'NOT_FOUND',
      404,
      `Product ${p.id} not found`,
    );
    expectError(
      await t.api.as(s).put('/sellers/me/low-stock-thresholds/products:nope', { threshold: 2 }),
      'NOT_FOUND',
      404,
    );
    expectInvalid(await t.api.as(s).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: -1 }), [
      { field: 'threshold', message: 'must be an integer >= 0' },
    ]);
    expect((await t.api.as(other).get('/sellers/me/low-stock-thresholds')).body).toEqual({ thresholds: [] });
  });

  it('two sales at once across the threshold: told once, by the sale that crossed it', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 5 });
    await t.api.as(s).put(`/sellers/me/low-stock-thresholds/${p.id}`, { threshold: 3 });
    const [b1, b2] = [await buyer(t.api), await buyer(t.api)];
    await addToCart(t.api, b1, p.id, 1);
    await addToCart(t.api, b2, p.id, 1);
    const [s1, s2] = [await openCheckout(t.api, b1, ON_ADDRESS), await openCheckout(t.api, b2, ON_ADDRESS)];
    await Promise.all([payOk(t.api, s1.sessionId), payOk(t.api, s2.sessionId)]); // 5 -> 4 -> 3
    const low = (await rowsOf(s)).filter((r) => r.kind === 'stock_low');
    expect(low.map((r) => r.facts)).toEqual([expect.objectContaining({ stock: 3, threshold: 3 })]);
    expect(await mails(`notice:stock_low:${p.variants[0]!.id}:`)).toHaveLength(1);
  });
});

describe('reviews, returns, payouts', () => {
  it('a review made public tells the seller once; a held one when the desk publishes it', async () => {
    const order = await paidOrder(t, { fields: { title: 'Birch tray' } });
    const posted = await t.api
      .as(order.buyer)
      .post('/reviews', { product_id: order.product.id, rating: 4, title: 'Good', comment: 'Solid' });
    expect(posted.status).toBe(201);
    const n = (await inbox(order.seller)).notifications.find((x) => x.kind === 'review_posted')!;
    expect(n).toMatchObject({
      subjectId: posted.body.review_id,
      message: 'New review of Birch tray: 4 stars',
      link: `/console/products/${encodeURIComponent(order.product.id)}`,
    });

    // A review with a link waits for moderation: the seller hears when it is published.
    const other = await buyer(t.api);
    const held = await t.api.as(other).post('/reviews', {
      product_id: order.product.id,
      rating: 1,
      title: 'See',
      comment: 'https://spam.example',
    });
    expect(held.status).toBe(201);
    const kinds = async () => (await rowsOf(order.seller)).filter((r) => r.kind === 'review_posted').length;
    expect(await kinds()).toBe(1);
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).post(`/admin/reviews/${held.body.review_id}/publish`)).status).toBe(200);
    expect(await kinds()).toBe(2);
    // Hidden and published again, twice before the job's pass: not told again, and the queue
    // (two notices of one subject in one batch) does not stall.
    for (let n = 0; n < 2; n++) {
      await t.api.as(boss).post(`/admin/reviews/${held.body.review_id}/reject`);
      await t.api.as(boss).post(`/admin/reviews/${held.body.review_id}/publish`);
    }
    expect(await database.db.select().from(noticeOutbox)).toHaveLength(2);
    expect(await kinds()).toBe(2);
    expect(await database.db.select().from(noticeOutbox)).toEqual([]);
    expect(await mails(`notice:review_posted:${held.body.review_id}`)).toHaveLength(1);
  });

  it('a return request: in the inbox, with its own email, which the seller may turn off', async () => {
    const r = await requestedReturn(t, {});
    const n = (await inbox(r.seller)).notifications.find((x) => x.kind === 'return_requested')!;
    expect(n).toMatchObject({
      subjectId: r.returnId,
      link: `/console/returns/${encodeURIComponent(r.returnId)}`,
      message: expect.stringMatching(/^Return requested on order \d{4}-\d{6}: about \$[\d.]+ to refund$/),
    });
    expect(await mails(`return-requested:${r.returnId}`)).toHaveLength(1);

    const quiet = await seller(t.api);
    await choose(quiet, [{ kind: 'return_requested', email: false, inbox: true }]);
    const second = await requestedReturn(t, { seller: quiet });
    expect(await mails(`return-requested:${second.returnId}`)).toEqual([]);
    expect((await inbox(quiet)).notifications.map((x) => x.kind)).toContain('return_requested');
  });

  it('a payout sent, and one that failed, each told once', async () => {
    let boss = await admin(t.api, database);
    const run = async (bank: string) => {
      boss = await signIn(t.api, boss);
      const s = await seller(t.api);
      await enablePayouts(t, s, bank);
      const key = { 'Idempotency-Key': `adj-${s.id}` };
      const adj = await t.api
        .as(boss)
        .post(
          `/admin/sellers/${encodeURIComponent(s.id)}/adjustments`,
          { amountCents: 4321, reason: 'Test' },
          key,
        );
      expect(adj.status, JSON.stringify(adj.body)).toBe(201);
      const next = (await t.api.as(s).get('/sellers/me/balance')).body.nextPayout;
      t.clock.offsetMs += next.at * 1000 - t.clock.now().getTime() + 1000;
      await t.app.jobs.runOnce();
      await t.app.jobs.runOnce();
      return inbox(await signIn(t.api, s));
    };
    const paid = await run(TEST_BANK.pays);
    expect(paid.notifications.map((n) => [n.kind, n.message, n.link])).toEqual([
      ['payout_sent', 'Payout of $43.21 sent to your bank account', '/console/payouts'],
    ]);
    const failed = await run(TEST_BANK.fails);
    expect(failed.notifications.map((n) => [n.kind, n.message])).toEqual([
      ['payout_failed', 'A payout of $43.21 failed: the money is back in your available balance'],
    ]);
  });
});
