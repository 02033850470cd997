// Sellers' money on the pages (issue 42) in headless Chromium, as people use them: a seller opens
// /console/payouts, reads what is missing, opens a payout account, is refused a transit number
// under its field on the sandbox's onboarding page, gives the test bank account and comes back
// to payouts enabled; after a sale delivered, held and paid out, and a second one disputed, the
// seller reads the balances, the payout with its order, the dispute's deadline and the
// statements, and sends evidence; an admin reads /desk/money's commission, failed transfers and
// open disputes. In English and French (a French browser), on a desktop and a 390 px phone, and
// at 360 px; axe-core on every page; screenshots under PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, type SignedIn, useTestApp } from './helpers/app.ts';
import {
  browserUnavailable,
  checked,
  launchBrowser,
  onAPhone,
  scrollWidth,
  signInPage,
  type TestBrowser,
} from './helpers/browser.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, postEvent } from './helpers/checkout.ts';
import { signIn as apiSignIn, deliver, setClock, ship } from './helpers/orders.ts';
import { balanceOf, disputeObject, enablePayouts, TEST_BANK } from './helpers/payouts.ts';

const unavailable = browserUnavailable();

/** A Monday, 08:00 in Toronto: weekly payouts are on Mondays at 09:00. */
const MONDAY = '2026-11-02T13:00:00.000Z';
const DAY = 86_400_000;
/** The disputes' deadline: Monday November 16, 10:00 in Toronto. */
const DUE_BY = Date.parse('2026-11-16T15:00:00Z') / 1000;
/**
 * The two seller tests' timeout (docs/testing.md "Rules", budgets): each draws about twenty pages, every
 * one checked by axe-core, in four runs; 15 to 20 s on a loaded machine.
 */
const BUDGET = 240_000;

type Lang = 'en-CA' | 'fr-CA';

/** A port no one listens on now: the app's PUBLIC_BASE_URL must be the address the browser opens. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const WORDS = {
  'en-CA': {
    noAccount:
      'Before Portage can pay you, open your payout account with the sandbox and give the bank account your payouts go to.',
    open: 'Open my payout account',
    missing: 'Your payouts wait until the sandbox has:',
    needsBank: 'the bank account your payouts go to',
    finish: 'Continue with the sandbox',
    heading: 'Where should your payouts go?',
    holder: 'Account holder’s name',
    institution: 'Institution number',
    transit: 'Transit number',
    account: 'Account number',
    save: 'Save the bank account',
    fix: 'Check the fields marked below.',
    transitProblem: 'The transit number must have 5 digits.',
    saved: 'Bank account saved',
    savedPays: 'Your payouts will go to the account ending in 6789.',
    back: 'Back to your payouts',
    ready: 'Payouts go to your bank account ending in 6789.',
    changeBank: 'Change the bank account',
    nextNow: 'November 2, 2026 at 9:00 a.m. (Toronto time)',
    balances:
      'Pending $0.00 Orders not yet delivered, or delivered less than 7 days ago. ' +
      'Available -$15.00 Paid at your next payout. In transit $0.00 On its way to your bank account. ' +
      'Paid out $32.19 Received in your bank account, all time.',
    payout: (n: string) => `November 9, 2026 $32.19 Paid ${n}: $32.19`,
    dispute: (n: string) => `Dispute on order ${n}`,
    disputed:
      'The buyer says they did not make this payment. Opened on November 9, 2026: $32.76 disputed, plus a ' +
      '$15.00 dispute fee, taken from your balance until it is decided. ' +
      'Send your evidence before November 16, 2026 at 10:00 a.m. (Toronto time).',
    evidence: (n: string) => `Your evidence for order ${n}`,
    send: 'Send the evidence',
    sentStatus: 'Your evidence is sent: the buyer’s bank decides.',
    sent: 'Evidence sent on November 9, 2026: the buyer’s bank decides.',
    pdf: 'PDF statement, November 2026',
    csv: 'CSV transactions, November 2026',
    desk: {
      commission: 'Commission revenue $2.00',
      tax: 'GST/HST on the commission $0.28',
      cash: 'Cash at the payment provider -$57.72',
      pending: 'Pending $0.00',
      available: 'Available -$60.00',
      inTransit: 'In transit $0.00',
      owed: 'Total owed -$60.00',
      failed: 'Failed transfers',
      noFailed: 'No transfer has failed.',
      disputes: 'Open disputes',
      // Each seller sent evidence: their disputes are under review.
      row: (n: string) =>
        `November 9, 2026 ${n} $32.76 $15.00 Fraudulent Under review November 16, 2026 at 10:00 a.m. (Toronto time)`,
    },
  },
  'fr-CA': {
    noAccount:
      'Avant que Portage puisse vous payer, ouvrez votre compte de versement avec le bac à sable et indiquez le compte bancaire où iront vos versements.',
    open: 'Ouvrir mon compte de versement',
    missing: 'Vos versements attendent que le bac à sable ait reçu :',
    needsBank: 'le compte bancaire où iront vos versements',
    finish: 'Continuer avec le bac à sable',
    heading: 'Où voulez-vous recevoir vos versements?',
    holder: 'Nom du titulaire du compte',
    institution: 'Numéro d’institution',
    transit: 'Numéro de transit',
    account: 'Numéro de compte',
    save: 'Enregistrer le compte bancaire',
    fix: 'Vérifiez les champs signalés ci-dessous.',
    transitProblem: 'Le numéro de transit doit avoir 5 chiffres.',
    saved: 'Compte bancaire enregistré',
    savedPays: 'Vos versements iront au compte se terminant par 6789.',
    back: 'Retour à vos versements',
    ready: 'Vos versements vont à votre compte bancaire se terminant par 6789.',
    changeBank: 'Changer de compte bancaire',
    nextNow: 'Le 2 novembre 2026 à 09 h 00 (heure de Toronto)',
    balances:
      'En attente 0,00 $ Commandes pas encore livrées, ou livrées il y a moins de 7 jours. ' +
      'Disponible -15,00 $ Sera payé à votre prochain versement. En transit 0,00 $ En route vers votre compte ' +
      'bancaire. Versé 32,19 $ Reçu dans votre compte bancaire, depuis le début.',
    payout: (n: string) => `9 novembre 2026 32,19 $ Payé ${n} : 32,19 $`,
    dispute: (n: string) => `Litige sur la commande ${n}`,
    disputed:
      'L’acheteur affirme ne pas avoir fait ce paiement. Ouvert le 9 novembre 2026 : 32,76 $ contestés, plus des ' +
      'frais de litige de 15,00 $, retirés de votre solde jusqu’à la décision. ' +
      'Envoyez vos preuves avant le 16 novembre 2026 à 10 h 00 (heure de Toronto).',
    evidence: (n: string) => `Vos preuves pour la commande ${n}`,
    send: 'Envoyer les preuves',
    sentStatus: 'Vos preuves sont envoyées : la banque de l’acheteur décide.',
    sent: 'Preuves envoyées le 9 novembre 2026 : la banque de l’acheteur décide.',
    pdf: 'Relevé PDF, novembre 2026',
    csv: 'Opérations CSV, novembre 2026',
    desk: {
      commission: 'Revenus de commission 2,00 $',
      tax: 'TPS/TVH sur la commission 0,28 $',
      cash: 'Encaisse chez le fournisseur de paiement -57,72 $',
      pending: 'En attente 0,00 $',
      available: 'Disponible -60,00 $',
      inTransit: 'En transit 0,00 $',
      owed: 'Total dû -60,00 $',
      failed: 'Virements échoués',
      noFailed: 'Aucun virement n’a échoué.',
      disputes: 'Litiges ouverts',
      // Each seller sent evidence: their disputes are under review.
      row: (n: string) =>
        `9 novembre 2026 ${n} 32,76 $ 15,00 $ Frauduleux En examen 16 novembre 2026 à 10 h 00 (heure de Toronto)`,
    },
  },
} as const;

const RUNS = [
  { lang: 'en-CA', width: 1100, name: '' },
  { lang: 'fr-CA', width: 1100, name: '-fr' },
  { lang: 'en-CA', width: 390, name: '-phone' },
  { lang: 'fr-CA', width: 390, name: '-phone-fr' },
] as const;

/** Rendered text with every run of spaces (the no-break ones of French amounts too) one space. */
const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
const textOf = async (page: Page, selector: string) => flat(await page.locator(selector).innerText());
/** The text of the section a heading names (aria-labelledby). */
const section = (page: Page, id: string) => textOf(page, `section[aria-labelledby="${id}"]`);
/** Nothing wider than the viewport, no serious accessibility problem; saved as `name`. */
async function looked(page: Page, name: string, width: number) {
  expect(await scrollWidth(page), `${name}: wider than ${width} px`).toBeLessThanOrEqual(width);
  await checked(page, name);
}

describe.skipIf(unavailable !== undefined)('sellers’ money on the pages, in Chromium', () => {
  // The app listens at its PUBLIC_BASE_URL: the payout account's links (…/refresh answers the
  // onboarding page's absolute address) lead where the browser can follow them.
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
  });
  const { t, database } = useTestApp(() => ({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } }));
  const env = { base: '', browser: undefined as unknown as TestBrowser };
  /** A browser whose language is French: its Accept-Language speaks for the sandbox's page. */
  let french: TestBrowser;
  const browserFor = (lang: Lang) => (lang === 'fr-CA' ? french : env.browser);

  beforeAll(async () => {
    await t.app.listen({ port, host: '127.0.0.1' });
    env.base = `http://127.0.0.1:${port}`;
    setClock(t, MONDAY);
    env.browser = await launchBrowser();
    french = await launchBrowser({ locale: 'fr-CA' });
  });
  afterAll(async () => {
    await env.browser?.close();
    await french?.close();
  });

  it(
    'a seller opens a payout account from the console, is refused a transit number, then gives the test bank account',
    async () => {
      for (const run of RUNS) {
        const w = WORDS[run.lang];
        const s = await seller(t.api, 'ON');
        const page = await browserFor(run.lang).page();
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, s);
        await page.goto(`${env.base}/console/payouts?lang=${run.lang}`);

        // What is missing: a payout account; the button that opens one.
        expect(await section(page, 'account-h')).toContain(w.noAccount);
        await looked(page, `payouts-console-new${run.name}`, run.width);
        await page.getByRole('button', { name: w.open }).click();
        await page.waitForURL(/\/sandbox\/connect\/acct_sandbox_\w+\?return=/);
        expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(w.heading);
        expect(await page.locator('html').getAttribute('lang')).toBe(run.lang);
        await looked(page, `payouts-connect${run.name}`, run.width);

        // Back to the console before finishing: what is still missing, and the way on.
        await page.goBack();
        await page.waitForURL(/\/console\/payouts/);
        const waiting = await section(page, 'account-h');
        expect(waiting).toContain(w.missing);
        expect(waiting).toContain(w.needsBank);
        await looked(page, `payouts-console-missing${run.name}`, run.width);
        await page.getByRole('link', { name: w.finish }).click();
        await page.waitForURL(/\/sandbox\/connect\//);

        // A transit number of four digits: refused under its field, what was typed kept.
        await page.getByLabel(w.holder).fill('Maple Goods Inc.');
        await page.getByLabel(w.institution).fill('000');
        await page.getByLabel(w.transit).fill('1100');
        await page.getByLabel(w.account).fill(TEST_BANK.pays);
        await page.getByRole('button', { name: w.save }).click();
        await expect.poll(() => page.locator('#f-transit-problem').isVisible()).toBe(true);
        expect(await page.locator('#f-transit-problem').innerText()).toBe(w.transitProblem);
        expect(await page.getByRole('alert').innerText()).toBe(w.fix);
        const transit = page.getByLabel(w.transit);
        expect(await transit.getAttribute('aria-invalid')).toBe('true');
        expect(await transit.getAttribute('aria-describedby')).toBe('f-transit-problem');
        expect(await page.getByLabel(w.holder).inputValue()).toBe('Maple Goods Inc.');
        expect(await page.getByLabel(w.account).inputValue()).toBe(TEST_BANK.pays);
        await looked(page, `payouts-connect-refused${run.name}`, run.width);

        await transit.fill('11000');
        await page.getByRole('button', { name: w.save }).click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(w.saved);
        expect(flat(await page.locator('main, body').first().innerText())).toContain(w.savedPays);
        await looked(page, `payouts-connect-saved${run.name}`, run.width);

        await page.getByRole('link', { name: w.back }).click();
        await page.waitForURL(/\/console\/payouts$/);
        const ready = await section(page, 'account-h');
        expect(ready).toContain(w.ready);
        expect(ready).toContain(w.changeBank);
        expect(await section(page, 'next-h')).toContain(w.nextNow);
        await looked(page, `payouts-console-ready${run.name}`, run.width);
        const account = (await t.api.as(s).get('/sellers/me/payout-account')).body;
        expect(account).toMatchObject({ payoutsEnabled: true, bankLast4: '6789' });
        await page.close();
      }
    },
    BUDGET,
  );

  /** Each run's seller, the number of their paid-out order and of their disputed one. */
  const sellers: Array<{ who: SignedIn; paid: string; disputed: string }> = [];

  it(
    'after a sale paid out and another disputed: the balances, the payout, the dispute’s deadline, the statements; evidence sent',
    async () => {
      let shopper = await buyer(t.api);
      /** A paid order of one $20.00 product ($32.76 with shipping and HST), as the API answers it. */
      const sale = async (s: SignedIn) => {
        const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 5 });
        await addToCart(t.api, shopper, p.id, 1);
        const [id] = await payOk(t.api, (await openCheckout(t.api, shopper, ON_ADDRESS)).sessionId);
        const order = await t.api.as(s).get(`/orders/${id}`);
        expect(order.status, JSON.stringify(order.body)).toBe(200);
        return order.body as {
          id: string;
          number: string;
          paymentIntentId: string;
          totalAmountCents: number;
        };
      };
      const first: Array<{ who: SignedIn; number: string }> = [];
      for (const _ of RUNS) {
        const s = await seller(t.api, 'ON');
        await enablePayouts(t, s);
        const o = await sale(s);
        expect(o.totalAmountCents).toBe(3276);
        await ship(t, s, o.id);
        await deliver(t, s, o.id);
        first.push({ who: s, number: o.number });
      }
      // A week later, the hold passed: available; at 09:00, the Monday payout.
      t.clock.offsetMs += 7 * DAY + 60_000;
      await t.app.jobs.runOnce();
      const at = (await t.api.as(await apiSignIn(t.api, first[0]!.who)).get('/sellers/me/balance')).body
        .nextPayout.at;
      t.clock.offsetMs += at * 1000 - t.clock.now().getTime() + 1000;
      await t.app.jobs.runOnce();

      // A second sale of each, disputed whole by the buyer's bank.
      shopper = await apiSignIn(t.api, shopper);
      for (const [i, f] of first.entries()) {
        const s = await apiSignIn(t.api, f.who);
        const o = await sale(s);
        const dispute = disputeObject({
          id: `dp_pages_${i}`,
          amountCents: o.totalAmountCents,
          paymentIntentId: o.paymentIntentId,
          reason: 'fraudulent',
          dueBy: DUE_BY,
        });
        const opened = await postEvent(t, {
          id: `evt_pages_dispute_${i}`,
          object: 'event',
          type: 'charge.dispute.created',
          data: { object: dispute },
        });
        expect(opened.status, JSON.stringify(opened.body)).toBe(200);
        expect(await balanceOf(t, s)).toEqual({
          pendingCents: 0,
          availableCents: -1500,
          inTransitCents: 0,
          paidOutCents: 3219,
        });
        sellers.push({ who: s, paid: f.number, disputed: o.number });
      }

      for (const [i, run] of RUNS.entries()) {
        const w = WORDS[run.lang];
        const { who, paid, disputed } = sellers[i]!;
        const page = await browserFor(run.lang).page();
        await page.setViewportSize({ width: run.width, height: 900 });
        await signInPage(page, env.base, who);
        await page.goto(`${env.base}/console/payouts?lang=${run.lang}`);

        expect(await section(page, 'balances-h')).toContain(w.balances);
        const payouts = page.locator('section[aria-labelledby="payouts-h"] tbody tr');
        expect(await payouts.count()).toBe(1);
        expect(flat(await payouts.innerText())).toBe(w.payout(paid));
        expect(await payouts.getByRole('link', { name: paid }).getAttribute('href')).toMatch(
          /^\/console\/orders\//,
        );
        const card = page.locator(`section[aria-labelledby="dispute-dp_pages_${i}-h"]`);
        expect(flat(await card.getByRole('heading').innerText())).toBe(w.dispute(disputed));
        expect(flat(await card.innerText())).toContain(w.disputed);
        // The statements: the month's PDF and CSV, each a file the link answers.
        const statements = page.locator('section[aria-labelledby="statements-h"]');
        for (const [name, type] of [
          [w.pdf, 'application/pdf'],
          [w.csv, 'text/csv'],
        ] as const) {
          const link = statements.getByRole('link', { name });
          const href = await link.getAttribute('href');
          expect(href).toMatch(/^\/console\/payouts\/statements\/2026-11\.(pdf|csv)\?locale=/);
          const file = await page.request.get(`${env.base}${href}`);
          expect(file.status(), name).toBe(200);
          expect(file.headers()['content-type']).toContain(type);
        }
        await looked(page, `payouts-console-money${run.name}`, run.width);

        // The evidence, through the textarea.
        const evidence = card.getByLabel(w.evidence(disputed));
        await evidence.fill(
          'Delivered on November 2 by Canada Post, tracking 1Z 999, signed for by the buyer. ' +
            'The buyer wrote on November 3 to say the paddle arrived safely.',
        );
        await looked(page, `payouts-console-evidence${run.name}`, run.width);
        await card.getByRole('button', { name: w.send }).click();
        await page.waitForURL(/\/console\/payouts\?done=sent$/);
        expect(flat(await page.getByRole('status').innerText())).toContain(w.sentStatus);
        const after = page.locator(`section[aria-labelledby="dispute-dp_pages_${i}-h"]`);
        expect(flat(await after.innerText())).toContain(w.sent);
        expect(await after.locator('textarea').count()).toBe(0);
        await looked(page, `payouts-console-sent${run.name}`, run.width);
        const [recorded] = (await t.api.as(await apiSignIn(t.api, who)).get('/sellers/me/disputes')).body
          .disputes;
        expect(recorded.evidenceSubmittedAt).toBeTypeOf('number');
        await page.close();
      }

      // At 360 px too, in both languages.
      const phone = await env.browser.page();
      await signInPage(phone, env.base, sellers[0]!.who);
      expect(
        await onAPhone(phone, env.base, {
          'payouts-console-360': '/console/payouts?lang=en-CA',
          'payouts-console-360-fr': '/console/payouts?lang=fr-CA',
        }),
      ).toEqual([]);
      await phone.close();
    },
    BUDGET,
  );

  it('an admin reads /desk/money: the commission, no failed transfer, the open disputes', async () => {
    const boss = await admin(t.api, database);
    for (const run of RUNS) {
      const w = WORDS[run.lang].desk;
      const page = await browserFor(run.lang).page();
      await page.setViewportSize({ width: run.width, height: 900 });
      await signInPage(page, env.base, boss);
      await page.goto(`${env.base}/desk/money?lang=${run.lang}`);
      const revenue = await section(page, 'revenue-h');
      expect(revenue).toContain(w.commission);
      expect(revenue).toContain(w.tax);
      expect(revenue).toContain(w.cash);
      const owed = await section(page, 'owed-h');
      for (const figure of [w.pending, w.available, w.inTransit, w.owed]) expect(owed).toContain(figure);
      // Four sellers, each with a $32.76 order paid out ($32.19) and one disputed whole: the
      // commission (2.5% of $20.00) and its HST (13%) of the paid-out orders only, each seller
      // owing the $15.00 dispute fee; the cash is what is owed plus the commission and its tax.
      expect(await section(page, 'failed-h')).toBe(`${w.failed} ${w.noFailed}`);
      expect((await section(page, 'disputes-h')).startsWith(w.disputes)).toBe(true);
      const rows = page.locator('section[aria-labelledby="disputes-h"] tbody tr');
      expect(await rows.count()).toBe(sellers.length);
      const texts = (await rows.allInnerTexts()).map(flat).sort();
      expect(texts).toEqual(sellers.map((s) => w.row(s.disputed)).sort());
      await looked(page, `payouts-desk-money${run.name}`, run.width);
      await page.close();
    }
    const phone = await env.browser.page();
    await signInPage(phone, env.base, boss);
    expect(
      await onAPhone(phone, env.base, {
        'payouts-desk-money-360': '/desk/money?lang=en-CA',
        'payouts-desk-money-360-fr': '/desk/money?lang=fr-CA',
      }),
    ).toEqual([]);
    await phone.close();
  });
});
