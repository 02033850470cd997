// Refunds: an intent written in the transaction that causes it (a cancellation, an approved
// return, a payment that made no order), sent to the provider after commit with the refund's id
// as the idempotency key, and retried by a job until it succeeds or fails for an operator. The
// refund's success is published (refund.succeeded); the orders and returns modules record it.
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { randomKey } from '../../contract/common.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { publish } from '../events.ts';
import { type PaymentProvider, ProviderError } from './provider.ts';
import { refundMachine } from './states.ts';
import { refunds, UNUSED_PAYMENT_PREDICATE, type UnusedPaymentReason } from './tables.ts';

export interface RefundDeps {
  provider: PaymentProvider;
  /** Wakes a background job now (the mail just written, a refund to retry). */
  nudge(job: 'mail' | 'refunds'): void;
}

/** Writes a refund intent in ctx's transaction; answers its id (also the provider's idempotency key). */
export async function requestRefund(
  ctx: RequestContext,
  /** The order refunded and its payment. */
  row: { id: string; paymentIntentId: string },
  amountCents: number,
  reason: string,
  /** The return whose approval asks for it (refunds.return_id is unique: one refund per return). */
  returnId?: string,
): Promise<string> {
  const id = `refund_${randomKey(12)}`;
  await ctx.db.insert(refunds).values(refundRow(ctx, id, row, amountCents, reason, returnId));
  await refundRequested(ctx, id, row.id, amountCents, returnId);
  return id;
}

/**
 * Writes, in ctx's transaction, the refund of a whole payment that made no order (`row` names
 * the checkout); answers its id, or undefined when that payment has one already: a payment is
 * given back once, whichever event or path reports it, racing or not (a unique index decides).
 */
export async function refundUnusedPayment(
  ctx: RequestContext,
  row: { id: string; paymentIntentId: string },
  amountCents: number,
  reason: UnusedPaymentReason,
): Promise<string | undefined> {
  const id = `refund_${randomKey(12)}`;
  const [written] = await ctx.db
    .insert(refunds)
    .values(refundRow(ctx, id, row, amountCents, reason))
    .onConflictDoNothing({
      target: refunds.paymentIntentId,
      where: UNUSED_PAYMENT_PREDICATE,
    })
    .returning({ id: refunds.id });
  if (!written) return undefined;
  await refundRequested(ctx, id, row.id, amountCents);
  return id;
}

function refundRow(
  ctx: RequestContext,
  id: string,
  row: { id: string; paymentIntentId: string },
  amountCents: number,
  reason: string,
  returnId?: string,
) {
  return {
    id,
    orderId: row.id,
    paymentIntentId: row.paymentIntentId,
    amountCents,
    reason,
    returnId: returnId ?? null,
    nextAttemptAt: ctx.now(),
    createdAt: ctx.now(),
  };
}

const refundRequested = (
  ctx: RequestContext,
  refundId: string,
  orderId: string,
  amountCents: number,
  returnId?: string,
) => publish(ctx, { type: 'refund.requested', refundId, orderId, returnId: returnId ?? null, amountCents });

/** What each order has refunded or has a refund on the way for (requested or made), in cents. */
export async function refundedCentsOf(ctx: RequestContext, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ orderId: refunds.orderId, cents: sql<number>`sum(${refunds.amountCents})::int` })
    .from(refunds)
    .where(and(inArray(refunds.orderId, orderIds), inArray(refunds.status, ['requested', 'succeeded'])))
    .groupBy(refunds.orderId);
  return new Map(rows.map((r) => [r.orderId, Number(r.cents)]));
}

/**
 * The refunds the provider made for an order, in the order they completed: an order's credit
 * notes (modules/invoices), numbered in this order, which a later refund does not change.
 */
export async function succeededRefundsOf(ctx: RequestContext, orderId: string) {
  return ctx.db
    .select({
      id: refunds.id,
      amountCents: refunds.amountCents,
      reason: refunds.reason,
      completedAt: refunds.completedAt,
      createdAt: refunds.createdAt,
    })
    .from(refunds)
    .where(and(eq(refunds.orderId, orderId), eq(refunds.status, 'succeeded')))
    .orderBy(asc(refunds.completedAt), asc(refunds.id));
}

/** What is left to refund of an order: its total less refunds requested or succeeded, not failed. */
export async function unrefundedCentsOf(
  ctx: RequestContext,
  row: { id: string; totalAmountCents: number },
): Promise<number> {
  const refunded = (await refundedCentsOf(ctx, [row.id])).get(row.id) ?? 0;
  return Math.max(0, row.totalAmountCents - refunded);
}

/**
 * Waits before the next try of a refund: 1 min, 5 min, 30 min, 2 h, 6 h, 10 h (about 19 hours in
 * all). Then it is `failed` for an operator: every try uses the same idempotency key, and Stripe
 * remembers a key for 24 hours only, so a later try could refund twice.
 */
const REFUND_BACKOFF_SECONDS = [60, 300, 1800, 7200, 21_600, 36_000];
const MAX_REFUND_ATTEMPTS = REFUND_BACKOFF_SECONDS.length + 1;

/**
 * Sends one refund to the provider: claimed first by moving its next attempt forward (so two
 * instances never send it at once), then sent outside any transaction with the refund's id as
 * the idempotency key, then recorded: the order's refunded amount and the buyer's email.
 */
export async function sendRefund(ctx: RequestContext, deps: RefundDeps, refundId: string): Promise<boolean> {
  const now = ctx.now();
  const [claimed] = await ctx.db
    .update(refunds)
    .set({
      attempts: sql`${refunds.attempts} + 1`,
      nextAttemptAt: sql`${now}::timestamptz + make_interval(secs => (array[${sql.raw(
        REFUND_BACKOFF_SECONDS.join(','),
      )}])[least(${refunds.attempts} + 1, ${REFUND_BACKOFF_SECONDS.length})])`,
    })
    .where(
      and(
        eq(refunds.id, refundId),
        refundMachine.where('succeed', refunds.status),
        lte(refunds.nextAttemptAt, now),
      ),
    )
    .returning();
  if (!claimed) return false;
  try {
    const done = await deps.provider.refund({
      paymentIntentId: claimed.paymentIntentId,
      amountCents: claimed.amountCents,
      idempotencyKey: claimed.id,
    });
    await inTransaction(ctx, async (tx) => {
      const [marked] = await tx.db
        .update(refunds)
        .set({
          status: refundMachine.to('succeed'),
          providerRefundId: done.refundId,
          completedAt: tx.now(),
          lastError: null,
        })
        .where(and(eq(refunds.id, claimed.id), refundMachine.where('succeed', refunds.status)))
        .returning();
      if (!marked) return;
      // The order's refunded amount, the return's state and the buyer's email: their modules'
      // subscribers (subscriptions.ts), in this transaction.
      await publish(tx, {
        type: 'refund.succeeded',
        refundId: claimed.id,
        orderId: claimed.orderId,
        returnId: claimed.returnId,
        amountCents: claimed.amountCents,
      });
    });
    deps.nudge('mail');
    return true;
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'unexpected error';
    const giveUp =
      (err instanceof ProviderError && !err.retryable) || claimed.attempts >= MAX_REFUND_ATTEMPTS;
    ctx.log.error({ refundId: claimed.id, err: message, giveUp }, 'refund not sent');
    await inTransaction(ctx, async (tx) => {
      await tx.db
        .update(refunds)
        .set({ lastError: message.slice(0, 500), ...(giveUp ? { status: refundMachine.to('fail') } : {}) })
        .where(eq(refunds.id, claimed.id));
      if (giveUp) {
        await publish(tx, {
          type: 'refund.failed',
          refundId: claimed.id,
          orderId: claimed.orderId,
          returnId: claimed.returnId,
          amountCents: claimed.amountCents,
        });
      }
    });
    return false;
  }
}

/** The refunds job's pass: sends the due refunds (at most `limit`). */
export async function sendDueRefunds(ctx: RequestContext, deps: RefundDeps, limit: number): Promise<number> {
  const due = await ctx.db
    .select({ id: refunds.id })
    .from(refunds)
    .where(and(eq(refunds.status, 'requested'), lte(refunds.nextAttemptAt, ctx.now())))
    .orderBy(refunds.nextAttemptAt)
    .limit(limit);
  for (const r of due) await sendRefund(ctx, deps, r.id);
  return due.length;
}
