// Who hears which domain event (events.ts): one list, so a reader sees every consequence of a
// change in one place. Each handler runs in the transaction that published the event.
import { acpOrderEventBody } from './acp/webhooks.ts';
import { ORDER_EVENTS, orderEventQueue } from './agent-checkout/outbox.ts';
import { subscribe } from './events.ts';
import { recordRefundOnOrder } from './orders/service.ts';
import { markReturnRefunded } from './returns/service.ts';
import { ucpOrderEventBody } from './ucp/webhooks.ts';

/** Made once: subscribing the same handler again changes nothing (buildApp subscribes each time). */
const queueOrderEvent = orderEventQueue({ acp: acpOrderEventBody, ucp: ucpOrderEventBody });

export function subscribeModules(): void {
  // A refund the provider confirmed: the order's refunded amount and email; a return's state.
  subscribe('refund.succeeded', recordRefundOnOrder);
  subscribe('refund.succeeded', markReturnRefunded);
  // A platform's purchase (ACP or UCP): its order events go to the platform's webhook (the outbox).
  for (const type of ORDER_EVENTS) subscribe(type, queueOrderEvent);
}
