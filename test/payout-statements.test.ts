// Sellers' monthly statements (docs/api.md "Statements"), over HTTP on the sandbox: a seller
// sells in October; in November the order's money is released and paid out, a second order is
// cancelled (a refund), a third is disputed, a fourth stays pending. Each month's statement is read
// as CSV and as PDF (its text extracted with unpdf), in English and French: the opening balance,
// each transaction in words with its order numbers and amounts, the totals, the platform's
// commission invoice (its name and GST/HST number, or "not set"), the closing balance, to the cent.
// Another seller has no statement of those months (404); a month not begun, or malformed, is refused.
import { eq } from 'drizzle-orm';
import { extractText } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { orders } from '../src/modules/orders/tables.ts';
import { admin, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, PLATFORM_TAX_PROFILE, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, postEvent } from './helpers/checkout.ts';
import { cancel, deliver, setClock, ship, signIn } from './helpers/orders.ts';
import { disputeObject } from './helpers/payouts.ts';
import { Browser } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

/** Moves the test clock to `iso`. */
const at = (iso: string) => {
  t.clock.offsetMs += Date.parse(iso) - t.clock.now().getTime();
};

const orderRow = async (id: string) => {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, id));
  if (!row) throw new Error(`no order ${id}`);
  return row;
};

/** Opens the seller's payout account and gives it the sandbox's paying test bank account. */
async function enablePayouts(s: SignedIn) {
  const opened = await t.api.as(s).post('/sellers/me/payout-account', {});
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const browser = new Browser(t.app);
  await browser.signIn(s);
  const id = opened.body.account.accountId as string;
  await browser.get(`/sandbox/connect/${id}`);
  const done = await browser.post(`/sandbox/connect/${id}`, {
    holder: 'Maple Goods Inc.',
    institution: '000',
    transit: '11000',
    account: '000123456789',
  });
  expect(done.status, done.html.slice(0, 300)).toBe(200);
}

/** A paid order of one $20.00 product of `s`, bought by `b`: its order id. */
async function sale(s: SignedIn, b: SignedIn) {
  const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 5 });
  await addToCart(t.api, b, p.id, 1);
  const [id] = await payOk(t.api, (await openCheckout(t.api, b, ON_ADDRESS)).sessionId);
  return id!;
}

interface Doc {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  json?: Record<string, unknown>;
}

/** GET a statement as `who` (raw bytes: the PDF's text extracted, spaces of every kind plain). */
async function statement(who: SignedIn, path: string, headers: Record<string, string> = {}): Promise<Doc> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/sellers/me/statements/${path}`,
    headers: { authorization: `Bearer ${who.token}`, ...headers },
  });
  if (res.statusCode !== 200)
    return { status: res.statusCode, headers: res.headers, body: res.body, json: res.json() };
  if (String(res.headers['content-type']).startsWith('application/pdf')) {
    const bytes = Uint8Array.from(res.rawPayload);
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    const { text } = await extractText(bytes, { mergePages: true });
    return { status: 200, headers: res.headers, body: text.replace(/[\s\u00a0\u202f]+/g, ' ') };
  }
  return { status: 200, headers: res.headers, body: res.body };
}

describe('monthly statements', () => {
  let a: SignedIn;
  let shopper: SignedIn;
  let boss: SignedIn;
  let o1: string;
  let o2: string;
  let o3: string;
  let o4: string;

  beforeAll(async () => {
    // Wednesday October 28, 10:00 in Toronto: a sale, shipped and delivered the same day.
    setClock(t, '2026-10-28T14:00:00Z');
    a = await seller(t.api, 'ON');
    shopper = await buyer(t.api);
    boss = await admin(t.api, database);
    o1 = await sale(a, shopper);
    await ship(t, a, o1);
    await deliver(t, a, o1);
    await enablePayouts(a);

    // Thursday November 5: past the 7-day hold and the Monday payout time: released and paid out.
    at('2026-11-05T15:00:00Z');
    [a, shopper, boss] = await Promise.all([signIn(t.api, a), signIn(t.api, shopper), signIn(t.api, boss)]);
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();

    // November 10: a second order, cancelled by its buyer (refunded in full).
    at('2026-11-10T15:00:00Z');
    [a, shopper, boss] = await Promise.all([signIn(t.api, a), signIn(t.api, shopper), signIn(t.api, boss)]);
    o2 = await sale(a, shopper);
    at('2026-11-10T15:01:00Z');
    await cancel(t, shopper, o2);
    await t.app.jobs.runOnce();

    // November 12: a third order, disputed in full (a $15.00 fee); a fourth stays pending.
    at('2026-11-12T15:00:00Z');
    [a, shopper, boss] = await Promise.all([signIn(t.api, a), signIn(t.api, shopper), signIn(t.api, boss)]);
    o3 = await sale(a, shopper);
    const r3 = await orderRow(o3);
    const dispute = disputeObject({
      id: 'dp_statement_1',
      amountCents: r3.totalAmountCents,
      paymentIntentId: r3.paymentIntentId,
      reason: 'fraudulent',
      dueBy: Math.floor(t.clock.now().getTime() / 1000) + 7 * 86_400,
    });
    at('2026-11-12T15:01:00Z');
    const opened = await postEvent(t, {
      id: 'evt_statement_dispute',
      object: 'event',
      type: 'charge.dispute.created',
      data: { object: dispute },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    at('2026-11-12T15:02:00Z');
    o4 = await sale(a, shopper);

    at('2026-11-20T15:00:00Z');
    [a, shopper, boss] = await Promise.all([signIn(t.api, a), signIn(t.api, shopper), signIn(t.api, boss)]);
  });

  /** The CSV's rows, each split at its commas (no value of these statements holds one). */
  const rows = (csv: string) =>
    csv
      .trimEnd()
      .split('\n')
      .map((line) => line.split(','));

  it('lists the months with transactions, newest first, with their two files', async () => {
    const res = await t.api.as(a).get('/sellers/me/statements');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      statements: ['2026-11', '2026-10'].map((month) => ({
        month,
        csvUrl: `http://portage.test/sellers/me/statements/${month}.csv`,
        pdfUrl: `http://portage.test/sellers/me/statements/${month}.pdf`,
      })),
    });
  });

  it('October as CSV, in English: a header row, then the sale with its amounts in dollars with a dot', async () => {
    const doc = await statement(a, '2026-10.csv');
    expect(doc.status).toBe(200);
    expect(doc.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(doc.headers['content-disposition']).toBe('attachment; filename="statement-2026-10.csv"');
    expect(doc.headers['content-language']).toBe('en-CA');
    // As the catalogue's export: UTF-8 without a byte order mark.
    expect(doc.body.charCodeAt(0)).not.toBe(0xfeff);
    expect(doc.body).toBe(
      'Date,Reference,Type,Orders,Gross,Platform commission,GST/HST on commission,Net to you,Balance\n' +
        `2026-10-28,sale:${o1},Sale,2026-000001,32.76,0.50,0.07,32.19,32.19\n`,
    );
  });

  it('November as CSV, in French: the release, the payout, the refund, the dispute, to the cent', async () => {
    const doc = await statement(a, '2026-11.csv?locale=fr-CA');
    expect(doc.status).toBe(200);
    expect(doc.headers['content-disposition']).toBe('attachment; filename="releve-2026-11.csv"');
    expect(doc.headers['content-language']).toBe('fr-CA');
    const [payout] = (await t.api.as(a).get('/sellers/me/payouts')).body.payouts;
    expect(rows(doc.body)).toEqual([
      [
        'Date',
        'Référence',
        'Type d’opération',
        'Commandes',
        'Brut',
        'Commission de la plateforme',
        'TPS/TVH sur la commission',
        'Net pour vous',
        'Solde',
      ],
      // The opening balance is October's closing one: 32.19.
      [
        '2026-11-05',
        `release:${o1}`,
        'Libéré : disponible pour versement',
        '2026-000001',
        '0.00',
        '0.00',
        '0.00',
        '0.00',
        '32.19',
      ],
      [
        '2026-11-05',
        `payout:${payout.id}`,
        'Versement lancé',
        '2026-000001',
        '0.00',
        '0.00',
        '0.00',
        '0.00',
        '32.19',
      ],
      [
        '2026-11-05',
        `transfer:${payout.id}:${o1}`,
        'Versé dans votre compte bancaire',
        '2026-000001',
        '-32.19',
        '0.00',
        '0.00',
        '-32.19',
        '0.00',
      ],
      ['2026-11-10', `sale:${o2}`, 'Vente', '2026-000002', '32.76', '0.50', '0.07', '32.19', '32.19'],
      [
        '2026-11-10',
        expect.stringMatching(/^refund:/),
        'Remboursement',
        '2026-000002',
        '-32.76',
        '-0.50',
        '-0.07',
        '-32.19',
        '0.00',
      ],
      ['2026-11-12', `sale:${o3}`, 'Vente', '2026-000003', '32.76', '0.50', '0.07', '32.19', '32.19'],
      // The whole payment and the $15.00 fee; the commission and its tax given back.
      [
        '2026-11-12',
        `dispute:dp_statement_1:${o3}`,
        'Litige ouvert (montant et frais)',
        '2026-000003',
        '-47.76',
        '-0.50',
        '-0.07',
        '-47.19',
        '-15.00',
      ],
      ['2026-11-12', `sale:${o4}`, 'Vente', '2026-000004', '32.76', '0.50', '0.07', '32.19', '17.19'],
    ]);
    // The closing balance is what the balances say the seller is owed now.
    const b = (await t.api.as(a).get('/sellers/me/balance')).body;
    expect({ pending: b.pendingCents, available: b.availableCents, inTransit: b.inTransitCents }).toEqual({
      pending: 3219,
      available: -1500,
      inTransit: 0,
    });
  });

  it('October as a PDF, in English: the balances, the sale, the totals, a commission invoice whose platform is "not set"', async () => {
    const doc = await statement(a, '2026-10.pdf');
    expect(doc.status).toBe(200);
    expect(doc.headers['content-type']).toBe('application/pdf');
    expect(doc.headers['content-disposition']).toBe('attachment; filename="statement-2026-10.pdf"');
    const text = doc.body;
    for (const said of [
      'Monthly statement October 2026 From October 1, 2026 to October 31, 2026',
      'Seller Maple Goods',
      'Opening balance on October 1, 2026 $0.00',
      'Date Type Gross Platform commission GST/HST on commission Net to you',
      '2026-10-28 Sale $32.76 $0.50 $0.07 $32.19 2026-000001',
      'Sales $32.76 Refunds $0.00 Disputes and their fees $0.00 Platform commission -$0.50 ' +
        'GST/HST on the commission -$0.07 Paid to your bank account $0.00',
      'Closing balance on October 31, 2026 $32.19',
      'Commission invoice Supplier: the platform not set GST/HST registration no.: not set Billed to Maple Goods',
      'Commission for October 2026 $0.50 GST/HST on the commission $0.07 Total, GST/HST included $0.57',
      'Amounts in Canadian dollars.',
      'Maple Goods · October 2026 · Page 1 of 1',
    ]) {
      expect(text, said).toContain(said);
    }
  });

  it('November as a PDF in the seller’s saved language (French), the platform named by its tax profile', async () => {
    expect((await t.api.as(boss).put('/admin/tax-profile', PLATFORM_TAX_PROFILE)).status).toBe(200);
    expect((await t.api.as(a).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    try {
      const doc = await statement(a, '2026-11.pdf');
      expect(doc.status).toBe(200);
      expect(doc.headers['content-disposition']).toBe('attachment; filename="releve-2026-11.pdf"');
      expect(doc.headers['content-language']).toBe('fr-CA');
      const text = doc.body;
      for (const said of [
        'Relevé mensuel novembre 2026 Du 1er novembre 2026 au 30 novembre 2026',
        'Vendeur Maple Goods',
        'Solde d’ouverture au 1er novembre 2026 32,19 $',
        'Date Type d’opération Brut Commission de la plateforme TPS/TVH sur la commission Net pour vous',
        '2026-11-05 Libéré : disponible pour versement 0,00 $ 0,00 $ 0,00 $ 0,00 $ 2026-000001',
        '2026-11-05 Versement lancé 0,00 $ 0,00 $ 0,00 $ 0,00 $ 2026-000001',
        '2026-11-05 Versé dans votre compte bancaire -32,19 $ 0,00 $ 0,00 $ -32,19 $ 2026-000001',
        '2026-11-10 Vente 32,76 $ 0,50 $ 0,07 $ 32,19 $ 2026-000002',
        '2026-11-10 Remboursement -32,76 $ -0,50 $ -0,07 $ -32,19 $ 2026-000002',
        '2026-11-12 Litige ouvert (montant et frais) -47,76 $ -0,50 $ -0,07 $ -47,19 $ 2026-000003',
        '2026-11-12 Vente 32,76 $ 0,50 $ 0,07 $ 32,19 $ 2026-000004',
        'Totaux du mois Ventes 98,28 $ Remboursements -32,76 $ Litiges et leurs frais -47,76 $ ' +
          'Commission de la plateforme -0,50 $ TPS/TVH sur la commission -0,07 $ ' +
          'Versé dans votre compte bancaire -32,19 $ Solde de clôture au 30 novembre 2026 17,19 $',
        'Facture de commission Fournisseur : la plateforme Portage Marketplace Inc. ' +
          'Nº d’inscription à la TPS/TVH : 876543216RT0001 Facturé à Maple Goods',
        'Commission pour novembre 2026 0,50 $ TPS/TVH sur la commission 0,07 $ Total, TPS/TVH incluse 0,57 $',
        'Montants en dollars canadiens.',
        'Maple Goods · novembre 2026 · Page 1 de',
      ]) {
        expect(text, said).toContain(said);
      }
      // ?locale= says otherwise.
      const english = await statement(a, '2026-11.pdf?locale=en-CA');
      expect(english.headers['content-language']).toBe('en-CA');
      expect(english.body).toContain(
        'Commission invoice Supplier: the platform Portage Marketplace Inc. ' +
          'GST/HST registration no.: 876543216RT0001 Billed to Maple Goods',
      );
      expect(english.body).toContain('Closing balance on November 30, 2026 $17.19');
    } finally {
      await t.api.as(a).patch('/me', { locale: null });
    }
  });

  it('is the seller’s own: another seller has no statement of these months (404), nor a list', async () => {
    const other = await seller(t.api, 'QC');
    expect((await t.api.as(other).get('/sellers/me/statements')).body).toEqual({ statements: [] });
    for (const file of ['2026-11.csv', '2026-10.pdf']) {
      const res = await t.api.as(other).get(`/sellers/me/statements/${file}`);
      expectError(
        res,
        'NOT_FOUND',
        404,
        `You have no statement for ${file.slice(0, 7)}: no money of yours moved that month`,
      );
    }
  });

  it('refuses a month not begun (404) and one that is not YYYY-MM (400), as the error model says', async () => {
    expectError(
      await t.api.as(a).get('/sellers/me/statements/2026-12.pdf'),
      'NOT_FOUND',
      404,
      'This month has not begun yet (2026-12)',
    );
    for (const month of ['2026-13', '2026-1', 'november', '1999-12']) {
      const res = await t.api.as(a).get(`/sellers/me/statements/${month}.csv`);
      expect(res.status, month).toBe(400);
      expect(res.body).toEqual({
        error: 'A statement’s month is written YYYY-MM, such as 2026-11',
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'month', message: 'must be a month written YYYY-MM' }],
      });
    }
    expect((await t.api.get('/sellers/me/statements/2026-11.csv')).status).toBe(401);
    expect((await t.api.as(shopper).get('/sellers/me/statements/2026-11.csv')).status).toBe(403);
  });
});
