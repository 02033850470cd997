// The storefront and the buyer's account in headless Chromium, used as a person uses them: search,
// filter, add to the cart, check out with the keyboard only, pay on the sandbox's page, see the
// order, download its invoice, ask for a return. axe-core checks every page (no serious or
// critical violation), on a desktop and on a 360 px phone, in English and French. With
// PAGE_SCREENSHOTS=<dir> the main pages are saved there (docs/images/pages in the repository).
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, onAPhone } from './helpers/browser.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the storefront and the account in Chromium', () => {
  const env = browserApp();

  it('a person searches, filters, buys with the keyboard, pays, and follows the order to a return', async () => {
    await env.browser.context.clearCookies();
    const word = uniqueWord();
    const s = await seller(env.t.api);
    const c = await category(env.t.api, await admin(env.t.api, env.database), 'Kitchen');
    const paddle = await product(env.t.api, s, {
      title: `${word} cedar paddle`,
      priceCents: 8999,
      categoryId: c.id,
      imageUrl: 'https://images.portage.test/paddle.jpg',
      description: 'Hand-carved western red cedar.',
      specifications: { Length: '150 cm', Wood: 'Cedar' },
    });
    await product(env.t.api, s, { title: `${word} birch spoon`, priceCents: 1200 });
    const who = await buyer(env.t.api);
    const page = await env.browser.page();

    await page.goto(`${env.base}/`);
    await checked(page, 'store-home');
    await page.getByLabel('Search products').fill(word);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().innerText()).toBe('2 products');
    await page.getByRole('checkbox', { name: /Kitchen/ }).check();
    await page.getByRole('button', { name: 'Apply' }).first().click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toBe('1 product');
    await checked(page, 'store-search');
    await page.getByRole('link', { name: `${word} cedar paddle` }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`${word} cedar paddle`);
    await checked(page, 'store-product');

    // Adding to the cart asks to sign in first, then comes back to the product.
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await checked(page, 'account-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(paddle.id)}`);
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Added to your cart');
    await checked(page, 'store-cart');
    await page.getByRole('link', { name: 'Check out' }).click();

    // The address form with the keyboard alone: Tab to each field, type, Enter to send.
    const focusOn = async (id: string) => {
      for (let i = 0; i < 60; i++) {
        if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`the keyboard never reached #${id}`);
    };
    await focusOn('f-street');
    await page.keyboard.type('100 Queen St W');
    await focusOn('f-city');
    await page.keyboard.type('Toronto');
    await focusOn('f-province');
    await page.keyboard.type('Ontario');
    await focusOn('f-postalCode');
    await page.keyboard.type('H2X 1Y4');
    await focusOn('f-phone');
    await page.keyboard.type('+14165550123');
    await checked(page, 'store-checkout');
    await page.keyboard.press('Enter');
    // The API's own message, under the field that has it.
    await expect
      .poll(() => page.locator('#f-postalCode-error').innerText())
      .toContain('postal codes in ON start with');
    await checked(page, 'store-checkout-refused');
    await page.locator('#f-postalCode').fill('');
    await page.locator('#f-postalCode').focus();
    await page.keyboard.type('M5H 2N2');
    await page.keyboard.press('Enter');

    // The sandbox's payment page, then the order from its link.
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByTestId('order-id').getByRole('link').click();
    // Named by its number; its id is in the address.
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Order \d{4}-\d{6}$/);
    await checked(page, 'account-order');
    const orderId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect(orderId).toMatch(/^orders:/);

    // The invoice downloads as a PDF.
    const download = await page.request.get(
      `${env.base}/account/orders/${encodeURIComponent(orderId)}/invoice`,
    );
    expect(download.status()).toBe(200);
    expect(download.headers()['content-type']).toBe('application/pdf');
    expect((await download.body()).subarray(0, 5).toString()).toBe('%PDF-');

    // The seller ships and delivers (through the API); the person asks for a return on the page.
    const shipped = await env.t.api.as(s).post(`/orders/${encodeURIComponent(orderId)}/ship`, {
      carrier: 'Canada Post',
      trackingNumber: '1234567890123456',
    });
    expect(shipped.status).toBe(200);
    expect((await env.t.api.as(s).post(`/orders/${encodeURIComponent(orderId)}/deliver`)).status).toBe(200);
    await page.reload();
    expect(await page.getByText('tracking number 1234567890123456').count()).toBe(1);
    await page.getByLabel('Reason', { exact: true }).selectOption('damaged');
    await page.getByLabel('What happened (optional)').fill('The blade is cracked.');
    await page.getByRole('button', { name: 'Ask for a return' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('return request is sent');
    const returns = await env.t.api.as(who).get('/returns');
    expect(
      returns.body.returns.map((r: { order_id: string; reason: string }) => [r.order_id, r.reason]),
    ).toEqual([[orderId, 'damaged']]);
    await page.getByRole('link', { name: 'Returns', exact: true }).click();
    await checked(page, 'account-returns');
    await page.getByRole('link', { name: 'Settings' }).click();
    await checked(page, 'account-settings');
    const order = `/account/orders/${encodeURIComponent(orderId)}`;
    expect(
      await onAPhone(page, env.base, {
        'store-home': '/',
        'store-product': `/shop/products/${encodeURIComponent(paddle.id)}`,
        'account-overview': '/account',
        'account-orders': '/account/orders',
        'account-order': order,
        'account-returns': '/account/returns',
        'account-agents': '/account/agents',
        'account-settings': '/account/settings',
      }),
    ).toEqual([]);
    await page.close();
  });

  it('fits a 360 px phone, in French, with no serious accessibility problem', async () => {
    await env.browser.context.clearCookies();
    const s = await seller(env.t.api, 'QC');
    const word = uniqueWord();
    const p = await product(env.t.api, s, { title: `${word} sirop d’érable`, priceCents: 1499 });
    const who = await buyer(env.t.api);
    const page = await env.browser.page();
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${env.base}/?lang=fr-CA&q=${word}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr-CA');
    // Nothing is wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-store-search-fr');
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(p.id)}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-store-product-fr');
    await page.goto(`${env.base}/account/sign-in`);
    await page.getByLabel('Courriel').fill(who.email);
    await page.getByLabel('Mot de passe').fill(who.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(p.id)}`);
    await page.getByRole('button', { name: 'Ajouter au panier' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Votre panier');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-store-cart-fr');
    await page.getByRole('link', { name: 'Passer à la caisse' }).click();
    await checked(page, 'phone-store-checkout-fr');
    await page.close();
  });
});
