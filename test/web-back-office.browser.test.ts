// The seller's console and the admin's desk in headless Chromium: a seller adds a product, ships
// an order and decides its return; an admin makes a buyer a seller and hides a review. axe-core
// on every page (no serious or critical violation), desktop and a 360 px phone; screenshots with
// PAGE_SCREENSHOTS=<dir> (test/web-pages.browser.test.ts).
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, onAPhone } from './helpers/browser.ts';
import { admin, buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk } from './helpers/checkout.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the console and the desk in Chromium', () => {
  const env = browserApp();

  async function signIn(page: Page, who: { email: string; password: string }) {
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/account/sign-in`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  it('a seller adds a product, ships the order, and decides its return', async () => {
    const s = await seller(env.t.api);
    const page = await env.browser.page();
    await signIn(page, s);
    await page.getByRole('link', { name: 'Seller console' }).click();
    await checked(page, 'console-home');
    await page.getByRole('link', { name: 'Products' }).first().click();
    await page.getByRole('link', { name: 'Add a product' }).click();
    const title = `${uniqueWord()} cedar paddle`;
    // The first Title and Description: the others are the optional translation's (its own group).
    await page.getByLabel('Title').first().fill(title);
    await page.getByLabel('Description').first().fill('Hand-carved western red cedar.');
    await page.getByLabel('Price ($)').fill('89.99');
    await page.getByLabel('Units in stock').fill('4');
    // A physical product without a weight: the service's rule, under its field.
    await page.getByRole('button', { name: /Create|Save/ }).click();
    await expect.poll(() => page.locator('#f-weight-error').innerText()).not.toBe('');
    await checked(page, 'console-product-refused');
    await page.getByLabel('Weight (kg)').fill('1,2');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: /Create|Save/ }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The product is created');
    const created = (await env.t.api.as(s).get(`/products?sellerId=${encodeURIComponent(s.id)}`)).body
      .products;
    expect(
      created.map((p: { title: string; priceCents: number; stockQuantity: number; status: string }) => [
        p.title,
        p.priceCents,
        p.stockQuantity,
        p.status,
      ]),
    ).toEqual([[title, 8999, 4, 'active']]);
    await page.goto(`${env.base}/console/products`);
    await checked(page, 'console-products');

    // A buyer pays for it; the seller ships and delivers from the console.
    const who = await buyer(env.t.api);
    await addToCart(env.t.api, who, created[0].id, 1);
    const [orderId] = await payOk(env.t.api, (await openCheckout(env.t.api, who)).sessionId);
    await page.goto(`${env.base}/console/orders`);
    await checked(page, 'console-orders');
    await page.getByLabel('Carrier').first().fill('Canada Post');
    await page.getByLabel('Tracking number').first().fill('7023210039414604');
    await page.getByRole('button', { name: 'Mark shipped' }).first().click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('marked shipped');
    const shipped = (await env.t.api.as(who).get(`/orders/${encodeURIComponent(orderId!)}`)).body;
    expect([shipped.status, shipped.carrier, shipped.trackingNumber]).toEqual([
      'shipped',
      'Canada Post',
      '7023210039414604',
    ]);
    await page.goto(`${env.base}/console/orders/${encodeURIComponent(orderId!)}`);
    await page.getByRole('button', { name: 'Mark delivered' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('marked delivered');

    // The buyer asks for a return (the API); the seller approves it on the page.
    const asked = await env.t.api.as(who).post('/returns', { order_id: orderId, reason: 'damaged' });
    expect(asked.status).toBe(201);
    await page.goto(`${env.base}/console/returns`);
    await checked(page, 'console-returns');
    await page.getByRole('button', { name: 'Approve and refund' }).first().click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The return is approved');
    const decided = (await env.t.api.as(who).get(`/returns/${encodeURIComponent(asked.body.return_id)}`))
      .body;
    expect(['approved', 'refunded']).toContain(decided.status);
    await page.goto(`${env.base}/console/analytics`);
    expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(2);
    await checked(page, 'console-analytics');
    await page.goto(`${env.base}/console/shop`);
    await checked(page, 'console-shop');
    expect(
      await onAPhone(page, env.base, {
        'console-home': '/console',
        'console-products': '/console/products',
        'console-product': `/console/products/${encodeURIComponent(created[0].id)}`,
        'console-orders': '/console/orders',
        'console-order': `/console/orders/${encodeURIComponent(orderId!)}`,
        'console-returns': '/console/returns',
        'console-shop': '/console/shop',
        'console-analytics': '/console/analytics',
      }),
    ).toEqual([]);
    await page.close();
  });

  it('an admin makes a buyer a seller and hides a review', async () => {
    const a = await admin(env.t.api, env.database);
    const s = await seller(env.t.api);
    const p = await product(env.t.api, s, { title: `${uniqueWord()} wool socks`, priceCents: 2400 });
    const who = await buyer(env.t.api);
    await addToCart(env.t.api, who, p.id, 1);
    const [orderId] = await payOk(env.t.api, (await openCheckout(env.t.api, who)).sessionId);
    await env.t.api.as(s).post(`/orders/${encodeURIComponent(orderId!)}/ship`, {
      carrier: 'UPS',
      trackingNumber: '1Z999AA10123456784',
    });
    await env.t.api.as(s).post(`/orders/${encodeURIComponent(orderId!)}/deliver`);
    const review = await env.t.api
      .as(who)
      .post('/reviews', { product_id: p.id, rating: 1, comment: 'Rude words here', order_id: orderId });
    expect(review.status).toBe(201);
    expect(
      (
        await env.t.api.get(`/products/${encodeURIComponent(p.id)}/reviews`, {
          authorization: `Bearer ${who.token}`,
        })
      ).body.total,
    ).toBe(1);

    const page = await env.browser.page();
    await signIn(page, a);
    await page.getByRole('link', { name: 'Admin' }).click();
    expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(3);
    await checked(page, 'desk-analytics');

    await page.getByRole('link', { name: 'Reviews' }).first().click();
    await page.getByLabel('Reviews shown').selectOption('published');
    await page
      .getByRole('button', { name: /Show|Apply|Find/ })
      .first()
      .click();
    await checked(page, 'desk-reviews');
    await page
      .locator('article, tr, li, section')
      .filter({ hasText: 'Rude words here' })
      .getByRole('button', { name: 'Hide' })
      .first()
      .click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('hidden');
    expect(
      (
        await env.t.api.get(`/products/${encodeURIComponent(p.id)}/reviews`, {
          authorization: `Bearer ${who.token}`,
        })
      ).body.total,
    ).toBe(0);

    const newcomer = await buyer(env.t.api);
    await page.getByRole('link', { name: 'Users' }).first().click();
    await page.getByLabel('Email or user ID').fill(newcomer.email);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByLabel('New role').selectOption('seller');
    await page.getByLabel('Shop name').fill('Prairie Looms');
    await page.getByLabel('Shop’s province').selectOption('SK');
    await checked(page, 'desk-users');
    await page.getByRole('button', { name: 'Change the role' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The role is changed');
    const login = await env.t.api.post('/auth/login', { email: newcomer.email, password: newcomer.password });
    expect(login.body.user.role).toBe('seller');

    await page.getByRole('link', { name: 'Coupons' }).first().click();
    await checked(page, 'desk-coupons');
    await page.getByRole('link', { name: 'Platforms' }).first().click();
    await checked(page, 'desk-platforms');
    expect(
      await onAPhone(page, env.base, {
        'desk-analytics': '/desk',
        'desk-reviews': '/desk/reviews',
        'desk-users': `/desk/users?user=${encodeURIComponent(newcomer.email)}`,
        'desk-coupons': '/desk/coupons',
        'desk-platforms': '/desk/platforms',
      }),
    ).toEqual([]);
    await page.close();
  });
});
