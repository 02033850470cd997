// The storefront and the buyer's account as pages (src/web), over inject: search with facets,
// product page, cart, checkout's address form, payment, the order, and the account's actions.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webSessions } from '../src/modules/auth/tables.ts';
import { STYLESHEET, STYLESHEET_PATH } from '../src/views/stylesheet.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout, pay, payOk } from './helpers/checkout.ts';
import { NASTY_STRINGS } from './helpers/fuzz.ts';
import { stockOf } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const ADDRESS = {
  street: '100 Queen St W',
  city: 'Toronto',
  province: 'ON',
  postalCode: 'M5H 2N2',
  phone: '+14165550123',
};

describe('the storefront', () => {
  it('searches anonymously, with the facets as checkboxes, and shows a product page', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const c = await category(t.api, await admin(t.api, database));
    const p = await product(t.api, s, { title: `${word} cedar paddle`, priceCents: 8999, categoryId: c.id });
    await product(t.api, s, { title: `${word} birch paddle`, priceCents: 2500 });
    const b = new Browser(t.app);
    const page = await b.get(`/?q=${word}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    const text = textOf(page.html);
    expect(text).toContain(`${word} cedar paddle`);
    expect(text).toContain('2 products');
    expect(text).toContain('$89.99');
    expect(page.html).toContain(`name="category" value="${c.id}"`);
    const filtered = await b.get(`/?q=${word}&category=${encodeURIComponent(c.id)}`);
    expect(textOf(filtered.html)).toContain('1 product');
    expect(textOf(filtered.html)).not.toContain('birch');
    const cheap = await b.get(`/?q=${word}&max=30`);
    expect(textOf(cheap.html)).toContain('birch');
    expect(textOf(cheap.html)).not.toContain('cedar');
    const sheet = await b.get(`/shop/products/${p.id}`);
    expect(sheet.status).toBe(200);
    expect(textOf(sheet.html)).toContain('Sold by Maple Goods');
    expect(sheet.html).toContain('Add to cart');
    // A draft of another seller is not there for anyone else.
    const draft = await product(t.api, s, { title: `${word} draft`, status: 'draft' });
    expect((await b.get(`/shop/products/${draft.id}`)).status).toBe(404);
  });

  it('links its one stylesheet, cached for a year under a name that changes with it', async () => {
    const page = await new Browser(t.app).get('/');
    const href = page.html.match(/<link rel="stylesheet" href="(\/assets\/portage-[0-9a-f]{12}\.css)">/)?.[1];
    expect(href).toBe(STYLESHEET_PATH);
    const css = await t.app.inject({ method: 'GET', url: STYLESHEET_PATH });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(css.body).toBe(STYLESHEET);
    // No page carries a style of its own: the CSP allows ours only.
    expect(page.html).not.toMatch(/<style|style="/);
  });

  it('speaks French when asked, and keeps it (a cookie)', async () => {
    const b = new Browser(t.app);
    const fr = await b.get('/?lang=fr-CA');
    expect(fr.html).toContain('<html lang="fr-CA">');
    expect(textOf(fr.html)).toContain('Magasiner sur Portage');
    expect((await b.get('/')).html).toContain('<html lang="fr-CA">');
    const en = new Browser(t.app, { 'accept-language': 'fr-CA' });
    expect((await en.get('/')).html).toContain('<html lang="fr-CA">');
  });

  it('escapes HTML in product titles', async () => {
    const s = await seller(t.api);
    const word = uniqueWord();
    const p = await product(t.api, s, { title: `${word} <script>alert(1)</script>` });
    const b = new Browser(t.app);
    for (const page of [await b.get(`/?q=${word}`), await b.get(`/shop/products/${p.id}`)]) {
      expect(page.html).not.toContain('<script>alert(1)</script>');
      expect(textOf(page.html)).toContain('<script>alert(1)</script>');
    }
  });
});

describe('a purchase through the pages', () => {
  it('adds to the cart, checks out with the address form, pays and sees the order', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Maple syrup tin', priceCents: 1500, stockQuantity: 5 });
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    // Signed out, the cart sends to the sign-in page, which comes back.
    const out = await b.get('/shop/cart');
    expect(out.url).toBe('/account/sign-in?next=%2Fshop%2Fcart');
    await b.signIn(who);
    await b.get(`/shop/products/${p.id}`);
    const cart = await b.post('/shop/cart/items', { product_id: p.id, quantity: '2' });
    expect(cart.url).toBe('/shop/cart?added=1');
    expect(textOf(cart.html)).toContain('Maple syrup tin');
    expect(textOf(cart.html)).toContain('$30.00');
    // The estimate for another province.
    const qc = await b.get('/shop/cart?province=QC');
    expect(textOf(qc.html)).toContain('QST 9.975%');
    // The same validation messages as the API, under their fields.
    await b.get('/shop/checkout');
    const bad = await b.post('/shop/checkout', { ...ADDRESS, postalCode: 'H2X 1Y4' });
    expect(bad.status).toBe(400);
    expect(textOf(bad.html)).toContain('Check the fields marked below.');
    expect(textOf(bad.html)).toContain('postal codes in ON start with');
    expect(bad.html).toMatch(/id="f-postalCode"[^>]*aria-invalid="true"/);
    const paying = await b.post('/shop/checkout', ADDRESS, { follow: false });
    expect(paying.status).toBe(303);
    const location = String(paying.headers.location);
    expect(location).toMatch(/^\/sandbox\/checkout\//);
    const sessionId = decodeURIComponent(location.split('/sandbox/checkout/')[1] ?? '');
    expect(sessionId).not.toBe('');
    expect((await pay(t.api, sessionId)).status).toBe(200);
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });
    const orders = await b.get('/account/orders');
    const orderId = decodeURIComponent(orders.html.match(/href="\/account\/orders\/([^"]+)"/)?.[1] ?? '');
    expect(orderId).toMatch(/^orders:/);
    const order = await b.get(`/account/orders/${encodeURIComponent(orderId)}`);
    expect(textOf(order.html)).toContain('Confirmed');
    const invoice = await b.get(`/account/orders/${encodeURIComponent(orderId)}/invoice`);
    expect(invoice.status).toBe(200);
    expect(invoice.headers['content-type']).toBe('application/pdf');
    // Cancelled from its page: the stock comes back.
    const cancelled = await b.post(`/account/orders/${encodeURIComponent(orderId)}/cancel`, {
      reason: 'changed my mind',
    });
    expect(textOf(cancelled.html)).toContain('The order is cancelled');
    expect(await stockOf(database, p.id)).toEqual({ stock: 5, reserved: 0 });
    // Another person's order is not found.
    const other = new Browser(t.app);
    await other.signIn(await buyer(t.api));
    expect((await other.get(`/account/orders/${encodeURIComponent(orderId)}`)).status).toBe(404);
    expect((await other.get(`/account/orders/${encodeURIComponent(orderId)}/invoice`)).status).toBe(404);
  });

  it('adding to the cart signed out: sign in, and back on the product with the line added', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Spruce canoe paddle', priceCents: 7000, stockQuantity: 5 });
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.get(`/shop/products/${p.id}`);
    const signIn = await b.post('/shop/cart/items', { product_id: p.id, quantity: '2' });
    expect(signIn.url).toMatch(/^\/account\/sign-in\?/);
    expect(textOf(signIn.html)).toContain('it is added as soon as you are in');
    const back = await b.post('/account/sign-in', {
      email: who.email,
      password: who.password,
      next: `/shop/products/${p.id}`,
      add: p.id,
      quantity: '2',
    });
    expect(back.url).toBe(`/shop/products/${encodeURIComponent(p.id)}?added=1`);
    expect(textOf(back.html)).toContain('the product is in your cart');
    const cart = await t.api.as(who).get('/cart');
    expect(
      cart.body.items.map((i: { product_id: string; quantity: number }) => [i.product_id, i.quantity]),
    ).toEqual([[p.id, 2]]);

    // The same through creating an account, in French.
    const fresh = new Browser(t.app, { 'accept-language': 'fr-CA' });
    await fresh.get(`/shop/products/${p.id}`);
    const asked = await fresh.post('/shop/cart/items', { product_id: p.id, quantity: '1' });
    // The link's address as the browser reads it (`&` and `=` written as entities).
    const register = asked.html
      .match(/href="(\/account\/register\?[^"]+)"/)?.[1]
      ?.replace(/&(?:amp|#38);/g, '&')
      .replaceAll('&#61;', '=');
    expect(register).toContain(`add=${encodeURIComponent(p.id)}`);
    await fresh.get(register!);
    const made = await fresh.post('/account/register', {
      name: 'Élise',
      email: `${uniqueWord()}@example.ca`,
      password: 'correct horse battery',
      next: `/shop/products/${p.id}`,
      add: p.id,
      quantity: '1',
    });
    expect(made.url).toBe(`/shop/products/${encodeURIComponent(p.id)}?added=1`);
    expect(textOf(made.html)).toContain('le produit est dans votre panier');
  });

  it("the header counts the cart's units for a buyer, in both languages; a visitor's and a seller's header have none", async () => {
    const s = await seller(t.api);
    const paddle = await product(t.api, s, { title: 'Ash paddle', priceCents: 7000, stockQuantity: 200 });
    const tin = await product(t.api, s, { title: 'Syrup tin', priceCents: 1500, stockQuantity: 200 });
    const who = await buyer(t.api);
    const cartLink = (html: string) => html.match(/<a href="\/shop\/cart">(.*?)<\/a>/)?.[1];
    const b = new Browser(t.app);
    expect(cartLink((await b.get('/')).html)).toBe('Cart');
    await b.signIn(who);
    expect(cartLink((await b.get('/')).html)).toBe('Cart');
    await b.get(`/shop/products/${paddle.id}`);
    const one = await b.post('/shop/cart/items', { product_id: paddle.id, quantity: '1' });
    expect(cartLink(one.html)).toBe(
      'Cart <span class="count" aria-hidden="true">1</span><span class="visually-hidden">1 item</span>',
    );
    // Units, not lines; a line added through the API shows on the next page.
    await addToCart(t.api, who, tin.id, 2);
    expect(cartLink((await b.get('/')).html)).toBe(
      'Cart <span class="count" aria-hidden="true">3</span><span class="visually-hidden">3 items</span>',
    );
    await addToCart(t.api, who, paddle.id, 99);
    const many = await b.get('/?lang=fr');
    expect(cartLink(many.html)).toBe(
      'Panier <span class="count" aria-hidden="true">99+</span><span class="visually-hidden">102 articles</span>',
    );
    // Emptied: the plain link again.
    await t.api.as(who).delete(`/cart/items/${paddle.id}`);
    await t.api.as(who).delete(`/cart/items/${tin.id}`);
    expect(cartLink((await b.get('/')).html)).toBe('Panier');
    // A seller has no cart, so no link to one.
    const sb = new Browser(t.app);
    await sb.signIn(s);
    expect((await sb.get('/')).html).not.toContain('href="/shop/cart"');
  });

  it('two quantity changes at once: the line ends at one of them, never at their sum', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 20 });
    const who = await buyer(t.api);
    await addToCart(t.api, who, p.id, 1);
    const b = new Browser(t.app);
    await b.signIn(who);
    await b.get('/shop/cart');
    const path = `/shop/cart/items/${encodeURIComponent(p.id)}`;
    const answers = await Promise.all(
      ['3', '5'].map((quantity) => b.post(path, { quantity }, { follow: false })),
    );
    expect(answers.map((a) => a.status)).toEqual([303, 303]);
    const [line] = (await t.api.as(who).get('/cart')).body.items;
    expect([3, 5]).toContain(line.quantity);
    await b.get('/shop/cart');
    await b.post(path, { quantity: '0' });
    expect((await t.api.as(who).get('/cart')).body.items).toEqual([]);
  });

  it('refuses a form without its CSRF token, or with another browser’s', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, {});
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.signIn(who);
    const none = await b.post('/shop/cart/items', { product_id: p.id, quantity: '1' }, { csrf: null });
    expect(none.status).toBe(403);
    const stranger = new Browser(t.app);
    await stranger.get('/account/sign-in');
    const foreign = await b.post(
      '/shop/cart/items',
      { product_id: p.id, quantity: '1' },
      { csrf: stranger.csrf() },
    );
    expect(foreign.status).toBe(403);
    expect((await t.api.as(who).get('/cart')).body.items).toEqual([]);
  });

  it('signs out: the session ends in the database, and its cookie opens nothing', async () => {
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.signIn(who);
    const cookie = b.cookie('portage_session')!;
    expect(await database.db.select().from(webSessions).where(eq(webSessions.userId, who.id))).toHaveLength(
      1,
    );
    await b.post('/account/sign-out', {});
    expect(await database.db.select().from(webSessions).where(eq(webSessions.userId, who.id))).toHaveLength(
      0,
    );
    const replay = await t.app.inject({
      method: 'GET',
      url: '/account',
      headers: { cookie: `portage_session=${cookie}` },
    });
    expect(replay.statusCode).toBe(303);
  });

  it('a wrong password is refused with the same words as an unknown email', async () => {
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.get('/account/sign-in');
    const wrong = await b.post('/account/sign-in', { email: who.email, password: 'not it at all' });
    const unknown = await b.post('/account/sign-in', {
      email: 'nobody@portage.test',
      password: 'not it at all',
    });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html).match(/role="alert"|Invalid[^.]*/)?.[0]).toBe(
      textOf(unknown.html).match(/role="alert"|Invalid[^.]*/)?.[0],
    );
    expect(b.cookie('portage_session')).toBeUndefined();
  });
});

describe("an attacker's probes on the pages", () => {
  const MARKUP = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>'];

  it('answers every nasty search, form value and path without a server error, and never echoes markup', async () => {
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.signIn(who);
    const pages = [];
    for (const probe of NASTY_STRINGS) {
      const q = encodeURIComponent(Buffer.from(probe.slice(0, 300)).toString());
      pages.push(await b.get(`/?q=${q}&category=${q}&seller=${q}&min=${q}&rating=${q}&sort=${q}&page=${q}`));
      pages.push(await b.get(`/?q=x&option.${q}=${q}&option.Size=${q}&inStock=${q}`));
      pages.push(await b.get(`/shop/products/${q || 'x'}`));
      await b.get('/shop/cart');
      pages.push(await b.post('/shop/cart/items', { product_id: probe, quantity: probe }));
      await b.get('/shop/cart');
      pages.push(await b.post('/shop/cart/coupon', { code: probe }));
      await b.get('/shop/checkout');
      pages.push(
        await b.post('/shop/checkout', {
          street: probe,
          city: probe,
          province: probe,
          postalCode: probe,
          phone: probe,
        }),
      );
      pages.push(await b.get(`/account/orders/${q || 'x'}`));
    }
    for (const page of pages) {
      expect(page.status, `${page.url}: ${page.html.slice(0, 300)}`).toBeLessThan(500);
      for (const m of MARKUP) expect(page.html).not.toContain(m);
    }
  });

  it("escapes a review's markup on the product page", async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Quilt', priceCents: 5000 });
    const who = await buyer(t.api);
    await addToCart(t.api, who, p.id, 1);
    const [orderId] = await payOk(t.api, (await openCheckout(t.api, who)).sessionId);
    await t.api.as(s).post(`/orders/${orderId}/ship`, { carrier: 'Purolator', trackingNumber: 'PUR123456' });
    await t.api.as(s).post(`/orders/${orderId}/deliver`);
    const review = await t.api.as(who).post('/reviews', {
      product_id: p.id,
      rating: 4,
      title: MARKUP[0],
      comment: 'Warm. <b onmouseover=alert(1)>really</b>',
      order_id: orderId,
    });
    expect(review.status, JSON.stringify(review.body)).toBe(201);
    // Markup holds a review for moderation; an admin who publishes it anyway still shows it as text.
    const a = await admin(t.api, database);
    expect(
      (await t.api.as(a).post(`/admin/reviews/${encodeURIComponent(review.body.review_id)}/publish`)).status,
    ).toBe(200);
    const page = await new Browser(t.app).get(`/shop/products/${p.id}`);
    expect(textOf(page.html)).toContain('Warm. <b onmouseover=alert(1)>really</b>');
    expect(page.html).not.toContain('<b onmouseover');
  });
});
