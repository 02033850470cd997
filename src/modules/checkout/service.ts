// Checkout: the cart priced by the one quote for the buyer's address, its stock reserved for 30
// minutes, and a session opened at the payment provider. It creates no order: only the
// provider's confirmation of the payment does (docs/api.md "Checkout";
// docs/decisions.md "Checkout and holds"). Holding is hold.ts, as named steps (steps/*.ts);
// this file is a session's life around it: answer, read, pay, expire.
import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import { type checkoutSession, type createCheckoutBody, PAYMENT_METHODS } from '../../contract/checkout.ts';
import { isRecordId, toUnix } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import type { Locale } from '../../contract/i18n.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { optionAnswer } from '../shipping/names.ts';
import { endSession } from './end-session.ts';
import { type CheckoutDeps, holdCheckout, type Recipient } from './hold.ts';
import {
  checkoutIdOfProvider,
  claimOpenSession,
  completeAmong,
  countLiveHolds,
  findSession,
  lapsedOpenSessions,
  lockCheckoutById,
  lockedForPaymentIn,
  markCompleteLater,
  parcelsOf,
  paymentLock,
  type SessionRow,
  sessionById,
} from './queries.ts';
import { withCarrierRates } from './steps/rate.ts';

export {
  type CheckoutDeps,
  endProviderSessions,
  type HoldRequest,
  holdCheckout,
  type Recipient,
} from './hold.ts';
export type { LineSource } from './queries.ts';
export { CheckoutRefusal, type RefusalReason } from './refusal.ts';
export { UNVERIFIED_MAX_UNITS } from './steps/check-holds.ts';
export { withCarrierRates } from './steps/rate.ts';

type Session = z.infer<typeof checkoutSession>;

function answer(
  row: SessionRow,
  publishableKey: string,
  paid: Array<{ id: string; number: string }>,
  locale: Locale | undefined,
): Session {
  return {
    sessionId: row.id,
    sessionUrl: row.sessionUrl ?? '',
    clientSecret: row.clientSecret ?? '',
    publishableKey,
    subtotalCents: row.subtotalCents,
    taxAmountCents: row.taxAmountCents,
    shippingCostCents: row.shippingCostCents,
    discountCents: row.discountCents,
    totalCents: row.totalCents,
    status: row.status,
    paymentMethods: [...PAYMENT_METHODS],
    expiresAt: toUnix(row.expiresAt),
    taxLines: row.taxLines,
    coupon: row.couponCode,
    parcels: row.parcels.map((p) => ({
      sellerId: p.sellerId,
      subtotalCents: p.subtotalCents,
      discountCents: p.discountCents,
      shippingCostCents: p.shippingCostCents,
      shippingOption: p.shipping ? optionAnswer(locale, p.shipping) : null,
      shippingOptions: (p.shippingOptions ?? []).map((o) => optionAnswer(locale, o)),
      taxAmountCents: p.taxAmountCents,
      taxLines: p.taxLines,
      totalCents: p.totalCents,
      items: p.items.map((i) => ({
        productId: i.productId,
        name: i.name,
        quantity: i.quantity,
        unitPriceCents: i.unitPriceCents,
      })),
    })),
    orderIds: paid.map((o) => o.id),
    orderNumbers: paid.map((o) => o.number),
  };
}

/**
 * POST /checkout (create_checkout): the buyer's cart held. Answers the session and whether it is
 * new: an unchanged cart (same lines, prices, coupon and address) with an open session gets that
 * session back.
 */
export async function createCheckout(
  ctx: RequestContext,
  deps: CheckoutDeps & { publishableKey: string },
  input: z.infer<typeof createCheckoutBody> & { recipient?: Recipient },
): Promise<{ session: Session; created: boolean }> {
  const { row, created } = await withCarrierRates(deps.rates, ctx.locale, (ratesFetched) =>
    holdCheckout(ctx, deps, { kind: 'cart' }, { ...input, ratesFetched }),
  );
  return { session: answer(row, deps.publishableKey, [], ctx.locale), created };
}

/**
 * The buyer's open cart checkout priced again with other shipping choices (the pages' shipping
 * step): the same cart, address and coupon, a new session when the choices change the options
 * chosen (the same one otherwise). Another's session, or one no longer open, is 404.
 */
export async function chooseShipping(
  ctx: RequestContext,
  deps: CheckoutDeps & { publishableKey: string },
  checkoutId: string,
  choices: Array<{ seller_id: string; option_id: string }>,
): Promise<{ session: Session; created: boolean }> {
  const me = caller(ctx);
  const row = isRecordId('checkouts', checkoutId) ? await findSession(ctx, checkoutId) : undefined;
  if (
    !row ||
    row.buyerId !== me.id ||
    row.adapterSessionId !== null ||
    row.status !== 'ready_for_payment' ||
    row.expiresAt <= ctx.now()
  ) {
    throw notFound('error.checkout.sessionNotFound', { id: checkoutId });
  }
  const { recipientName, line2, ...address } = row.address;
  return createCheckout(ctx, deps, {
    // Checked when the session was made from it.
    shipping_address: address as z.infer<typeof createCheckoutBody>['shipping_address'],
    ...(row.couponCode ? { coupon: row.couponCode } : {}),
    ...(recipientName ? { recipient: { name: recipientName, ...(line2 ? { line2 } : {}) } } : {}),
    shipping_choices: choices,
  });
}

/** GET /checkout/:id: the buyer's own session (another's is 404), with its orders once paid. */
export async function getCheckout(
  ctx: RequestContext,
  publishableKey: string,
  checkoutId: string,
  /** The orders module's reading of a checkout's orders (it imports this module, not the reverse). */
  ordersOf: (ctx: RequestContext, checkoutId: string) => Promise<Array<{ id: string; number: string }>>,
): Promise<Session> {
  const me = caller(ctx);
  const row = isRecordId('checkouts', checkoutId) ? await findSession(ctx, checkoutId) : undefined;
  if (!row || (row.buyerId !== me.id && me.role !== 'admin')) {
    throw notFound('error.checkout.sessionNotFound', { id: checkoutId });
  }
  return answer(row, publishableKey, await ordersOf(ctx, row.id), ctx.locale);
}

/** A session as the sandbox's page shows it (anyone holding its id, which is its capability). */
export async function sessionForPayment(ctx: RequestContext, checkoutId: string) {
  if (!isRecordId('checkouts', checkoutId)) return undefined;
  return sessionById(ctx, checkoutId);
}

/**
 * Whether a stored POST /checkout answer names a session still open for payment: only such an
 * answer is replayed under its Idempotency-Key; an ended one is made anew (an agent's retry
 * must not hand back a dead payment page).
 */
export async function checkoutStillOpen(ctx: RequestContext, status: number, body: string): Promise<boolean> {
  if (status !== 200 && status !== 201) return true;
  let sessionId: unknown;
  try {
    sessionId = (JSON.parse(body) as { sessionId?: unknown }).sessionId;
  } catch {
    return true;
  }
  if (typeof sessionId !== 'string') return true;
  const session = await sessionForPayment(ctx, sessionId);
  return session?.status === 'ready_for_payment' && session.expiresAt > ctx.now();
}

/**
 * Locks a session for turning its payment into orders: the buyer's cart first, then the
 * session row (the order checkout takes them in, so the two never wait on each other). Answers
 * it with the names its order email needs.
 */
export async function lockSessionForPayment(ctx: RequestContext, checkoutId: string) {
  if (!isRecordId('checkouts', checkoutId)) return undefined;
  return lockCheckoutById(ctx, { checkoutId });
}

/**
 * The session locked for its payment in ctx's transaction (what a subscriber of the purchase's
 * events reads without a round trip), else locked now.
 */
export async function sessionPaidIn(ctx: RequestContext, checkoutId: string) {
  return lockedForPaymentIn(ctx, checkoutId) ?? (await lockSessionForPayment(ctx, checkoutId));
}

/**
 * lockSessionForPayment for the checkout an adapter's session names, found by `checkoutIdOf`:
 * SQL answering the checkout's id from the placeholder `ph('sessionId')` (the adapter's session
 * row). Its statements are sent at the call, so that they go out in the round trip of the
 * statement that locks that row, after it (a pipeline step); no such checkout: undefined.
 */
export function paymentLockOf(name: string, checkoutIdOf: SQL) {
  const lock = paymentLock(name, sql`(${checkoutIdOf})`);
  return (ctx: RequestContext, sessionId: string) => lock(ctx, { sessionId });
}

/**
 * How many live holds an owner (a platform) has: its given-lines checkouts still ready for
 * payment and unexpired, but for the one of holder `except` (a quote replaces its own hold).
 * Paid, expired and replaced checkouts no longer count. The statement is sent at the call.
 */
export async function liveHoldsOf(
  ctx: RequestContext,
  owner: string,
  except: string,
  now: Date,
): Promise<number> {
  return countLiveHolds(ctx, owner, except, now);
}

/** Which of these checkouts were paid (the protocols' cleanup keeps the sessions that made orders). */
export async function paidCheckoutIds(ctx: RequestContext, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return completeAmong(ctx, ids);
}

/** Marks a session paid by `paymentIntentId` (in the transaction that creates its orders). */
export async function markCheckoutPaid(ctx: RequestContext, checkoutId: string, paymentIntentId: string) {
  await markCompleteLater(ctx, checkoutId, paymentIntentId);
}

/**
 * Whom a checkout being paid in ctx's transaction was held for, when its lines were given (the
 * holder's key and owner: what a subscriber of its checkout.completed finds its session by);
 * null for the cart's. Read from the session the payment locked: no round trip.
 */
export async function holderOfPaidCheckout(
  ctx: RequestContext,
  checkoutId: string,
): Promise<{ key: string; owner: string | null } | null> {
  const session = await sessionPaidIn(ctx, checkoutId);
  return session?.adapterSessionId ? { key: session.adapterSessionId, owner: session.adapterOwner } : null;
}

/** Whether a checkout's lines came from its buyer's cart (what was bought then leaves the cart). */
export const heldFromCart = (session: Pick<SessionRow, 'adapterSessionId'>): boolean =>
  session.adapterSessionId === null;

/** The session of a provider session id (a provider's expiry event). */
export async function checkoutIdOfProviderSession(ctx: RequestContext, providerSessionId: string) {
  return checkoutIdOfProvider(ctx, providerSessionId);
}

/** Ends a session the provider says expired (its stock goes back). */
export async function expireCheckout(ctx: RequestContext, checkoutId: string): Promise<boolean> {
  return inTransaction(ctx, (tx) => endSession(tx, checkoutId));
}

/**
 * Ends a checkout its holder let go of (an agent platform's cancel): its stock back at once, and
 * a lapse as far as the cool-down is concerned (a cancel and a new hold do not renew a hold).
 */
export async function cancelCheckout(ctx: RequestContext, checkoutId: string): Promise<boolean> {
  return inTransaction(ctx, (tx) => endSession(tx, checkoutId, { canceled: true }));
}

/**
 * The expiry job's pass over sessions: ends up to `limit` open sessions past their expiry,
 * each claimed with SKIP LOCKED in its own transaction, and gives back their stock.
 */
export async function expireLapsedSessions(
  ctx: RequestContext,
  provider: PaymentProvider,
  limit: number,
): Promise<number> {
  const due = await lapsedOpenSessions(ctx, limit);
  const ended: Array<{ providerSessionId: string | null }> = [];
  // Each session in its own short transaction: its products are locked in id order, never
  // interleaved with another session's, and a session another instance holds is skipped.
  for (const { id } of due) {
    const done = await inTransaction(ctx, async (tx) => {
      const claimed = await claimOpenSession(tx, id);
      if (!claimed) return undefined;
      await endSession(tx, claimed.id);
      return claimed;
    });
    if (done) ended.push(done);
  }
  for (const s of ended) {
    if (s.providerSessionId) await provider.expireSession(s.providerSessionId).catch(() => {});
  }
  return ended.length;
}

/** The province a seller's parcel of a checkout ships from (as it was when sold). */
export async function shipFromOf(ctx: RequestContext, checkoutId: string, sellerId: string) {
  const parcel = (await parcelsOf(ctx, checkoutId))?.find((p) => p.sellerId === sellerId);
  return parcel && { province: parcel.originProvince, businessDays: parcel.shipping?.businessDays };
}
