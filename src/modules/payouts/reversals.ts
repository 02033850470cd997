// Money taken back from a seller's transfer after a refund of its order (docs/payouts.md
// "Refunds after a payout"): asked for in the refund's transaction (the owed amount moves from
// the seller's available balance to "in transit" back to us), sent once the transfer exists,
// with the reversal's id as the idempotency key. One that cannot be made puts the debt back on
// the balance, recovered from the next sales.
import { and, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { randomKey } from '../../contract/common.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { lockSellers, post } from '../ledger/ledger.ts';
import type { OrderMoney } from '../orders/service.ts';
import { ProviderError } from '../payments/provider.ts';
import type { PayoutProvider } from './provider.ts';
import { payoutTransfers, transferReversals } from './tables.ts';

/** 1 min, 5 min, 30 min, 2 h, 6 h, 10 h: then failed (Stripe keeps an idempotency key 24 hours). */
export const BACKOFF_SECONDS = [60, 300, 1800, 7200, 21_600, 36_000];
export const MAX_ATTEMPTS = BACKOFF_SECONDS.length + 1;

/** The SQL of the next attempt's time after `attempts` tries. */
export const nextAttemptSql = (now: Date, attempts: unknown) =>
  sql`${now}::timestamptz + make_interval(secs => (array[${sql.raw(BACKOFF_SECONDS.join(','))}])[least(${attempts} + 1, ${BACKOFF_SECONDS.length})])`;

/**
 * In the refund's transaction, under the seller's lock: when the seller now owes on this order
 * (`availableCents` negative) and the order's money went out in transfers, asks for reversals of
 * what is owed, newest transfer first, up to what each carried and is not yet taken back.
 */
export async function requestReversals(
  tx: RequestContext,
  order: OrderMoney,
  availableCents: number,
  cause: string,
): Promise<void> {
  let owed = -availableCents;
  if (owed <= 0) return;
  const transfers = await tx.db
    .select({
      payoutId: payoutTransfers.payoutId,
      room: sql<number>`(${payoutTransfers.amountCents} - ${payoutTransfers.reversedCents} - coalesce((
        select sum(r.amount_cents) from ${transferReversals} r
        where r.payout_id = ${payoutTransfers.payoutId} and r.order_id = ${payoutTransfers.orderId}
          and r.status = 'requested'), 0))::int`,
    })
    .from(payoutTransfers)
    .where(and(eq(payoutTransfers.orderId, order.id), inArray(payoutTransfers.status, ['requested', 'paid'])))
    .orderBy(desc(payoutTransfers.nextAttemptAt));
  for (const t of transfers) {
    const amount = Math.min(owed, Number(t.room));
    if (amount <= 0) continue;
    const id = `trr_${randomKey(12).replace(/[-_]/g, 'x')}`;
    const [made] = await tx.db
      .insert(transferReversals)
      .values({
        id,
        payoutId: t.payoutId,
        orderId: order.id,
        sellerId: order.sellerId,
        cause,
        amountCents: amount,
        nextAttemptAt: tx.now(),
        createdAt: tx.now(),
      })
      .onConflictDoNothing()
      .returning({ id: transferReversals.id });
    if (!made) continue;
    await post(tx, [
      {
        key: `reversal:${id}`,
        kind: 'reversal_requested',
        sellerId: order.sellerId,
        entries: [
          { account: 'seller_available', orderId: order.id, amountCents: -amount },
          { account: 'seller_in_transit', orderId: order.id, amountCents: amount },
        ],
      },
    ]);
    owed -= amount;
  }
}

/** The reversals job's pass: sends the due reversals whose transfer exists (at most `limit`). */
export async function sendDueReversals(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  limit: number,
): Promise<number> {
  const due = await ctx.db
    .select({ id: transferReversals.id })
    .from(transferReversals)
    .innerJoin(
      payoutTransfers,
      and(
        eq(payoutTransfers.payoutId, transferReversals.payoutId),
        eq(payoutTransfers.orderId, transferReversals.orderId),
      ),
    )
    .where(
      and(
        eq(transferReversals.status, 'requested'),
        lte(transferReversals.nextAttemptAt, ctx.now()),
        // Still being made: its reversal waits for it.
        inArray(payoutTransfers.status, ['paid', 'failed']),
      ),
    )
    .orderBy(transferReversals.nextAttemptAt)
    .limit(limit);
  for (const r of due) await sendReversal(ctx, deps, r.id);
  return due.length;
}

async function sendReversal(
  ctx: RequestContext,
  deps: { payouts: PayoutProvider },
  id: string,
): Promise<void> {
  const now = ctx.now();
  const [claimed] = await ctx.db
    .update(transferReversals)
    .set({
      attempts: sql`${transferReversals.attempts} + 1`,
      nextAttemptAt: nextAttemptSql(now, transferReversals.attempts),
    })
    .where(
      and(
        eq(transferReversals.id, id),
        eq(transferReversals.status, 'requested'),
        lte(transferReversals.nextAttemptAt, now),
      ),
    )
    .returning();
  if (!claimed) return;
  const [transfer] = await ctx.db
    .select()
    .from(payoutTransfers)
    .where(and(eq(payoutTransfers.payoutId, claimed.payoutId), eq(payoutTransfers.orderId, claimed.orderId)));
  if (!transfer?.transferId || transfer.status !== 'paid') {
    // The transfer failed: its money came back to the balance; the debt stays there.
    await endReversal(ctx, claimed, 'cancelled', 'the transfer was not made');
    return;
  }
  try {
    const done = await deps.payouts.reverseTransfer({
      transferId: transfer.transferId,
      amountCents: claimed.amountCents,
      idempotencyKey: claimed.id,
      metadata: { orderId: claimed.orderId, payoutId: claimed.payoutId, cause: claimed.cause },
    });
    await inTransaction(ctx, async (tx) => {
      await lockSellers(tx, [claimed.sellerId]);
      const [marked] = await tx.db
        .update(transferReversals)
        .set({
          status: 'succeeded',
          providerReversalId: done.reversalId,
          completedAt: tx.now(),
          lastError: null,
        })
        .where(and(eq(transferReversals.id, claimed.id), eq(transferReversals.status, 'requested')))
        .returning({ id: transferReversals.id });
      if (!marked) return;
      await tx.db
        .update(payoutTransfers)
        .set({ reversedCents: sql`${payoutTransfers.reversedCents} + ${claimed.amountCents}` })
        .where(
          and(eq(payoutTransfers.payoutId, claimed.payoutId), eq(payoutTransfers.orderId, claimed.orderId)),
        );
      await post(tx, [
        {
          key: `reversal-done:${claimed.id}`,
          kind: 'reversal_done',
          sellerId: claimed.sellerId,
          entries: [
            { account: 'seller_in_transit', orderId: claimed.orderId, amountCents: -claimed.amountCents },
            { account: 'provider_cash', orderId: claimed.orderId, amountCents: claimed.amountCents },
          ],
        },
      ]);
    });
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'unexpected error';
    const giveUp = (err instanceof ProviderError && !err.retryable) || claimed.attempts >= MAX_ATTEMPTS;
    ctx.log.error({ reversalId: claimed.id, err: message, giveUp }, 'transfer reversal not made');
    if (giveUp) await endReversal(ctx, claimed, 'failed', message);
    else {
      await ctx.db
        .update(transferReversals)
        .set({ lastError: message.slice(0, 500) })
        .where(eq(transferReversals.id, claimed.id));
    }
  }
}

/** A reversal that will not be made: the seller's debt goes back to the available balance. */
async function endReversal(
  ctx: RequestContext,
  r: typeof transferReversals.$inferSelect,
  status: 'failed' | 'cancelled',
  why: string,
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await lockSellers(tx, [r.sellerId]);
    const [marked] = await tx.db
      .update(transferReversals)
      .set({ status, lastError: why.slice(0, 500), completedAt: tx.now() })
      .where(and(eq(transferReversals.id, r.id), eq(transferReversals.status, 'requested')))
      .returning({ id: transferReversals.id });
    if (!marked) return;
    await post(tx, [
      {
        key: `reversal-failed:${r.id}`,
        kind: 'reversal_failed',
        sellerId: r.sellerId,
        entries: [
          { account: 'seller_in_transit', orderId: r.orderId, amountCents: -r.amountCents },
          { account: 'seller_available', orderId: r.orderId, amountCents: r.amountCents },
        ],
      },
    ]);
  });
}
