// The background jobs every instance runs (docs/operations.md "Background jobs").
import { FOLD_BATCH, foldAnalytics } from '../modules/analytics/service.ts';
import { expireLapsedSessions } from '../modules/checkout/service.ts';
import { orderMessageMail } from '../modules/conversations/service.ts';
import { deleteEndedReservations, releaseLapsedReservations } from '../modules/inventory/service.ts';
import { deleteOldNotifications, deliverNotices } from '../modules/notifications/service.ts';
import { followTracking } from '../modules/orders/labels.ts';
import { cancelStalePendingOrders, type OrdersDeps } from '../modules/orders/service.ts';
import { sendDueRefunds } from '../modules/payments/refunds.ts';
import type { PayoutsDeps } from '../modules/payouts/deps.ts';
import { disputeOpenedMail } from '../modules/payouts/mail.ts';
import { releaseDue } from '../modules/payouts/money.ts';
import { runPayouts } from '../modules/payouts/payouts.ts';
import { sendDueReversals } from '../modules/payouts/reversals.ts';
import { returnRequestedMail } from '../modules/returns/mail.ts';
import { escalateLateReturns } from '../modules/returns/service.ts';
import type { Job } from './runner.ts';

export function commerceJobs(deps: OrdersDeps & { returnEscalationBusinessDays: number }): Job[] {
  return [
    {
      // Open checkouts past their 30 minutes end and give back their stock; so do reservations
      // left live past their expiry (a checkout ended elsewhere, a crash).
      name: 'checkout-expiry',
      everyMs: 5_000,
      batch: 50,
      run: async (ctx) =>
        Math.max(
          await expireLapsedSessions(ctx, deps.provider, 50),
          await releaseLapsedReservations(ctx, 50),
          // Ended reservations are deleted a day later: the table does not grow with checkouts.
          await deleteEndedReservations(ctx, 50),
        ),
    },
    {
      // Changes counted by analytics (payments, cancellations, refunds, sessions) are added to
      // the rollups in batches: each hot row once per pass, not once per payment.
      name: 'analytics',
      everyMs: 1_000,
      batch: FOLD_BATCH,
      run: (ctx) => foldAnalytics(ctx, false),
    },
    {
      // What changes queued for sellers (notifications/service.ts): to their inboxes and emails.
      name: 'notices',
      everyMs: 2_000,
      batch: 100,
      run: (ctx) =>
        deliverNotices(
          ctx,
          {
            publicBaseUrl: deps.publicBaseUrl,
            mails: {
              return_requested: returnRequestedMail,
              dispute_opened: disputeOpenedMail,
              order_message: orderMessageMail,
            },
            nudgeMail: () => deps.nudge('mail'),
          },
          100,
        ),
    },
    {
      // Sellers' notifications past their year: the inbox does not grow without end.
      name: 'notifications-cleanup',
      everyMs: 3_600_000,
      batch: 500,
      run: (ctx) => deleteOldNotifications(ctx, 500),
    },
    {
      // Returns their sellers left unanswered: to the admins' queue (docs/api.md "Returns").
      name: 'returns-escalation',
      everyMs: 600_000,
      batch: 100,
      run: (ctx) => escalateLateReturns(ctx, deps.returnEscalationBusinessDays, 100),
    },
    {
      name: 'pending-orders',
      everyMs: 60_000,
      batch: 20,
      run: (ctx) => cancelStalePendingOrders(ctx, deps, 20),
    },
    {
      // Parcels with a label bought here: their carrier's tracking summary, asked outside any
      // transaction; delivered ones are marked delivered (docs/shipping.md "Tracking").
      name: 'tracking',
      everyMs: 60_000,
      batch: 20,
      run: (ctx) => (deps.labels ? followTracking(ctx, deps, 20) : Promise.resolve(0)),
    },
    {
      name: 'refunds',
      everyMs: 30_000,
      batch: 20,
      run: (ctx) => sendDueRefunds(ctx, deps, 20),
    },
  ];
}

/** Sellers' money (docs/payouts.md "Money out"). */
export function payoutJobs(deps: PayoutsDeps): Job[] {
  return [
    {
      // Delivered orders past the hold: their money becomes available.
      name: 'ledger-release',
      everyMs: 60_000,
      batch: 100,
      run: (ctx) => releaseDue(ctx, deps.payoutHoldDays, 100),
    },
    {
      // Sellers due a payout, then the transfers to send or retry.
      name: 'payouts',
      everyMs: 60_000,
      batch: 100,
      run: (ctx) => runPayouts(ctx, deps, 100),
    },
    {
      // Refunds after a payout: the transfers' reversals.
      name: 'reversals',
      everyMs: 60_000,
      batch: 50,
      run: (ctx) => sendDueReversals(ctx, deps, 50),
    },
  ];
}
