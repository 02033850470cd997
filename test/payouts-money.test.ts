// The money's path (docs/payouts.md), end to end on the sandbox: a two-seller order paid,
// shipped, delivered, released after the hold, paid out, partly refunded after the payout (a
// transfer reversal), then disputed and lost, and a later sale that recovers the debt first.
// Every balance is checked to the cent at each step, and the ledger's check after each.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { orders } from '../src/modules/orders/tables.ts';
import { payoutTransfers, transferReversals } from '../src/modules/payouts/tables.ts';
import { admin, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, postEvent } from './helpers/checkout.ts';
import { deliver, outboxRows, setClock, ship, signIn } from './helpers/orders.ts';
import {
  type Balance,
  balanceOf,
  disputeObject,
  enablePayouts,
  ledgerProblems,
  roundHalfUp,
} from './helpers/payouts.ts';

const { t, database } = useTestApp();

const DAY = 86_400_000;
const advance = (ms: number) => {
  t.clock.offsetMs += ms;
};

const orderRow = async (id: string) => {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, id));
  if (!row) throw new Error(`no order ${id}`);
  return row;
};

const zero: Balance = { pendingCents: 0, availableCents: 0, inTransitCents: 0, paidOutCents: 0 };

describe('a two-seller order, from payment to a lost dispute', () => {
  let a: SignedIn;
  let b: SignedIn;
  let shopper: SignedIn;
  let boss: SignedIn;
  beforeAll(async () => {
    // A Monday morning in Toronto: weekly payouts are on Mondays at 09:00.
    setClock(t, '2026-11-02T13:00:00Z');
    a = await seller(t.api, 'ON');
    b = await seller(t.api, 'QC');
    shopper = await buyer(t.api);
    boss = await admin(t.api, database);
  });

  const fresh = async () => {
    // The clock moves by days: tokens are made again.
    a = await signIn(t.api, a);
    b = await signIn(t.api, b);
    shopper = await signIn(t.api, shopper);
    boss = await signIn(t.api, boss);
  };

  it('keeps every cent to the cent', async () => {
    const kept = await product(t.api, a, { priceCents: 3000, stockQuantity: 5 });
    const returned = await product(t.api, a, { priceCents: 1000, stockQuantity: 5 });
    const other = await product(t.api, b, { priceCents: 2000, stockQuantity: 5 });
    for (const p of [kept, returned, other]) await addToCart(t.api, shopper, p.id, 1);
    const session = await openCheckout(t.api, shopper, ON_ADDRESS);
    const ids = await payOk(t.api, session.sessionId);
    expect(ids).toHaveLength(2);
    const rows = await Promise.all(ids.map(orderRow));
    const oa = rows.find((o) => o.sellerId === a.id)!;
    const ob = rows.find((o) => o.sellerId === b.id)!;

    // The sale: the seller's share pending; the commission (2.5% of items) and its tax (HST 13% in
    // Ontario, GST 5% for a Quebec shop) the platform's.
    expect(oa.platformFeeCents).toBe(100);
    expect(ob.platformFeeCents).toBe(50);
    const taxA = roundHalfUp(oa.platformFeeCents * 13, 100);
    const taxB = roundHalfUp(ob.platformFeeCents * 5, 100);
    expect([taxA, taxB]).toEqual([13, 3]);
    const netA = oa.totalAmountCents - oa.platformFeeCents - taxA;
    const netB = ob.totalAmountCents - ob.platformFeeCents - taxB;
    expect(await balanceOf(t, a)).toEqual({ ...zero, pendingCents: netA });
    expect(await balanceOf(t, b)).toEqual({ ...zero, pendingCents: netB });
    const desk = await t.api.as(boss).get('/admin/payouts');
    expect(desk.status).toBe(200);
    expect(desk.body).toMatchObject({
      commissionCents: 150,
      commissionTaxCents: taxA + taxB,
      owedToSellersCents: netA + netB,
      providerCashCents: oa.totalAmountCents + ob.totalAmountCents,
      failedTransfers: [],
      openDisputes: [],
    });
    expect(await ledgerProblems(database, t)).toEqual([]);

    // Payout accounts; the balance says what is missing until then.
    const before = await t.api.as(a).get('/sellers/me/balance');
    expect(before.body).toMatchObject({
      payoutsEnabled: false,
      missing: ['payout_account'],
      nextPayout: null,
    });
    await enablePayouts(t, a);
    await enablePayouts(t, b);

    // Shipped and delivered: still pending during the hold (7 days).
    for (const [s, o] of [
      [a, oa],
      [b, ob],
    ] as const) {
      await ship(t, s, o.id);
      await deliver(t, s, o.id);
    }
    advance(6 * DAY);
    await fresh();
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, a)).toEqual({ ...zero, pendingCents: netA });

    // After the hold: available. The next Monday 09:00 Toronto: paid out, one transfer per order
    // tied to its checkout's transfer_group.
    advance(DAY + 60_000);
    await fresh();
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, a)).toEqual({ ...zero, availableCents: netA });
    const next = await t.api.as(a).get('/sellers/me/balance');
    expect(next.body.nextPayout).toMatchObject({ schedule: 'weekly', amountCents: netA, minimumCents: 1000 });
    t.clock.offsetMs += next.body.nextPayout.at * 1000 - t.clock.now().getTime() + 1000;
    await fresh();
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, a)).toEqual({ ...zero, paidOutCents: netA });
    expect(await balanceOf(t, b)).toEqual({ ...zero, paidOutCents: netB });
    const listed = await t.api.as(a).get('/sellers/me/payouts');
    expect(listed.body.payouts).toHaveLength(1);
    expect(listed.body.payouts[0]).toMatchObject({
      amountCents: netA,
      status: 'paid',
      transfers: [
        { orderId: oa.id, orderNumber: oa.number, amountCents: netA, status: 'paid', reversedCents: 0 },
      ],
    });
    const [transferA] = await database.db
      .select()
      .from(payoutTransfers)
      .where(eq(payoutTransfers.orderId, oa.id));
    expect(transferA?.transferGroup).toBe(session.sessionId);
    expect(await ledgerProblems(database, t)).toEqual([]);

    // A return of the $10.00 item after the payout: the seller's share of the refund, commission
    // and its tax given back in proportion, is taken back from the transfer.
    const r = await t.api
      .as(shopper)
      .post('/returns', { order_id: oa.id, reason: 'damaged', items: [returned.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const approved = await t.api.as(a).post(`/returns/${r.body.return_id}/approve`, {});
    expect(approved.body.status).toBe('refunded');
    const refunded = (await orderRow(oa.id)).refundedCents;
    expect(refunded).toBeGreaterThan(1000);
    const commissionBack = roundHalfUp(oa.platformFeeCents * refunded, oa.totalAmountCents);
    const taxBack = roundHalfUp(taxA * refunded, oa.totalAmountCents);
    const share = refunded - commissionBack - taxBack;
    // Asked for in the refund's transaction: on its way back.
    expect(await balanceOf(t, a)).toEqual({ ...zero, inTransitCents: -share, paidOutCents: netA });
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, a)).toEqual({ ...zero, paidOutCents: netA - share });
    const [reversal] = await database.db
      .select()
      .from(transferReversals)
      .where(eq(transferReversals.orderId, oa.id));
    expect(reversal).toMatchObject({ status: 'succeeded', amountCents: share });
    expect((await t.api.as(a).get('/sellers/me/payouts')).body.payouts[0].transfers[0].reversedCents).toBe(
      share,
    );
    expect(await ledgerProblems(database, t)).toEqual([]);

    // A dispute of the whole payment left: shared by what is left of each order, its $15.00 fee
    // too; both balances go negative (the money was paid out).
    const leftA = oa.totalAmountCents - refunded;
    const leftB = ob.totalAmountCents;
    const disputed = leftA + leftB;
    const feeA = Math.round((1500 * leftA) / disputed);
    const feeB = 1500 - feeA;
    const dispute = disputeObject({
      id: 'dp_test_money_path',
      amountCents: disputed,
      paymentIntentId: oa.paymentIntentId,
      reason: 'fraudulent',
      dueBy: Math.floor(t.clock.now().getTime() / 1000) + 7 * 86_400,
    });
    const opened = await postEvent(t, {
      id: 'evt_dispute_created_1',
      object: 'event',
      type: 'charge.dispute.created',
      data: { object: dispute },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const owesA = netA - share + feeA;
    const owesB = netB + feeB;
    expect(await balanceOf(t, a)).toEqual({ ...zero, availableCents: -owesA, paidOutCents: netA - share });
    expect(await balanceOf(t, b)).toEqual({ ...zero, availableCents: -owesB, paidOutCents: netB });
    // Each seller is told, once, with the deadline (the notices job).
    await t.app.jobs.runOnce('notices');
    const mails = await outboxRows(database, 'dispute-opened:dp_test_money_path');
    expect(mails.map((m) => m.toAddress).sort()).toEqual([a.email, b.email].sort());
    const toA = mails.find((m) => m.toAddress === a.email)!;
    expect(toA.subject).toBe(`A buyer disputed the payment of order ${oa.number}`);
    expect(toA.textBody).toContain(`$${(feeA / 100).toFixed(2)}`);
    expect(toA.textBody).toContain('http://portage.test/console/payouts');
    // ...and in each seller's inbox.
    for (const [s, o] of [
      [a, oa],
      [b, ob],
    ] as const) {
      const inbox = await t.api.as(s).get('/sellers/me/notifications');
      expect(
        inbox.body.notifications.find((n: { kind: string }) => n.kind === 'dispute_opened'),
      ).toMatchObject({
        subjectId: `dp_test_money_path:${o.id}`,
        link: '/console/payouts',
        message: expect.stringMatching(new RegExp(`^A buyer disputed the payment of order ${o.number}: \\$`)),
      });
    }
    const disputes = await t.api.as(b).get('/sellers/me/disputes');
    expect(disputes.body.disputes).toEqual([
      expect.objectContaining({
        id: 'dp_test_money_path',
        orderId: ob.id,
        outcome: 'open',
        amountCents: leftB,
        feeCents: feeB,
        evidenceDueBy: dispute.evidence_details.due_by,
      }),
    ]);
    const evidence = await t.api
      .as(b)
      .post('/sellers/me/disputes/dp_test_money_path/evidence', { text: 'Delivered with a signature.' });
    expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
    expect((await t.api.as(b).get('/sellers/me/disputes')).body.disputes[0]).toMatchObject({
      status: 'under_review',
      evidenceSubmittedAt: expect.any(Number),
      evidenceFileSent: false,
    });
    // Another seller's dispute is not theirs to answer.
    const stranger = await seller(t.api);
    expect(
      (await t.api.as(stranger).post('/sellers/me/disputes/dp_test_money_path/evidence', { text: 'x' }))
        .status,
    ).toBe(404);
    const deskOpen = await t.api.as(boss).get('/admin/payouts');
    expect(deskOpen.body.openDisputes).toEqual([
      expect.objectContaining({ id: 'dp_test_money_path', feeCents: 1500 }),
    ]);

    // Lost: the money stays out; the platform gave back all its commission and tax.
    const closed = await postEvent(t, {
      id: 'evt_dispute_closed_1',
      object: 'event',
      type: 'charge.dispute.closed',
      data: { object: { ...dispute, status: 'lost' } },
    });
    expect(closed.status).toBe(200);
    expect(await balanceOf(t, a)).toEqual({ ...zero, availableCents: -owesA, paidOutCents: netA - share });
    const deskAfter = await t.api.as(boss).get('/admin/payouts');
    expect(deskAfter.body).toMatchObject({
      commissionCents: 0,
      commissionTaxCents: 0,
      owedToSellersCents: -(owesA + owesB),
      openDisputes: [],
    });
    expect(deskAfter.body.providerCashCents).toBe(
      oa.totalAmountCents + ob.totalAmountCents - (netA + netB) + share - refunded - disputed - 1500,
    );
    expect(await ledgerProblems(database, t)).toEqual([]);

    // A later sale recovers the debt first: its payout is what is left of it.
    const again = await product(t.api, a, { priceCents: 20000, stockQuantity: 5 });
    await addToCart(t.api, shopper, again.id, 1);
    const second = await openCheckout(t.api, shopper, ON_ADDRESS);
    const [secondId] = await payOk(t.api, second.sessionId);
    const o2 = await orderRow(secondId!);
    const net2 = o2.totalAmountCents - o2.platformFeeCents - roundHalfUp(o2.platformFeeCents * 13, 100);
    await ship(t, a, o2.id);
    await deliver(t, a, o2.id);
    advance(14 * DAY);
    await fresh();
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, a)).toEqual({ ...zero, paidOutCents: netA - share + net2 - owesA });
    const latest = (await t.api.as(a).get('/sellers/me/payouts')).body.payouts[0];
    expect(latest).toMatchObject({
      amountCents: net2 - owesA,
      status: 'paid',
      transfers: [{ orderId: o2.id, amountCents: net2 - owesA }],
    });
    expect(await ledgerProblems(database, t)).toEqual([]);
  });
});
