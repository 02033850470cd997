// An order's conversation on the pages (issue 43) in headless Chromium: the buyer writes to the
// seller from the order page (a link refused under the field, the words kept), the seller answers
// from the console's order page. In English and French, on a desktop and a 360 px phone; axe-core
// on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { beforeAll, describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, scrollWidth, signInPage } from './helpers/browser.ts';
import { paidOrder, setClock } from './helpers/orders.ts';

const unavailable = browserUnavailable();

const WORDS = {
  'en-CA': {
    toSeller: 'Write to the seller',
    toBuyer: 'Write to the buyer',
    send: 'Send',
    linkRefused: 'may not hold a link or an address (the conversation stays on Portage)',
    sent: 'Your message is sent.',
    sentToBuyer: 'Your message is sent to the buyer.',
    you: 'You',
    seller: 'The seller',
  },
  'fr-CA': {
    toSeller: 'Écrire au vendeur',
    toBuyer: 'Écrire à l’acheteur',
    send: 'Envoyer',
    linkRefused: 'ne peut contenir de lien ni d’adresse (la conversation reste sur Portage)',
    sent: 'Votre message est envoyé.',
    sentToBuyer: 'Votre message est envoyé à l’acheteur.',
    you: 'Vous',
    seller: 'Le vendeur',
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: 'order-messages' },
  { lang: 'fr-CA', width: 1100, name: 'order-messages-fr' },
  { lang: 'en-CA', width: 360, name: 'phone-order-messages' },
  { lang: 'fr-CA', width: 360, name: 'phone-order-messages-fr' },
] as const;

describe.skipIf(unavailable !== undefined)('an order’s conversation, in Chromium', () => {
  const env = browserApp();

  beforeAll(() => {
    setClock(env.t, '2026-11-30T15:00:00.000Z');
  });

  for (const run of RUNS) {
    it(`${run.lang} at ${run.width} px: the buyer asks, the seller answers`, async () => {
      const w = WORDS[run.lang];
      const o = await paidOrder(env.t);
      const page = await env.browser.page();
      try {
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, o.buyer);
        await page.goto(`${env.base}/account/orders/${encodeURIComponent(o.orderId)}?lang=${run.lang}`);
        await page.getByLabel(w.toSeller).fill('Details at evil.com please');
        await page.getByRole('button', { name: w.send, exact: true }).click();
        await expect.poll(() => page.locator('#f-body-error').textContent()).toBe(w.linkRefused);
        expect(await page.getByLabel(w.toSeller).inputValue()).toBe('Details at evil.com please');
        await checked(page, `account-${run.name}-refused`);
        await page.getByLabel(w.toSeller).fill('Can it be gift-wrapped?\nIt is for my mother.');
        await page.getByRole('button', { name: w.send, exact: true }).click();
        await page.waitForURL(/done=message/);
        expect(await page.locator('.notice').textContent()).toBe(w.sent);
        expect(await page.locator('ul.messages li.mine').textContent()).toContain('It is for my mother.');
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);

        await signInPage(page, env.base, o.seller);
        await page.goto(`${env.base}/console/orders/${encodeURIComponent(o.orderId)}?lang=${run.lang}`);
        await page.getByLabel(w.toBuyer).fill('Yes, at no cost.');
        await page.getByRole('button', { name: w.send, exact: true }).click();
        await page.waitForURL(/done=message/);
        expect(await page.locator('.notice').textContent()).toBe(w.sentToBuyer);
        expect(await scrollWidth(page)).toBeLessThanOrEqual(run.width);
        await checked(page, `console-${run.name}`);

        await signInPage(page, env.base, o.buyer);
        await page.goto(
          `${env.base}/account/orders/${encodeURIComponent(o.orderId)}?lang=${run.lang}#messages`,
        );
        const said = await page.locator('ul.messages').textContent();
        expect(said).toContain(w.you);
        expect(said).toContain(w.seller);
        expect(said).toContain('Yes, at no cost.');
        await checked(page, `account-${run.name}`);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
