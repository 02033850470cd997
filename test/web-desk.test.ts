// The admin's desk as pages (src/web/desk/), over inject: the platform's analytics with charts,
// moderating a review, a user's role, coupons, the agent platforms and their keys (shown once),
// and who may open the desk at all.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import type { RequestContext } from '../src/modules/context.ts';
import { authenticatePlatform } from '../src/modules/platforms/service.ts';
import { reviews } from '../src/modules/reviews/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk } from './helpers/checkout.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const PAGES = ['/desk', '/desk/reviews', '/desk/users', '/desk/coupons', '/desk/platforms', '/desk/tax'];
const ctx = (): RequestContext => ({ db: database.db, now: t.clock.now, log: t.app.log });

let boss: SignedIn;
let desk: Browser;
beforeAll(async () => {
  boss = await admin(t.api, database);
  desk = new Browser(t.app);
  await desk.signIn(boss);
});

describe('who may open the desk', () => {
  it('sends a visitor to sign in, and refuses buyers and sellers every page (403)', async () => {
    const visitor = new Browser(t.app);
    for (const path of PAGES) {
      const res = await visitor.get(path, { follow: false });
      expect(res.status, path).toBe(303);
      expect(res.headers.location).toBe(`/account/sign-in?next=${encodeURIComponent(path)}`);
    }
    for (const who of [await buyer(t.api), await seller(t.api)]) {
      const b = new Browser(t.app);
      await b.signIn(who);
      for (const path of PAGES) {
        const res = await b.get(path);
        expect(res.status, path).toBe(403);
        expect(textOf(res.html)).toContain('This page is for administrators.');
      }
      // Nor may they post its forms (with their own page's valid token).
      await b.get('/account');
      const post = await b.post('/desk/coupons', { code: 'NOPE10', discountPercent: '10' });
      expect(post.status).toBe(403);
      expect(textOf(post.html)).not.toContain('NOPE10');
    }
    // The header links to the desk for an admin only.
    expect((await desk.get('/account')).html).toContain('href="/desk"');
  });

  it('refuses a form without its CSRF token (403), and nothing is made', async () => {
    await desk.get('/desk/coupons');
    const none = await desk.post('/desk/coupons', { code: 'NOCSRF', discountPercent: '10' }, { csrf: null });
    expect(none.status).toBe(403);
    const lookup = await desk.get('/desk/coupons?lookup=NOCSRF');
    expect(textOf(lookup.html)).toContain('No coupon has the code NOCSRF.');
  });
});

describe('the analytics page', () => {
  it('draws charts of the platform, with a paid order’s revenue and its product on top', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: `${word} cedar paddle`, priceCents: 4000, stockQuantity: 10 });
    const who = await buyer(t.api);
    await addToCart(t.api, who, p.id, 2);
    const session = await openCheckout(t.api, who);
    const [orderId] = await payOk(t.api, session.sessionId);
    const order = (await t.api.as(who).get(`/orders/${encodeURIComponent(orderId!)}`)).body;
    const total = `$${(order.totalAmountCents / 100).toFixed(2)}`;

    const page = await desk.get('/desk');
    expect(page.status).toBe(200);
    // Three lines over time (revenue, orders, conversion) and two bars (products, sellers).
    expect(page.html.match(/<svg class="chart"/g)).toHaveLength(5);
    expect(page.html).not.toMatch(/<script|<style| style=/);
    const text = textOf(page.html);
    expect(text).toContain('Platform analytics');
    expect(text).toContain(`Revenue ${total}`);
    expect(text).toContain('Orders 1');
    expect(text).toContain('Items sold 2');
    expect(text).toContain('Conversion rate 100%');
    expect(text).toContain('New customers 1');
    expect(text).toContain('Revenue per day');
    // The figures as tables too: the product's item revenue (2 × $40.00) and its seller.
    expect(page.html).toContain('<details><summary>The chart’s figures</summary>');
    expect(text).toContain(`${word} cedar paddle 2 $80.00`);
    // An attribute as the browser reads it (ghtml writes `=` as `&#61;`).
    expect(page.html.replaceAll('&#61;', '=')).toContain(
      `href="/desk/users?user=${encodeURIComponent(s.id)}"`,
    );
    // The tabs, the current one marked.
    expect(page.html).toContain('<a href="/desk" aria-current="page">Analytics</a>');
    for (const path of PAGES) expect(page.html).toContain(`href="${path}"`);

    // A year is drawn month by month; French words it all in French.
    const year = await desk.get('/desk?period=year');
    expect(textOf(year.html)).toContain('Revenue per month');
    expect(year.html).toMatch(/<option value="year" selected>/);
    const fr = await desk.get('/desk?lang=fr-CA');
    expect(textOf(fr.html)).toContain('Statistiques de la plateforme');
    expect(textOf(fr.html)).toContain('Taux de conversion 100 %');
    await desk.get('/desk?lang=en-CA');
  });
});

describe('moderating reviews', () => {
  it('shows a review’s text escaped, hides it from the product, and publishes it again', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Birch bark basket' });
    const who = await buyer(t.api);
    const submitted = await t.api.as(who).post('/reviews', {
      product_id: p.id,
      rating: 2,
      title: '<b>Loud</b>',
      comment: 'Broke at once & the "handle" too',
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    expect(submitted.body.published).toBe(true);
    const id = submitted.body.review_id as string;
    const publicIds = async () =>
      (await t.api.as(who).get(`/products/${p.id}/reviews`)).body.reviews.map(
        (r: { review_id: string }) => r.review_id,
      );
    expect(await publicIds()).toContain(id);

    const list = await desk.get('/desk/reviews?status=published');
    expect(list.status).toBe(200);
    expect(list.html).not.toContain('<b>Loud</b>');
    expect(textOf(list.html)).toContain('<b>Loud</b>');
    expect(textOf(list.html)).toContain('Broke at once & the "handle" too');
    expect(textOf(list.html)).toContain('About Birch bark basket');

    const hidden = await desk.post(`/desk/reviews/${encodeURIComponent(id)}/hide`, { filter: 'published' });
    expect(hidden.url).toBe('/desk/reviews?status=published&done=hidden');
    expect(textOf(hidden.html)).toContain('The review is hidden');
    expect(await publicIds()).not.toContain(id);
    const [row] = await database.db.select().from(reviews).where(eq(reviews.id, id));
    expect(row?.published).toBe(false);

    const rejected = await desk.get('/desk/reviews?status=rejected');
    expect(rejected.html).toContain(`/desk/reviews/${encodeURIComponent(id)}/publish`);
    const again = await desk.post(`/desk/reviews/${encodeURIComponent(id)}/publish`, { filter: 'rejected' });
    expect(textOf(again.html)).toContain('The review is published.');
    expect(await publicIds()).toContain(id);

    // HTML in a review holds it for moderation (the page's default list), and it stays text there.
    const held = await t.api.as(await buyer(t.api)).post('/reviews', {
      product_id: p.id,
      rating: 5,
      comment: 'Great <img src=x onerror="alert(1)"> <script>alert(2)</script>',
    });
    expect(held.body.published).toBe(false);
    const queue = await desk.get('/desk/reviews');
    expect(queue.html).toContain(`/desk/reviews/${encodeURIComponent(held.body.review_id)}/publish`);
    expect(textOf(queue.html)).toContain('Contains a link');
    expect(queue.html).not.toContain('<img src=x');
    expect(queue.html).not.toContain('<script>');
    expect(textOf(queue.html)).toContain('Great <img src=x onerror="alert(1)"> <script>alert(2)</script>');

    // An unknown review: the service's 404, on the page.
    const unknown = await desk.post('/desk/reviews/reviews%3Anope/hide', { filter: 'pending' });
    expect(unknown.status).toBe(404);
  });
});

describe('a user’s role', () => {
  it('makes a buyer a seller, asking for the shop the service needs', async () => {
    const who = await buyer(t.api);
    const found = await desk.get(`/desk/users?user=${encodeURIComponent(who.email.toUpperCase())}`);
    expect(found.status).toBe(200);
    expect(textOf(found.html)).toContain(who.email);
    expect(textOf(found.html)).toContain('Role Buyer');
    const action = `/desk/users/${encodeURIComponent(who.id)}/role`;

    const missing = await desk.post(action, { role: 'seller', shopName: '', province: 'MB' });
    expect(missing.status).toBe(400);
    const said = textOf(missing.html);
    expect(said).toContain('Check the fields marked below.');
    expect(said).toContain('required to make this user a seller');
    expect(missing.html).toMatch(/id="f-shopName"[^>]*aria-invalid="true"/);
    expect(missing.html).not.toMatch(/id="f-province"[^>]*aria-invalid="true"/);
    expect(missing.html).toMatch(/<option value="MB" selected>/);

    const made = await desk.post(action, { role: 'seller', shopName: 'Prairie Goods', province: 'MB' });
    expect(made.url).toBe(`/desk/users?user=${encodeURIComponent(who.id)}&done=role`);
    expect(textOf(made.html)).toContain('The role is changed.');
    expect(textOf(made.html)).toContain('Shop Prairie Goods');
    // Their old token stopped working; signed in again, they are a seller.
    expect((await t.api.as(who).get('/me')).status).toBe(401);
    const login = await t.api.post('/auth/login', { email: who.email, password: who.password });
    const me = await t.api.as(login.body.token).get('/me');
    expect(me.body).toMatchObject({ id: who.id, role: 'seller' });

    const nobody = await desk.get('/desk/users?user=users%3Anobody');
    expect(textOf(nobody.html)).toContain('No user has the email or ID users:nobody.');
  });

  it('shows the service’s refusal to demote the last admin', async () => {
    // The file's one admin (no other test makes one).
    const admins = await database.db.select({ id: users.id }).from(users).where(eq(users.role, 'admin'));
    expect(admins).toEqual([{ id: boss.id }]);
    await desk.get(`/desk/users?user=${encodeURIComponent(boss.id)}`);
    const refused = await desk.post(`/desk/users/${encodeURIComponent(boss.id)}/role`, { role: 'buyer' });
    expect(refused.status).toBe(409);
    expect(textOf(refused.html)).toContain('This is the last admin; make another user admin first');
    expect((await desk.get('/desk')).status).toBe(200);
  });
});

describe('coupons', () => {
  it('creates one with the form, and shows the API’s messages under the fields', async () => {
    await desk.get('/desk/coupons');
    const both = await desk.post('/desk/coupons', { code: 'ab', discountPercent: '10', discountAmount: '5' });
    expect(both.status).toBe(400);
    expect(textOf(both.html)).toContain('must be at least 3 characters');
    expect(textOf(both.html)).toContain('give exactly one of discountPercent and discountCents');
    expect(both.html).toMatch(/id="f-code"[^>]*aria-invalid="true"/);
    expect(both.html).toMatch(/id="f-discountPercent"[^>]*aria-invalid="true"/);
    // What was typed stays.
    expect(both.html).toMatch(/id="f-discountAmount"[^>]*value="5"/);

    const made = await desk.post('/desk/coupons', {
      code: 'desk10',
      discountPercent: '',
      discountAmount: '12.50',
      minSubtotal: '50',
      expirationDate: '2030-12-31',
      maxRedemptions: '100',
      terms: 'One per order <b>only</b>',
    });
    expect(made.url).toBe('/desk/coupons?lookup=DESK10&done=created');
    const text = textOf(made.html);
    expect(text).toContain('Coupon DESK10 is created.');
    expect(text).toContain('$12.50 off');
    expect(text).toContain('Minimum subtotal $50.00');
    expect(text).toContain('December 31, 2030');
    expect(text).toContain('100 in all, no limit per customer');
    expect(made.html).not.toContain('<b>only</b>');
    expect(text).toContain('One per order <b>only</b>');
    // Through the API, the same coupon.
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 6000, stockQuantity: 5 });
    const who = await buyer(t.api);
    await addToCart(t.api, who, p.id, 1);
    const applied = await t.api.as(who).post('/cart/coupon', { code: 'desk10' });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.discount_cents).toBe(1250);
    // Listed with its redemptions (none paid yet), newest first.
    const listed = await desk.get('/desk/coupons');
    expect(listed.html).toContain('href="/desk/coupons?lookup=DESK10"');
    expect(textOf(listed.html)).toMatch(
      /Newest coupons Code Discount .* DESK10 \$12\.50 off December 31, 2030 0/,
    );

    await desk.get('/desk/coupons');
    const taken = await desk.post('/desk/coupons', { code: 'DESK10', discountPercent: '5' });
    expect(taken.status).toBe(409);
    expect(textOf(taken.html)).toContain('DESK10');
  });
});

describe('agent platforms', () => {
  it('registers one and shows its key once, replaces the key, and revokes it', async () => {
    await desk.get('/desk/platforms');
    const bad = await desk.post('/desk/platforms', { name: '', webhookUrl: 'ftp://chat.example/hooks' });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="f-webhookUrl"[^>]*aria-invalid="true"/);
    expect(textOf(bad.html)).toContain('must use https, or http on a loopback host');

    const made = await desk.post('/desk/platforms', {
      name: 'Maple <Chat>',
      webhookUrl: 'https://chat.example/acp/hooks',
      ucpProfileUrl: '',
    });
    expect(made.status).toBe(201);
    const key = made.html.match(/<code>(acp_[A-Za-z0-9_-]+)<\/code>/)?.[1];
    const secret = made.html.match(/<code>(whsec_[A-Za-z0-9_-]+)<\/code>/)?.[1];
    expect(key).toBeDefined();
    expect(secret).toBeDefined();
    expect(textOf(made.html)).toContain('Maple <Chat> is registered.');
    expect(textOf(made.html)).toContain('it is shown only once');
    expect(made.html).not.toContain('Maple <Chat>');
    const platform = await authenticatePlatform(ctx(), key!);
    expect(platform?.name).toBe('Maple <Chat>');
    // Never again: not in the list, nor in any address.
    const listed = await desk.get('/desk/platforms');
    expect(listed.html).not.toContain(key!);
    expect(listed.html).not.toContain(secret!);
    expect(textOf(listed.html)).toContain('Active');
    const id = encodeURIComponent(platform!.id);

    const rotated = await desk.post(`/desk/platforms/${id}/rotate`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.url).toBe(`/desk/platforms/${id}/rotate`);
    const newKey = rotated.html.match(/<code>(acp_[A-Za-z0-9_-]+)<\/code>/)?.[1];
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(key);
    expect(textOf(rotated.html)).toContain('The key of Maple <Chat> is replaced');
    expect(rotated.html).not.toContain('whsec_');
    expect(await authenticatePlatform(ctx(), key!)).toBeUndefined();
    expect((await authenticatePlatform(ctx(), newKey!))?.id).toBe(platform!.id);

    const revoked = await desk.post(`/desk/platforms/${id}/revoke`, {});
    expect(revoked.url).toBe('/desk/platforms?done=revoked');
    expect(textOf(revoked.html)).toContain('The platform is revoked');
    expect(textOf(revoked.html)).toContain('Revoked');
    expect(revoked.html).not.toContain(`/desk/platforms/${id}/rotate`);
    expect(await authenticatePlatform(ctx(), newKey!)).toBeUndefined();

    // A revoked platform's key cannot be replaced: the service's refusal, on the page.
    const late = await desk.post(`/desk/platforms/${id}/rotate`, {});
    expect(late.status).toBe(409);
    expect(textOf(late.html)).toContain('is revoked; its key cannot be rotated');
  });
});
