// The order page after delivery in Chromium, as a buyer uses it: a review (shown with what
// moderation decided, and its title on the product's page), a return of one item then of the
// rest, each refunded: the page says so and offers no more return. Then the same page and the
// storefront's numbers in French on a 360 px phone. axe-core on each; screenshots with
// PAGE_SCREENSHOTS=<dir> (docs/images/pages).
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, onAPhone } from './helpers/browser.ts';
import { buyer, seller, teeInTwoSizes, uniqueWord } from './helpers/builders.ts';
import { checkout, ON_ADDRESS, payOk } from './helpers/checkout.ts';
import { deliver, deliveredOrderOf, ship } from './helpers/orders.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the order page after delivery', () => {
  const env = browserApp();

  it('takes a review and returns, then says the order is refunded, in English and in French on a phone', async () => {
    await env.browser.context.clearCookies();
    const word = uniqueWord();
    const paid = await deliveredOrderOf(env.t, [
      { priceCents: 1500, quantity: 1 },
      { priceCents: 2500, quantity: 1 },
    ]);
    const [first] = paid.products;
    const page = await env.browser.page();
    await page.goto(
      `${env.base}/account/sign-in?next=${encodeURIComponent(`/account/orders/${paid.orderId}`)}`,
    );
    await page.getByLabel('Email').fill(paid.buyer.email);
    await page.getByLabel('Password').fill(paid.buyer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Order');

    // A review of the first item, with a title.
    const reviewForm = page.locator('form', { hasText: `Review ${first!.title}` });
    await reviewForm.getByLabel('Rating').selectOption('4');
    await reviewForm.getByLabel('Title (optional)').fill(`${word} sturdy`);
    await reviewForm.getByLabel('Your review').fill('Holds up well.');
    await reviewForm.getByRole('button', { name: 'Post the review' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toBe('Thank you: your review is published.');
    const given = page.locator('.card', { hasText: `Your review of ${first!.title}` });
    expect(await given.innerText()).toContain(`4 stars out of 5 · ${word} sturdy`);
    expect(await given.innerText()).toContain('Published');
    expect(await page.locator('form', { hasText: `Review ${first!.title}` }).count()).toBe(0);

    // A return of the first item; once refunded, only the second can be returned.
    await page.getByLabel('Reason').selectOption('damaged');
    await page.getByRole('checkbox', { name: first!.title }).check();
    await page.getByRole('button', { name: 'Ask for a return' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toBe('Your return request is sent to the seller.');
    expect(await page.getByRole('button', { name: 'Ask for a return' }).count()).toBe(0);
    const decide = async () => {
      const [open] = (await env.t.api.as(paid.buyer).get('/returns?status=pending')).body.returns;
      expect(
        (await env.t.api.as(paid.seller).post(`/returns/${open.return_id}/approve`, {})).body.status,
      ).toBe('refunded');
    };
    await decide();
    await page.reload();
    expect(await page.locator('.card').first().innerText()).toMatch(/Delivered · \$[\d.]+ refunded/);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await page.getByLabel('Reason').selectOption('wrong_item');
    await page.getByRole('button', { name: 'Ask for a return' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toBe('Your return request is sent to the seller.');
    await decide();
    await page.reload();
    expect(await page.locator('.badge.refunded').innerText()).toBe('Refunded');
    expect(await page.getByRole('button', { name: 'Ask for a return' }).count()).toBe(0);
    await checked(page, 'account-order-refunded');

    // The product's page shows the review's title.
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(first!.id)}`);
    expect(await page.locator('article.review').innerText()).toMatch(
      new RegExp(`4 stars out of 5\\s+${word} sturdy`),
    );

    // In French on a phone: the refund, the address's wording, the review's numbers.
    await page.goto(`${env.base}/account/orders/${encodeURIComponent(paid.orderId)}?lang=fr-CA`);
    expect(
      await onAPhone(page, env.base, {
        'account-order-refunded-fr': `/account/orders/${encodeURIComponent(paid.orderId)}`,
        'store-product-review-fr': `/shop/products/${encodeURIComponent(first!.id)}`,
      }),
    ).toEqual([]);
    await page.goto(`${env.base}/account/orders/${encodeURIComponent(paid.orderId)}`);
    const card = await page.locator('.card').first().innerText();
    expect(card).toContain('Remboursé');
    expect(card).toContain('Adresse de livraison :');
    expect(await page.locator('div.card', { hasText: 'Votre avis sur' }).innerText()).toContain(
      '4 étoiles sur 5',
    );
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(first!.id)}`);
    expect(await page.locator('main').innerText()).toMatch(/4,0\ssur\s5\s\(1\savis\)/);
    // The storefront's filters: plurals and dollars as French writes them.
    await page.goto(`${env.base}/?q=${encodeURIComponent(first!.title)}`);
    const filters = await page.locator('.facets form').textContent();
    expect(filters).toMatch(/0\s\$\sà\s25\s\$\s\(1\)/);
    expect(await page.getByRole('option', { name: '1 étoile et plus' }).count()).toBe(1);
    expect(await page.getByRole('option', { name: '4 étoiles et plus' }).count()).toBe(1);
  });

  it('returns one variant of a product by its name; the other variant is still offered', async () => {
    await env.browser.context.clearCookies();
    const t = env.t;
    const s = await seller(t.api);
    const word = uniqueWord();
    const made = { body: await teeInTwoSizes(t.api, s, word) };
    const b = await buyer(t.api);
    for (const v of made.body.variants as Array<{ sku: string }>) {
      const res = await t.api
        .as(b)
        .post('/cart/items', { product_id: made.body.id, quantity: 1, variant: v.sku });
      expect(res.status).toBe(200);
    }
    const held = await checkout(t.api, b, { shipping_address: ON_ADDRESS });
    const [orderId] = await payOk(t.api, held.body.sessionId);
    await ship(t, s, orderId!);
    await deliver(t, s, orderId!);

    const page = await env.browser.page();
    const path = `/account/orders/${encodeURIComponent(orderId!)}`;
    await page.goto(`${env.base}/account/sign-in?next=${encodeURIComponent(path)}`);
    await page.getByLabel('Email').fill(b.email);
    await page.getByLabel('Password').fill(b.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toContain('Order');
    expect(await page.getByRole('checkbox').count()).toBe(2);
    await page.getByLabel('Reason').selectOption('wrong_item');
    await page.getByRole('checkbox', { name: `Tee ${word}, M` }).check();
    await page.getByRole('button', { name: 'Ask for a return' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toBe('Your return request is sent to the seller.');
    const [open] = (await t.api.as(b).get('/returns?status=pending')).body.returns;
    expect((await t.api.as(s).post(`/returns/${open.return_id}/approve`, {})).body.status).toBe('refunded');
    await page.reload();
    // The S line of the same product is still offered, by its name.
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.locator('form', { hasText: 'Ask for a return' }).innerText()).toContain(
      `What goes back: Tee ${word}, S`,
    );
    await checked(page, 'account-order-variant-left');
  });
});
