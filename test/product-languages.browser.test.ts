// A product in French and English on the store's pages, in headless Chromium on a 360 px phone:
// the product page in the page's language when translated; otherwise the text as written, marked
// with its `lang` for screen readers and a line saying the description is in the other language
// only. The search finds "érable" and names the category in the page's language. axe-core on
// every page; screenshots under PAGE_SCREENSHOTS. A seller writes the other language's title,
// description and option names in the console's product form, in English and in French, and the
// store page shows them to a reader of that language.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityProblems, browserApp, browserUnavailable, screenshot } from './helpers/browser.ts';
import { admin, product, seller, uniqueWord } from './helpers/builders.ts';

const unavailable = browserUnavailable();
const PHONE = { width: 360, height: 780 };

describe.skipIf(unavailable !== undefined)('products in French and English on the store’s pages', () => {
  const env = browserApp();

  it('shows each product in the page’s language, or says it is in the other one', async () => {
    const word = uniqueWord();
    const root = await admin(env.t.api, env.database);
    const slug = `c-${word}`;
    const cat = await env.t.api.as(root).post('/admin/categories', {
      name: `Pantry ${word}`,
      slug,
      translations: { 'fr-CA': { name: `Garde-manger ${word}` } },
    });
    const s = await seller(env.t.api);
    const syrup = await product(env.t.api, s, {
      title: `Sirop d'érable ${word}`,
      description: 'Récolté au printemps dans les Laurentides.',
      language: 'fr-CA',
      categoryId: cat.body.id,
      translations: { 'en-CA': { title: `Maple syrup ${word}`, description: 'Harvested in spring.' } },
    });
    const paddle = await product(env.t.api, s, {
      title: `Cedar paddle ${word}`,
      description: 'Carved from one cedar plank.',
      categoryId: cat.body.id,
    });
    const page = await env.browser.page();
    await page.setViewportSize(PHONE);

    // French page, translated product: all French, no note.
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(syrup.id)}?lang=fr-CA`);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr-CA');
    expect(await page.locator('h1').innerText()).toBe(`Sirop d'érable ${word}`);
    expect(await page.locator('h1').getAttribute('lang')).toBeNull();
    expect(await page.locator('main').innerText()).toContain('Récolté au printemps');
    expect(await page.locator('main').innerText()).not.toContain('offerte en anglais');
    // English page, same product: its translation.
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(syrup.id)}?lang=en-CA`);
    expect(await page.locator('h1').innerText()).toBe(`Maple syrup ${word}`);
    expect(await page.locator('main').innerText()).toContain('Harvested in spring.');

    // French page, English-only product: the English text marked en-CA, and said.
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(paddle.id)}?lang=fr-CA`);
    expect(await page.locator('h1').getAttribute('lang')).toBe('en-CA');
    const description = page.getByText('Carved from one cedar plank.');
    expect(await description.getAttribute('lang')).toBe('en-CA');
    await expect
      .poll(() => page.getByText('Description offerte en anglais seulement').isVisible())
      .toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'phone-product-english-only-fr');
    // English page, French-only text: the same in the other direction.
    const tarte = await product(env.t.api, s, {
      title: `Tarte au sucre ${word}`,
      description: 'Une recette de grand-mère.',
      language: 'fr-CA',
    });
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(tarte.id)}?lang=en-CA`);
    expect(await page.locator('h1').getAttribute('lang')).toBe('fr-CA');
    expect(await page.getByText('Une recette de grand-mère.').getAttribute('lang')).toBe('fr-CA');
    await expect.poll(() => page.getByText('Description available in French only').isVisible()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);

    // Search: "erable" (no accent) finds the syrup; titles and the category in the page's language.
    for (const [lang, title, category] of [
      ['fr-CA', `Sirop d'érable ${word}`, `Garde-manger ${word}`],
      ['en-CA', `Maple syrup ${word}`, `Pantry ${word}`],
    ] as const) {
      await page.goto(`${env.base}/?lang=${lang}&q=${encodeURIComponent(`erable ${word}`)}`);
      const results = page.locator('.grid .product h2');
      expect(await results.allInnerTexts()).toEqual([title]);
      await page.locator('.facets > summary').click();
      await expect
        .poll(() => page.getByRole('checkbox', { name: new RegExp(category) }).isVisible())
        .toBe(true);
      expect(await accessibilityProblems(page)).toEqual([]);
      await screenshot(page, `phone-search-erable-${lang}`);
    }
    // An untranslated title among French results is marked with its language.
    await page.goto(`${env.base}/?lang=fr-CA&q=${word}`);
    const marked = await page.locator('.grid .product h2[lang="en-CA"]').allInnerTexts();
    expect(marked).toEqual([`Cedar paddle ${word}`]);
  });

  async function signIn(page: Page, who: { email: string; password: string }) {
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/account/sign-in?lang=en-CA`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  it('a seller writes the other language in the product form, and the store shows it to that language’s readers', async () => {
    const word = uniqueWord();
    const s = await seller(env.t.api);
    const tee = await product(env.t.api, s, {
      title: `Linen shirt ${word}`,
      description: 'Woven in Saint-Hyacinthe.',
      priceCents: undefined,
      stockQuantity: undefined,
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, priceCents: 5000, stockQuantity: 4 },
        { options: { Size: 'M' }, priceCents: 5000, stockQuantity: 4 },
      ],
    });
    const page = await env.browser.page();
    await page.setViewportSize(PHONE);
    await signIn(page, s);

    // English console: the French text of an English product.
    await page.goto(`${env.base}/console/products/${encodeURIComponent(tee.id)}`);
    const french = page.getByRole('group', { name: 'In French (optional)' });
    await french.getByLabel('Title').fill(`Chemise de lin ${word}`);
    await french.getByLabel('Description').fill('Tissée à Saint-Hyacinthe.');
    await french.getByLabel('Name of the option “Size”').fill('Taille');
    await french.getByLabel('Values of “Size”').fill('P');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    // One value short: said under the field.
    await expect
      .poll(() => page.locator('#f-tr-options-0-values-error').innerText())
      .toBe('must have as many values as the option’s (2)');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'phone-console-translation-refused');
    await french.getByLabel('Values of “Size”').fill('P, M');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The changes are saved.');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'phone-console-translation-en');

    await page.goto(`${env.base}/shop/products/${encodeURIComponent(tee.id)}?lang=fr-CA`);
    expect(await page.locator('h1').innerText()).toBe(`Chemise de lin ${word}`);
    expect(await page.locator('main').innerText()).toContain('Tissée à Saint-Hyacinthe.');
    expect(await page.locator('fieldset.options legend').innerText()).toBe('Taille');
    expect(await page.locator('main').innerText()).not.toContain('Options nommées en anglais seulement');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'phone-product-translated-by-console-fr');

    // French console: a product written in French, with its English title.
    await page.goto(`${env.base}/console/products/new?lang=fr-CA`);
    expect(await page.getByLabel('Langue du texte').inputValue()).toBe('fr-CA');
    await page.getByLabel('Titre', { exact: true }).first().fill(`Courtepointe ${word}`);
    await page.getByLabel('Prix ($)').fill('240,00');
    await page.getByLabel('Poids (kg)').fill('1,5');
    const english = page.getByRole('group', { name: 'Dans l’autre langue (facultatif)' });
    await english.getByLabel('Titre').fill(`Quilt ${word}`);
    await english.getByLabel('Description').fill('Sewn by hand.');
    await page.getByRole('button', { name: 'Créer le produit' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Le produit est créé.');
    await screenshot(page, 'phone-console-created-fr');
    const made = (
      (await env.t.api.as(s).get(`/products?sellerId=${s.id}`, { 'accept-language': 'fr-CA' })).body
        .products as { id: string; title: string }[]
    ).find((p) => p.title === `Courtepointe ${word}`);
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(made!.id)}?lang=en-CA`);
    expect(await page.locator('h1').innerText()).toBe(`Quilt ${word}`);
    expect(await page.locator('h1').getAttribute('lang')).toBeNull();
    await page.goto(`${env.base}/shop/products/${encodeURIComponent(made!.id)}?lang=fr-CA`);
    expect(await page.locator('h1').innerText()).toBe(`Courtepointe ${word}`);
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});
