// Shops' pages (issue 43) in headless Chromium, as people use them: a seller writes the shop's
// description and return policy in the console (refused once under the logo's field), then a
// visitor follows a product's "Sold by" link to the shop's page and reads its products and
// policies. In English and French, on a desktop and a 360 px phone; axe-core on every page;
// screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { buyer, product } from './helpers/builders.ts';
import { setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    logo: 'Logo address',
    logoProblem: 'must be an https address',
    description: 'Description of the shop',
    returns: 'Return policy',
    save: 'Save the page',
    saved: 'Your shop’s page is saved.',
    soldBy: 'Sold by',
    from: 'Ships from Quebec',
    shippingNone: 'Shipping costs and delivery dates are given at checkout.',
  },
  'fr-CA': {
    logo: 'Adresse du logo',
    logoProblem: 'doit être une adresse https',
    description: 'Description de la boutique',
    returns: 'Politique de retour',
    save: 'Enregistrer la page',
    saved: 'La page de votre boutique est enregistrée.',
    soldBy: 'Vendu par',
    from: 'Expédie depuis : Québec',
    shippingNone: 'Les frais et les dates de livraison sont donnés au moment de payer.',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'shop-page' },
  { lang: 'fr-CA', width: 1100, name: 'shop-page-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-shop-page' },
  { lang: 'fr-CA', width: 360, name: 'phone-shop-page-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('shops’ pages, in Chromium', () => {
  const env = browserApp();

  beforeAll(() => {
    setClock(env.t, '2026-11-30T15:00:00.000Z');
  });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: the console writes the page; a visitor follows "Sold by" to it`, async () => {
      const w = WORDS[run.lang];
      const t = env.t;
      const b = await buyer(t.api, 'shop');
      const opened = await t.api.as(b).post('/me/seller', { shopName: `Cabane ${run.name}`, province: 'QC' });
      const s: SignedIn = { ...b, token: opened.body.token };
      const syrup = await product(t.api, s, { title: `Maple syrup ${run.name}`, priceCents: 1800 });
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, s);
        await page.goto(`${env.base}/console/shop?lang=${run.lang}`);
        await page.getByLabel(w.logo).fill('http://images.example/logo.png');
        const form = page.locator('form#page');
        await form.locator('fieldset').first().getByLabel(w.description).fill('Syrup from our sugar shack.');
        await form
          .locator('fieldset')
          .nth(1)
          .getByLabel(w.returns)
          .fill('Boîtes non ouvertes reprises sous 30 jours.');
        await page.getByRole('button', { name: w.save }).click();
        await expect.poll(() => page.locator('#f-logoUrl-error').textContent()).toBe(w.logoProblem);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `console-${run.name}-refused`);
        await page.getByLabel(w.logo).fill('');
        await page.getByRole('button', { name: w.save }).click();
        await page.waitForURL(/done=page/);
        expect(await page.locator('.notice').textContent()).toBe(w.saved);

        // A visitor: the product, then its shop.
        await page.context().clearCookies();
        await page.goto(`${env.base}/shop/products/${encodeURIComponent(syrup.id)}?lang=${run.lang}`);
        await page.getByRole('link', { name: `Cabane ${run.name}` }).click();
        await page.waitForURL(/\/shops\/cabane-/);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Cabane ${run.name}`);
        const body = await page.locator('main').textContent();
        expect(body).toContain(w.from);
        expect(body).toContain(`Maple syrup ${run.name}`);
        expect(body).toContain(w.shippingNone);
        if (run.lang === 'fr-CA') expect(body).toContain('Boîtes non ouvertes reprises sous 30 jours.');
        else expect(body).toContain('Syrup from our sugar shack.');
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, run.name);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
