// The desk's new pages (issue 43) in headless Chromium: an admin reads the escalated returns'
// queue and decides one (asks for the items back), then reads that decision in the audit log and
// filters it by its kind. In English and French, on a desktop and a 360 px phone; axe-core on
// every page; an admin adds a category in both languages and suspends a buyer; screenshots under
// PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { describe, expect, it } from 'vitest';
import { admin } from './helpers/app.ts';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { requestedReturn, setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    instructions: 'How to send it back (sent to the buyer)',
    ask: 'Approve, ask for the items back',
    asked: 'The buyer is asked to send the items back.',
    action: 'return.askForParcel',
    only: 'Only return.askForParcel.',
    nameEn: 'Name in English',
    nameFr: 'Name in French',
    slug: 'Address (slug)',
    addCategory: 'Add the category',
    added: 'The category is added.',
    suspend: 'Suspend (signs them out everywhere)',
    suspended: 'The account is suspended: every session of theirs has ended.',
    reinstate: 'Reinstate',
  },
  'fr-CA': {
    instructions: 'Comment le renvoyer (envoyé à l’acheteur)',
    ask: 'Accepter, demander le retour des articles',
    asked: 'L’acheteur doit renvoyer les articles.',
    action: 'return.askForParcel',
    only: 'Seulement return.askForParcel.',
    nameEn: 'Nom en anglais',
    nameFr: 'Nom en français',
    slug: 'Adresse (slug)',
    addCategory: 'Ajouter la catégorie',
    added: 'La catégorie est ajoutée.',
    suspend: 'Suspendre (le déconnecte partout)',
    suspended: 'Le compte est suspendu : toutes ses sessions ont pris fin.',
    reinstate: 'Rétablir',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'desk-queues' },
  { lang: 'fr-CA', width: 1100, name: 'desk-queues-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-desk-queues' },
  { lang: 'fr-CA', width: 360, name: 'phone-desk-queues-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('the desk’s returns queue and audit log, in Chromium', () => {
  const env = browserApp();

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: an escalated return decided, then read in the log`, async () => {
      const w = WORDS[run.lang];
      // Asked on a Friday; escalated the next Wednesday.
      setClock(env.t, '2026-11-27T15:00:00.000Z');
      const r = await requestedReturn(env.t, {});
      setClock(env.t, '2026-12-02T15:00:00.000Z');
      await env.t.app.jobs.runOnce('returns-escalation');
      const boss = await admin(env.t.api, env.database);
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, boss);
        await page.goto(`${env.base}/desk/returns?lang=${run.lang}`);
        const row = page.locator('tr', { hasText: r.orderId });
        expect(await row.count()).toBe(1);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, run.name);
        await row.getByLabel(w.instructions).fill('Mail it back, tracked.');
        await row.getByRole('button', { name: w.ask }).click();
        await page.waitForURL(/done=asked/);
        expect(await page.locator('.notice').textContent()).toBe(w.asked);

        await page.goto(`${env.base}/desk/audit?lang=${run.lang}`);
        await page.getByRole('link', { name: w.action }).first().click();
        await page.waitForURL(/action=return\.askForParcel/);
        const main = await page.locator('main').textContent();
        expect(main).toContain(r.returnId);
        expect(main).toContain(w.only);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-audit`);

        // A category, added in both languages.
        await page.goto(`${env.base}/desk/categories?lang=${run.lang}`);
        await page.getByLabel(w.nameEn).fill(`Garden ${run.name}`);
        await page.getByLabel(w.nameFr).fill(`Jardin ${run.name}`);
        await page.getByLabel(w.slug).fill(`garden-${run.name}`);
        await page.getByRole('button', { name: w.addCategory }).click();
        await page.waitForURL(/done=created/);
        expect(await page.locator('.notice').textContent()).toBe(w.added);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-categories`);

        // The return's buyer, suspended from their card.
        await page.goto(`${env.base}/desk/users?user=${encodeURIComponent(r.buyer.email)}&lang=${run.lang}`);
        await page.getByRole('button', { name: w.suspend }).click();
        await page.waitForURL(/done=suspend/);
        expect(await page.locator('.notice').innerText()).toBe(w.suspended);
        expect(await page.getByRole('button', { name: w.reinstate }).count()).toBe(1);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `${run.name}-suspended`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
