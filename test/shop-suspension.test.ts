// A shop's state (issue 43): suspending a shop takes its products out of search, the product's
// page, the cart, checkout, ACP and UCP at once, while its open orders ship and refund; reinstated,
// all come back. With SHOP_APPROVAL=on a new shop's products are invisible until an admin approves.
// A suspended seller's account takes the products with it. Admins only; audited; the seller is
// emailed in their language. A checkout racing a suspension holds nothing once it committed.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservations } from '../src/modules/inventory/tables.ts';
import { ACP_ON, AcpClient, issuePlatform } from './helpers/acp.ts';
import { admin, buyer, type SignedIn, seller, useTestApp, withTestApp } from './helpers/app.ts';
import { expectError, product, uniqueEmail, uniqueWord } from './helpers/builders.ts';
import { addToCart, checkout, openCheckout, payOk } from './helpers/checkout.ts';
import { cancel, outboxRows, refundRows, ship } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UcpClient,
} from './helpers/ucp.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({
  env: { PUBLIC_BASE_URL: 'https://portage.test' },
  logger: { level: 'error' },
});

let boss: SignedIn;
let shopper: SignedIn;
let profiles: ProfileServer;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shopper = await buyer(t.api);
  profiles = await startProfileServer();
  profiles.documents.set('/agent.json', { body: platformProfile('http://127.0.0.1:9/hooks') });
});
afterAll(async () => {
  await profiles.close();
});

const REASON = 'Counterfeit goods reported by three buyers';

const suspend = (sellerId: string, reason = REASON) =>
  t.api.as(boss).post(`/admin/shops/${encodeURIComponent(sellerId)}/suspend`, { reason });
const reinstate = (sellerId: string) =>
  t.api.as(boss).post(`/admin/shops/${encodeURIComponent(sellerId)}/reinstate`);

/** A seller's paid order (bought before anything happens to the shop), and a product with a word of its own. */
async function shopWithOrders() {
  const s = await seller(t.api);
  const word = uniqueWord();
  const p = await product(t.api, s, { title: `Maple ${word} bowl`, priceCents: 2500, stockQuantity: 20 });
  const orders: string[] = [];
  for (let i = 0; i < 2; i++) {
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 1);
    const [orderId] = await payOk(t.api, (await openCheckout(t.api, b)).sessionId);
    orders.push(orderId!);
  }
  return { s, p, word, orders };
}

const searchTotal = async (q: string) => {
  const res = await t.api.as(shopper).get(`/search/products?q=${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.total as number;
};

describe('suspending a shop', () => {
  it('its products leave search, the page, the cart, checkout, ACP and UCP at once; open orders ship and refund; reinstated, all come back', async () => {
    const { s, p, word, orders } = await shopWithOrders();
    const b = await buyer(t.api);
    const waiting = await buyer(t.api);
    await addToCart(t.api, waiting, p.id, 2);
    expect(await searchTotal(word)).toBe(1);
    const platform = await issuePlatform(t.api, boss);
    const acp = new AcpClient(t.api, platform.apiKey, t.clock.now);
    const ucpPlatform = await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`);
    const ucp = new UcpClient(t.api, ucpPlatform);
    const lookup = () =>
      t.api.post('/ucp/v1/catalog/lookup', { ids: [p.id] }, ucp.headers({}, false)).then((r) => r.body);
    expect((await lookup()).products.map((x: { id: string }) => x.id)).toEqual([p.id]);

    const done = await suspend(s.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      sellerId: s.id,
      status: 'suspended',
      reason: REASON,
      suspendedAt: expect.any(Number),
      seller: { email: s.email, suspended: false },
    });

    // Search, the listing, the shop's page and the product's page, for anyone but its seller and admins.
    expect(await searchTotal(word)).toBe(0);
    const bySeller = await t.api.as(b).get(`/search/products?filters=sellerId:${encodeURIComponent(s.id)}`);
    expect(bySeller.body.total).toBe(0);
    expect((await t.api.as(b).get(`/products?sellerId=${encodeURIComponent(s.id)}`)).body.total).toBe(0);
    expectError(await t.api.get(`/shop-pages/${encodeURIComponent(s.id)}`), 'NOT_FOUND', 404);
    expectError(await t.api.as(shopper).get(`/products/${p.id}`), 'NOT_FOUND', 404);
    expectError(await t.api.as(b).get(`/products/${p.id}`), 'NOT_FOUND', 404);
    expect((await t.api.as(s).get(`/products/${p.id}`)).status).toBe(200);
    expect((await t.api.as(boss).get(`/products/${p.id}`)).status).toBe(200);
    expect((await t.api.as(s).get(`/products?sellerId=${encodeURIComponent(s.id)}`)).body.total).toBe(1);

    // Not sold: added to no cart, the line in a cart shown unavailable, no checkout holds it.
    expectError(await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 }), 'NOT_FOUND', 404);
    // The cart leaves the line out, as it does an unpublished product's; its row stays for later.
    expect((await t.api.as(waiting).get('/cart')).body.items).toEqual([]);
    expectError(
      await checkout(t.api, waiting),
      'CONFLICT',
      409,
      'Your cart is empty: add products before checking out',
    );
    expect(
      await database.db.select().from(reservations).where(eq(reservations.variantId, p.variants[0].id)),
    ).toHaveLength(2); // the two paid orders' only

    // ACP: the line is refused as an unknown item is; UCP: lookup, product and checkout likewise.
    const named = { email: uniqueEmail('agent'), first_name: 'Avery', last_name: 'Tremblay' };
    const viaAcp = await acp.create({
      line_items: [{ id: p.id }],
      buyer: named,
      fulfillment_details: ACP_ON,
    });
    expect(viaAcp.body.status).toBe('not_ready_for_payment');
    expect(viaAcp.body.messages).toEqual([
      expect.objectContaining({ code: 'not_found', param: '$.line_items[0]' }),
    ]);
    expect(await lookup()).toMatchObject({ products: [], messages: [{ code: 'not_found' }] });
    const got = await t.api.post('/ucp/v1/catalog/product', { id: p.id }, ucp.headers({}, false));
    expect(got.body).toMatchObject({ messages: [{ code: 'not_found' }] });
    const viaUcp = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: named,
      fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
    });
    expect(viaUcp.body.status).toBe('incomplete');
    expect(viaUcp.body.messages).toEqual([
      {
        type: 'error',
        code: 'item_unavailable',
        path: '$.line_items[0]',
        content: `Not on sale: ${p.id}`,
        severity: 'recoverable',
      },
    ]);
    const ucpSearch = await t.api.post('/ucp/v1/catalog/search', { query: word }, ucp.headers({}, false));
    expect(ucpSearch.body.products).toEqual([]);

    // Open orders continue: the seller ships one and cancels (refunds) the other.
    expect((await ship(t, s, orders[0]!)).status).toBe('shipped');
    expect((await cancel(t, s, orders[1]!)).status).toBe('cancelled');
    expect(await refundRows(database, orders[1]!)).toHaveLength(1);

    // Reinstated: back everywhere.
    expect((await reinstate(s.id)).body).toMatchObject({ status: 'active', reason: null, suspendedAt: null });
    expect(await searchTotal(word)).toBe(1);
    expect((await t.api.as(b).get(`/products/${p.id}`)).status).toBe(200);
    expect((await t.api.get(`/shop-pages/${encodeURIComponent(s.id)}`)).status).toBe(200);
    expect((await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 })).status).toBe(200);
    expect((await lookup()).products.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect((await t.api.as(waiting).get('/cart')).body.items).toEqual([
      expect.objectContaining({ product_id: p.id, quantity: 2, unit_price_cents: 2500 }),
    ]);

    const log = await t.api.as(boss).get(`/admin/audit?subject=${encodeURIComponent(s.id)}`);
    expect(
      log.body.actions.map((a: { action: string; before: unknown; after: unknown }) => [
        a.action,
        a.before,
        a.after,
      ]),
    ).toEqual([
      ['shop.reinstate', { status: 'suspended', reason: REASON }, { status: 'active', reason: null }],
      ['shop.suspend', { status: 'active', reason: null }, { status: 'suspended', reason: REASON }],
    ]);
  });

  it('tells the seller by email in their language, with the reason', async () => {
    const s = await seller(t.api);
    expect((await t.api.as(s).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    await suspend(s.id, 'Photos volées');
    await reinstate(s.id);
    const mails = [
      ...(await outboxRows(database, `shop-suspend:${s.id}:`)),
      ...(await outboxRows(database, `shop-reinstate:${s.id}:`)),
    ];
    expect(mails.map((m) => [m.toAddress, m.subject])).toEqual([
      [s.email, 'Votre boutique Maple Goods est suspendue'],
      [s.email, 'Votre boutique Maple Goods est rétablie'],
    ]);
    expect(mails[0]!.textBody).toContain('Motif\u00a0: Photos volées');
    expect(mails[0]!.textBody).toContain('Vos commandes en cours continuent');
    const english = await seller(t.api);
    await suspend(english.id);
    const [mail] = await outboxRows(database, `shop-suspend:${english.id}:`);
    expect(mail!.subject).toBe('Your shop Maple Goods is suspended');
    expect(mail!.textBody).toContain(`Reason: ${REASON}`);
  });

  it('admins only; a reason is required; a move the state does not allow is 409; an unknown shop 404', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    for (const who of [s, b])
      expectError(
        await t.api.as(who).post(`/admin/shops/${s.id}/suspend`, { reason: 'x' }),
        'AUTHZ_ERROR',
        403,
      );
    expectError(await t.api.post(`/admin/shops/${s.id}/suspend`, { reason: 'x' }), 'AUTH_ERROR', 401);
    expectError(await t.api.as(s).get('/admin/shops?status=pending'), 'AUTHZ_ERROR', 403);
    expect((await t.api.as(boss).post(`/admin/shops/${s.id}/suspend`, { reason: '  ' })).status).toBe(400);
    expect(
      (await t.api.as(boss).post(`/admin/shops/${s.id}/suspend`, { reason: 'x'.repeat(501) })).status,
    ).toBe(400);
    expectError(await reinstate(s.id), 'CONFLICT', 409, 'Cannot reinstate this shop: it is open');
    expectError(
      await t.api.as(boss).post(`/admin/shops/${s.id}/approve`),
      'CONFLICT',
      409,
      'Cannot approve this shop: it is open',
    );
    expectError(await suspend(b.id), 'NOT_FOUND', 404);
    expectError(await suspend('users:nope'), 'NOT_FOUND', 404);
    expectError(await suspend('../etc'), 'NOT_FOUND', 404);
    expect((await suspend(s.id)).status).toBe(200);
    expectError(await suspend(s.id), 'CONFLICT', 409, 'Cannot suspend this shop: it is suspended');
    // Nothing of the refused moves is in the audit log.
    const log = await t.api.as(boss).get(`/admin/audit?subject=${encodeURIComponent(s.id)}`);
    expect(log.body.actions.map((a: { action: string }) => a.action)).toEqual(['shop.suspend']);
  });

  it('lists suspended shops newest first, bounded and paged', async () => {
    const a = await seller(t.api);
    const c = await seller(t.api);
    await suspend(a.id);
    await suspend(c.id);
    const page = await t.api.as(boss).get('/admin/shops?status=suspended&limit=100');
    expect(page.status).toBe(200);
    const ids = page.body.shops.map((x: { sellerId: string }) => x.sellerId);
    expect(ids.indexOf(c.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(a.id)).toBeGreaterThan(ids.indexOf(c.id));
    expect(page.body.total).toBe(ids.length);
    expect(
      (await t.api.as(boss).get('/admin/shops?status=suspended&limit=1&offset=1')).body.shops,
    ).toHaveLength(1);
    expect((await t.api.as(boss).get('/admin/shops?limit=101')).status).toBe(400);
    expect((await t.api.as(boss).get('/admin/shops?status=active')).status).toBe(400);
  });

  it('a suspended seller account takes the products off sale; reinstated, they come back', async () => {
    const s = await seller(t.api);
    const word = uniqueWord();
    const p = await product(t.api, s, { title: `Birch ${word} spoon` });
    expect(await searchTotal(word)).toBe(1);
    expect((await t.api.as(boss).post(`/admin/users/${s.id}/suspend`)).status).toBe(200);
    expect(await searchTotal(word)).toBe(0);
    expectError(await t.api.as(shopper).get(`/products/${p.id}`), 'NOT_FOUND', 404);
    const b = await buyer(t.api);
    expectError(await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 }), 'NOT_FOUND', 404);
    // The shop's own state is untouched: the desk shows the account's suspension beside it.
    expect((await t.api.as(boss).get(`/admin/shops/${s.id}`)).body).toMatchObject({
      status: 'active',
      seller: { suspended: true },
    });
    expect((await t.api.as(boss).post(`/admin/users/${s.id}/reinstate`)).status).toBe(200);
    expect(await searchTotal(word)).toBe(1);
    expect((await t.api.as(shopper).get(`/products/${p.id}`)).status).toBe(200);
  });

  it('a checkout racing the suspension either held before it committed or is refused; none holds after', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await seller(t.api);
      const p = await product(t.api, s, { stockQuantity: 5 });
      const b = await buyer(t.api);
      await addToCart(t.api, b, p.id, 1);
      const [held, suspended] = await Promise.all([checkout(t.api, b), suspend(s.id)]);
      expect(suspended.status).toBe(200);
      const rows = await database.db
        .select()
        .from(reservations)
        .where(eq(reservations.variantId, p.variants[0].id));
      if (held.status === 201 || held.status === 200) expect(rows).toHaveLength(1);
      else expect(rows).toHaveLength(0);
      // After the suspension's answer, nothing new is held.
      const late = await buyer(t.api);
      await t.api.as(late).post('/cart/items', { product_id: p.id, quantity: 1 });
      expect((await checkout(t.api, late)).status).toBeGreaterThanOrEqual(400);
      const after = await database.db
        .select()
        .from(reservations)
        .where(eq(reservations.variantId, p.variants[0].id));
      expect(after).toHaveLength(rows.length);
    }
  });
});

describe('the desk’s shops and the console', () => {
  it('the desk suspends from the shop’s card with a reason and reinstates; the console says the state to its seller', async () => {
    const s = await seller(t.api);
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const card = await desk.get(`/desk/shops/${encodeURIComponent(s.id)}`);
    expect(textOf(card.html)).toContain('Open');
    const refused = await desk.post(`/desk/shops/${encodeURIComponent(s.id)}/suspend`, { reason: ' ' });
    expect(refused.status).toBe(400);
    const done = await desk.post(`/desk/shops/${encodeURIComponent(s.id)}/suspend`, {
      reason: 'Fake reviews',
    });
    expect(textOf(done.html)).toContain(
      'The shop is suspended: its products have left search and the protocols.',
    );
    expect(textOf(done.html)).toContain('Fake reviews');
    const list = await desk.get('/desk/shops');
    expect(list.html).toContain(`/desk/shops/${encodeURIComponent(s.id)}`);
    // The seller's user card links the shop's card.
    const userCard = await desk.get(`/desk/users?user=${encodeURIComponent(s.id)}`);
    expect(userCard.html).toContain(`href="/desk/shops/${encodeURIComponent(s.id)}"`);

    const console = new Browser(t.app);
    await console.signIn(s);
    const home = await console.get('/console/products');
    expect(textOf(home.html)).toContain(
      'Your shop is suspended: nothing of it is visible or on sale. Reason: Fake reviews.',
    );
    const back = await desk.post(`/desk/shops/${encodeURIComponent(s.id)}/reinstate`, {});
    expect(textOf(back.html)).toContain('The shop is reinstated: its products are on sale again.');
    expect(textOf((await console.get('/console/products')).html)).not.toContain('Your shop is suspended');
    // Only admins reach the desk's shops.
    expect((await console.get('/desk/shops', { follow: false })).status).toBe(403);
  });
});

describe('approval of new shops (SHOP_APPROVAL=on)', () => {
  it('a new shop waits: its catalog is built but invisible until an admin approves it', async () => {
    await withTestApp(
      async (app, db) => {
        const boss2 = await admin(app.api, db);
        const s = await seller(app.api);
        expect((await app.api.as(s).get('/sellers/me/shop')).body).toMatchObject({
          status: 'pending',
          statusReason: null,
        });
        const word = uniqueWord();
        const p = await product(app.api, s, { title: `Cedar ${word} crate` });
        expect((await app.api.as(s).get(`/products/${p.id}`)).status).toBe(200);
        const b = await buyer(app.api);
        expect((await app.api.as(b).get(`/search/products?q=${word}`)).body.total).toBe(0);
        expectError(await app.api.as(b).get(`/products/${p.id}`), 'NOT_FOUND', 404);
        expectError(
          await app.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 }),
          'NOT_FOUND',
          404,
        );

        const queue = await app.api.as(boss2).get('/admin/shops?status=pending');
        expect(queue.body).toMatchObject({ total: 1, limit: 20, offset: 0 });
        expect(queue.body.shops).toEqual([
          expect.objectContaining({
            sellerId: s.id,
            status: 'pending',
            reason: null,
            shopName: 'Maple Goods',
          }),
        ]);

        const approved = await app.api.as(boss2).post(`/admin/shops/${s.id}/approve`);
        expect(approved.body).toMatchObject({ status: 'active' });
        expect((await app.api.as(b).get(`/search/products?q=${word}`)).body.total).toBe(1);
        expect((await app.api.as(b).get(`/products/${p.id}`)).status).toBe(200);
        expect((await app.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 })).status).toBe(200);
        expect((await app.api.as(boss2).get('/admin/shops?status=pending')).body.total).toBe(0);
        const [mail] = await outboxRows(db, `shop-approve:${s.id}:`);
        expect(mail!.subject).toBe('Your shop Maple Goods is approved');

        // A refusal: the shop is closed with its reason, which its seller reads.
        const other = await seller(app.api);
        const refused = await app.api
          .as(boss2)
          .post(`/admin/shops/${other.id}/refuse`, { reason: 'No address' });
        expect(refused.body).toMatchObject({ status: 'suspended', reason: 'No address' });
        expect((await app.api.as(other).get('/sellers/me/shop')).body).toMatchObject({
          status: 'suspended',
          statusReason: 'No address',
        });
        const log = await app.api.as(boss2).get('/admin/audit');
        expect(log.body.actions.map((a: { action: string }) => a.action).slice(0, 2)).toEqual([
          'shop.refuse',
          'shop.approve',
        ]);
      },
      { env: { SHOP_APPROVAL: 'on' }, logger: { level: 'error' } },
    );
  });

  it('the SQL search engine (SEARCH_INDEX=sql) leaves a pending shop’s products out too', async () => {
    await withTestApp(
      async (app, db) => {
        const boss2 = await admin(app.api, db);
        const s = await seller(app.api);
        const word = uniqueWord();
        await product(app.api, s, { title: `Spruce ${word} stool` });
        const b = await buyer(app.api);
        expect((await app.api.as(b).get(`/search/products?q=${word}`)).body.total).toBe(0);
        await app.api.as(boss2).post(`/admin/shops/${s.id}/approve`);
        expect((await app.api.as(b).get(`/search/products?q=${word}`)).body.total).toBe(1);
      },
      { env: { SHOP_APPROVAL: 'on', SEARCH_INDEX: 'sql' }, logger: { level: 'error' } },
    );
  });

  it('off (the default): a new shop is open at once', async () => {
    const s = await seller(t.api);
    expect((await t.api.as(s).get('/sellers/me/shop')).body.status).toBe('active');
  });
});
