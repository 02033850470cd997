// Sellers' discounts (issue 43) in headless Chromium, as people use them: a seller sets the
// shop's automatic discount (refused once under its field) and makes a coupon in the console;
// a buyer's cart then names each discount, the rule under the totals. In English and French, on
// a desktop and a 360 px phone; axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { buyer, product, uniqueWord } from './helpers/builders.ts';
import { addToCart } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    percent: 'Percent off (1 to 90)',
    minimum: 'When your items add up to ($)',
    save: 'Save the automatic discount',
    tooMuch: 'must be at most 90',
    saved: 'Your automatic discount is saved: carts priced from now on take it.',
    code: 'Code',
    amount: 'Discount ($)',
    create: 'Create the coupon',
    shopDiscount: 'Shop discount:',
    coupon: 'Coupon',
    rule: "Each shop's automatic discount comes off its items first",
  },
  'fr-CA': {
    percent: 'Pourcentage de rabais (1 à 90)',
    minimum: 'Lorsque vos articles totalisent ($)',
    save: 'Enregistrer le rabais automatique',
    tooMuch: 'doit être d’au plus 90',
    saved: 'Votre rabais automatique est enregistré : les paniers calculés dès maintenant l’appliquent.',
    code: 'Code',
    amount: 'Rabais ($)',
    create: 'Créer le code promo',
    shopDiscount: 'Rabais de la boutique :',
    coupon: 'Rabais du coupon',
    rule: 'Le rabais automatique de chaque boutique s’applique d’abord à ses articles',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'discounts' },
  { lang: 'fr-CA', width: 1100, name: 'discounts-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-discounts' },
  { lang: 'fr-CA', width: 360, name: 'phone-discounts-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('sellers’ discounts, in Chromium', () => {
  const env = browserApp();

  beforeAll(() => {
    setClock(env.t, '2026-11-30T15:00:00.000Z');
  });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: the console sets the discounts; the buyer's cart names them`, async () => {
      const w = WORDS[run.lang];
      const t = env.t;
      const b = await buyer(t.api, 'disc');
      const opened = await t.api
        .as(b)
        .post('/me/seller', { shopName: `Atelier ${run.name}`, province: 'ON' });
      const s: SignedIn = { ...b, token: opened.body.token };
      const bowl = await product(t.api, s, { title: `Cedar bowl ${run.name}`, priceCents: 3000 });
      const code = `BOWL${uniqueWord()}`.toUpperCase();
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, s);
        await page.goto(`${env.base}/console/discounts?lang=${run.lang}`);
        await page.getByLabel(w.percent).fill('95');
        await page.getByLabel(w.minimum).fill('50');
        await page.getByRole('button', { name: w.save }).click();
        await expect.poll(() => page.locator('#f-percent-error').textContent()).toBe(w.tooMuch);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `console-${run.name}-refused`);
        await page.getByLabel(w.percent).fill('10');
        await page.getByRole('button', { name: w.save }).click();
        await page.waitForURL(/done=saved/);
        expect(await page.locator('.notice').textContent()).toBe(w.saved);

        await page.getByLabel(w.code, { exact: true }).fill(code);
        await page.getByLabel(w.amount).fill('5');
        await page.getByRole('button', { name: w.create }).click();
        await page.waitForURL(/done=created/);
        expect(await page.locator('main table').innerText()).toContain(code);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `console-${run.name}`);

        // A buyer: two bowls ($60.00), the shop's coupon.
        const shopper = await buyer(t.api, 'cart');
        await addToCart(t.api, shopper, bowl.id, 2);
        expect((await t.api.as(shopper).post('/cart/coupon', { code })).status).toBe(200);
        await page.context().clearCookies();
        await signInPage(page, env.base, shopper);
        await page.goto(`${env.base}/shop/cart?lang=${run.lang}`);
        const totals = await page.locator('.totals').innerText();
        expect(totals).toContain(`${w.shopDiscount} Atelier ${run.name}`);
        expect(totals).toContain(`${w.coupon} ${code} (Atelier ${run.name})`);
        expect(await page.locator('main').innerText()).toContain(w.rule);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `cart-${run.name}`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
