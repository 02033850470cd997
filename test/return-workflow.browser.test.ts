// Returns as a workflow on the pages (issue 43) in headless Chromium: a buyer returns one of three
// units from the order page; the seller asks for it back with instructions, then marks the parcel
// received, keeping it off sale; the refund follows. In English and French, on a desktop and a
// 360 px phone; axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { deliveredOrder, setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    reason: 'Reason',
    units: (name: string) => `Units to return: ${name}`,
    submit: 'Ask for a return',
    sent: 'Your return request is sent to the seller.',
    instructions: 'How to send it back (sent to the buyer)',
    ask: 'Approve, ask for the items back',
    asked: 'The buyer is asked to send the items back; you refund them once received.',
    restock: (name: string) => `Back on sale: ${name}`,
    receive: 'Received: refund the buyer',
    received: 'The parcel is received; the refund is on its way.',
  },
  'fr-CA': {
    reason: 'Raison',
    units: (name: string) => `Unités à retourner : ${name}`,
    submit: 'Demander un retour',
    sent: 'Votre demande de retour est transmise au vendeur.',
    instructions: 'Comment le renvoyer (envoyé à l’acheteur)',
    ask: 'Accepter, demander le retour des articles',
    asked: 'L’acheteur doit renvoyer les articles; vous le remboursez à leur réception.',
    restock: (name: string) => `Remis en vente : ${name}`,
    receive: 'Reçu : rembourser l’acheteur',
    received: 'Le colis est reçu; le remboursement est en route.',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'return-workflow' },
  { lang: 'fr-CA', width: 1100, name: 'return-workflow-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-return-workflow' },
  { lang: 'fr-CA', width: 360, name: 'phone-return-workflow-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('a return sent back and received, in Chromium', () => {
  const env = browserApp();

  beforeAll(() => {
    setClock(env.t, '2026-11-30T15:00:00.000Z');
  });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: one unit of three, asked back, received, refunded`, async () => {
      const w = WORDS[run.lang];
      const d = await deliveredOrder(env.t, {
        quantity: 3,
        stock: 10,
        fields: { title: `Cedar box ${run.name}` },
      });
      const name = d.product.title;
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, d.buyer);
        await page.goto(`${env.base}/account/orders/${encodeURIComponent(d.orderId)}?lang=${run.lang}`);
        await page.getByLabel(w.reason).selectOption('damaged');
        await page.getByLabel(w.units(name)).fill('1');
        await page.getByRole('button', { name: w.submit }).click();
        await expect.poll(() => page.locator('.notice').textContent()).toBe(w.sent);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `account-${run.name}`);

        await signInPage(page, env.base, d.seller);
        await page.goto(`${env.base}/console/returns?lang=${run.lang}`);
        await page.getByLabel(w.instructions).fill('Mail it to 12 Rue du Port, Québec.');
        await page.getByRole('button', { name: w.ask }).click();
        await page.waitForURL(/done=asked/);
        expect(await page.locator('.notice').textContent()).toBe(w.asked);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `console-${run.name}-awaiting`);
        await page.getByLabel(w.restock(name)).fill('0');
        await page.getByRole('button', { name: w.receive }).click();
        await page.waitForURL(/done=received/);
        expect(await page.locator('.notice').textContent()).toBe(w.received);
        await checked(page, `console-${run.name}-received`);
        const answer = (await env.t.api.as(d.seller).get('/sellers/me/returns')).body.returns[0];
        expect(answer).toMatchObject({
          status: 'refunded',
          lines: [{ quantity: 1 }],
          restocked: { [d.product.variants[0]!.id]: 0 },
        });
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
