// A verified payment event, handled once: recorded by its id in the same transaction as what
// it causes, so a crash before commit leaves nothing and the provider's redelivery starts over,
// and a redelivery after commit changes nothing (README "Payments").

import { sql } from 'drizzle-orm';
import { AppError, conflict, internal, invalid, notFound } from '../../contract/errors.ts';
import { prepared } from '../../db/prepared.ts';
import {
  checkoutIdOfProviderSession,
  expireCheckout,
  lockSessionForPayment,
  sessionForPayment,
} from '../checkout/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { createFromCheckout, type OrdersDeps, orderIdsOfCheckout, sendRefund } from '../orders/service.ts';
import { type PaymentEvent, type PaymentProvider, WebhookSignatureError } from './provider.ts';
import { paymentSucceededEvent, SANDBOX_CARDS, sandboxPaymentIntent } from './providers/sandbox.ts';
import { paymentEvents } from './tables.ts';

export interface EventOutcome {
  received: true;
  /** This event id was handled before: nothing changed. */
  duplicate: boolean;
  /** The orders of the paid checkout (new, or made by an earlier event of the same payment). */
  orderIds?: string[];
  /** A refund decided by this event (a payment of another amount than quoted), sent after commit. */
  refundId?: string;
}

/**
 * POST /webhooks/payments: the signature checked on the raw body before anything else (a bad,
 * stale or missing one is 400 and nothing is recorded), then the event handled once.
 */
export async function receiveWebhook(
  ctx: RequestContext,
  deps: OrdersDeps & { provider: PaymentProvider },
  rawBody: Buffer,
  signature: string | undefined,
): Promise<EventOutcome> {
  let event: PaymentEvent;
  try {
    event = deps.provider.parseWebhook(rawBody, signature, ctx.now());
  } catch (err) {
    if (!(err instanceof WebhookSignatureError)) throw err;
    ctx.log.warn({ reason: err.message }, 'webhook refused');
    throw invalid('Invalid webhook signature');
  }
  return handlePaymentEvent(ctx, { ...deps, providerName: deps.provider.name }, event);
}

const ph = sql.placeholder;
/** The event recorded once, by its id (prepared: every payment writes one). */
const recordEvent = prepared('payments_record_event', (db, name) =>
  db
    .insert(paymentEvents)
    .values({
      provider: ph('provider'),
      eventId: ph('eventId'),
      type: ph('type'),
      paymentIntentId: ph('paymentIntentId'),
      checkoutId: ph('checkoutId'),
      receivedAt: ph('now'),
    })
    .onConflictDoNothing()
    .returning({ eventId: paymentEvents.eventId })
    .prepare(name),
);

async function handlePaymentEvent(
  ctx: RequestContext,
  deps: OrdersDeps & { providerName: string },
  event: PaymentEvent,
): Promise<EventOutcome> {
  const outcome = await inTransaction(ctx, async (tx): Promise<EventOutcome> => {
    const paidCheckout = event.kind === 'payment_succeeded' ? event.checkoutId : undefined;
    // A payment's session is locked with the event's record, in one round trip
    // (db/batching-client.ts); for an event recorded before, that lock ends with the transaction.
    const [[recorded], session] = await Promise.all([
      recordEvent(tx.db, {
        provider: deps.providerName,
        eventId: event.eventId,
        type: event.kind === 'ignored' ? event.type.slice(0, 100) : event.kind,
        paymentIntentId: event.kind === 'payment_succeeded' ? event.paymentIntentId : null,
        checkoutId: event.kind === 'ignored' ? null : (event.checkoutId ?? null),
        now: tx.now(),
      }),
      paidCheckout ? lockSessionForPayment(tx, paidCheckout) : undefined,
    ]);
    if (!recorded) return { received: true, duplicate: true };

    if (event.kind === 'payment_succeeded') {
      if (!event.checkoutId) {
        tx.log.warn({ eventId: event.eventId }, 'a payment without metadata.checkoutSessionId: not ours');
        return { received: true, duplicate: false };
      }
      const done = await createFromCheckout(
        tx,
        deps,
        {
          checkoutId: event.checkoutId,
          paymentIntentId: event.paymentIntentId,
          amountCents: event.amountCents,
        },
        { session },
      );
      if (done.outcome === 'unknown_checkout') {
        tx.log.warn({ eventId: event.eventId }, 'a payment for an unknown checkout session');
        return { received: true, duplicate: false };
      }
      if (done.outcome === 'refused')
        return { received: true, duplicate: false, orderIds: [], refundId: done.refundId };
      return {
        received: true,
        duplicate: false,
        orderIds: done.orderIds,
        ...(done.outcome === 'already' && done.refundId ? { refundId: done.refundId } : {}),
      };
    }
    if (event.kind === 'session_expired') {
      const checkoutId = event.checkoutId ?? (await checkoutIdOfProviderSession(tx, event.providerSessionId));
      if (checkoutId) await expireCheckout(tx, checkoutId);
    }
    return { received: true, duplicate: false };
  });
  if (outcome.orderIds && !outcome.duplicate) deps.nudge('mail');
  const { refundId, ...answer } = outcome;
  // After the commit, never inside it: the refund of a payment that made no order.
  if (refundId) await sendRefund(ctx, deps, refundId);
  return answer;
}

// ---- the sandbox's payment -------------------------------------------------------------------

/** What paying on the sandbox page answers. */
export interface SandboxPayment {
  paid: true;
  sessionId: string;
  paymentIntentId: string;
  orderIds: string[];
}

/**
 * Pays a checkout in the sandbox: checks the test card, then sends our webhook the
 * `payment_intent.succeeded` event Stripe would send, signed as Stripe signs it, through
 * `deliver` (the real POST /webhooks/payments). Paying a paid session again answers its orders.
 */
export async function paySandbox(
  ctx: RequestContext,
  deps: {
    sign(payload: string, now: Date): string;
    deliver(payload: string, signature: string): Promise<{ status: number; body: string }>;
  },
  checkoutId: string,
  cardNumber: string,
): Promise<SandboxPayment> {
  const session = await sessionForPayment(ctx, checkoutId);
  if (!session) throw notFound(`Checkout session ${checkoutId} not found`);
  const paymentIntentId = sandboxPaymentIntent(session.id);
  if (session.status === 'complete') {
    return {
      paid: true,
      sessionId: session.id,
      paymentIntentId,
      orderIds: await orderIdsOfCheckout(ctx, session.id),
    };
  }
  if (session.status === 'expired' || session.expiresAt <= ctx.now()) {
    throw conflict('This checkout session has expired and its stock was released; check out again');
  }
  const card = cardNumber.replace(/[\s-]/g, '');
  if (card === SANDBOX_CARDS.declined) {
    throw new AppError(
      'PAYMENT_PROVIDER_ERROR',
      400,
      'Your card was declined (sandbox test card 4000 0000 0000 0002)',
    );
  }
  if (card !== SANDBOX_CARDS.pays) {
    throw new AppError(
      'PAYMENT_PROVIDER_ERROR',
      400,
      'The sandbox takes only its test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined',
    );
  }
  const payload = JSON.stringify(paymentSucceededEvent(session.id, session.totalCents, ctx.now()));
  const delivered = await deps.deliver(payload, deps.sign(payload, ctx.now()));
  if (delivered.status !== 200) {
    ctx.log.error(
      { status: delivered.status, checkoutId },
      'the sandbox could not deliver its payment event',
    );
    throw internal('The payment could not be recorded; try again');
  }
  const answer = JSON.parse(delivered.body) as EventOutcome;
  return {
    paid: true,
    sessionId: session.id,
    paymentIntentId,
    orderIds: answer.orderIds ?? (await orderIdsOfCheckout(ctx, session.id)),
  };
}
