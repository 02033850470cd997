// Sellers paid through Stripe Connect, against the local Stripe that answers the official SDK as
// Stripe does: a connected account opened and enabled by its `account.updated` (the Connect
// endpoint's own secret), transfers tied to the charge's transfer_group, a refund after the payout
// taken back by a transfer reversal, a dispute's evidence sent, a transfer refused.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { orders } from '../src/modules/orders/tables.ts';
import { payoutTransfers } from '../src/modules/payouts/tables.ts';
import type { SignedIn } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { accountUpdatedEvent, disputeEvent, useFakeStripeApp } from './helpers/fake-stripe.ts';
import { deliver, ship, signIn } from './helpers/orders.ts';
import {
  balanceOf,
  ledgerProblems,
  paidOnStripe as paidOn,
  postStripeEvent,
  roundHalfUp,
} from './helpers/payouts.ts';

const SECRET = 'whsec_test_portage_payouts_0123456789';
const CONNECT_SECRET = 'whsec_test_portage_connect_0123456789';
const { t, database, stripe } = useFakeStripeApp(SECRET, { STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET });

const DAY = 86_400_000;
const now = () => Math.floor(t.clock.now().getTime() / 1000);

/** Past the hold and then the seller's next payout time, running the jobs at each. */
async function payday() {
  t.clock.offsetMs += 7 * DAY + 60_000;
  await t.app.jobs.runOnce();
  const { nextPayout } = (await t.api.as(await signIn(t.api, seller0!)).get('/sellers/me/balance')).body;
  t.clock.offsetMs += nextPayout.at * 1000 - t.clock.now().getTime() + 1000;
  await t.app.jobs.runOnce();
}
let seller0: SignedIn | undefined;

const post = (path: string, event: Record<string, unknown>, secret: string) =>
  postStripeEvent(t, path, event, secret);

/** A checkout of `productIds` paid on Stripe (its payment_intent.succeeded delivered): the orders. */
const paidOnStripe = (b: SignedIn, productIds: string[]) => paidOn(t, SECRET, b, productIds);

describe('payouts on Stripe Connect', () => {
  let s: SignedIn;
  let accountId: string;
  /** The last test's order, paid before the clock moves. */
  let later: { orderIds: string[] };
  beforeAll(async () => {
    // Now: the fake Stripe checks a Checkout Session's expiry against its own clock, so every
    // checkout here is opened before the clock moves.
    t.clock.freeze();
    s = await seller(t.api, 'ON');
    seller0 = s;
  });

  it('opens a connected account once and answers its onboarding link', async () => {
    const [first, second] = await Promise.all([
      t.api.as(s).post('/sellers/me/payout-account', {}),
      t.api.as(s).post('/sellers/me/payout-account', {}),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    accountId = first.body.account.accountId;
    expect(second.body.account.accountId).toBe(accountId);
    expect(accountId).toMatch(/^acct_/);
    expect(first.body.onboardingUrl).toMatch(/^https:\/\/connect\.stripe\.com\//);
    const created = stripe.requests.filter((r) => r.path === '/v1/accounts' && r.method === 'POST');
    // One account at Stripe: the second call either waited for the first or replayed its key.
    expect(new Set(created.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(stripe.accounts.size).toBe(1);
    expect(created[0]!.body).toMatchObject({
      country: 'CA',
      capabilities: { transfers: { requested: 'true' } },
      settings: { payouts: { debit_negative_balances: 'true' } },
    });
    const links = stripe.requests.filter((r) => r.path === '/v1/account_links');
    expect(links.at(-1)!.body).toMatchObject({ account: accountId, type: 'account_onboarding' });
    const balance = await t.api.as(s).get('/sellers/me/balance');
    expect(balance.body).toMatchObject({
      payoutsEnabled: false,
      missing: expect.arrayContaining(['external_account']),
    });
  });

  it("enables payouts on the connected account's account.updated, signed with the Connect endpoint's secret", async () => {
    const event = accountUpdatedEvent(stripe.enableAccount(accountId, '4321'));
    // Signed with the payment endpoint's secret: refused, nothing changes.
    expect((await post('/webhooks/connect', event, SECRET)).status).toBe(400);
    expect((await t.api.as(s).get('/sellers/me/payout-account')).body.payoutsEnabled).toBe(false);
    const ok = await post('/webhooks/connect', event, CONNECT_SECRET);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ received: true, duplicate: false });
    expect((await post('/webhooks/connect', event, CONNECT_SECRET)).body).toEqual({
      received: true,
      duplicate: true,
    });
    const account = await t.api.as(s).get('/sellers/me/payout-account');
    expect(account.body).toMatchObject({ payoutsEnabled: true, requirements: [], bankLast4: '4321' });
  });

  it('transfers by order with the transfer_group of its charge; a refund after it is a transfer reversal', async () => {
    let b = await buyer(t.api);
    const kept = await product(t.api, s, { priceCents: 5000, stockQuantity: 5 });
    const returned = await product(t.api, s, { priceCents: 2000, stockQuantity: 5 });
    const { session, pi, orderIds } = await paidOnStripe(b, [kept.id, returned.id]);
    const p = await product(t.api, s, { priceCents: 4000, stockQuantity: 5 });
    later = await paidOnStripe(await buyer(t.api), [p.id]);
    const [laterRow] = await database.db.select().from(orders).where(eq(orders.id, later.orderIds[0]!));
    // Not delivered during this test: pending throughout.
    const pendingCents =
      laterRow!.totalAmountCents -
      laterRow!.platformFeeCents -
      roundHalfUp(laterRow!.platformFeeCents * 13, 100);
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderIds[0]!));
    const net =
      order!.totalAmountCents - order!.platformFeeCents - roundHalfUp(order!.platformFeeCents * 13, 100);
    await ship(t, s, order!.id);
    await deliver(t, s, order!.id);
    await payday();
    s = await signIn(t.api, s);
    b = await signIn(t.api, b);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents,
      availableCents: 0,
      inTransitCents: 0,
      paidOutCents: net,
    });
    const [row] = await database.db
      .select()
      .from(payoutTransfers)
      .where(eq(payoutTransfers.orderId, order!.id));
    const sent = stripe.requests.filter((r) => r.path === '/v1/transfers');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      idempotencyKey: `${row!.payoutId}:${order!.id}`,
      body: {
        amount: String(net),
        currency: 'cad',
        destination: accountId,
        transfer_group: session.sessionId,
        metadata: { payoutId: row!.payoutId, orderId: order!.id },
      },
    });
    expect(row).toMatchObject({ status: 'paid', transferId: expect.stringMatching(/^tr_/) });

    // The buyer returns the $20.00 item: Stripe refunds the payment, and the seller's share of it
    // (less the commission and its HST given back) is reversed from the transfer.
    const r = await t.api
      .as(b)
      .post('/returns', { order_id: order!.id, reason: 'damaged', items: [returned.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((await t.api.as(s).post(`/returns/${r.body.return_id}/approve`, {})).body.status).toBe('refunded');
    const refunded = (await database.db.select().from(orders).where(eq(orders.id, order!.id)))[0]!
      .refundedCents;
    const share =
      refunded -
      roundHalfUp(order!.platformFeeCents * refunded, order!.totalAmountCents) -
      roundHalfUp(roundHalfUp(order!.platformFeeCents * 13, 100) * refunded, order!.totalAmountCents);
    await t.app.jobs.runOnce();
    const reversals = stripe.requests.filter((q) => q.path === `/v1/transfers/${row!.transferId}/reversals`);
    expect(reversals).toHaveLength(1);
    expect(reversals[0]!.body).toMatchObject({ amount: String(share) });
    expect(reversals[0]!.idempotencyKey).toMatch(/^trr_/);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents,
      availableCents: 0,
      inTransitCents: 0,
      paidOutCents: net - share,
    });

    // A dispute of what is left: its evidence goes to Stripe and is submitted.
    const dispute = stripe.openDispute({ paymentIntentId: pi, amount: order!.totalAmountCents - refunded });
    // Due a week from our clock (the fake dates it from its own).
    for (const d of [dispute, stripe.disputes.get(String(dispute.id))!]) {
      (d.evidence_details as Record<string, unknown>).due_by = now() + 7 * 86_400;
    }
    const opened = await post('/webhooks/payments', disputeEvent('created', dispute), SECRET);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    // The rest of the order, less the rest of the commission and its HST, and the $15.00 fee.
    const commissionLeft =
      order!.platformFeeCents - roundHalfUp(order!.platformFeeCents * refunded, order!.totalAmountCents);
    const taxA = roundHalfUp(order!.platformFeeCents * 13, 100);
    const taxLeft = taxA - roundHalfUp(taxA * refunded, order!.totalAmountCents);
    const owed = order!.totalAmountCents - refunded - commissionLeft - taxLeft + 1500;
    expect(owed).toBe(net - share + 1500);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents,
      availableCents: -owed,
      inTransitCents: 0,
      paidOutCents: net - share,
    });
    const evidence = await t.api
      .as(s)
      .post(`/sellers/me/disputes/${dispute.id}/evidence`, { text: 'Signed for at the door on 5 November.' });
    expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
    const update = stripe.requests.find((q) => q.path === `/v1/disputes/${dispute.id}`);
    expect(update?.body).toMatchObject({
      evidence: { uncategorized_text: 'Signed for at the door on 5 November.' },
      submit: 'true',
    });
    // Won: the amount comes back to the seller; Stripe keeps its fee, and so it stays on the balance.
    const won = await post(
      '/webhooks/payments',
      disputeEvent('closed', stripe.closeDispute(String(dispute.id), 'won')),
      SECRET,
    );
    expect(won.status).toBe(200);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents,
      availableCents: -1500,
      inTransitCents: 0,
      paidOutCents: net - share,
    });
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it('retries a transfer Stripe could not make, and returns a refused one to the balance', async () => {
    const { orderIds } = later;
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderIds[0]!));
    const net =
      order!.totalAmountCents - order!.platformFeeCents - roundHalfUp(order!.platformFeeCents * 13, 100);
    const paidBefore = (await balanceOf(t, s)).paidOutCents;
    await ship(t, s, order!.id);
    await deliver(t, s, order!.id);
    // The dispute's fee is recovered first: the transfer carries the rest.
    // Stripe is down for the first try (the SDK retries twice), then refuses the transfer.
    for (let i = 0; i < 3; i++) stripe.failNext(500, { type: 'api_error', message: 'Something went wrong.' });
    t.clock.offsetMs += 7 * DAY + 60_000;
    s = await signIn(t.api, s);
    await t.app.jobs.runOnce();
    if ((await balanceOf(t, s)).inTransitCents === 0) {
      // Released, not yet due: to the seller's payout time.
      const due = (await t.api.as(s).get('/sellers/me/balance')).body.nextPayout.at * 1000;
      t.clock.offsetMs += due - t.clock.now().getTime() + 1000;
      s = await signIn(t.api, s);
      await t.app.jobs.runOnce();
    }
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 0,
      inTransitCents: net - 1500,
      paidOutCents: paidBefore,
    });
    stripe.failNext(400, {
      type: 'invalid_request_error',
      message: 'Insufficient funds in your Stripe balance.',
      code: 'balance_insufficient',
    });
    t.clock.offsetMs += 61_000;
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: net - 1500,
      inTransitCents: 0,
      paidOutCents: paidBefore,
    });
    const [row] = await database.db
      .select()
      .from(payoutTransfers)
      .where(eq(payoutTransfers.orderId, order!.id));
    expect(row).toMatchObject({ status: 'failed', attempts: 2 });
    const keys = stripe.requests
      .filter(
        (r) =>
          r.path === '/v1/transfers' &&
          r.body.metadata &&
          (r.body.metadata as Record<string, string>).orderId === order!.id,
      )
      .map((r) => r.idempotencyKey);
    expect(new Set(keys)).toEqual(new Set([`${row!.payoutId}:${order!.id}`]));
    const boss = (await import('./helpers/app.ts')).admin;
    const desk = await t.api.as(await boss(t.api, database)).get('/admin/payouts');
    expect(desk.body.failedTransfers).toEqual([
      expect.objectContaining({ payoutId: row!.payoutId, orderId: order!.id, amountCents: net - 1500 }),
    ]);
    expect(await ledgerProblems(database, t)).toEqual([]);
  });
});
