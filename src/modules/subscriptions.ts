// Who hears which domain event (events.ts): one list, so a reader sees every consequence of a
// change in one place. Each handler runs in the transaction that published the event.
import { acpOrderEventBody } from './acp/webhooks.ts';
import { ORDER_EVENTS, orderEventQueue } from './agent-checkout/outbox.ts';
import { subscribe } from './events.ts';
import { notifyOrdersPlaced, notifyPayoutEnded, notifyReviewPublished } from './notifications/handlers.ts';
import { mailOrderCancelled, mailOrderRefunded, mailOrderShipped } from './orders/mail.ts';
import { recordRefundOnOrder } from './orders/service.ts';
import { recordRefund, recordSales, scheduleRelease } from './payouts/money.ts';
import { mailOrderPaid, mailPaymentRefunded } from './purchase/mail.ts';
import { mailReturnDecided, notifyReturnRequested } from './returns/mail.ts';
import { markReturnRefunded } from './returns/service.ts';
import { ucpOrderEventBody } from './ucp/webhooks.ts';

/** Made once: subscribing the same handler again changes nothing (buildApp subscribes each time). */
const queueOrderEvent = orderEventQueue({ acp: acpOrderEventBody, ucp: ucpOrderEventBody });

export function subscribeModules(): void {
  // A purchase: the buyer's order email; each order's sale in the ledger.
  subscribe('checkout.completed', mailOrderPaid);
  subscribe('checkout.completed', recordSales);
  // ...and each seller's notification of the new order, and of stock left at or below a threshold
  // (queued: the notices job tells them).
  subscribe('checkout.completed', notifyOrdersPlaced);
  // A review made public, a payout ended: the seller's notification.
  subscribe('review.published', notifyReviewPublished);
  subscribe('payout.ended', notifyPayoutEnded);
  // A delivery: the order's money becomes available after the hold (the ledger-release job).
  subscribe('order.delivered', scheduleRelease);
  // A payment that made no order, refunded whole: the buyer's email, when they are told.
  subscribe('refund.requested', mailPaymentRefunded);
  // An order shipped or cancelled: the buyer's email.
  subscribe('order.shipped', mailOrderShipped);
  subscribe('order.cancelled', mailOrderCancelled);
  // A refund the provider confirmed: the order's refunded amount and email; a return's state.
  subscribe('refund.succeeded', recordRefundOnOrder);
  subscribe('refund.succeeded', mailOrderRefunded);
  subscribe('refund.succeeded', markReturnRefunded);
  // ...and the seller's share taken back in the ledger (a transfer reversal after a payout).
  subscribe('refund.succeeded', recordRefund);
  // A return asked for: the seller's notification. Approved, rejected or refunded: the buyer's email.
  subscribe('return.requested', notifyReturnRequested);
  subscribe('return.approved', mailReturnDecided);
  subscribe('return.rejected', mailReturnDecided);
  subscribe('return.refunded', mailReturnDecided);
  // A platform's purchase (ACP or UCP): its order events go to the platform's webhook (the outbox).
  for (const type of ORDER_EVENTS) subscribe(type, queueOrderEvent);
}
