// Shipping on the pages (issue 41) in headless Chromium: a buyer in Montréal checks out a paddle
// from a Toronto shop that offers four Canada Post services, chooses Xpresspost on the shipping
// step and lands on the new session's payment page, in English and French, on a desktop and a
// 390 px phone; the seller fills the console's shipping profile, is refused once under the
// field, then saves it. axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { buyer, product } from './helpers/builders.ts';
import { addToCart } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

/** A Friday, 10:00 in Toronto: the dates on the pictures stay the same from run to run. */
const FRIDAY = '2026-11-20T15:00:00.000Z';

const RUNS = [
  {
    lang: 'en-CA',
    name: 'store-checkout-shipping',
    width: 1100,
    pay: 'Continue to payment',
    xp: 'Canada Post Xpresspost',
  },
  {
    lang: 'fr-CA',
    name: 'store-checkout-shipping-fr',
    width: 1100,
    pay: 'Continuer vers le paiement',
    xp: 'Postes Canada Xpresspost',
  },
  {
    lang: 'en-CA',
    name: 'phone-store-checkout-shipping',
    width: 390,
    pay: 'Continue to payment',
    xp: 'Canada Post Xpresspost',
  },
  {
    lang: 'fr-CA',
    name: 'phone-store-checkout-shipping-fr',
    width: 390,
    pay: 'Continuer vers le paiement',
    xp: 'Postes Canada Xpresspost',
  },
] as const;

describe.skipIf(unavailable !== undefined)('shipping on the pages, in Chromium', () => {
  const env = browserApp();
  let shop: SignedIn;
  let paddle: string;

  beforeAll(async () => {
    setClock(env.t, FRIDAY);
    const b = await buyer(env.t.api, 'seller');
    const opened = await env.t.api
      .as(b)
      .post('/me/seller', { shopName: 'Queen West Paddles', province: 'ON' });
    shop = { ...b, token: opened.body.token };
    const profile = await env.t.api.as(shop).put('/sellers/me/shipping', {
      originPostalCode: 'M5H 2N2',
      originProvince: 'ON',
      handlingDays: 1,
      rates: 'carrier',
      services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
    });
    expect(profile.status).toBe(200);
    paddle = (
      await product(env.t.api, shop, {
        title: 'Cedar canoe paddle',
        priceCents: 8999,
        weight: 1.1,
        stockQuantity: 50,
      })
    ).id;
  });

  it('a Montréal buyer chooses Xpresspost for the Toronto parcel, in English and French, on a desktop and a phone', async () => {
    const page = await env.browser.page();
    for (const run of RUNS) {
      const who = await buyer(env.t.api);
      await addToCart(env.t.api, who, paddle);
      await page.setViewportSize({ width: run.width, height: 900 });
      await signInPage(page, env.base, who);
      await page.goto(`${env.base}/shop/checkout?lang=${run.lang}`);
      await page.locator('#f-recipientName').fill('Camille Tremblay');
      await page.locator('#f-street').fill('1000 Rue Sherbrooke O');
      await page.locator('#f-city').fill('Montréal');
      await page.locator('#f-province').selectOption('QC');
      await page.locator('#f-postalCode').fill('h3a 3g4');
      await page.locator('#f-phone').fill('514 555 0123');
      await page.getByRole('button', { name: run.pay }).click();
      await page.waitForURL(/\/shop\/checkout\/[^/]+\/shipping$/);
      const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/')[3] ?? '');

      // One radio group for the parcel: four services, the cheapest first and checked.
      const group = page.locator('fieldset.ship-options');
      await expect.poll(() => group.count()).toBe(1);
      const radios = group.getByRole('radio');
      expect(await radios.count(), run.name).toBe(4);
      expect(await radios.first().isChecked()).toBe(true);
      expect(await page.locator('.parcel h2').textContent()).toContain('Queen West Paddles');
      expect(await scrollWidth(page), run.name).toBeLessThanOrEqual(run.width);
      const xp = group.getByRole('radio', { name: new RegExp(run.xp) });
      await xp.check();
      await checked(page, run.name);

      await page.getByRole('button', { name: run.pay }).click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      const paying = decodeURIComponent(new URL(page.url()).pathname.split('/sandbox/checkout/')[1] ?? '');
      expect(paying).not.toBe(sessionId);
      const chosen = (await env.t.api.as(who).get(`/checkout/${encodeURIComponent(paying)}`)).body;
      expect(chosen.parcels[0].shippingOption.id, run.name).toBe('canada_post:DOM.XP');
    }
  });

  it('the seller fills the shipping profile: one refusal under its field, then saved', async () => {
    const b = await buyer(env.t.api, 'seller');
    const opened = await env.t.api.as(b).post('/me/seller', { shopName: 'Plateau Pottery', province: 'QC' });
    const potter = { ...b, token: opened.body.token };
    const page = await env.browser.page();
    await page.setViewportSize({ width: 1100, height: 900 });
    await signInPage(page, env.base, potter);
    await page.goto(`${env.base}/console`);
    await page
      .getByRole('navigation', { name: 'Seller console sections' })
      .getByRole('link', { name: 'Shipping' })
      .click();
    await page.waitForURL(/\/console\/shipping$/);
    await checked(page, 'console-shipping-new');

    // A Toronto postal code for a Quebec shop: refused under the postal code.
    await page.getByLabel('Postal code').fill('M5H 2N2');
    await page.getByRole('checkbox', { name: 'Canada Post Expedited Parcel' }).check();
    await page.getByRole('checkbox', { name: 'Canada Post Xpresspost' }).check();
    await page.getByLabel('Free shipping from ($)').fill('120');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#f-originPostalCode-error').isVisible()).toBe(true);
    expect(await page.locator('#f-originPostalCode-error').textContent()).toBe(
      'postal codes in QC start with G or H or J',
    );
    expect(await page.getByLabel('Postal code').getAttribute('aria-invalid')).toBe('true');
    // What was typed is still there.
    expect(await page.getByRole('checkbox', { name: 'Canada Post Xpresspost' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Free shipping from ($)').inputValue()).toBe('120');
    await checked(page, 'console-shipping-refused');

    await page.getByLabel('Postal code').fill('h2t 1s6');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByRole('status').textContent()).toContain('Your shipping profile is saved');
    expect(
      await page.getByRole('button', { name: 'Remove profile (use the platform’s flat rate)' }).isVisible(),
    ).toBe(true);
    await checked(page, 'console-shipping');
    const saved = (await env.t.api.as(potter).get('/sellers/me/shipping')).body;
    expect(saved).toMatchObject({
      originPostalCode: 'H2T 1S6',
      originProvince: 'QC',
      services: ['DOM.EP', 'DOM.XP'],
      freeOverCents: 12000,
    });

    // In French on a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${env.base}/console/shipping?lang=fr-CA`);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    await checked(page, 'phone-console-shipping-fr');
  });
});
