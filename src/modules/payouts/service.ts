// What sellers and operators read and do about the money (docs/api.md "Balances, payouts and disputes").
import { toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { recordAdminAction } from '../audit/service.ts';
import { isSeller } from '../auth/sellers.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { accountTotals, sellerBalance } from '../ledger/ledger.ts';
import { payoutAccountOf } from './accounts.ts';
import type { PayoutsDeps } from './deps.ts';
import { disputesOf, openDisputes, submitEvidence } from './disputes.ts';
import { adjustSeller } from './money.ts';
import { failedTransfers, payoutsOf } from './payouts.ts';

/** GET /sellers/me/balance: the balances, the payout account's state and the next payout. */
export async function myBalance(ctx: RequestContext) {
  const me = caller(ctx);
  const [balance, account] = await Promise.all([sellerBalance(ctx, me.id), payoutAccountOf(ctx, me.id)]);
  const missing = !account ? ['payout_account'] : account.payoutsEnabled ? [] : account.requirements;
  return {
    currency: 'CAD' as const,
    ...balance,
    payoutsEnabled: account?.payoutsEnabled ?? false,
    missing,
    nextPayout: account?.payoutsEnabled
      ? {
          at: toUnix(account.nextPayoutAt),
          schedule: account.schedule,
          minimumCents: account.minimumCents,
          // What it would be now: the available balance, if it reaches the minimum.
          amountCents: balance.availableCents >= account.minimumCents ? balance.availableCents : 0,
        }
      : null,
  };
}

/** GET /sellers/me/payouts: newest first. */
export async function myPayouts(ctx: RequestContext, limit: number) {
  return { payouts: await payoutsOf(ctx, caller(ctx).id, limit) };
}

/** GET /sellers/me/disputes: newest first, with their deadlines. */
export async function myDisputes(ctx: RequestContext, limit: number) {
  return { disputes: await disputesOf(ctx, caller(ctx).id, limit) };
}

/** POST /sellers/me/disputes/:id/evidence: sent to the provider, then recorded. */
export async function sendEvidence(
  ctx: RequestContext,
  deps: Pick<PayoutsDeps, 'payouts'>,
  disputeId: string,
  evidence: { text: string; file?: { name: string; type: string; data: Buffer } },
) {
  const outcome = await submitEvidence(ctx, deps, caller(ctx).id, disputeId, evidence);
  if (outcome === 'not_found') throw notFound('error.payouts.disputeNotFound', { id: disputeId });
  if (outcome === 'closed') throw conflict('error.payouts.disputeClosed');
  return { sent: true as const };
}

/** GET /admin/payouts: the platform's side (the desk). */
export async function platformMoney(ctx: RequestContext) {
  const totals = await accountTotals(ctx);
  const [failed, open] = await Promise.all([failedTransfers(ctx, 50), openDisputes(ctx, 50)]);
  return {
    currency: 'CAD' as const,
    commissionCents: -totals.platform_commission,
    commissionTaxCents: -totals.platform_tax_payable,
    owedToSellersCents: -(totals.seller_pending + totals.seller_available + totals.seller_in_transit),
    providerCashCents: totals.provider_cash,
    failedTransfers: failed.map((t) => ({
      payoutId: t.payoutId,
      orderId: t.orderId,
      sellerId: t.sellerId,
      amountCents: t.amountCents,
      error: t.lastError,
      failedAt: t.completedAt ? toUnix(t.completedAt) : null,
    })),
    openDisputes: open.map((d) => ({
      id: d.id,
      checkoutId: d.checkoutId,
      amountCents: d.amountCents,
      feeCents: d.feeCents,
      reason: d.reason,
      status: d.status,
      evidenceDueBy: d.evidenceDueBy ? toUnix(d.evidenceDueBy) : null,
    })),
  };
}

/** POST /admin/sellers/:sellerId/adjustments: an operator's credit (positive) or debit of a seller. */
export async function adjust(
  ctx: RequestContext,
  sellerId: string,
  input: { amountCents: number; reason: string },
) {
  const me = caller(ctx);
  if (!(await isSeller(ctx, sellerId))) throw notFound('error.payouts.sellerNotFound', { id: sellerId });
  const made = await inTransaction(ctx, async (tx) => {
    const adjusted = await adjustSeller(tx, {
      sellerId,
      amountCents: input.amountCents,
      reason: input.reason,
      adminId: me.id,
    });
    await recordAdminAction(tx, {
      action: 'seller.adjust',
      subject: sellerId,
      after: { adjustment: adjusted.id, amountCents: input.amountCents, reason: input.reason },
    });
    return adjusted;
  });
  return {
    id: made.id,
    sellerId,
    amountCents: input.amountCents,
    reason: input.reason,
    createdAt: toUnix(ctx.now()),
  };
}
