// A verified payment event, handled once: recorded by its id in the same transaction as what
// it causes, so a crash before commit leaves nothing and the provider's redelivery starts over,
// and a redelivery after commit changes nothing (docs/api.md "Payments").

import { AppError, conflict, invalid, notFound } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import { inChildSpan } from '../../telemetry/tracing.ts';
import { checkoutIdOfProviderSession, expireCheckout, lockSessionForPayment } from '../checkout/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { type OrdersDeps, orderIdsOfCheckout } from '../orders/service.ts';
import { accountUpdated } from '../payouts/accounts.ts';
import { applyDispute } from '../payouts/disputes.ts';
import { createFromCheckout, type LockedSession } from '../purchase/flow.ts';
import { type PaymentEvent, type PaymentProvider, ProviderError, WebhookSignatureError } from './provider.ts';
import { paymentSucceededEvent, SANDBOX_CARDS, sandboxPaymentIntent } from './providers/sandbox.ts';
import { recordNewPaymentEvent, recordPaymentEventThen } from './queries.ts';
import { sendRefund } from './refunds.ts';

/** Stripe Canada's dispute fee, when neither the provider nor the configuration says. */
const DEFAULT_DISPUTE_FEE_CENTS = 1500;

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
    throw invalid('error.payments.badWebhookSignature');
  }
  return handlePaymentEvent(ctx, { ...deps, providerName: deps.provider.name }, event);
}

async function handlePaymentEvent(
  ctx: RequestContext,
  deps: OrdersDeps & { providerName: string },
  event: PaymentEvent,
): Promise<EventOutcome> {
  const outcome = await inTransaction(ctx, (tx) => applyPaymentEvent(tx, deps, event));
  // A dispute opened: its sellers' emails.
  if (event.kind === 'dispute' && !outcome.duplicate) deps.nudge('mail');
  return afterCommit(ctx, deps, outcome);
}

/** What an event decided that must wait for its commit: the mail worker's nudge, a refund's sending. */
async function afterCommit(
  ctx: RequestContext,
  deps: OrdersDeps,
  outcome: EventOutcome,
): Promise<EventOutcome> {
  if ((outcome.orderIds?.length || outcome.refundId) && !outcome.duplicate) deps.nudge('mail');
  const { refundId, ...answer } = outcome;
  // After the commit, never inside it: the refund of a payment that made no order.
  if (refundId) await sendRefund(ctx, deps, refundId);
  return answer;
}

/** A payment event applied, a step of a purchase's trace of its own (docs/operations.md "Traces"). */
const applyPaymentEvent: typeof applyEvent = (tx, deps, event, locked) =>
  inChildSpan(`payment ${event.kind}`, () => applyEvent(tx, deps, event, locked));

/**
 * Records an event and does what it causes, in the caller's transaction. A payment's session
 * is locked with the event's record, unless the caller locked it already (the sandbox's pay).
 */
async function applyEvent(
  tx: RequestContext,
  deps: OrdersDeps & { providerName: string },
  event: PaymentEvent,
  locked?: {
    session: LockedSession | undefined;
    /**
     * The event was made just now under a new random id (the sandbox's pay): it cannot have been
     * recorded before, so its record goes out with the next statement instead of being awaited.
     */
    newEvent?: true;
  },
): Promise<EventOutcome> {
  const paidCheckout = event.kind === 'payment_succeeded' && !locked ? event.checkoutId : undefined;
  const record = {
    provider: deps.providerName,
    eventId: event.eventId,
    type: event.kind === 'ignored' ? event.type.slice(0, 100) : event.kind,
    paymentIntentId:
      event.kind === 'payment_succeeded'
        ? event.paymentIntentId
        : event.kind === 'dispute'
          ? event.dispute.paymentIntentId
          : null,
    checkoutId:
      event.kind === 'payment_succeeded' || event.kind === 'session_expired'
        ? (event.checkoutId ?? null)
        : null,
    now: tx.now(),
  };
  let lockedNow: LockedSession | undefined;
  if (locked?.newEvent) {
    await recordNewPaymentEvent(tx.db, record);
  } else {
    // One round trip: the event's record, then the session's lock (for an event recorded
    // before, that lock ends with the transaction).
    const { recorded, next } = await recordPaymentEventThen(
      tx,
      record,
      paidCheckout !== undefined && ((c) => lockSessionForPayment(c, paidCheckout)),
    );
    if (!recorded) return { received: true, duplicate: true };
    lockedNow = next;
  }
  const session = locked ? locked.session : lockedNow;

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
  if (event.kind === 'dispute') {
    await applyDispute(
      tx,
      {
        provider: deps.providerName,
        disputeFeeCents: deps.disputeFeeCents ?? DEFAULT_DISPUTE_FEE_CENTS,
        publicBaseUrl: deps.publicBaseUrl,
      },
      event.dispute,
    );
  }
  if (event.kind === 'account_updated') await accountUpdated(tx, event);
  if (event.kind === 'session_expired') {
    const checkoutId = event.checkoutId ?? (await checkoutIdOfProviderSession(tx, event.providerSessionId));
    if (checkoutId) await expireCheckout(tx, checkoutId);
  }
  return { received: true, duplicate: false };
}

// ---- a delegated payment (an agent platform's token) ------------------------------------------

/** What charging a delegated token answers: the orders, or that the provider is still settling. */
export type DelegatedOutcome = { state: 'paid'; orderIds: string[] } | { state: 'processing' };

/**
 * Charges a token an agent platform holds (Stripe's Shared Payment Token) for a held checkout,
 * after the caller's commit, then records the provider's synchronous answer as the payment's
 * event: the same handling as its webhook, so whichever of the two arrives first makes the
 * orders and the other finds them (one payment intent: no refund, no second order). A refusal
 * is PAYMENT_PROVIDER_ERROR (402) and nothing was charged.
 */
export async function payDelegated(
  ctx: RequestContext,
  deps: OrdersDeps & { provider: PaymentProvider },
  charge: { checkoutId: string; token: string; amountCents: number; idempotencyKey: string },
): Promise<DelegatedOutcome> {
  if (!deps.provider.chargeDelegated) {
    throw new AppError('PAYMENT_PROVIDER_ERROR', 402, text('error.payments.noDelegatedTokens'));
  }
  let paid: Awaited<ReturnType<NonNullable<PaymentProvider['chargeDelegated']>>>;
  try {
    paid = await deps.provider.chargeDelegated(charge);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    ctx.log.warn({ err: err.message, checkoutId: charge.checkoutId }, 'a delegated payment was refused');
    throw new AppError('PAYMENT_PROVIDER_ERROR', err.retryable ? 503 : 402, err.publicMessage);
  }
  if (paid.status === 'processing') return { state: 'processing' };
  const outcome = await handlePaymentEvent(
    ctx,
    { ...deps, providerName: deps.provider.name },
    {
      kind: 'payment_succeeded',
      // Its own event id (the webhook's differs): recorded once, as any event is.
      eventId: `charge:${paid.paymentIntentId}`,
      paymentIntentId: paid.paymentIntentId,
      checkoutId: charge.checkoutId,
      amountCents: paid.amountCents,
    },
  );
  if (outcome.duplicate) {
    return { state: 'paid', orderIds: await orderIdsOfCheckout(ctx, charge.checkoutId) };
  }
  if (!outcome.orderIds?.length) {
    throw conflict('error.payments.refundedNoOrder');
  }
  return { state: 'paid', orderIds: outcome.orderIds };
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
 * Pays a checkout in the sandbox: checks the test card, then, holding the session's lock as the
 * webhook does, handles the `payment_intent.succeeded` event Stripe would send, signed and
 * verified as Stripe's are. A session replaced or expired meanwhile is refused before any
 * payment; paying a paid session again answers its orders.
 */
export async function paySandbox(
  ctx: RequestContext,
  deps: SandboxPayDeps,
  checkoutId: string,
  cardNumber: string,
): Promise<SandboxPayment> {
  const outcome = await inTransaction(ctx, (tx) => paySandboxIn(tx, deps, checkoutId, cardNumber));
  return sandboxPaid(ctx, deps, outcome);
}

type SandboxPayDeps = OrdersDeps & { provider: PaymentProvider; sign(payload: string, now: Date): string };

/** What paySandboxIn decided, for sandboxPaid to finish after the commit. */
export interface SandboxOutcome {
  checkoutId: string;
  paid: EventOutcome;
}

/**
 * paySandbox's work in the caller's transaction (a protocol adapter pays under its own session's
 * lock, taken before this one's): the caller commits, then hands the outcome to sandboxPaid.
 */
export async function paySandboxIn(
  tx: RequestContext,
  deps: SandboxPayDeps,
  checkoutId: string,
  cardNumber: string,
  /** The session, when the caller locked it already (lockSessionForPayment, in tx's transaction). */
  locked?: LockedSession,
): Promise<SandboxOutcome> {
  const card = cardNumber.replace(/[\s-]/g, '');
  const session = locked ?? (await lockSessionForPayment(tx, checkoutId));
  if (!session) throw notFound('error.checkout.sessionNotFound', { id: checkoutId });
  if (session.status === 'complete') {
    const paid: EventOutcome = {
      received: true,
      duplicate: true,
      orderIds: await orderIdsOfCheckout(tx, session.id),
    };
    return { checkoutId: session.id, paid };
  }
  if (session.expiresAt <= tx.now()) {
    throw conflict('error.payments.sessionExpired');
  }
  if (session.status === 'expired') {
    throw conflict('error.payments.sessionReplaced');
  }
  if (card === SANDBOX_CARDS.declined) {
    throw new AppError('PAYMENT_PROVIDER_ERROR', 400, text('error.payments.sandboxDeclined'));
  }
  // The card that asks its holder to confirm pays here: this is the person's own page.
  if (card !== SANDBOX_CARDS.pays && card !== SANDBOX_CARDS.authenticates) {
    throw new AppError('PAYMENT_PROVIDER_ERROR', 400, text('error.payments.sandboxCards'));
  }
  const payload = JSON.stringify(paymentSucceededEvent(session.id, session.totalCents, tx.now()));
  const event = deps.provider.parseWebhook(Buffer.from(payload), deps.sign(payload, tx.now()), tx.now());
  const paid = await applyPaymentEvent(tx, { ...deps, providerName: deps.provider.name }, event, {
    session,
    newEvent: true,
  });
  return { checkoutId: session.id, paid };
}

/** After the commit: the mail nudge, a refund's sending, and the answer (or why no order). */
export async function sandboxPaid(
  ctx: RequestContext,
  deps: OrdersDeps,
  outcome: SandboxOutcome,
): Promise<SandboxPayment> {
  const answer = await afterCommit(ctx, deps, outcome.paid);
  if (!answer.orderIds?.length) {
    // The payment was taken and refused under the lock (a coupon used up meanwhile): refunded.
    throw conflict('error.payments.refundedCheckOutAgain');
  }
  return {
    paid: true,
    sessionId: outcome.checkoutId,
    paymentIntentId: sandboxPaymentIntent(outcome.checkoutId),
    orderIds: answer.orderIds ?? [],
  };
}
