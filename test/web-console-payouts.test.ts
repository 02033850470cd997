// The seller's payouts page in the console (/console/payouts), over inject with a signed-in
// browser: the balances, the payout account opened from the page (on to the sandbox's onboarding,
// what is missing listed in words until then), the next payout and its settings form (refused in
// dollars), the payouts with their orders, a dispute with its deadline and the evidence form (an
// empty one refused under its field), the monthly statements' links, in English and in French;
// evidence with a file (multipart: a PNG sent to the provider; another kind of file, one over
// 5 MB or a post without its token refused, nothing sent); who may see it.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { orders } from '../src/modules/orders/tables.ts';
import { disputeOrders } from '../src/modules/payouts/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, postEvent } from './helpers/checkout.ts';
import { multipart, picture } from './helpers/images.ts';
import { deliver, setClock, ship, signIn } from './helpers/orders.ts';
import { disputeObject } from './helpers/payouts.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

const at = (iso: string) => {
  t.clock.offsetMs += Date.parse(iso) - t.clock.now().getTime();
};

/** A paid order of one $20.00 product of `s` ($32.76 with shipping and HST), bought by `b`. */
async function sale(s: SignedIn, b: SignedIn) {
  const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 5 });
  await addToCart(t.api, b, p.id, 1);
  const [id] = await payOk(t.api, (await openCheckout(t.api, b, ON_ADDRESS)).sessionId);
  const [row] = await database.db.select().from(orders).where(eq(orders.id, id!));
  return row!;
}

/** The text of the page's section whose heading has `id`. */
function section(html: string, id: string): string {
  const start = html.lastIndexOf('<section', html.indexOf(`id="${id}"`));
  expect(start, id).toBeGreaterThanOrEqual(0);
  return textOf(html.slice(start, html.indexOf('</section>', start)));
}

describe('/console/payouts', () => {
  let s: SignedIn;
  let shopper: SignedIn;
  let browser: Browser;

  beforeAll(async () => {
    // Monday November 2, 10:00 in Toronto.
    setClock(t, '2026-11-02T15:00:00Z');
    s = await seller(t.api, 'ON');
    shopper = await buyer(t.api);
    browser = new Browser(t.app);
    await browser.signIn(s);
  });

  let o1: Awaited<ReturnType<typeof sale>>;
  let accountId: string;

  it('before a payout account: the balances, the button that opens one, no payouts, no disputes, the month’s statements', async () => {
    o1 = await sale(s, shopper);
    const page = await browser.get('/console/payouts');
    expect(page.status).toBe(200);
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).toContain('<a href="/console/payouts" aria-current="page">Payouts</a>');
    expect(section(page.html, 'balances-h')).toBe(
      'Balances Pending $32.19 Orders not yet delivered, or delivered less than 7 days ago. ' +
        'Available $0.00 Paid at your next payout. In transit $0.00 On its way to your bank account. ' +
        'Paid out $0.00 Received in your bank account, all time.',
    );
    expect(section(page.html, 'account-h')).toBe(
      'Payout account Before Portage can pay you, open your payout account with the sandbox and give the ' +
        'bank account your payouts go to. Open my payout account',
    );
    expect(page.html).toContain('<form method="post" action="/console/payouts/account">');
    expect(page.html).not.toContain('id="next-h"');
    expect(section(page.html, 'payouts-h')).toBe('Recent payouts No payouts yet.');
    expect(section(page.html, 'disputes-h')).toBe(
      'Disputes No disputes. When a buyer disputes a payment with their bank, it shows here with the date to answer by.',
    );
    expect(section(page.html, 'statements-h')).toBe(
      'Monthly statements Each month’s transactions with your opening and closing balances, and the ' +
        'platform’s invoice of its commission. November 2026 — PDF statement, November 2026 · CSV transactions, November 2026',
    );
    expect(page.html).toContain('href="/console/payouts/statements/2026-11.pdf?locale&#61;en-CA"');
    expect(page.html).toContain('href="/console/payouts/statements/2026-11.csv?locale&#61;en-CA"');
  });

  it('opens the payout account from the page and goes on to the onboarding; until it is done, what is missing is said in words', async () => {
    const onboarding = await browser.post('/console/payouts/account', {});
    expect(onboarding.status).toBe(200);
    const m =
      /^\/sandbox\/connect\/(acct_sandbox_\w+)\?return=%2Fsellers%2Fme%2Fpayout-account%2Freturn$/.exec(
        onboarding.url,
      );
    expect(m, onboarding.url).not.toBeNull();
    accountId = m![1]!;

    const waiting = await browser.get('/console/payouts');
    expect(section(waiting.html, 'account-h')).toBe(
      'Payout account Your payouts wait until the sandbox has: the bank account your payouts go to Continue with the sandbox',
    );
    expect(waiting.html).toContain('<a class="button" href="/sellers/me/payout-account/refresh">');
    expect(section(waiting.html, 'next-h')).toContain(
      'Next payout Payouts begin once your payout account is ready.',
    );

    // The sandbox's page takes the test bank account; its "continue" comes back to this page.
    await browser.get(onboarding.url);
    const saved = await browser.post(onboarding.url, {
      holder: 'Maple Goods Inc.',
      institution: '000',
      transit: '11000',
      account: '000123456789',
    });
    expect(saved.status, textOf(saved.html).slice(0, 300)).toBe(200);
    const back = await browser.get('/sellers/me/payout-account/return');
    expect(back.url).toBe('/console/payouts');
    expect(section(back.html, 'account-h')).toBe(
      'Payout account Payouts go to your bank account ending in 6789. Change the bank account',
    );
    // Weekly by default: Monday November 9, 09:00 in Toronto; a $10.00 minimum.
    expect(section(back.html, 'next-h')).toContain(
      'Next payout November 9, 2026 at 9:00 a.m. (Toronto time) Nothing to pay yet: your available balance ' +
        '($0.00) is below your minimum ($10.00). How often',
    );
    expect(back.html).toContain(
      '<option value="weekly" selected>Every Monday at 9:00 (Toronto time)</option>',
    );
    expect(back.html).toMatch(/name="minimum" type="text" value="10.00"/);
  });

  it('changes the schedule and the minimum (dollars, a comma in French); a minimum out of bounds is refused under its field', async () => {
    await browser.get('/console/payouts?lang=fr-CA');
    const refused = await browser.post('/console/payouts/settings', { schedule: 'daily', minimum: '0,50' });
    expect(refused.status).toBe(400);
    const text = section(refused.html, 'next-h');
    expect(text).toContain('Vérifiez les champs indiqués ci-dessous.');
    expect(text).toContain('doit être un montant en dollars de 1,00 $ à 1 000 000,00 $');
    expect(refused.html).toMatch(/name="minimum" type="text" value="0,50"/);
    expect(refused.html).toContain('<option value="daily" selected>');

    const done = await browser.post('/console/payouts/settings', { schedule: 'daily', minimum: '25,00' });
    expect(done.status).toBe(200);
    expect(done.url).toBe('/console/payouts?done=saved');
    expect(textOf(done.html)).toContain('Vos paramètres de versement sont enregistrés.');
    // Daily: Tuesday November 3, 09:00 in Toronto (14:00 UTC).
    expect(section(done.html, 'next-h')).toContain(
      'Prochain versement Le 3 novembre 2026 à 09 h 00 (heure de Toronto) Rien à verser pour l’instant : votre ' +
        'solde disponible (0,00 $) est inférieur à votre minimum (25,00 $).',
    );
    const account = await t.api.as(s).get('/sellers/me/payout-account');
    expect(account.body).toMatchObject({
      accountId,
      payoutsEnabled: true,
      schedule: 'daily',
      minimumCents: 2500,
      nextPayoutAt: Date.parse('2026-11-03T14:00:00Z') / 1000,
    });
    await browser.get('/console/payouts?lang=en-CA');
  });

  it('shows the payouts with their orders, and a dispute with its deadline and the evidence form', async () => {
    await ship(t, s, o1.id);
    await deliver(t, s, o1.id);
    // A week later: released after the hold, paid out at the daily payout.
    at('2026-11-09T15:00:00Z');
    [s, shopper] = await Promise.all([signIn(t.api, s), signIn(t.api, shopper)]);
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();
    browser = new Browser(t.app);
    await browser.signIn(s);

    const o2 = await sale(s, shopper);
    const dispute = disputeObject({
      id: 'dp_console_1',
      amountCents: o2.totalAmountCents,
      paymentIntentId: o2.paymentIntentId,
      reason: 'fraudulent',
      dueBy: Date.parse('2026-11-16T15:00:00Z') / 1000,
    });
    const opened = await postEvent(t, {
      id: 'evt_console_dispute',
      object: 'event',
      type: 'charge.dispute.created',
      data: { object: dispute },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);

    const page = await browser.get('/console/payouts');
    expect(page.status).toBe(200);
    // The second order's money is all disputed, and its fee: owed by the seller.
    expect(section(page.html, 'balances-h')).toBe(
      'Balances Pending $0.00 Orders not yet delivered, or delivered less than 7 days ago. ' +
        'Available -$15.00 Paid at your next payout. In transit $0.00 On its way to your bank account. ' +
        'Paid out $32.19 Received in your bank account, all time. A negative amount is money you owe (a refund ' +
        'or a dispute after a payout): it is taken from your next sales before anything is paid out.',
    );
    expect(page.html).toContain('<table class="stack">');
    expect(section(page.html, 'payouts-h')).toBe(
      'Recent payouts Recent payouts Date Amount Status Orders November 9, 2026 $32.19 Paid 2026-000001 : $32.19',
    );
    expect(page.html).toContain(`<a href="/console/orders/${encodeURIComponent(o1.id)}">2026-000001</a>`);
    expect(section(page.html, 'dispute-dp_console_1-h')).toBe(
      'Dispute on order 2026-000002 The buyer says they did not make this payment. Opened on November 9, 2026: ' +
        '$32.76 disputed, plus a $15.00 dispute fee, taken from your balance until it is decided. ' +
        'Send your evidence before November 16, 2026 at 10:00 a.m. (Toronto time). ' +
        'Your evidence for order 2026-000002 What was sold, when and how it was delivered (carrier and tracking ' +
        'number), and what you and the buyer wrote to each other. It goes to the buyer’s bank through the ' +
        'sandbox, once. A file (optional) One PDF, JPEG or PNG of at most 5 MB: a proof of delivery, a receipt, ' +
        'a photo of the package. Send the evidence',
    );
    expect(page.html).toContain(
      '<form method="post" enctype="multipart/form-data" action="/console/payouts/disputes/dp_console_1/evidence?csrf=',
    );
    expect(page.html).toContain('name="file" type="file" accept="application/pdf,image/jpeg,image/png"');

    // Empty: refused under the field, the page again.
    const empty = await browser.post('/console/payouts/disputes/dp_console_1/evidence', { text: '   ' });
    expect(empty.status).toBe(400);
    const refusal = section(empty.html, 'dispute-dp_console_1-h');
    expect(refusal).toContain('Check the fields marked below.');
    expect(empty.html).toMatch(/<textarea id="[^"]+" name="text" required[^>]*aria-invalid="true"/);

    const sent = await browser.post('/console/payouts/disputes/dp_console_1/evidence', {
      text: 'Delivered on November 2 by Canada Post, tracking 1Z 999, signed for by the buyer.',
    });
    expect(sent.status).toBe(200);
    expect(sent.url).toBe('/console/payouts?done=sent');
    expect(textOf(sent.html)).toContain('Your evidence is sent: the buyer’s bank decides.');
    expect(section(sent.html, 'dispute-dp_console_1-h')).toContain(
      'Evidence sent on November 9, 2026: the buyer’s bank decides.',
    );
    expect(sent.html).not.toContain('/console/payouts/disputes/dp_console_1/evidence');
    const [recorded] = (await t.api.as(s).get('/sellers/me/disputes')).body.disputes;
    expect(recorded).toMatchObject({
      id: 'dp_console_1',
      evidenceSubmittedAt: Date.parse('2026-11-09T15:00:00Z') / 1000,
    });

    // A dispute that is not theirs: the page again, saying so.
    const stranger = await browser.post('/console/payouts/disputes/dp_nobody/evidence', { text: 'Mine?' });
    expect(stranger.status).toBe(404);
    expect(textOf(stranger.html)).toContain('No dispute dp_nobody of yours.');
  });

  it('in French: the balances, the payouts, the dispute, the statements and their files', async () => {
    const page = await browser.get('/console/payouts?lang=fr-CA');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/console/payouts" aria-current="page">Versements</a>');
    expect(section(page.html, 'balances-h')).toBe(
      'Soldes En attente 0,00 $ Commandes pas encore livrées, ou livrées il y a moins de 7 jours. ' +
        'Disponible -15,00 $ Sera payé à votre prochain versement. En transit 0,00 $ En route vers votre compte ' +
        'bancaire. Versé 32,19 $ Reçu dans votre compte bancaire, depuis le début. Un montant négatif est une ' +
        'somme que vous devez (un remboursement ou un litige après un versement) : elle est prélevée sur vos ' +
        'prochaines ventes avant tout versement.',
    );
    expect(section(page.html, 'account-h')).toBe(
      'Compte de versement Vos versements vont à votre compte bancaire se terminant par 6789. Changer de compte bancaire',
    );
    expect(section(page.html, 'payouts-h')).toBe(
      'Versements récents Versements récents Date Montant État Commandes 9 novembre 2026 32,19 $ Payé 2026-000001 : 32,19 $',
    );
    expect(section(page.html, 'dispute-dp_console_1-h')).toBe(
      'Litige sur la commande 2026-000002 L’acheteur affirme ne pas avoir fait ce paiement. Ouvert le 9 novembre ' +
        '2026 : 32,76 $ contestés, plus des frais de litige de 15,00 $, retirés de votre solde jusqu’à la décision. ' +
        'Preuves envoyées le 9 novembre 2026 : la banque de l’acheteur décide.',
    );
    expect(section(page.html, 'statements-h')).toBe(
      'Relevés mensuels Les opérations de chaque mois avec vos soldes d’ouverture et de clôture, et la facture de ' +
        'commission de la plateforme. novembre 2026 — Relevé PDF, novembre 2026 · Opérations CSV, novembre 2026',
    );

    const pdf = await browser.get('/console/payouts/statements/2026-11.pdf?locale=fr-CA');
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-language']).toBe('fr-CA');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="releve-2026-11.pdf"');
    const csv = await browser.get('/console/payouts/statements/2026-11.csv?locale=en-CA');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-language']).toBe('en-CA');
    expect(csv.html.split('\n')[0]).toBe(
      'Date,Reference,Type,Orders,Gross,Platform commission,GST/HST on commission,Net to you,Balance',
    );
    // The closing balance of the month so far: the payout's $32.19 out, the dispute's fee owed.
    expect(csv.html.trimEnd().split('\n').at(-1)).toMatch(/,-15\.00$/);
    const none = await browser.get('/console/payouts/statements/2026-10.pdf');
    expect(none.status).toBe(404);
  });

  it('takes a file with the evidence (multipart): a PNG goes to the provider; another kind, over 5 MB or without the token, is refused and nothing is sent', async () => {
    const o3 = await sale(s, shopper);
    const opened = await postEvent(t, {
      id: 'evt_console_dispute_2',
      object: 'event',
      type: 'charge.dispute.created',
      data: {
        object: disputeObject({
          id: 'dp_console_2',
          amountCents: o3.totalAmountCents,
          paymentIntentId: o3.paymentIntentId,
          reason: 'product_not_received',
          dueBy: Date.parse('2026-11-16T15:00:00Z') / 1000,
        }),
      },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const share = async () => {
      const [row] = await database.db
        .select()
        .from(disputeOrders)
        .where(eq(disputeOrders.disputeId, 'dp_console_2'));
      return row!;
    };
    const page = await browser.get('/console/payouts?lang=en-CA');
    const m = page.html.match(/action="(\/console\/payouts\/disputes\/dp_console_2\/evidence\?csrf=[^"]+)"/);
    expect(m).not.toBeNull();
    const action = m![1]!.replaceAll('&amp;', '&');
    const text = 'Delivered on November 9 by Canada Post; the signed receipt is attached.';
    const card = (html: string) => section(html, 'dispute-dp_console_2-h');

    // A text file named .png, declared image/png: refused under the field by its bytes.
    const fake = await browser.upload(
      action,
      multipart(
        { text },
        { filename: 'receipt.png', type: 'image/png', body: Buffer.from('not a picture\n') },
      ),
    );
    expect(fake.status).toBe(400);
    expect(card(fake.html)).toContain('Check the fields marked below.');
    expect(card(fake.html)).toContain('This file is not a PDF, JPEG or PNG.');
    expect(fake.html).toMatch(/name="file" type="file"[^>]*aria-invalid="true"/);
    expect(fake.html).toContain(`>${text}</textarea>`);

    // Over 5 MB: refused (413) under the field, read no further than the limit.
    const big = Buffer.alloc(6 * 1024 * 1024, 0);
    Buffer.from('%PDF-1.7\n').copy(big);
    const tooBig = await browser.upload(
      action,
      multipart({ text }, { filename: 'scan.pdf', type: 'application/pdf', body: big }),
    );
    expect(tooBig.status).toBe(413);
    expect(card(tooBig.html)).toContain('This file is larger than 5 MB.');

    // Without the form's token: refused before anything is read.
    const png = await picture(8, 8);
    const form = multipart({ text }, { filename: 'receipt.png', type: 'image/png', body: png });
    const noToken = await browser.upload(action.replace(/\?.*$/, ''), form);
    expect(noToken.status).toBe(403);
    expect(textOf(noToken.html)).toContain('This form has expired or did not come from this page.');
    expect(await share()).toMatchObject({ evidenceSubmittedAt: null, evidenceFileId: null });

    // The text and a small PNG: sent, the provider's file id kept, the page says a file went.
    const sent = await browser.upload(action, form);
    expect(sent.status).toBe(200);
    expect(sent.url).toBe('/console/payouts?done=sent');
    expect(card(sent.html)).toContain(
      'Evidence sent on November 9, 2026, a file with it: the buyer’s bank decides.',
    );
    const row = await share();
    expect(row.evidenceText).toBe(text);
    expect(row.evidenceFileId).toMatch(/^file_sandbox_[0-9a-f]{24}$/);
    expect(row.evidenceSubmittedAt).not.toBeNull();
    const fr = await browser.get('/console/payouts?lang=fr-CA');
    expect(section(fr.html, 'dispute-dp_console_2-h')).toContain(
      'Preuves envoyées le 9 novembre 2026, avec un fichier : la banque de l’acheteur décide.',
    );
    await browser.get('/console/payouts?lang=en-CA');
  });

  it('is a seller’s page: a buyer is refused, a visitor is sent to sign in', async () => {
    const b = new Browser(t.app);
    await b.signIn(shopper);
    expect((await b.get('/console/payouts')).status).toBe(403);
    const visitor = await new Browser(t.app).get('/console/payouts', { follow: false });
    expect(visitor.status).toBe(303);
    expect(String(visitor.headers.location)).toBe('/account/sign-in?next=%2Fconsole%2Fpayouts');
  });
});
