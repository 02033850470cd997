// Variants in the pages, in headless Chromium: a buyer picks Wood and Length with the radio
// groups (no script), sees the variant's price and availability, adds it and finds it named in
// the cart; a seller edits options and variants in the console, is refused a duplicate
// combination under its row, then saves. axe-core on every page (no serious or critical
// violation), then the same pages on a 360 px phone in French; screenshots with
// PAGE_SCREENSHOTS=<dir>.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, onAPhone } from './helpers/browser.ts';
import { buyer, seller, uniqueWord } from './helpers/builders.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('variants in the pages, in Chromium', () => {
  const env = browserApp();

  async function signIn(page: Page, who: { email: string; password: string }) {
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/account/sign-in`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  /** A canoe paddle sold in Cedar and Ash, 150 and 160 cm; Ash 150 cm not made. */
  async function paddle(owner: SignedIn) {
    const word = uniqueWord();
    const res = await env.t.api.as(owner).post('/products', {
      title: `Canoe paddle ${word}`,
      weight: 1.2,
      options: [
        { name: 'Wood', values: ['Cedar', 'Ash'] },
        { name: 'Length', values: ['150 cm', '160 cm'] },
      ],
      variants: [
        { options: { Wood: 'Cedar', Length: '150 cm' }, priceCents: 12900, stockQuantity: 0 },
        {
          options: { Wood: 'Cedar', Length: '160 cm' },
          priceCents: 13900,
          compareAtPriceCents: 15900,
          stockQuantity: 8,
        },
        { options: { Wood: 'Ash', Length: '160 cm' }, priceCents: 14900, stockQuantity: 2 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string };
  }

  it('a buyer picks Wood=Ash, Length=160 cm, sees its price and availability, and finds it named in the cart', async () => {
    const p = await paddle(await seller(env.t.api));
    const page = await env.browser.page();
    await signIn(page, await buyer(env.t.api));
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(p.id)}`);
    // The first variant on sale is chosen: its compare-at price struck through.
    await expect.poll(() => page.locator('#choice-h').innerText()).toBe('Your choice: Cedar / 160 cm');
    expect(
      (await page.locator('section[aria-labelledby="choice-h"] s').innerText()).replace(/\s+/g, ' '),
    ).toBe('Regular price $159.00');
    await checked(page, 'store-product-variants');

    await page.getByRole('group', { name: 'Wood' }).getByRole('radio', { name: 'Ash' }).check();
    await page.getByRole('group', { name: 'Length' }).getByRole('radio', { name: '150 cm' }).check();
    await page.getByRole('button', { name: 'Show this choice' }).click();
    await expect.poll(() => page.locator('#choice-h').innerText()).toBe('Your choice: Ash / 150 cm');
    expect(await page.getByRole('button', { name: 'Add to cart' }).isDisabled()).toBe(true);
    expect(await page.locator('#buy-refused').innerText()).toBe(
      'This combination is not made; choose another.',
    );
    await checked(page, 'store-product-variant-not-made');

    await page.getByRole('group', { name: 'Length' }).getByRole('radio', { name: '160 cm' }).check();
    await page.getByRole('button', { name: 'Show this choice' }).click();
    await expect.poll(() => page.locator('#choice-h').innerText()).toBe('Your choice: Ash / 160 cm');
    const chosen = await page.locator('section[aria-labelledby="choice-h"]').innerText();
    expect(chosen).toContain('$149.00');
    expect(chosen).toContain('Only 2 left');
    expect(new URL(page.url()).search).toBe('?Wood=Ash&Length=160+cm');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Your cart');
    expect(await page.locator('tbody').innerText()).toContain(`${p.title}, Ash / 160 cm`);
    await checked(page, 'store-cart-variant');

    const phone = await onAPhone(page, env.base, {
      'store-product-variants-fr': `/shop/products/${encodeURIComponent(p.id)}?Wood=Ash&Length=160+cm&lang=fr-CA`,
      'store-cart-variant-fr': '/shop/cart',
    });
    expect(phone).toEqual([]);
    expect(await page.locator('tbody').innerText()).toContain(`${p.title}, Ash / 160 cm`);
    await page.goto(`${env.base}/?lang=en-CA`);
    await page.close();
  });

  it('a seller edits options and variants, is refused a duplicate combination under its row, then saves', async () => {
    const s = await seller(env.t.api);
    const p = await paddle(s);
    const page = await env.browser.page();
    await signIn(page, s);
    await page.goto(`${env.base}/console/products/${encodeURIComponent(p.id)}`);
    await checked(page, 'console-product-variants');
    const row = (n: number, label: string) =>
      page.getByLabel(`${label} (${n === 3 ? 'new variant' : `variant ${n + 1}`})`, { exact: true });
    await page.getByLabel('Values of option 1').fill('Cedar, Ash, Maple');
    await row(3, 'Wood').fill('Ash');
    await row(3, 'Length').fill('160 cm');
    await row(3, 'Price ($)').fill('150');
    await row(3, 'Stock').fill('3');
    await page.getByRole('button', { name: 'Save the options and variants' }).click();
    await expect
      .poll(() => page.locator('#f-variants-3-options-error').innerText())
      .toBe('Ash / 160 cm: the same option values as another variant');
    expect(await page.locator('#form-error').innerText()).toBe('Check the fields marked below.');
    await checked(page, 'console-product-variants-refused');

    // Made Maple instead; the sold-out Cedar 150 cm removed.
    await page.getByLabel('Wood (variant 4)', { exact: true }).fill('Maple');
    await page.getByLabel('Length (variant 4)', { exact: true }).fill('150 cm');
    await page.getByRole('checkbox', { name: /^Remove variant 1 / }).check();
    await page.getByRole('button', { name: 'Save the options and variants' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The changes are saved.');
    const detail = (await env.t.api.as(s).get(`/products/${encodeURIComponent(p.id)}`)).body;
    expect(
      detail.variants.map((v: { title: string; priceCents: number; stockQuantity: number }) => [
        v.title,
        v.priceCents,
        v.stockQuantity,
      ]),
    ).toEqual([
      ['Cedar / 160 cm', 13900, 8],
      ['Ash / 160 cm', 14900, 2],
      ['Maple / 150 cm', 15000, 3],
    ]);

    const phone = await onAPhone(page, env.base, {
      'console-product-variants-fr': `/console/products/${encodeURIComponent(p.id)}?lang=fr-CA`,
    });
    expect(phone).toEqual([]);
    expect(await page.locator('#variants-h').innerText()).toBe('Options et variantes');
    await page.goto(`${env.base}/console?lang=en-CA`);
    await page.close();
  });
});
