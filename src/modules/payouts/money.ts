// What each event does to a seller's money (docs/payouts.md "The ledger"), written in the
// event's own transaction: a sale, a refund, a delivery's release after the hold, a dispute.
// Every share is in proportion to the order's total, counted cumulatively so that refunds adding
// up to the whole give back exactly the commission and its tax, never a cent more or less.
import { and, eq, isNull, lte } from 'drizzle-orm';
import { PROVINCES, type Province, randomKey } from '../../contract/common.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import type { EventOf } from '../events.ts';
import { lockSellers, type OrderLedger, orderLedgers, post } from '../ledger/ledger.ts';
import { recordSalesLater } from '../ledger/queries.ts';
import { ledgerReleases } from '../ledger/tables.ts';
import { moneyOfOrders } from '../orders/service.ts';
import { roundHalfUp } from '../pricing/money.ts';
import { taxFor } from '../pricing/tax.ts';
import { requestReversals } from './reversals.ts';

/** Where the platform's commission is taxed when the seller's province is not known. */
const DEFAULT_SELLER_PROVINCE: Province = 'ON';

/**
 * The GST/HST the platform charges on its commission, by the seller's province, per 100,000: the
 * federal part of the province's tax (a service to the seller, taxed where the seller is);
 * provincial sales taxes (PST, QST) are left to the operator's own registrations. `default`: a
 * seller whose province is not known.
 */
export function commissionTaxRates(on: Date): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const province of PROVINCES) {
    rates[province] = taxFor(province, 0, on)
      .lines.filter((l) => l.name === 'GST' || l.name === 'HST')
      .reduce((sum, l) => sum + Math.round(l.ratePercent * 1000), 0);
  }
  rates.default = rates[DEFAULT_SELLER_PROVINCE]!;
  return rates;
}

/** The GST/HST on a commission, as the sale's statement computes it (rounded half-up). */
export function commissionTaxCents(province: string | null, commissionCents: number, on: Date): number {
  const rates = commissionTaxRates(on);
  return roundHalfUp(commissionCents * (rates[province ?? ''] ?? rates.default!), 100_000);
}

/** `part` of `whole`'s share of `amount`, between `before` and `before + amount` of it, cumulatively rounded. */
export function shareOf(part: number, whole: number, before: number, amount: number): number {
  if (whole <= 0) return 0;
  return roundHalfUp(part * (before + amount), whole) - roundHalfUp(part * before, whole);
}

/**
 * What a refund or a dispute of `amount` takes from an order: the commission and its tax given
 * back by the platform in proportion, the platform's coupon share taken back from the seller in
 * proportion too (the buyer paid less by it), the rest from the seller, pending money first.
 */
export function takeBack(led: OrderLedger, before: number, amount: number) {
  const commission = shareOf(led.commissionCents, led.saleCents, before, amount);
  const tax = shareOf(led.commissionTaxCents, led.saleCents, before, amount);
  const promotion = shareOf(led.promotionCents, led.saleCents, before, amount);
  const seller = amount + promotion - commission - tax;
  const fromPending = Math.max(0, Math.min(seller, led.pendingCents));
  return { commission, tax, promotion, fromPending, fromAvailable: seller - fromPending };
}

/**
 * checkout.completed: each order's sale, in the payment's transaction: cash +total, the seller's
 * share (total less commission and its tax) pending, the commission and its tax the platform's;
 * one statement sent with the transaction's next (ledger/queries.ts).
 */
export async function recordSales(ctx: RequestContext, event: EventOf<'checkout.completed'>): Promise<void> {
  await recordSalesLater(ctx, {
    orderIds: event.orderIds,
    rates: commissionTaxRates(ctx.now()),
    now: ctx.now(),
  });
}

/**
 * refund.succeeded: the buyer's money out, the seller's share taken back (a transfer reversal
 * asked for when the order's money was transferred already). A refund of a payment that made no
 * order, or of an order paid before the ledger, is not the seller's money: nothing written.
 */
export async function recordRefund(ctx: RequestContext, event: EventOf<'refund.succeeded'>): Promise<void> {
  const [order] = await moneyOfOrders(ctx, { orderIds: [event.orderId] });
  if (!order) return;
  await lockSellers(ctx, [order.sellerId]);
  const led = (await orderLedgers(ctx, [order.id])).get(order.id);
  if (!led || led.saleCents === 0) return;
  const amount = Math.min(event.amountCents, led.saleCents - led.refundedCents);
  if (amount <= 0) return;
  const taken = takeBack(led, led.refundedCents, amount);
  const key = `refund:${event.refundId}`;
  const written = await post(ctx, [
    {
      key,
      kind: 'refund',
      sellerId: order.sellerId,
      entries: [
        { account: 'provider_cash', orderId: order.id, amountCents: -amount },
        { account: 'seller_pending', orderId: order.id, amountCents: taken.fromPending },
        { account: 'seller_available', orderId: order.id, amountCents: taken.fromAvailable },
        { account: 'platform_commission', orderId: order.id, amountCents: taken.commission },
        { account: 'platform_tax_payable', orderId: order.id, amountCents: taken.tax },
        { account: 'platform_promotions', orderId: order.id, amountCents: -taken.promotion },
      ],
    },
  ]);
  if (written.has(key) && taken.fromAvailable > 0) {
    // What the seller now owes on this order: taken back from its transfer when there is one.
    await requestReversals(ctx, order, led.availableCents - taken.fromAvailable, key);
  }
}

/** order.delivered: the order's money becomes available PAYOUT_HOLD_DAYS later (the release job). */
export async function scheduleRelease(ctx: RequestContext, event: EventOf<'order.delivered'>): Promise<void> {
  await ctx.db
    .insert(ledgerReleases)
    .values({ orderId: event.orderId, sellerId: event.sellerId, deliveredAt: ctx.now() })
    .onConflictDoNothing();
}

/** The release job's pass: delivered orders past the hold have their pending money made available. */
export async function releaseDue(ctx: RequestContext, holdDays: number, limit: number): Promise<number> {
  const cutoff = new Date(ctx.now().getTime() - holdDays * 86_400_000);
  const due = await ctx.db
    .select({ orderId: ledgerReleases.orderId, sellerId: ledgerReleases.sellerId })
    .from(ledgerReleases)
    .where(and(isNull(ledgerReleases.releasedAt), lte(ledgerReleases.deliveredAt, cutoff)))
    .orderBy(ledgerReleases.deliveredAt)
    .limit(limit);
  for (const r of due) {
    await inTransaction(ctx, async (tx) => {
      await lockSellers(tx, [r.sellerId]);
      const [marked] = await tx.db
        .update(ledgerReleases)
        .set({ releasedAt: tx.now() })
        .where(and(eq(ledgerReleases.orderId, r.orderId), isNull(ledgerReleases.releasedAt)))
        .returning({ orderId: ledgerReleases.orderId });
      if (!marked) return;
      const led = (await orderLedgers(tx, [r.orderId])).get(r.orderId);
      const pending = led?.pendingCents ?? 0;
      await post(tx, [
        {
          key: `release:${r.orderId}`,
          kind: 'release',
          sellerId: r.sellerId,
          entries: [
            { account: 'seller_pending', orderId: r.orderId, amountCents: pending },
            { account: 'seller_available', orderId: r.orderId, amountCents: -pending },
          ],
        },
      ]);
    });
  }
  return due.length;
}

/**
 * An operator's adjustment of a seller's available money (a goodwill credit, a correction):
 * positive pays the seller more at their next payout, negative takes it back. Its entries name a
 * pseudo-order `adj_<id>` of their own, so a payout carries it like an order's money.
 */
export async function adjustSeller(
  tx: RequestContext,
  input: { sellerId: string; amountCents: number; reason: string; adminId: string },
): Promise<{ id: string }> {
  const id = `adj_${randomKey(12).replace(/[-_]/g, 'x')}`;
  await lockSellers(tx, [input.sellerId]);
  await post(tx, [
    {
      key: `adjustment:${id}`,
      kind: 'adjustment',
      sellerId: input.sellerId,
      memo: `${input.adminId}: ${input.reason}`,
      entries: [
        { account: 'seller_available', orderId: id, amountCents: -input.amountCents },
        { account: 'platform_adjustments', orderId: id, amountCents: input.amountCents },
      ],
    },
  ]);
  return { id };
}
