// Disputes (docs/payouts.md "Disputes"): a buyer's chargeback of a checkout's payment. When the
// provider opens one, the disputed amount and its fee leave the balances of the sellers of that
// checkout, shared in proportion to what is left of each order (commission and its tax given
// back by the platform in proportion, as for a refund); a dispute won gives it all back, a lost
// one keeps it out. Each step is written with the event's record, once.
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { toUnix } from '../../contract/common.ts';
import type { RequestContext } from '../context.ts';
import { type LedgerEntry, lockSellers, orderLedgers, post } from '../ledger/ledger.ts';
import { ledgerEntries } from '../ledger/tables.ts';
import { moneyOfOrders } from '../orders/service.ts';
import type { DisputeFacts } from '../payments/provider.ts';
import { notifyDisputeOpened } from './mail.ts';
import { takeBack } from './money.ts';
import type { PayoutProvider } from './provider.ts';
import { disputeOrders, disputes } from './tables.ts';

/** Splits `amount` over `weights` in proportion, cumulatively rounded: the parts sum to `amount`. */
export function proportional(amount: number, weights: number[]): number[] {
  const whole = weights.reduce((s, w) => s + w, 0);
  if (whole <= 0) return weights.map((_, i) => (i === 0 ? amount : 0));
  let before = 0;
  let given = 0;
  return weights.map((w) => {
    before += w;
    const upTo = Math.round((amount * before) / whole);
    const part = upTo - given;
    given = upTo;
    return part;
  });
}

const outcomeOf = (status: string): 'open' | 'won' | 'lost' =>
  status === 'won' ? 'won' : status === 'lost' ? 'lost' : 'open';

/**
 * A dispute event, in the webhook's transaction. An unknown dispute is opened whatever the
 * phase says (its `created` may arrive after its `updated`); a payment that is not one of our
 * orders' is ignored.
 */
export async function applyDispute(
  tx: RequestContext,
  deps: { provider: string; disputeFeeCents: number; publicBaseUrl?: string },
  facts: DisputeFacts,
): Promise<void> {
  const orders = await moneyOfOrders(tx, { paymentIntentId: facts.paymentIntentId });
  if (orders.length === 0) {
    tx.log.warn({ disputeId: facts.id }, 'a dispute of a payment that made no order');
    return;
  }
  // The sellers' locks first: two events of one dispute (its created and updated, delivered at
  // once) take their turns, and the second finds the first's dispute.
  await lockSellers(
    tx,
    orders.map((o) => o.sellerId),
  );
  const [known] = await tx.db.select().from(disputes).where(eq(disputes.id, facts.id));
  const now = tx.now();
  if (!known) {
    const ledgers = await orderLedgers(
      tx,
      orders.map((o) => o.id),
    );
    const inLedger = orders.filter((o) => (ledgers.get(o.id)?.saleCents ?? 0) > 0);
    const left = inLedger.map((o) => {
      const l = ledgers.get(o.id)!;
      return Math.max(0, l.saleCents - l.refundedCents);
    });
    const fee = facts.feeCents ?? deps.disputeFeeCents;
    const amounts = proportional(
      Math.min(
        facts.amountCents,
        left.reduce((s, v) => s + v, 0),
      ),
      left,
    );
    const fees = proportional(fee, left);
    await tx.db.insert(disputes).values({
      id: facts.id,
      provider: deps.provider,
      paymentIntentId: facts.paymentIntentId,
      checkoutId: orders[0]!.checkoutId,
      amountCents: facts.amountCents,
      feeCents: fee,
      reason: facts.reason.slice(0, 100),
      status: facts.status.slice(0, 50),
      outcome: 'open',
      evidenceDueBy: facts.evidenceDueBy,
      createdAt: now,
      updatedAt: now,
    });
    if (inLedger.length > 0) {
      await tx.db.insert(disputeOrders).values(
        inLedger.map((o, i) => ({
          disputeId: facts.id,
          orderId: o.id,
          sellerId: o.sellerId,
          amountCents: amounts[i]!,
          feeCents: fees[i]!,
        })),
      );
    }
    await post(
      tx,
      inLedger.map((o, i) => {
        const led = ledgers.get(o.id)!;
        const amount = amounts[i]!;
        const orderFee = fees[i]!;
        const taken = takeBack(led, led.refundedCents, amount);
        // The fee is the seller's too, pending money first.
        const feePending = Math.max(0, Math.min(orderFee, led.pendingCents - taken.fromPending));
        return {
          key: `dispute:${facts.id}:${o.id}`,
          kind: 'dispute_opened' as const,
          sellerId: o.sellerId,
          entries: [
            { account: 'provider_cash', orderId: o.id, amountCents: -(amount + orderFee) },
            { account: 'seller_pending', orderId: o.id, amountCents: taken.fromPending + feePending },
            {
              account: 'seller_available',
              orderId: o.id,
              amountCents: taken.fromAvailable + orderFee - feePending,
            },
            { account: 'platform_commission', orderId: o.id, amountCents: taken.commission },
            { account: 'platform_tax_payable', orderId: o.id, amountCents: taken.tax },
            { account: 'platform_promotions', orderId: o.id, amountCents: -taken.promotion },
          ] satisfies LedgerEntry[],
        };
      }),
    );
    for (const [i, o] of inLedger.entries()) {
      await notifyDisputeOpened(tx, {
        disputeId: facts.id,
        sellerId: o.sellerId,
        orderId: o.id,
        orderNumber: o.number,
        amountCents: amounts[i]!,
        feeCents: fees[i]!,
        evidenceDueBy: facts.evidenceDueBy,
      });
    }
    if (outcomeOf(facts.status) !== 'open') await closeDispute(tx, facts);
    return;
  }
  if (known.outcome !== 'open') return;
  await tx.db
    .update(disputes)
    .set({ status: facts.status.slice(0, 50), evidenceDueBy: facts.evidenceDueBy, updatedAt: now })
    .where(eq(disputes.id, facts.id));
  if (outcomeOf(facts.status) !== 'open') await closeDispute(tx, facts);
}

/**
 * Won: the disputed amount comes back (the seller's share to pending, or available once released;
 * the commission and its tax to the platform); the provider keeps its fee, and so does the
 * seller's balance. Lost: nothing comes back.
 */
async function closeDispute(tx: RequestContext, facts: DisputeFacts): Promise<void> {
  const outcome = outcomeOf(facts.status);
  await tx.db
    .update(disputes)
    .set({ outcome, status: facts.status.slice(0, 50), closedAt: tx.now(), updatedAt: tx.now() })
    .where(eq(disputes.id, facts.id));
  if (outcome !== 'won') return;
  const shares = await tx.db.select().from(disputeOrders).where(eq(disputeOrders.disputeId, facts.id));
  if (shares.length === 0) return;
  await lockSellers(
    tx,
    shares.map((s) => s.sellerId),
  );
  const opened = await tx.db
    .select()
    .from(ledgerEntries)
    .where(
      and(
        inArray(
          ledgerEntries.orderId,
          shares.map((s) => s.orderId),
        ),
        inArray(
          ledgerEntries.transactionKey,
          shares.map((s) => `dispute:${facts.id}:${s.orderId}`),
        ),
      ),
    );
  const ledgers = await orderLedgers(
    tx,
    shares.map((s) => s.orderId),
  );
  const given = (orderId: string, account: LedgerEntry['account']) =>
    opened
      .filter((e) => e.orderId === orderId && e.account === account)
      .reduce((sum, e) => sum + e.amountCents, 0);
  await post(
    tx,
    shares.map((s) => {
      const commission = given(s.orderId, 'platform_commission');
      const tax = given(s.orderId, 'platform_tax_payable');
      const promotion = given(s.orderId, 'platform_promotions');
      const released = ledgers.get(s.orderId)?.released ?? false;
      return {
        key: `dispute:${facts.id}:${s.orderId}:won`,
        kind: 'dispute_won' as const,
        sellerId: s.sellerId,
        entries: [
          { account: 'provider_cash', orderId: s.orderId, amountCents: s.amountCents },
          {
            account: released ? 'seller_available' : 'seller_pending',
            orderId: s.orderId,
            amountCents: -(s.amountCents - commission - tax - promotion),
          },
          { account: 'platform_commission', orderId: s.orderId, amountCents: -commission },
          { account: 'platform_tax_payable', orderId: s.orderId, amountCents: -tax },
          { account: 'platform_promotions', orderId: s.orderId, amountCents: -promotion },
        ] satisfies LedgerEntry[],
      };
    }),
  );
}

/** A seller's disputes, newest first: the dispute, their order's share, and their evidence. */
export async function disputesOf(ctx: RequestContext, sellerId: string, limit: number) {
  const rows = await ctx.db
    .select({ d: disputes, share: disputeOrders })
    .from(disputeOrders)
    .innerJoin(disputes, eq(disputes.id, disputeOrders.disputeId))
    .where(eq(disputeOrders.sellerId, sellerId))
    .orderBy(desc(disputes.createdAt), desc(disputes.id))
    .limit(limit);
  return rows.map(({ d, share }) => ({
    id: d.id,
    orderId: share.orderId,
    reason: d.reason,
    status: d.status,
    outcome: d.outcome,
    amountCents: share.amountCents,
    feeCents: share.feeCents,
    evidenceDueBy: d.evidenceDueBy ? toUnix(d.evidenceDueBy) : null,
    evidenceSubmittedAt: share.evidenceSubmittedAt ? toUnix(share.evidenceSubmittedAt) : null,
    /** A file went with the evidence (its name is not kept). */
    evidenceFileSent: share.evidenceFileId !== null,
    createdAt: toUnix(d.createdAt),
    closedAt: d.closedAt ? toUnix(d.closedAt) : null,
  }));
}

/** The open disputes, oldest first (the desk). */
export async function openDisputes(ctx: RequestContext, limit: number) {
  return ctx.db
    .select()
    .from(disputes)
    .where(eq(disputes.outcome, 'open'))
    .orderBy(asc(disputes.createdAt))
    .limit(limit);
}

/**
 * A seller's evidence for their order's share of an open dispute, before its deadline: sent to
 * the provider (outside any transaction), then recorded. Answers false when the dispute is not
 * theirs, is closed, or its deadline passed.
 */
export async function submitEvidence(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  sellerId: string,
  disputeId: string,
  evidence: { text: string; file?: { name: string; type: string; data: Buffer } },
): Promise<'sent' | 'not_found' | 'closed'> {
  const [row] = await ctx.db
    .select({ d: disputes, share: disputeOrders })
    .from(disputeOrders)
    .innerJoin(disputes, eq(disputes.id, disputeOrders.disputeId))
    .where(and(eq(disputeOrders.disputeId, disputeId), eq(disputeOrders.sellerId, sellerId)));
  if (!row) return 'not_found';
  if (row.d.outcome !== 'open' || (row.d.evidenceDueBy && row.d.evidenceDueBy <= ctx.now())) return 'closed';
  const sent = await deps.payouts.submitDisputeEvidence({
    disputeId,
    text: evidence.text,
    ...(evidence.file ? { file: evidence.file } : {}),
  });
  await ctx.db
    .update(disputeOrders)
    .set({
      evidenceText: evidence.text,
      evidenceFileId: sent.fileId ?? row.share.evidenceFileId,
      evidenceSubmittedAt: ctx.now(),
    })
    .where(and(eq(disputeOrders.disputeId, disputeId), eq(disputeOrders.orderId, row.share.orderId)));
  // Submitted evidence puts a dispute under review at the provider (Stripe's next event says so too).
  await ctx.db
    .update(disputes)
    .set({
      status: sql`case ${disputes.status} when 'warning_needs_response' then 'warning_under_review' else 'under_review' end`,
      updatedAt: ctx.now(),
    })
    .where(
      and(
        eq(disputes.id, disputeId),
        eq(disputes.outcome, 'open'),
        inArray(disputes.status, ['needs_response', 'warning_needs_response']),
      ),
    );
  return 'sent';
}
