// Payouts (docs/payouts.md "Money out"): on each seller's schedule, their available balance, if
// at least their minimum, becomes a payout in one transaction (the money moves to "in transit"
// in the ledger), sent as one transfer per order tied to its charge's transfer_group, each with
// the key `<payoutId>:<orderId>`: a retry, a second instance or a crash sends it once. A transfer
// that fails for good returns its money to the balance.
import { and, asc, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { randomKey, toUnix } from '../../contract/common.ts';
import { text } from '../../contract/i18n.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { publish } from '../events.ts';
import { availableByOrder, type LedgerEntry, lockSellers, post } from '../ledger/ledger.ts';
import { moneyOfOrders } from '../orders/service.ts';
import { ProviderError } from '../payments/provider.ts';
import { nextPayoutTime } from './accounts.ts';
import type { PayoutProvider } from './provider.ts';
import { MAX_ATTEMPTS, nextAttemptSql } from './reversals.ts';
import { payouts, payoutTransfers, sellerPayoutAccounts } from './tables.ts';

/**
 * Splits a seller's available money by order into transfers: what the seller owes on some
 * orders (negative) is recovered from the oldest orders owed to them first. `orders` oldest
 * first; answers the transfers (positive amounts) summing to the net.
 */
export function allocateTransfers(orders: Array<{ orderId: string; cents: number }>) {
  let debt = orders.reduce((s, o) => s + (o.cents < 0 ? -o.cents : 0), 0);
  const transfers: Array<{ orderId: string; amountCents: number }> = [];
  for (const o of orders) {
    if (o.cents <= 0) continue;
    const recovered = Math.min(debt, o.cents);
    debt -= recovered;
    if (o.cents - recovered > 0) transfers.push({ orderId: o.orderId, amountCents: o.cents - recovered });
  }
  return transfers;
}

/**
 * In its own transaction, under the seller's account row and ledger lock: the seller's payout if
 * they are due and their available money reaches their minimum (`force`: due or not, an
 * operator's "pay now"). Moves the account's next payout time on either way. Answers the payout's id.
 */
export async function makePayout(
  ctx: RequestContext,
  sellerId: string,
  opts: { force?: boolean } = {},
): Promise<string | undefined> {
  return inTransaction(ctx, async (tx) => {
    const now = tx.now();
    const [account] = await tx.db
      .select()
      .from(sellerPayoutAccounts)
      .where(
        and(
          eq(sellerPayoutAccounts.sellerId, sellerId),
          eq(sellerPayoutAccounts.payoutsEnabled, true),
          ...(opts.force ? [] : [lte(sellerPayoutAccounts.nextPayoutAt, now)]),
        ),
      )
      .for('update');
    if (!account) return undefined;
    if (!opts.force) {
      await tx.db
        .update(sellerPayoutAccounts)
        .set({ nextPayoutAt: nextPayoutTime(account.schedule, now) })
        .where(eq(sellerPayoutAccounts.sellerId, sellerId));
    }
    await lockSellers(tx, [sellerId]);
    const byOrder = await availableByOrder(tx, sellerId);
    const net = byOrder.reduce((s, o) => s + o.cents, 0);
    if (net <= 0 || net < account.minimumCents) return undefined;
    const facts = new Map(
      (await moneyOfOrders(tx, { orderIds: byOrder.map((o) => o.orderId) })).map((o) => [o.id, o]),
    );
    // Oldest orders first (moneyOfOrders' order): the debts are recovered from them.
    const ordered = [...byOrder].sort(
      (a, b) =>
        (facts.get(a.orderId)?.createdAt.getTime() ?? 0) - (facts.get(b.orderId)?.createdAt.getTime() ?? 0) ||
        a.orderId.localeCompare(b.orderId),
    );
    const transfers = allocateTransfers(ordered);
    const id = `po_${randomKey(12).replace(/[-_]/g, 'x')}`;
    await tx.db.insert(payouts).values({ id, sellerId, amountCents: net, createdAt: now });
    await tx.db.insert(payoutTransfers).values(
      transfers.map((t) => ({
        payoutId: id,
        orderId: t.orderId,
        sellerId,
        transferGroup: facts.get(t.orderId)?.checkoutId ?? t.orderId,
        amountCents: t.amountCents,
        nextAttemptAt: now,
      })),
    );
    const entries: LedgerEntry[] = [
      ...ordered.map((o) => ({
        account: 'seller_available' as const,
        orderId: o.orderId,
        amountCents: o.cents,
      })),
      ...transfers.map((t) => ({
        account: 'seller_in_transit' as const,
        orderId: t.orderId,
        amountCents: -t.amountCents,
      })),
    ];
    await post(tx, [{ key: `payout:${id}`, kind: 'payout', sellerId, entries }]);
    return id;
  });
}

/** The payout job's pass: the due sellers' payouts, then the due transfers. */
export async function runPayouts(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  limit: number,
): Promise<number> {
  const due = await ctx.db
    .select({ sellerId: sellerPayoutAccounts.sellerId })
    .from(sellerPayoutAccounts)
    .where(
      and(eq(sellerPayoutAccounts.payoutsEnabled, true), lte(sellerPayoutAccounts.nextPayoutAt, ctx.now())),
    )
    .orderBy(asc(sellerPayoutAccounts.nextPayoutAt))
    .limit(limit);
  for (const s of due) await makePayout(ctx, s.sellerId);
  const sent = await sendDueTransfers(ctx, deps, limit);
  return Math.max(due.length, sent);
}

/** Sends the due transfers (at most `limit`). */
export async function sendDueTransfers(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  limit: number,
): Promise<number> {
  const due = await ctx.db
    .select({ payoutId: payoutTransfers.payoutId, orderId: payoutTransfers.orderId })
    .from(payoutTransfers)
    .where(and(eq(payoutTransfers.status, 'requested'), lte(payoutTransfers.nextAttemptAt, ctx.now())))
    .orderBy(payoutTransfers.nextAttemptAt)
    .limit(limit);
  for (const t of due) await sendTransfer(ctx, deps, t.payoutId, t.orderId);
  return due.length;
}

async function sendTransfer(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  payoutId: string,
  orderId: string,
): Promise<void> {
  const now = ctx.now();
  const [claimed] = await ctx.db
    .update(payoutTransfers)
    .set({
      attempts: sql`${payoutTransfers.attempts} + 1`,
      nextAttemptAt: nextAttemptSql(now, payoutTransfers.attempts),
    })
    .where(
      and(
        eq(payoutTransfers.payoutId, payoutId),
        eq(payoutTransfers.orderId, orderId),
        eq(payoutTransfers.status, 'requested'),
        lte(payoutTransfers.nextAttemptAt, now),
      ),
    )
    .returning();
  if (!claimed) return;
  const [account] = await ctx.db
    .select({ accountId: sellerPayoutAccounts.accountId })
    .from(sellerPayoutAccounts)
    .where(eq(sellerPayoutAccounts.sellerId, claimed.sellerId));
  try {
    if (!account)
      throw new ProviderError('the seller has no payout account', text('error.payments.notProcessed'), false);
    const done = await deps.payouts.transfer({
      accountId: account.accountId,
      amountCents: claimed.amountCents,
      transferGroup: claimed.transferGroup,
      idempotencyKey: `${claimed.payoutId}:${claimed.orderId}`,
      metadata: { payoutId: claimed.payoutId, orderId: claimed.orderId, sellerId: claimed.sellerId },
    });
    await transferOutcome(ctx, claimed, { paid: done.transferId });
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'unexpected error';
    const giveUp = (err instanceof ProviderError && !err.retryable) || claimed.attempts >= MAX_ATTEMPTS;
    ctx.log.error({ payoutId, orderId, err: message, giveUp }, 'transfer not made');
    if (giveUp) await transferOutcome(ctx, claimed, { failed: message });
    else {
      await ctx.db
        .update(payoutTransfers)
        .set({ lastError: message.slice(0, 500) })
        .where(and(eq(payoutTransfers.payoutId, payoutId), eq(payoutTransfers.orderId, orderId)));
    }
  }
}

/**
 * A transfer's end: paid (the cash left us) or failed (its money is available again). The last of
 * its payout's transfers to end (under the seller's lock, so one transaction sees it) says the
 * payout ended (payout.ended: the seller's notification).
 */
async function transferOutcome(
  ctx: RequestContext,
  t: typeof payoutTransfers.$inferSelect,
  outcome: { paid: string } | { failed: string },
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await lockSellers(tx, [t.sellerId]);
    const paid = 'paid' in outcome;
    const [marked] = await tx.db
      .update(payoutTransfers)
      .set(
        paid
          ? { status: 'paid', transferId: outcome.paid, completedAt: tx.now(), lastError: null }
          : { status: 'failed', completedAt: tx.now(), lastError: outcome.failed.slice(0, 500) },
      )
      .where(
        and(
          eq(payoutTransfers.payoutId, t.payoutId),
          eq(payoutTransfers.orderId, t.orderId),
          eq(payoutTransfers.status, 'requested'),
        ),
      )
      .returning({ orderId: payoutTransfers.orderId });
    if (!marked) return;
    const key = `transfer${paid ? '' : '-failed'}:${t.payoutId}:${t.orderId}`;
    await post(tx, [
      {
        key,
        kind: paid ? 'transfer_paid' : 'transfer_failed',
        sellerId: t.sellerId,
        entries: [
          { account: 'seller_in_transit', orderId: t.orderId, amountCents: t.amountCents },
          paid
            ? { account: 'provider_cash', orderId: t.orderId, amountCents: -t.amountCents }
            : { account: 'seller_available', orderId: t.orderId, amountCents: -t.amountCents },
        ],
      },
    ]);
    const all = await tx.db
      .select({ status: payoutTransfers.status, amountCents: payoutTransfers.amountCents })
      .from(payoutTransfers)
      .where(eq(payoutTransfers.payoutId, t.payoutId));
    if (all.some((x) => x.status === 'requested')) return;
    const sum = (status: string) => all.reduce((n, x) => n + (x.status === status ? x.amountCents : 0), 0);
    await publish(tx, {
      type: 'payout.ended',
      payoutId: t.payoutId,
      sellerId: t.sellerId,
      paidCents: sum('paid'),
      failedCents: sum('failed'),
    });
  });
}

/** A payout's state, from its transfers. */
export type PayoutStatus = 'in_transit' | 'paid' | 'failed' | 'partly_failed';

export function payoutStatus(statuses: string[]): PayoutStatus {
  if (statuses.some((s) => s === 'requested')) return 'in_transit';
  if (statuses.every((s) => s === 'paid')) return 'paid';
  if (statuses.every((s) => s === 'failed')) return 'failed';
  return 'partly_failed';
}

/** A seller's payouts, newest first, each with its orders (their numbers) and status. */
export async function payoutsOf(ctx: RequestContext, sellerId: string, limit: number) {
  const rows = await ctx.db
    .select()
    .from(payouts)
    .where(eq(payouts.sellerId, sellerId))
    .orderBy(desc(payouts.createdAt), desc(payouts.id))
    .limit(limit);
  if (rows.length === 0) return [];
  const transfers = await ctx.db
    .select()
    .from(payoutTransfers)
    .where(
      inArray(
        payoutTransfers.payoutId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(payoutTransfers.orderId));
  const numbers = new Map(
    (await moneyOfOrders(ctx, { orderIds: [...new Set(transfers.map((t) => t.orderId))] })).map((o) => [
      o.id,
      o.number,
    ]),
  );
  return rows.map((p) => {
    const own = transfers.filter((t) => t.payoutId === p.id);
    return {
      id: p.id,
      amountCents: p.amountCents,
      status: payoutStatus(own.map((t) => t.status)),
      createdAt: toUnix(p.createdAt),
      transfers: own.map((t) => ({
        orderId: t.orderId,
        orderNumber: numbers.get(t.orderId) ?? null,
        amountCents: t.amountCents,
        status: t.status,
        transferId: t.transferId,
        reversedCents: t.reversedCents,
        ...(t.status === 'failed' ? { error: t.lastError } : {}),
      })),
    };
  });
}

/** Transfers that failed for good, newest first (the desk). */
export async function failedTransfers(ctx: RequestContext, limit: number) {
  return ctx.db
    .select()
    .from(payoutTransfers)
    .where(eq(payoutTransfers.status, 'failed'))
    .orderBy(desc(payoutTransfers.completedAt))
    .limit(limit);
}
