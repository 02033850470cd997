// Races on sellers' money (docs/payouts.md "Races"): two instances paying out at once, a refund
// racing a payout, a webhook replayed 20 times at once. Whatever the interleaving, no cent is
// made or lost: the ledger's check passes and the balances add up. On PostgreSQL
// (TEST_DATABASE_URL) the two instances share a pool and really run at once.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries } from '../src/modules/ledger/tables.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { disputes, payouts } from '../src/modules/payouts/tables.ts';
import { type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, postEvent } from './helpers/checkout.ts';
import { deliver, setClock, ship, signIn } from './helpers/orders.ts';
import { balanceOf, enablePayouts, ledgerProblems, roundHalfUp } from './helpers/payouts.ts';

const { t, database } = useTestApp();
/** A second instance over the same database, on the same clock. */
let other: TestApp;
beforeAll(async () => {
  setClock(t, '2026-11-02T13:00:00Z');
  other = await testApp(database);
  setClock(other, '2026-11-02T13:00:00Z');
});
afterAll(async () => {
  await other?.close();
});

const DAY = 86_400_000;
/** Moves both instances' clocks. */
const advance = (ms: number) => {
  t.clock.offsetMs += ms;
  other.clock.offsetMs += ms;
};

const orderRow = async (id: string) => (await database.db.select().from(orders).where(eq(orders.id, id)))[0]!;

/** A seller ready to be paid, with a delivered order of `priceCents` released and due: its net. */
async function releasedOrder(priceCents: number, extra?: { priceCents: number }) {
  let s = await seller(t.api, 'ON');
  await enablePayouts(t, s);
  let b = await buyer(t.api);
  const p = await product(t.api, s, { priceCents, stockQuantity: 5 });
  await addToCart(t.api, b, p.id, 1);
  const q = extra ? await product(t.api, s, { priceCents: extra.priceCents, stockQuantity: 5 }) : undefined;
  if (q) await addToCart(t.api, b, q.id, 1);
  const session = await openCheckout(t.api, b, ON_ADDRESS);
  const [orderId] = await payOk(t.api, session.sessionId);
  const order = await orderRow(orderId!);
  await ship(t, s, order.id);
  await deliver(t, s, order.id);
  advance(8 * DAY);
  s = await signIn(t.api, s);
  b = await signIn(t.api, b);
  // A schedule set now moves the next payout after now: this pass only releases the money.
  const daily = await t.api.as(s).put('/sellers/me/payout-account', { schedule: 'daily' });
  expect(daily.status, JSON.stringify(daily.body)).toBe(200);
  await t.app.jobs.runOnce();
  const { nextPayout, availableCents } = (await t.api.as(s).get('/sellers/me/balance')).body;
  expect(availableCents).toBe(
    order.totalAmountCents - order.platformFeeCents - roundHalfUp(order.platformFeeCents * 13, 100),
  );
  // The seller's payout time: the pass that pays comes with the test.
  advance(nextPayout.at * 1000 - t.clock.now().getTime() + 1000);
  s = await signIn(t.api, s);
  b = await signIn(t.api, b);
  const net = order.totalAmountCents - order.platformFeeCents - roundHalfUp(order.platformFeeCents * 13, 100);
  return { s, b, order, net, returned: q };
}

describe('races on sellers’ money', () => {
  it('two instances paying out at once pay once', async () => {
    const { s, net } = await releasedOrder(4000);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: net,
      inTransitCents: 0,
      paidOutCents: 0,
    });
    const passes = await Promise.all([t.app.jobs.runOnce(), other.app.jobs.runOnce(), t.app.jobs.runOnce()]);
    expect(passes).toHaveLength(3);
    const made = await database.db.select().from(payouts).where(eq(payouts.sellerId, s.id));
    expect(made).toHaveLength(1);
    expect(made[0]!.amountCents).toBe(net);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 0,
      inTransitCents: 0,
      paidOutCents: net,
    });
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it('a refund racing a payout: the seller ends with their net less their share of the refund, whatever came first', async () => {
    const { s, b, order, net, returned } = await releasedOrder(5000, { priceCents: 1500 });
    const r = await t.api
      .as(b)
      .post('/returns', { order_id: order.id, reason: 'damaged', items: [returned!.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const [approved] = await Promise.all([
      t.api.as(s).post(`/returns/${r.body.return_id}/approve`, {}),
      other.app.jobs.runOnce(),
    ]);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    // Whatever is left to do (a payout, a reversal of a payout the refund found): done.
    advance(61_000);
    await t.app.jobs.runOnce();
    advance(61_000);
    await t.app.jobs.runOnce();
    const refunded = (await orderRow(order.id)).refundedCents;
    expect(refunded).toBeGreaterThan(1500);
    const taxA = roundHalfUp(order.platformFeeCents * 13, 100);
    const share =
      refunded -
      roundHalfUp(order.platformFeeCents * refunded, order.totalAmountCents) -
      roundHalfUp(taxA * refunded, order.totalAmountCents);
    const after = await balanceOf(t, s);
    expect(after.pendingCents).toBe(0);
    expect(after.inTransitCents).toBe(0);
    // Paid out and left available together: the net less the share (a payout before the refund
    // was reversed; one after it paid the rest).
    expect(after.paidOutCents + after.availableCents).toBe(net - share);
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it('a dispute webhook delivered 20 times at once opens it once; its close twice closes it once', async () => {
    const { s, order, net } = await releasedOrder(3000);
    await t.app.jobs.runOnce();
    const dispute = {
      id: 'dp_race_twenty',
      object: 'dispute',
      amount: order.totalAmountCents,
      currency: 'cad',
      payment_intent: order.paymentIntentId,
      reason: 'product_not_received',
      status: 'needs_response',
      evidence_details: { due_by: Math.floor(t.clock.now().getTime() / 1000) + 7 * 86_400 },
      balance_transactions: [{ object: 'balance_transaction', fee: 1500 }],
    };
    const created = {
      id: 'evt_race_dispute_created',
      object: 'event',
      type: 'charge.dispute.created',
      data: { object: dispute },
    };
    const updated = {
      ...created,
      id: 'evt_race_dispute_updated',
      type: 'charge.dispute.updated',
      data: { object: { ...dispute, status: 'under_review' } },
    };
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => postEvent(i % 2 ? other : t, created)),
      postEvent(t, updated),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(21).fill(200));
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(2);
    expect(await database.db.select().from(disputes).where(eq(disputes.id, 'dp_race_twenty'))).toEqual([
      expect.objectContaining({
        outcome: 'open',
        status: 'under_review',
        amountCents: order.totalAmountCents,
        feeCents: 1500,
      }),
    ]);
    const entries = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, order.id));
    expect(entries.filter((e) => e.transactionKey.startsWith('dispute:'))).toHaveLength(4);
    // The whole order and the fee out of a paid-out balance.
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: -(net + 1500),
      inTransitCents: 0,
      paidOutCents: net,
    });
    const closed = {
      ...created,
      id: 'evt_race_dispute_closed',
      type: 'charge.dispute.closed',
      data: { object: { ...dispute, status: 'lost' } },
    };
    const closing = await Promise.all([postEvent(t, closed), postEvent(other, closed)]);
    expect(closing.map((a) => a.body.duplicate).sort()).toEqual([false, true]);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: -(net + 1500),
      inTransitCents: 0,
      paidOutCents: net,
    });
    expect(await ledgerProblems(database, t)).toEqual([]);
  });
});
