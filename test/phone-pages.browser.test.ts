// Pages on a 360 px phone and on a desktop, in French (the longest words) and English, in
// headless Chromium: the search's filters before its results with each count on its label's
// line, buttons that never break a word, the sandbox's banner as lines, the returns tables with
// status and refund on the screen; and a buyer's saved address used at checkout, down to the
// seller's order page that addresses the parcel. axe-core on every page; screenshots saved
// under PAGE_SCREENSHOTS (docs/images/pages).
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked } from './helpers/browser.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, pay } from './helpers/checkout.ts';
import { requestedReturn } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const LOCALES = [
  { lang: 'fr-CA', suffix: '-fr', signIn: 'Se connecter', email: 'Courriel', password: 'Mot de passe' },
  { lang: 'en-CA', suffix: '', signIn: 'Sign in', email: 'Email', password: 'Password' },
] as const;
type Lang = (typeof LOCALES)[number];

const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1100, height: 900 };

async function signIn(page: Page, base: string, who: SignedIn, l: Lang) {
  await page.context().clearCookies();
  await page.goto(`${base}/account/sign-in?lang=${l.lang}`);
  await page.getByLabel(l.email).fill(who.email);
  await page.getByLabel(l.password, { exact: true }).fill(who.password);
  await page.getByRole('button', { name: l.signIn }).click();
  await page.waitForURL(/\/account$/);
}

/** The words of the elements matching `selector` that the layout split across two lines. */
const brokenWords = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const broken: string[] = [];
    for (const el of document.querySelectorAll(sel)) {
      if (!(el as HTMLElement).offsetParent) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  }, selector);

/** How many lines the text of the first element matching `selector` takes. */
const linesOf = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return 0;
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.bottom))).size;
  }, selector);

/** The rightmost edge of anything inside the page's tables (their cells and what is in them). */
/** The rightmost edge of the page's tables and of everything in them, as `tag.class right`. */
const tablesRight = (page: Page) =>
  page.evaluate(() => {
    const edges = [...document.querySelectorAll('table, table *')]
      .map((e) => ({ what: `${e.tagName}.${e.className}`, right: e.getBoundingClientRect().right }))
      .sort((a, b) => b.right - a.right);
    return edges[0] ?? { what: 'no table', right: 0 };
  });

describe.skipIf(unavailable !== undefined)('pages on a phone and a desktop, in French and English', () => {
  const env = browserApp();

  it('search: filters before the results, counts on their labels’ lines, buttons unbroken', async () => {
    const word = uniqueWord();
    const s = await seller(env.t.api);
    const c = await category(
      env.t.api,
      await admin(env.t.api, env.database),
      'Articles de cuisine et plein air',
    );
    for (const title of ['cuillère', 'spatule', 'planche']) {
      await product(env.t.api, s, { title: `${word} ${title}`, categoryId: c.id });
    }
    await product(env.t.api, s, { title: `${word} sans catégorie` });
    const page = await env.browser.page();
    for (const l of LOCALES) {
      await page.context().clearCookies();
      await page.setViewportSize(PHONE);
      await page.goto(`${env.base}/?lang=${l.lang}&q=${word}`);
      const summary = page.locator('.facets > summary');
      const firstResult = page.locator('.grid .product').first();
      const filtersTop = (await summary.boundingBox())!.y;
      const resultTop = (await firstResult.boundingBox())!.y;
      expect(filtersTop, l.lang).toBeLessThan(resultTop);
      // Folded until asked: the results are near the top of the phone's screen.
      expect(resultTop).toBeLessThan(PHONE.height);
      await summary.click();
      const box = page.getByRole('checkbox', { name: new RegExp(c.name) });
      await expect.poll(() => box.isVisible()).toBe(true);
      expect(await page.locator('.facets').innerText()).not.toMatch(/\bnone\b/i);
      // Each count ends its label's last line: never on a line of its own, never cut.
      const counts = await page.evaluate(() =>
        [...document.querySelectorAll('.facets .check')].map((label) => {
          const name = label.querySelector(':scope > span')!.getBoundingClientRect();
          const count = label.querySelector('.count')!;
          const r = count.getBoundingClientRect();
          const range = document.createRange();
          range.selectNodeContents(count);
          return {
            text: label.textContent,
            lines: new Set([...range.getClientRects()].map((x) => Math.round(x.top))).size,
            onLastLine: Math.abs(r.bottom - name.bottom) < 3,
            afterText: r.left > name.left + 5,
            inside: r.right <= 360,
          };
        }),
      );
      // The category, the shop, and "In stock only".
      expect(counts.length).toBe(3);
      for (const x of counts) {
        expect(x, String(x.text)).toEqual({
          text: x.text,
          lines: 1,
          onLastLine: true,
          afterText: true,
          inside: true,
        });
      }
      expect(await brokenWords(page, 'button, .button')).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await checked(page, `phone-store-facets${l.suffix}`);

      await page.setViewportSize(DESKTOP);
      await page.goto(`${env.base}/?lang=${l.lang}&q=${word}`);
      // On a wide screen the filters are open beside the results, with no summary to click.
      expect(await summary.isVisible()).toBe(false);
      expect(await box.isVisible()).toBe(true);
      await box.check();
      await page.locator('.facets button[type=submit]').click();
      await expect.poll(() => page.getByRole('status').first().innerText()).toMatch(/^3 /);
      expect(await brokenWords(page, 'button, .button')).toEqual([]);
      await checked(page, `store-facets${l.suffix}`);
    }
    await page.close();
  });

  it('search by size and stock: a person ticks a size, then "in stock only", and removes a choice', async () => {
    const word = uniqueWord();
    const s = await seller(env.t.api);
    const make = async (body: Record<string, unknown>) => {
      const made = await env.t.api.as(s).post('/products', { weight: 0.3, ...body });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    };
    // The T-shirt's M is sold out; the hoodie's is not.
    await make({
      title: `${word} T-shirt`,
      options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      variants: [
        { options: { Size: 'S' }, priceCents: 1500, stockQuantity: 5 },
        { options: { Size: 'M' }, priceCents: 2000, stockQuantity: 0 },
        { options: { Size: 'L' }, priceCents: 3000, stockQuantity: 2 },
      ],
    });
    await make({
      title: `${word} hoodie`,
      options: [{ name: 'Size', values: ['M', 'L'] }],
      variants: [
        { options: { Size: 'M' }, priceCents: 5500, stockQuantity: 3 },
        { options: { Size: 'L' }, priceCents: 5500, stockQuantity: 1 },
      ],
    });
    await make({ title: `${word} mug`, priceCents: 1200, stockQuantity: 4 });
    const page = await env.browser.page();
    const words = {
      'fr-CA': {
        n: (n: number) => `${n} produits`,
        one: '1 produit',
        inStock: 'En stock seulement',
        remove: 'Retirer En stock seulement',
      },
      'en-CA': {
        n: (n: number) => `${n} products`,
        one: '1 product',
        inStock: 'In stock only',
        remove: 'Remove In stock only',
      },
    } as const;
    const status = () => page.getByRole('status').first().innerText();
    const titles = () => page.locator('.grid .product h2').allInnerTexts();
    for (const l of LOCALES) {
      const w = words[l.lang];
      for (const [size, viewport] of [
        ['', DESKTOP],
        ['phone-', PHONE],
      ] as const) {
        await page.context().clearCookies();
        await page.setViewportSize(viewport);
        await page.goto(`${env.base}/?lang=${l.lang}&q=${word}`);
        await expect.poll(status).toBe(w.n(3));
        // On a phone the filters are folded under their summary until asked.
        const open = async () => {
          if (viewport === PHONE) await page.locator('.facets > summary').click();
        };
        await open();
        const sizes = page.getByRole('group', { name: 'Size' });
        expect((await sizes.innerText()).replace(/\s+/g, ' ')).toMatch(/M \(2\)/);
        await sizes.getByRole('checkbox', { name: /^M / }).check();
        await page.locator('.facets button[type=submit]').click();
        await expect.poll(status).toBe(w.n(2));
        expect((await titles()).sort()).toEqual([`${word} T-shirt`, `${word} hoodie`].sort());
        await open();
        await page.getByRole('checkbox', { name: new RegExp(`^${w.inStock}`) }).check();
        await page.locator('.facets button[type=submit]').click();
        await expect.poll(status).toBe(w.one);
        expect(await titles()).toEqual([`${word} hoodie`]);
        expect(new URL(page.url()).searchParams.getAll('option.Size')).toEqual(['M']);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        await checked(page, `${size}store-search-variants${l.suffix}`);
        // The choice removed: the T-shirt (M sold out) is back, the size still chosen.
        await page.getByRole('link', { name: w.remove }).click();
        await expect.poll(status).toBe(w.n(2));
        expect(new URL(page.url()).searchParams.getAll('option.Size')).toEqual(['M']);
        expect(new URL(page.url()).searchParams.get('q')).toBe(word);
      }
    }
    await page.close();
  });

  it('variants: the product page’s table of variants stacks each as label and value pairs, nothing scrolls', async () => {
    const s = await seller(env.t.api);
    const word = uniqueWord();
    const made = await env.t.api.as(s).post('/products', {
      title: `Canoe paddle ${word}`,
      weight: 1.2,
      options: [
        { name: 'Wood', values: ['Laminated western red cedar', 'Ash'] },
        { name: 'Length', values: ['150 cm', '160 cm'] },
      ],
      variants: [
        {
          options: { Wood: 'Laminated western red cedar', Length: '150 cm' },
          priceCents: 129900,
          compareAtPriceCents: 159900,
          stockQuantity: 0,
        },
        {
          options: { Wood: 'Laminated western red cedar', Length: '160 cm' },
          priceCents: 139900,
          stockQuantity: 3,
        },
        { options: { Wood: 'Ash', Length: '160 cm' }, priceCents: 14900, stockQuantity: 40 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const page = await env.browser.page();
    for (const l of LOCALES) {
      await page.setViewportSize(PHONE);
      await page.goto(`${env.base}/shop/products/${encodeURIComponent(made.body.id)}?lang=${l.lang}`);
      const table = page.locator('table.variants');
      // No column off the screen, and the table's box does not scroll sideways either.
      const edge = await tablesRight(page);
      expect(edge.right, `${l.lang}: ${edge.what}`).toBeLessThanOrEqual(360);
      const wrap = await table.evaluate((t) => {
        const w = t.parentElement!;
        return { scroll: w.scrollWidth, client: w.clientWidth };
      });
      expect(wrap.scroll, l.lang).toBeLessThanOrEqual(wrap.client);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      // Each cell says what it is: its column's name above its value.
      const first = table.locator('tbody tr').first();
      const label = await first
        .locator('td.num')
        .evaluate((td) => getComputedStyle(td, '::before').content.replace(/^"|"$/g, ''));
      expect(label).toBe(l.lang === 'fr-CA' ? 'Prix' : 'Price');
      expect(
        await table
          .locator('thead')
          .boundingBox()
          .then((b) => b!.width),
      ).toBeLessThanOrEqual(1);
      await checked(page, `phone-store-product-variants${l.suffix}`);
      await page.setViewportSize(DESKTOP);
      await page.reload();
      // On a desktop, a table with its header row.
      expect(
        await table
          .locator('thead')
          .boundingBox()
          .then((b) => b!.width),
      ).toBeGreaterThan(300);
      await checked(page, `store-product-variants-table${l.suffix}`);
    }
    await page.close();
  });

  it('the header counts the cart: a buyer adds from the product page and the header says how many; the cart stacks on a phone', async () => {
    const s = await seller(env.t.api);
    const p = await product(env.t.api, s, { title: `Cedar paddle ${uniqueWord()}`, stockQuantity: 50 });
    const who = await buyer(env.t.api);
    const page = await env.browser.page();
    for (const l of LOCALES) {
      const fr = l.lang === 'fr-CA';
      await page.setViewportSize(PHONE);
      await signIn(page, env.base, who, l);
      const cart = page.locator('header nav a[href="/shop/cart"]');
      expect(await cart.locator('.count').count()).toBe(0);
      await page.goto(`${env.base}/shop/products/${encodeURIComponent(p.id)}?lang=${l.lang}`);
      await page.getByLabel(fr ? 'Quantité' : 'Quantity').fill('2');
      await page.getByRole('button', { name: fr ? 'Ajouter au panier' : 'Add to cart' }).click();
      await page.waitForURL(/\/shop\/cart\?added=1$/);
      // Seen as a number beside the word, heard as the whole phrase.
      await expect
        .poll(() =>
          page.getByRole('link', { name: fr ? 'Panier 2 articles' : 'Cart 2 items', exact: true }).count(),
        )
        .toBe(1);
      expect(await cart.locator('.count').innerText()).toBe('2');
      // The cart's lines stack on the phone: the line's total and its buttons on the screen.
      const edge = await tablesRight(page);
      expect(edge.right, `${l.lang}: ${edge.what}`).toBeLessThanOrEqual(360);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await checked(page, `phone-header-cart${l.suffix}`);
      await page.setViewportSize(DESKTOP);
      await checked(page, `header-cart${l.suffix}`);
      await env.t.api.as(who).delete(`/cart/items/${p.id}`);
    }
    await page.close();
  });

  it('returns: the buyer’s and the seller’s tables keep status and refund on a phone’s screen', async () => {
    const r = await requestedReturn(env.t);
    const page = await env.browser.page();
    for (const l of LOCALES) {
      for (const [who, path, name] of [
        [r.buyer, '/account/returns', 'account-returns'],
        [r.seller, '/console/returns', 'console-returns'],
      ] as const) {
        await page.setViewportSize(PHONE);
        await signIn(page, env.base, who, l);
        await page.goto(`${env.base}${path}`);
        const edge = await tablesRight(page);
        expect(edge.right, `${l.lang} ${path}: ${edge.what}`).toBeGreaterThan(200);
        expect(edge.right, `${l.lang} ${path}: ${edge.what}`).toBeLessThanOrEqual(360);
        const status = page.locator('table .badge').first();
        await expect.poll(() => status.isVisible()).toBe(true);
        const refund = page.locator('table td.num').first();
        const statusBox = (await status.boundingBox())!;
        const refundBox = (await refund.boundingBox())!;
        for (const b of [statusBox, refundBox]) {
          expect(b.x).toBeGreaterThanOrEqual(0);
          expect(b.x + b.width).toBeLessThanOrEqual(360);
        }
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
        expect(await brokenWords(page, 'button, .button')).toEqual([]);
        await checked(page, `phone-${name}${l.suffix}`);
        await page.setViewportSize(DESKTOP);
        await page.reload();
        await checked(page, `${name}${l.suffix}`);
      }
    }
    await page.close();
  });

  it.each(LOCALES)(
    'a saved address ($lang): added in the account as typed, filled in at checkout, on the seller’s order page',
    async (l) => {
      const s = await seller(env.t.api);
      const p = await product(env.t.api, s, { title: `${uniqueWord()} paddle`, stockQuantity: 10 });
      const page = await env.browser.page();
      const fr = l.lang === 'fr-CA';
      const who = await buyer(env.t.api);
      await addToCart(env.t.api, who, p.id);
      await page.setViewportSize(PHONE);
      await signIn(page, env.base, who, l);
      await page.goto(`${env.base}/account/addresses`);
      await page.getByLabel(fr ? 'Nom du destinataire' : 'Recipient’s name').fill('Camille Tremblay');
      await page.getByLabel(fr ? 'Adresse' : 'Street address', { exact: true }).fill('1000 Rue Sherbrooke O');
      await page
        .getByLabel(fr ? 'Appartement, unité, bureau (facultatif)' : 'Apartment, unit, suite (optional)')
        .fill('App. 4');
      await page.getByLabel(fr ? 'Ville' : 'City').fill('Montréal');
      await page.getByLabel(fr ? 'Province ou territoire' : 'Province or territory').selectOption('QC');
      await page.getByLabel(fr ? 'Code postal' : 'Postal code').fill('h3a 1t5');
      await page.getByLabel(fr ? 'Téléphone' : 'Phone').fill('(514) 555-0199');
      await page.getByRole('button', { name: fr ? 'Enregistrer l’adresse' : 'Save the address' }).click();
      await expect
        .poll(() => page.getByRole('status').first().innerText())
        .toBe(fr ? 'L’adresse est enregistrée.' : 'The address is saved.');
      const saved = await page.locator('ul.addresses address').innerText();
      expect(saved.replace(/\s+/g, ' ')).toBe(
        `Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal ${fr ? 'Québec' : 'Quebec'} H3A 1T5`,
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(await brokenWords(page, 'button, .button')).toEqual([]);
      await checked(page, `phone-account-addresses${l.suffix}`);
      await page.setViewportSize(DESKTOP);
      await checked(page, `account-addresses${l.suffix}`);

      // The checkout fills the default in; the person only continues.
      await page.setViewportSize(PHONE);
      await page.goto(`${env.base}/shop/checkout`);
      expect(await page.getByLabel(fr ? 'Code postal' : 'Postal code').inputValue()).toBe('H3A 1T5');
      expect(await page.getByLabel(fr ? 'Téléphone' : 'Phone').inputValue()).toBe('+15145550199');
      expect(await brokenWords(page, 'button, .button')).toEqual([]);
      await checked(page, `phone-store-checkout-saved${l.suffix}`);
      await page.setViewportSize(DESKTOP);
      await checked(page, `store-checkout-saved${l.suffix}`);
      await page.setViewportSize(PHONE);
      await page
        .getByRole('button', { name: fr ? 'Continuer vers le paiement' : 'Continue to payment' })
        .click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      // The sandbox's page speaks the buyer's saved language or the browser's, not the pages' cookie.
      await page.goto(`${page.url()}?lang=${l.lang}`);
      expect(await page.locator('html').getAttribute('lang')).toBe(l.lang);
      // The sandbox's banner reads as lines, not a word a line.
      expect(await linesOf(page, '.top .badge')).toBeLessThanOrEqual(2);
      expect(await brokenWords(page, '.top, button')).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await checked(page, `phone-sandbox${l.suffix}`);
      const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/sandbox/checkout/')[1]!);
      const paid = await pay(env.t.api, sessionId);
      expect(paid.status).toBe(200);
      const orderId: string = paid.body.orderIds[0];

      // The seller addresses the parcel from the order's page.
      await page.setViewportSize(PHONE);
      await signIn(page, env.base, s, l);
      await page.goto(`${env.base}/console/orders/${encodeURIComponent(orderId)}`);
      const shipTo = page.locator('section[aria-labelledby="ship-to-h"]');
      expect((await shipTo.innerText()).replace(/\s+/g, ' ').trim()).toBe(
        fr
          ? 'Expédier à Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal Québec H3A 1T5 Téléphone : +1 514 555 0199'
          : 'Ship to Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal Quebec H3A 1T5 Phone: +1 514 555 0199',
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await checked(page, `phone-console-order-ship-to${l.suffix}`);
      await page.setViewportSize(DESKTOP);
      await checked(page, `console-order-ship-to${l.suffix}`);
      await page.close();
    },
  );
});
