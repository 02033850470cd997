// The desk's orders and users (issue 43) in headless Chromium: an admin searches an order by its
// number, narrows by status, opens the order (its history), goes to its buyer's page (their
// history under their card), and finds them in the users' list. In English and French, on a
// desktop and a 360 px phone; axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { describe, expect, it } from 'vitest';
import { admin } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { orderNumber, shippedOrder } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    search: 'Order number or buyer’s email',
    status: 'Status',
    shipped: 'Shipped',
    show: 'Show',
    order: (n: string) => `Order ${n}`,
    history: 'History',
    placed: 'Placed',
    users: 'Email (with its @) or beginning of a name',
    bought: 'Orders bought: 1',
  },
  'fr-CA': {
    search: 'Numéro de commande ou courriel de l’acheteur',
    status: 'État',
    shipped: 'Expédiée',
    show: 'Afficher',
    order: (n: string) => `Commande ${n}`,
    history: 'Historique',
    placed: 'Passée',
    users: 'Courriel (avec son @) ou début d’un nom',
    bought: 'Commandes achetées\u00a0: 1',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'desk-orders' },
  { lang: 'fr-CA', width: 1100, name: 'desk-orders-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-desk-orders' },
  { lang: 'fr-CA', width: 360, name: 'phone-desk-orders-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('the desk’s orders and users, in Chromium', () => {
  const env = browserApp();

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: an order found by number and status, opened, its buyer's page`, async () => {
      const w = WORDS[run.lang];
      const o = await shippedOrder(env.t);
      const number = await orderNumber(env.t, o.buyer, o.orderId);
      const boss = await admin(env.t.api, env.database);
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, boss);
        await page.goto(`${env.base}/desk/orders?lang=${run.lang}`);
        expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
        await page.getByLabel(w.search).fill(number);
        await page.getByRole('button', { name: w.show }).click();
        await page.waitForURL(/q=/);
        expect(await page.locator('tbody tr').count()).toBe(1);
        await page.getByLabel(w.status, { exact: true }).selectOption({ label: w.shipped });
        await page.getByRole('button', { name: w.show }).click();
        await page.waitForURL(/status=shipped/);
        const row = page.locator('tbody tr');
        expect(await row.count()).toBe(1);
        expect(await row.innerText()).toContain(w.shipped);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, run.name);

        await row.getByRole('link', { name: number }).click();
        await page.waitForURL(/\/desk\/orders\/orders/);
        expect(await page.locator('h1').innerText()).toBe(w.order(number));
        const history = page.locator('ol.timeline');
        expect(await history.innerText()).toContain(w.placed);
        expect(await history.innerText()).toContain(w.shipped);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-order`);

        await page.getByRole('link', { name: 'Test buyer' }).click();
        await page.waitForURL(/\/desk\/users\/users/);
        const main = await page.locator('main').innerText();
        expect(main).toContain(o.buyer.email);
        expect(main).toContain(w.bought);
        expect(main).toContain(number);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-user`);

        await page.goto(`${env.base}/desk/users?lang=${run.lang}`);
        await page.getByLabel(w.users).fill(o.buyer.email.slice(0, o.buyer.email.indexOf('@') + 1));
        await page.getByRole('button', { name: w.show }).click();
        await page.waitForURL(/q=/);
        expect(await page.locator('tbody tr').count()).toBe(1);
        expect(await page.locator('tbody tr').innerText()).toContain(o.buyer.email);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-users`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
