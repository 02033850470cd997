// The desk's money page (/desk/money) on the sandbox, in both languages: the commission and its
// GST/HST, what sellers are owed (pending, available, in transit), the provider cash per the
// ledger, a failed transfer with its seller and order, an open dispute with its deadline, each
// to the cent; and the sandbox's word that it has no balance to reconcile.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOOKS_TIME_ZONE, formatDate, formatMoney, type Locale } from '../src/contract/i18n.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { admin, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk } from './helpers/checkout.ts';
import { deliver, sessionRow, setClock, ship, signIn } from './helpers/orders.ts';
import { balanceOf, enablePayouts, ledgerProblems, roundHalfUp, TEST_BANK } from './helpers/payouts.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const DAY = 86_400_000;
/** Text as textOf leaves it: every run of spaces (the no-break ones of French amounts too) one space. */
const flat = (s: string) => s.replace(/\s+/g, ' ');
const money = (l: Locale, cents: number) => flat(formatMoney(l, cents));

const orderRow = async (id: string) => {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, id));
  if (!row) throw new Error(`no order ${id}`);
  return row;
};
/** What an Ontario seller nets on an order: its total less the commission and the HST (13%) on it. */
const netOf = (o: { totalAmountCents: number; platformFeeCents: number }) =>
  o.totalAmountCents - o.platformFeeCents - roundHalfUp(o.platformFeeCents * 13, 100);

describe('/desk/money', () => {
  let boss: SignedIn;
  let a: SignedIn;
  let b: SignedIn;
  const expected = {} as {
    commission: number;
    tax: number;
    pending: number;
    available: number;
    cash: number;
    failedNumber: string;
    failedAmount: number;
    failedAt: Date;
    disputedNumber: string;
    disputed: number;
    dueBy: Date;
  };

  beforeAll(async () => {
    // A Monday morning in Toronto: weekly payouts are on Mondays at 09:00.
    setClock(t, '2026-11-02T13:00:00Z');
    boss = await admin(t.api, database);
    a = await seller(t.api, 'ON');
    b = await seller(t.api, 'ON');
    // A's bank refuses transfers; B's takes them.
    await enablePayouts(t, a, TEST_BANK.fails);
    await enablePayouts(t, b);

    // One checkout from both sellers: A's order delivered (its payout will fail), B's not.
    const shopper = await buyer(t.api);
    const pa = await product(t.api, a, { priceCents: 3000, stockQuantity: 5 });
    const pb = await product(t.api, b, { priceCents: 2000, stockQuantity: 5 });
    await addToCart(t.api, shopper, pa.id, 1);
    await addToCart(t.api, shopper, pb.id, 1);
    const both = await openCheckout(t.api, shopper);
    const ids = await payOk(t.api, both.sessionId);
    const rows = await Promise.all(ids.map(orderRow));
    const oa = rows.find((o) => o.sellerId === a.id)!;
    const ob = rows.find((o) => o.sellerId === b.id)!;

    // Another checkout from B, disputed whole by the buyer's bank.
    const other = await buyer(t.api);
    const pd = await product(t.api, b, { priceCents: 4500, stockQuantity: 5 });
    await addToCart(t.api, other, pd.id, 1);
    const disputedCheckout = await openCheckout(t.api, other);
    const [disputedId] = await payOk(t.api, disputedCheckout.sessionId);
    const od = await orderRow(disputedId!);
    const pi = (await sessionRow(database, disputedCheckout.sessionId))!.paymentIntentId!;
    const opened = await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId: pi });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const disputedAt = t.clock.now();

    // A's order delivered; after the hold, the payout to A's bank is refused.
    await ship(t, a, oa.id);
    await deliver(t, a, oa.id);
    t.clock.offsetMs += 7 * DAY + 60_000;
    a = await signIn(t.api, a);
    b = await signIn(t.api, b);
    boss = await signIn(t.api, boss);
    await t.app.jobs.runOnce();
    const failedNow = async () => (await t.api.as(boss).get('/admin/payouts')).body.failedTransfers.length;
    if ((await failedNow()) === 0) {
      // Released, not yet due: to A's payout time.
      const due = (await t.api.as(a).get('/sellers/me/balance')).body.nextPayout.at * 1000;
      t.clock.offsetMs += due - t.clock.now().getTime() + 1000;
      await t.app.jobs.runOnce();
    }
    expect(await failedNow()).toBe(1);
    const failedAt = t.clock.now();

    // Every figure, from the orders: the disputed order's commission and HST went back, its
    // seller bears the $15.00 dispute fee (from available: nothing of it was pending).
    const fee = 1500;
    expect(await balanceOf(t, a)).toEqual({
      pendingCents: 0,
      availableCents: netOf(oa),
      inTransitCents: 0,
      paidOutCents: 0,
    });
    expect(await balanceOf(t, b)).toEqual({
      pendingCents: netOf(ob),
      availableCents: -fee,
      inTransitCents: 0,
      paidOutCents: 0,
    });
    const hst = (o: typeof oa) => roundHalfUp(o.platformFeeCents * 13, 100);
    Object.assign(expected, {
      commission: oa.platformFeeCents + ob.platformFeeCents,
      tax: hst(oa) + hst(ob),
      pending: netOf(ob),
      available: netOf(oa) - fee,
      cash: oa.totalAmountCents + ob.totalAmountCents - fee,
      failedNumber: oa.number,
      failedAmount: netOf(oa),
      failedAt,
      disputedNumber: od.number,
      disputed: od.totalAmountCents,
      dueBy: new Date(disputedAt.getTime() + 7 * DAY),
    });
    expect(expected.commission).toBe(125);
    // HST 13% of $0.75 and of $0.50, each rounded half up.
    expect(expected.tax).toBe(10 + 7);
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it('is for admins: a visitor is sent to sign in, a buyer or a seller refused; the desk links to it', async () => {
    const visitor = new Browser(t.app);
    const res = await visitor.get('/desk/money', { follow: false });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/account/sign-in?next=${encodeURIComponent('/desk/money')}`);
    for (const who of [await buyer(t.api), a]) {
      const browser = new Browser(t.app);
      await browser.signIn(who);
      expect((await browser.get('/desk/money')).status).toBe(403);
    }
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    expect((await desk.get('/desk')).html).toContain('href="/desk/money"');
  });

  const WORDS = {
    'en-CA': {
      title: 'The platform’s money',
      commission: 'Commission revenue',
      tax: 'GST/HST on the commission',
      cash: 'Cash at the payment provider',
      pending: 'Pending',
      pendingHint: 'Orders not delivered yet, or delivered less than 7 days ago',
      available: 'Available',
      inTransit: 'In transit',
      owed: 'Total owed',
      failed: 'Failed transfers',
      disputes: 'Open disputes',
      reason: 'Fraudulent',
      status: 'Needs a response',
      toronto: '(Toronto time)',
      sandbox: 'The sandbox keeps no balance of its own: there is nothing to reconcile.',
      notFrench: [],
    },
    'fr-CA': {
      title: 'L’argent de la plateforme',
      commission: 'Revenus de commission',
      tax: 'TPS/TVH sur la commission',
      cash: 'Encaisse chez le fournisseur de paiement',
      pending: 'En attente',
      pendingHint: 'Commandes pas encore livrées, ou livrées il y a moins de 7 jours',
      available: 'Disponible',
      inTransit: 'En transit',
      owed: 'Total dû',
      failed: 'Virements échoués',
      disputes: 'Litiges ouverts',
      reason: 'Frauduleux',
      status: 'Réponse attendue',
      toronto: '(heure de Toronto)',
      sandbox: 'Le bac à sable n’a pas de solde propre : il n’y a rien à rapprocher.',
      notFrench: ['Pending', 'Available', 'Failed transfers', 'Open disputes', 'Commission revenue', 'Needs'],
    },
  } as const;

  for (const l of ['en-CA', 'fr-CA'] as const) {
    it(`shows the figures to the cent, the failed transfer and the open dispute (${l})`, async () => {
      const w = WORDS[l];
      const desk = new Browser(t.app);
      await desk.signIn(boss);
      const page = await desk.get(`/desk/money?lang=${l}`);
      expect(page.status, page.html.slice(0, 300)).toBe(200);
      // No script, no inline style; the tables stack on a phone.
      expect(page.html).not.toMatch(/<script|<style| style=/);
      expect(page.html.match(/<table class="stack">/g)).toHaveLength(2);
      const text = textOf(page.html);
      const m = (cents: number) => money(l, cents);
      expect(text).toContain(w.title);
      // Each tile: its label, then its amount.
      expect(text).toContain(`${w.commission} ${m(expected.commission)}`);
      expect(text).toContain(`${w.tax} ${m(expected.tax)}`);
      expect(text).toContain(`${w.cash} ${m(expected.cash)}`);
      expect(text).toContain(`${w.pending} ${m(expected.pending)} ${w.pendingHint}`);
      expect(text).toContain(`${w.available} ${m(expected.available)}`);
      expect(text).toContain(`${w.inTransit} ${m(0)}`);
      expect(text).toContain(`${w.owed} ${m(expected.pending + expected.available)}`);
      // The failed transfer: when, whose, which order, how much, why.
      const failed = text.slice(text.indexOf(w.failed), text.indexOf(w.disputes));
      expect(failed).toContain(
        `${flat(formatDate(l, expected.failedAt, BOOKS_TIME_ZONE))} Maple Goods ${expected.failedNumber} ${m(expected.failedAmount)} sandbox: account`,
      );
      expect(failed).toContain(`refuses transfers (test bank account ${TEST_BANK.fails})`);
      expect(failed.split(' Maple Goods ')).toHaveLength(2);
      expect(page.html).toContain(`href="/desk/users?user=${encodeURIComponent(a.id)}"`);
      // The open dispute: its order, the amount, the fee, the reason, its state and its deadline.
      const deadline = new Intl.DateTimeFormat(l, {
        dateStyle: 'long',
        timeStyle: 'short',
        timeZone: BOOKS_TIME_ZONE,
      }).format(expected.dueBy);
      const disputes = text.slice(text.indexOf(w.disputes));
      expect(disputes).toContain(
        `${expected.disputedNumber} ${m(expected.disputed)} ${m(1500)} ${w.reason} ${w.status} ${flat(deadline)} ${w.toronto}`,
      );
      // The sandbox has no balance of its own: no reconciliation, and no form for one.
      expect(text).toContain(w.sandbox);
      expect(page.html).not.toContain('name="from"');
      for (const english of w.notFrench) expect(text).not.toContain(english);
    });
  }
});
