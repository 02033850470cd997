// The desk's shops (issue 43) in headless Chromium, with SHOP_APPROVAL=on: an admin approves a
// shop waiting in the queue, then suspends it from its card with a reason; its seller reads the
// state and the reason on their console, as another seller reads that theirs waits. In English
// and French, on a desktop and a 360 px phone; axe-core on every page; screenshots under
// PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { describe, expect, it } from 'vitest';
import { admin, seller } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    approve: 'Approve',
    approved: 'The shop is approved: its products are on sale.',
    reason: 'Reason (told to the seller)',
    suspend: 'Suspend the shop',
    suspended: 'The shop is suspended: its products have left search and the protocols.',
    reasonText: 'Photos copied from another shop',
    console:
      'Your shop is suspended: nothing of it is visible or on sale. Reason: Photos copied from another shop.',
    pending: 'Your shop is waiting for an admin’s approval',
  },
  'fr-CA': {
    approve: 'Approuver',
    approved: 'La boutique est approuvée : ses produits sont en vente.',
    reason: 'Motif (dit au vendeur)',
    suspend: 'Suspendre la boutique',
    suspended: 'La boutique est suspendue : ses produits ont quitté la recherche et les protocoles.',
    reasonText: 'Photos copiées d’une autre boutique',
    console:
      'Votre boutique est suspendue : rien n’en est visible ni en vente. Motif\u00a0: Photos copiées d’une autre boutique.',
    pending: 'Votre boutique attend l’approbation d’un administrateur',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'desk-shops' },
  { lang: 'fr-CA', width: 1100, name: 'desk-shops-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-desk-shops' },
  { lang: 'fr-CA', width: 360, name: 'phone-desk-shops-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('the desk’s shops and the seller’s console, in Chromium', () => {
  const env = browserApp({ env: { SHOP_APPROVAL: 'on' } });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: a shop approved, then suspended, its seller told`, async () => {
      const w = WORDS[run.lang];
      const boss = await admin(env.t.api, env.database);
      const waiting = await seller(env.t.api);
      const later = await seller(env.t.api);
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });

        // The seller of a shop waiting for approval reads so on the console.
        await signInPage(page, env.base, later);
        await page.goto(`${env.base}/console/products?lang=${run.lang}`);
        expect(await page.locator('[data-shop-state="pending"]').innerText()).toContain(w.pending);

        await signInPage(page, env.base, boss);
        await page.goto(`${env.base}/desk/shops?lang=${run.lang}`);
        const row = page.locator('tr', { hasText: waiting.email });
        expect(await row.count()).toBe(1);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, run.name);
        await row.getByRole('button', { name: w.approve }).click();
        await page.waitForURL(/done=approve/);
        expect(await page.locator('.notice').innerText()).toBe(w.approved);
        expect(await page.locator('tr', { hasText: waiting.email }).count()).toBe(0);

        // The shop approved, then suspended from its card with a reason.
        await page.goto(`${env.base}/desk/shops/${encodeURIComponent(waiting.id)}?lang=${run.lang}`);
        await page.getByLabel(w.reason).fill(w.reasonText);
        await page.getByRole('button', { name: w.suspend }).click();
        await page.waitForURL(/done=suspend/);
        expect(await page.locator('.notice').innerText()).toBe(w.suspended);
        expect(await page.locator('main').innerText()).toContain(w.reasonText);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-suspended`);

        // Its seller reads the state and the reason on every console page.
        await signInPage(page, env.base, waiting);
        await page.goto(`${env.base}/console/products?lang=${run.lang}`);
        expect(await page.locator('[data-shop-state="suspended"]').innerText()).toContain(w.console);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-console`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
