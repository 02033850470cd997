// The reconciliation of the ledger with the provider's balance transactions (GET
// /admin/payouts/reconciliation, and the desk's money page), against the local Stripe: a paid
// checkout (its charge recorded at the fake), a payout's transfer, a refund after it and its
// transfer reversal, a dispute opened and won: every group agrees to the cent, Stripe's
// processing fee on its own line; an adjustment the ledger does not know is a difference. The
// sandbox has nothing to reconcile; the period is checked; only admins may ask.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../src/contract/i18n.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { ProviderError } from '../src/modules/payments/provider.ts';
import type { PayoutProvider } from '../src/modules/payouts/provider.ts';
import { createStripePayouts } from '../src/modules/payouts/providers/stripe.ts';
import { dayOf } from '../src/modules/payouts/reconcile.ts';
import { admin, type SignedIn, withTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import {
  accountUpdatedEvent,
  disputeEvent,
  type FakeStripe,
  startFakeStripe,
  useFakeStripeApp,
} from './helpers/fake-stripe.ts';
import { deliver, ship, signIn } from './helpers/orders.ts';
import { balanceOf, ledgerProblems, paidOnStripe, postStripeEvent, roundHalfUp } from './helpers/payouts.ts';
import { Browser, textOf } from './helpers/web.ts';

const SECRET = 'whsec_test_portage_reconcile_0123456789';
const CONNECT_SECRET = 'whsec_test_portage_reconcile_connect_0123';
const { t, database, stripe } = useFakeStripeApp(SECRET, { STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET });

const DAY = 86_400_000;

const post = (path: string, event: Record<string, unknown>, secret: string) =>
  postStripeEvent(t, path, event, secret);

/** The reconciliation of [from, to] as `who` asks for it. */
const reconciliation = (who: SignedIn, from: string, to: string) =>
  t.api.as(who).get(`/admin/payouts/reconciliation?from=${from}&to=${to}`);

describe('the reconciliation against Stripe', () => {
  let s: SignedIn;
  let boss: SignedIn;
  let from: string;
  let to: string;
  /** What each side should hold, from the orders. */
  const want = {} as {
    total: number;
    refunded: number;
    net: number;
    share: number;
    disputed: number;
    processingFee: number;
  };

  beforeAll(async () => {
    // Now, stopped: the fake checks a Checkout Session's expiry against its own clock, so the
    // checkout is opened before the clock moves; its balance transactions are dated by ours.
    t.clock.freeze();
    stripe.balanceClock = () => t.clock.now();
    from = dayOf(t.clock.now());
    s = await seller(t.api, 'ON');
    boss = await admin(t.api, database);

    // The seller's connected account, enabled by its account.updated.
    const opened = await t.api.as(s).post('/sellers/me/payout-account', {});
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const accountId: string = opened.body.account.accountId;
    const enabled = await post(
      '/webhooks/connect',
      accountUpdatedEvent(stripe.enableAccount(accountId)),
      CONNECT_SECRET,
    );
    expect(enabled.status).toBe(200);

    // A checkout of two items paid on Stripe: its charge is recorded at the fake, as Stripe's
    // balance would show it (the payment reaches the app by webhook only).
    let b = await buyer(t.api);
    const kept = await product(t.api, s, { priceCents: 5000, stockQuantity: 5 });
    const returned = await product(t.api, s, { priceCents: 2000, stockQuantity: 5 });
    const { session, pi, orderIds } = await paidOnStripe(t, SECRET, b, [kept.id, returned.id]);
    const charge = stripe.recordCharge(pi, session.totalCents);
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderIds[0]!));
    want.total = session.totalCents;
    expect(order!.totalAmountCents).toBe(want.total);
    want.processingFee = charge.fee as number;
    expect(want.processingFee).toBe(Math.round(want.total * 0.029) + 30);
    const tax = roundHalfUp(order!.platformFeeCents * 13, 100);
    want.net = want.total - order!.platformFeeCents - tax;

    // Delivered, released after the hold, paid out at the seller's payout time: one transfer.
    await ship(t, s, order!.id);
    await deliver(t, s, order!.id);
    t.clock.offsetMs += 7 * DAY + 60_000;
    s = await signIn(t.api, s);
    await t.app.jobs.runOnce();
    if ((await balanceOf(t, s)).paidOutCents === 0) {
      const due = (await t.api.as(s).get('/sellers/me/balance')).body.nextPayout.at * 1000;
      t.clock.offsetMs += due - t.clock.now().getTime() + 1000;
      s = await signIn(t.api, s);
      await t.app.jobs.runOnce();
    }
    expect((await balanceOf(t, s)).paidOutCents).toBe(want.net);

    // The $20.00 item returned: refunded on Stripe, the seller's share reversed from the transfer.
    b = await signIn(t.api, b);
    const r = await t.api
      .as(b)
      .post('/returns', { order_id: order!.id, reason: 'damaged', items: [returned.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((await t.api.as(s).post(`/returns/${r.body.return_id}/approve`, {})).body.status).toBe('refunded');
    want.refunded = (
      await database.db.select().from(orders).where(eq(orders.id, order!.id))
    )[0]!.refundedCents;
    want.share =
      want.refunded -
      roundHalfUp(order!.platformFeeCents * want.refunded, want.total) -
      roundHalfUp(tax * want.refunded, want.total);
    await t.app.jobs.runOnce();
    expect((await balanceOf(t, s)).paidOutCents).toBe(want.net - want.share);

    // The rest of the payment disputed, then won: Stripe keeps its $15.00 fee.
    want.disputed = want.total - want.refunded;
    const dispute = stripe.openDispute({ paymentIntentId: pi, amount: want.disputed });
    expect((await post('/webhooks/payments', disputeEvent('created', dispute), SECRET)).status).toBe(200);
    const won = stripe.closeDispute(String(dispute.id), 'won');
    expect((await post('/webhooks/payments', disputeEvent('closed', won), SECRET)).status).toBe(200);
    expect(await ledgerProblems(database, t)).toEqual([]);
    boss = await signIn(t.api, boss);
    to = dayOf(t.clock.now());
  });

  it('agrees group by group, to the cent, with the processing fee on its own line', async () => {
    const res = await reconciliation(boss, from, to);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      available: true,
      currency: 'CAD',
      from,
      to,
      lines: [
        line('charges', want.total, 1),
        line('refunds', -want.refunded, 1),
        line('transfers', -want.net, 1),
        line('transfer_reversals', want.share, 1),
        // Opened (the amount and the fee out), then won (the amount back).
        line('disputes', -1500, 2),
      ],
      otherTypes: [],
      providerFeesCents: want.processingFee,
      providerPayoutsCents: 0,
      differenceCents: 0,
      complete: true,
    });
    // The provider was asked for the period's balance transactions, a hundred at a time.
    const asked = stripe.requests.filter((q) => q.path === '/v1/balance_transactions');
    expect(asked.at(-1)).toMatchObject({
      method: 'GET',
      body: { limit: '100', created: { gte: expect.any(String) } },
    });
  });

  it('leaves out what the period does not hold', async () => {
    const before = new Date(Date.parse(`${from}T12:00:00Z`) - 40 * DAY).toISOString().slice(0, 10);
    const dayBefore = new Date(Date.parse(`${from}T12:00:00Z`) - DAY).toISOString().slice(0, 10);
    const res = await reconciliation(boss, before, dayBefore);
    expect(res.status).toBe(200);
    expect(
      res.body.lines.every(
        (l: { ledgerCount: number; providerCount: number }) => !l.ledgerCount && !l.providerCount,
      ),
    ).toBe(true);
    expect(res.body.differenceCents).toBe(0);
  });

  it('shows it on the desk in both languages: agreeing, then a difference', async () => {
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const page = await desk.get(`/desk/money?from=${from}&to=${to}`);
    expect(page.status, page.html.slice(0, 300)).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('The ledger and the provider agree for these days.');
    expect(text).toContain(
      `Charges ${flat(formatMoney('en-CA', want.total))} 1 transaction ${flat(formatMoney('en-CA', want.total))} 1 transaction $0.00`,
    );
    expect(text).toContain(
      `The provider’s fees (not in the ledger) ${flat(formatMoney('en-CA', want.processingFee))}`,
    );
    const fr = textOf((await desk.get(`/desk/money?from=${from}&to=${to}&lang=fr-CA`)).html);
    expect(fr).toContain('Le grand livre et le fournisseur concordent pour ces jours.');
    expect(fr).toContain(`Virements aux vendeurs ${flat(formatMoney('fr-CA', -want.net))} 1 opération`);
  });

  it('shows a balance transaction the ledger does not know as a difference', async () => {
    // Stripe took $5.00 the platform never recorded.
    stripe.addBalanceTransaction({ type: 'adjustment', amount: -500, description: 'Unexplained' });
    // And a type the ledger never writes: listed under "other".
    stripe.addBalanceTransaction({ type: 'topup', amount: 10_000 });
    const res = await reconciliation(boss, from, to);
    expect(res.status).toBe(200);
    expect(res.body.lines).toEqual([
      line('charges', want.total, 1),
      line('refunds', -want.refunded, 1),
      line('transfers', -want.net, 1),
      line('transfer_reversals', want.share, 1),
      { ...line('disputes', -1500, 2), providerCents: -2000, providerCount: 3, differenceCents: -500 },
      {
        group: 'other',
        ledgerCents: 0,
        ledgerCount: 0,
        providerCents: 10_000,
        providerCount: 1,
        differenceCents: 10_000,
      },
    ]);
    expect(res.body).toMatchObject({
      otherTypes: [{ type: 'topup', cents: 10_000, count: 1 }],
      differenceCents: 9500,
    });
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const text = textOf((await desk.get(`/desk/money?from=${from}&to=${to}`)).html);
    // The differences to explain, whichever way they go: $5.00 and $100.00.
    expect(text).toContain('Differences to explain: $105.00.');
    expect(text).toContain('Total difference $95.00');
    expect(text).toContain('Counted under Other: topup.');
  });

  it('says so on the desk when Stripe cannot be reached, and shows the rest', async () => {
    // The SDK tries three times.
    for (let i = 0; i < 3; i++) stripe.failNext(500, { type: 'api_error', message: 'Something went wrong.' });
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const page = await desk.get(`/desk/money?from=${from}&to=${to}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('The provider could not be reached: the reconciliation is not shown.');
    expect(text).toContain('Commission revenue');
  });

  it('refuses a period that is not one, naming the field (400)', async () => {
    const missing = await t.api.as(boss).get(`/admin/payouts/reconciliation?to=${to}`);
    expectInvalid(missing, [{ field: 'from', message: 'is required' }]);
    const cases: Array<[string, string, string, string]> = [
      ['2026/11/01', '2026-11-30', 'from', 'must be a date YYYY-MM-DD'],
      ['2026-02-30', '2026-03-01', 'from', 'must be a real calendar date from 2000-01-01 on'],
      ['2026-11-10', '2026-11-09', 'to', 'must not be before the first day'],
      ['2026-01-01', '2026-04-03', 'to', 'must make a period of at most 92 days (both days counted)'],
    ];
    for (const [f, tt, field, message] of cases) {
      expectInvalid(await reconciliation(boss, f, tt), [{ field, message }]);
    }
    // 92 days, both counted: taken.
    expect((await reconciliation(boss, '2026-01-01', '2026-04-02')).status).toBe(200);
    // In French.
    const fr = await t.api
      .as(boss)
      .get('/admin/payouts/reconciliation?from=2026-11-10&to=2026-11-09', { 'accept-language': 'fr-CA' });
    expect(fr.body.details).toEqual([{ field: 'to', message: 'ne doit pas précéder le premier jour' }]);
    // On the desk: the form again with the problem under its field.
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const page = await desk.get('/desk/money?from=2026-11-10&to=2026-11-09');
    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain('must not be before the first day');
    expect(page.html).toContain('aria-invalid="true"');
  });

  it('is for admins only (401 without a token, 403 for a seller or a buyer)', async () => {
    expectError(await t.api.get(`/admin/payouts/reconciliation?from=${from}&to=${to}`), 'AUTH_ERROR', 401);
    for (const who of [await signIn(t.api, s), await buyer(t.api)]) {
      expectError(await reconciliation(who, from, to), 'AUTHZ_ERROR', 403);
    }
  });
});

describe("the Stripe provider's balance transactions", () => {
  const KEY = 'sk_test_portageReconcileKey0123456789';
  let fake: FakeStripe;
  let payouts: PayoutProvider;
  const base = Date.parse('2026-11-01T05:00:00Z');
  beforeAll(async () => {
    fake = await startFakeStripe({ apiKey: KEY });
    payouts = createStripePayouts({
      provider: 'stripe',
      webhookSecret: SECRET,
      stripeSecretKey: KEY,
      publishableKey: 'pk_test_portage',
      stripeApiBase: new URL(fake.url),
      platformFeeBps: 250,
      payoutHoldDays: 7,
      disputeFeeCents: 1500,
      connectWebhookSecret: CONNECT_SECRET,
    });
    // 250 top-ups, one a second, of 1¢ to $2.50.
    for (let i = 0; i < 250; i++) {
      fake.balanceClock = () => new Date(base + i * 1000);
      fake.addBalanceTransaction({ type: 'topup', amount: i + 1, source: `tu_${i}` });
    }
  });
  afterAll(() => fake.close());

  it('reads every page of the period, newest first, up to the limit', async () => {
    const all = await payouts.balanceTransactions!({
      createdFrom: new Date(base + 10_000),
      createdTo: new Date(base + 240_000),
      limit: 1000,
    });
    // Seconds 10 to 239: three pages of a hundred, the next after the last one read.
    expect(all.map((x) => x.amountCents)).toEqual(Array.from({ length: 230 }, (_, i) => 240 - i));
    expect(all[0]).toEqual({
      id: expect.stringMatching(/^txn_/),
      type: 'topup',
      amountCents: 240,
      feeCents: 0,
      source: 'tu_239',
      created: new Date(base + 239_000),
    });
    const pages = fake.requests.filter((q) => q.path === '/v1/balance_transactions');
    expect(pages.map((q) => q.body.starting_after)).toEqual([undefined, all[99]!.id, all[199]!.id]);
    expect(pages[0]!.body).toMatchObject({
      limit: '100',
      created: { gte: String((base + 10_000) / 1000), lt: String((base + 240_000) / 1000) },
    });
    fake.requests.length = 0;
    const some = await payouts.balanceTransactions!({
      createdFrom: new Date(base),
      createdTo: new Date(base + 250_000),
      limit: 150,
    });
    expect(some).toHaveLength(150);
    expect(some.at(-1)!.amountCents).toBe(101);
    expect(fake.requests.filter((q) => q.path === '/v1/balance_transactions')).toHaveLength(2);
  });

  it("answers Stripe's refusal as a provider error", async () => {
    fake.failNext(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' });
    await expect(
      payouts.balanceTransactions!({
        createdFrom: new Date(base),
        createdTo: new Date(base + 1000),
        limit: 10,
      }),
    ).rejects.toBeInstanceOf(ProviderError);
  });
});

describe('the reconciliation on the sandbox', () => {
  it('answers that there is nothing to reconcile', async () => {
    await withTestApp(async (sandbox, db) => {
      const boss = await admin(sandbox.api, db);
      const res = await sandbox.api
        .as(boss)
        .get('/admin/payouts/reconciliation?from=2026-11-01&to=2026-11-30');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { available: false } });
      // The period is checked all the same.
      expectInvalid(
        await sandbox.api.as(boss).get('/admin/payouts/reconciliation?from=2026-11-01&to=2027-11-30'),
        [{ field: 'to', message: 'must make a period of at most 92 days (both days counted)' }],
      );
    });
  });
});

/** Text as textOf leaves it (a French amount's no-break spaces as plain ones). */
const flat = (s: string) => s.replace(/\s+/g, ' ');

/** A group where both sides agree. */
function line(group: string, cents: number, count: number) {
  return {
    group,
    ledgerCents: cents,
    ledgerCount: count,
    providerCents: cents,
    providerCount: count,
    differenceCents: 0,
  };
}
