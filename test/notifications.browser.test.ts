// A seller's notifications on the pages (issue 43) in headless Chromium, as a seller uses them:
// after two sales, the header counts them; the seller opens the inbox from the console's tab,
// follows a notification to its order, marks one read, unticks new orders by email and saves,
// and sets a product's low-stock alert (refused once under its field). In English and French,
// on a desktop and a 360 px phone; axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import { verified } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

/** A Monday, 10:00 in Toronto: the dates on the pictures stay the same from run to run. */
const MONDAY = '2026-11-30T15:00:00.000Z';

const WORDS = {
  'en-CA': {
    tab: 'Notifications (2 unread)',
    newOrder: /^New order \d{4}-\d{6}: \$32\.76, 1 item$/,
    markRead: 'Mark read',
    marked: 'Marked read.',
    byEmail: 'New orders by email',
    save: 'Save my choices',
    saved: 'Your choices are saved.',
    threshold: 'Tell me when a sale leaves a variant with this many units or fewer',
    saveAlert: 'Save the alert',
    alertSaved: 'The low-stock alert is saved.',
    unread: '1 unread notification',
  },
  'fr-CA': {
    tab: 'Notifications (2 non lues)',
    newOrder: /^Nouvelle commande \d{4}-\d{6}\s: 32,76\s\$, 1 article$/,
    markRead: 'Marquer comme lue',
    marked: 'Marquée comme lue.',
    byEmail: 'Nouvelles commandes par courriel',
    save: 'Enregistrer mes choix',
    saved: 'Vos choix sont enregistrés.',
    threshold: 'M’avertir quand une vente laisse une variante avec ce nombre d’unités ou moins',
    saveAlert: 'Enregistrer l’alerte',
    alertSaved: 'L’alerte de stock bas est enregistrée.',
    unread: '1 notification non lue',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'console-notifications' },
  { lang: 'fr-CA', width: 1100, name: 'console-notifications-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-console-notifications' },
  { lang: 'fr-CA', width: 360, name: 'phone-console-notifications-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('a seller’s notifications, in Chromium', () => {
  const env = browserApp();

  beforeAll(() => {
    setClock(env.t, MONDAY);
  });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: the count, the inbox, a read mark, the choices, a low-stock alert`, async () => {
      const w = WORDS[run.lang];
      const t = env.t;
      const s = await seller(t.api);
      const p = await product(t.api, s, { title: 'Cedar box', priceCents: 2000, stockQuantity: 9 });
      for (let n = 0; n < 2; n++) {
        const b = await verified(env.database, await buyer(t.api));
        await addToCart(t.api, b, p.id, 1);
        await payOk(t.api, (await openCheckout(t.api, b, ON_ADDRESS)).sessionId);
        t.clock.offsetMs += 60_000;
      }
      await t.app.jobs.runOnce('notices');
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, s);
        await page.goto(`${env.base}/console?lang=${run.lang}`);
        await page.getByRole('link', { name: w.tab }).click();
        await page.waitForURL(/\/console\/notifications/);
        const items = page.locator('ul.notices > li > a');
        expect(await items.count()).toBe(2);
        for (const text of await items.allInnerTexts()) expect(text).toMatch(w.newOrder);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, run.name);

        // The first one's link is its order's page.
        const href = await items.first().getAttribute('href');
        expect(href).toMatch(/^\/console\/orders\/orders%3A/);

        // Mark one read: the count is one.
        await page.getByRole('button', { name: w.markRead }).first().click();
        await page.waitForURL(/done=read/);
        expect(await page.locator('.notice').textContent()).toBe(w.marked);
        expect(await page.locator('header nav .count + .visually-hidden').textContent()).toBe(w.unread);

        // No email of new orders: untick, save, read back.
        await page.getByLabel(w.byEmail).uncheck();
        await page.getByRole('button', { name: w.save }).click();
        await page.waitForURL(/done=saved/);
        expect(await page.locator('.notice').textContent()).toBe(w.saved);
        expect(await page.getByLabel(w.byEmail).isChecked()).toBe(false);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-saved`);
        const api = await t.api.as(s).get('/sellers/me/notification-settings');
        expect(api.body.settings[0]).toEqual({ kind: 'order_placed', email: false, inbox: true });

        // The product's low-stock alert: refused, then saved.
        await page.goto(`${env.base}/console/products/${encodeURIComponent(p.id)}`);
        const threshold = page.getByLabel(w.threshold);
        await threshold.fill('-1');
        await page.getByRole('button', { name: w.saveAlert }).click();
        await expect.poll(() => page.locator('#f-threshold-error').count()).toBe(1);
        expect(await threshold.getAttribute('aria-invalid')).toBe('true');
        await page.getByLabel(w.threshold).fill('3');
        await page.getByRole('button', { name: w.saveAlert }).click();
        await page.waitForURL(/done=lowStock/);
        expect(await page.locator('.notice').textContent()).toBe(w.alertSaved);
        expect(await page.getByLabel(w.threshold).inputValue()).toBe('3');
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-low-stock`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
