// The protocol adapters' checkout sessions over Portage's one checkout (docs/acp.md, docs/ucp.md):
// a session's items and address are quoted and held by checkout's holdCheckout, paid by the
// payments module's own sandbox payment or Stripe, and made into orders by the purchase flow,
// exactly as POST /checkout. The core (createSession … completeSession) answers the session's
// state (its row and checkout); ACP's operations below it, and UCP's (ucp/sessions.ts), say it
// in their protocol. A session belongs to one protocol (its id's prefix) and one caller.
// Lock order: the ACP session row, then its checkout as a payment locks it (the buyer's cart,
// then the checkout), then (inside holdCheckout) the buyer's other open checkouts of the session.
import { eq, sql } from 'drizzle-orm';
import type {
  AcpBuyer,
  AcpCheckoutSession,
  AcpCompleteSessionRequest,
  AcpCreateSessionRequest,
  AcpMessage,
  AcpUpdateSessionRequest,
} from '../../contract/acp.ts';
import { shippingAddressInput } from '../../contract/checkout.ts';
import { randomKey } from '../../contract/common.ts';
import { AppError, inputProblems } from '../../contract/errors.ts';
import { BASE_LOCALE, render, type Text, text } from '../../contract/i18n.ts';
import { insertInto, ph, pipeline, query, statement } from '../../db/sql.ts';
import type { AuthService } from '../auth/service.ts';
import { accountForEmail } from '../auth/users.ts';
import {
  type CheckoutDeps,
  CheckoutRefusal,
  cancelCheckout,
  endProviderSessions,
  expireCheckout,
  holdCheckout,
  liveHoldsOf,
  paymentLockOf,
  sessionForPayment,
} from '../checkout/service.ts';
import type { checkoutSessions } from '../checkout/tables.ts';
import { type AuthUser, inTransaction, type RequestContext } from '../context.ts';
import type { OrdersDeps } from '../orders/service.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { payDelegated, paySandboxIn, sandboxPaid } from '../payments/service.ts';
import { sha256 } from '../secrets.ts';
import {
  type AnswerDeps,
  effectiveStatus,
  SHIPPING_OPTION,
  type StoredMessage,
  toAcpSession,
} from './answer.ts';
import { type AcpCaller, vaultOwner } from './caller.ts';
import { AcpFailure, acpInvalid, acpNotFound, TOKEN_PARAM } from './errors.ts';
import { SANDBOX_HANDLER_ID } from './handlers.ts';
import { acpSessionMachine } from './states.ts';
import { type AcpSessionRequest, acpSessions } from './tables.ts';
import { checkSpentToken, MAX_TOKEN_LENGTH, spendVaultToken } from './vault.ts';

/** How long a session lives, and so at most its hold (checkout's 30 minutes). */
const SESSION_TTL_MS = 30 * 60 * 1000;

export interface AcpDeps extends CheckoutDeps, OrdersDeps, AnswerDeps {
  /** What this instance remembers of a person's sign-ins (forgotten when a purchase ends them). */
  auth?: Pick<AuthService, 'forget'>;
  /** At most this many live holds per platform (PLATFORM_MAX_HOLDS). */
  maxPlatformHolds: number;
  /** The sandbox's signer, when the sandbox is the provider (its vault handler is offered then). */
  sandbox?: { sign(payload: string, now: Date): string };
}

type AcpRow = typeof acpSessions.$inferSelect;
type CheckoutRow = NonNullable<Awaited<ReturnType<ReturnType<typeof paymentLockOf>>>>;

const insertSession = insertInto('acp_insert_session', acpSessions);

export type SessionProtocol = 'acp' | 'ucp';
/** A session's id: its protocol's prefix, so one protocol never reads another's sessions. */
const newSessionId = (protocol: SessionProtocol) => `${protocol}_cs_${randomKey(15)}`;

/** A session as it is now: its row, and the checkout holding its stock (undefined when none, or not read). */
export interface SessionState {
  row: AcpRow;
  checkout: typeof checkoutSessions.$inferSelect | undefined;
}

/**
 * What a protocol does with the session's new state inside the operation's transaction, before
 * its commit (ACP: its answer, stored under the request's Idempotency-Key with that commit).
 */
export type Finish = (tx: RequestContext, state: SessionState) => Promise<void>;

/** A new session, quoted and held when it can be. */
export async function createSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  request: AcpSessionRequest,
  finish?: Finish,
): Promise<SessionState> {
  const now = ctx.now();
  const row: AcpRow = {
    id: newSessionId(protocol),
    platformId: 'platform' in who ? who.platform.id : null,
    agentUserId: 'user' in who ? who.user.id : null,
    buyerId: null,
    status: 'not_ready_for_payment',
    request,
    checkoutId: null,
    paymentTokenHash: null,
    messages: [],
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  };
  return requote(ctx, deps, who, protocol, row, {}, finish);
}

/** A session's items, buyer, address or coupons changed: quoted again. */
export function updateSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  change: Change,
  finish?: Finish,
): Promise<SessionState> {
  return requote(ctx, deps, who, protocol, id, change, finish);
}

/** The caller's session as it is now (404 when another's, or another protocol's). */
export async function readSession(
  ctx: RequestContext,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
): Promise<SessionState> {
  const row = await sessionOf(ctx, who, protocol, id);
  return { row, checkout: await checkoutOf(ctx, row) };
}

/** Cancels a session: its stock back at once; 405 if completed or canceled. */
export async function cancelSession(
  ctx: RequestContext,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  finish?: Finish,
): Promise<SessionState> {
  return inTransaction(ctx, async (tx) => {
    const { row, checkout } = await lockedSession(tx, who, protocol, id);
    const status = effectiveStatus(row, checkout, tx.now());
    const refused = () => acpInvalid('invalid', text('acp.error.cannotCancel', { status }), undefined, 405);
    if (status !== 'not_ready_for_payment' && status !== 'ready_for_payment') throw refused();
    const [canceled] = await tx.db
      .update(acpSessions)
      .set({ status: acpSessionMachine.to('cancel'), updatedAt: tx.now() })
      .where(sql`${acpSessions.id} = ${row.id} and ${acpSessionMachine.where('cancel', acpSessions.status)}`)
      .returning();
    if (!canceled) throw refused();
    if (row.checkoutId) await cancelCheckout(tx, row.checkoutId);
    // A canceled session shows nothing of its checkout: no need to read it again.
    const state = { row: canceled, checkout: undefined };
    await finish?.(tx, state);
    return state;
  });
}

/**
 * Pays a session with a delegated token of one of deps.handlers: the sandbox's vault token, or
 * a provider's (Stripe's Shared Payment Token). The order is made by the purchase flow under the
 * checkout's lock, once, whichever of this answer and the provider's webhook comes first; a
 * session completed already answers its order.
 */
export async function completeSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  payment: { handlerId: string; token: string },
  /** Called in the payment's transaction once it made the orders (the sandbox's vault only). */
  finish?: Finish,
): Promise<SessionState> {
  const handler = deps.handlers.find((h) => h.id === payment.handlerId);
  if (!handler) {
    throw acpInvalid(
      'invalid',
      text('acp.error.noHandler', {
        handler: payment.handlerId.slice(0, 100),
        handlers: deps.handlers.map((h) => h.id).join(', '),
        count: deps.handlers.length,
      }),
      '$.payment_data.handler_id',
    );
  }
  if (handler.id === SANDBOX_HANDLER_ID)
    return completeWithVault(ctx, deps, who, protocol, id, payment.token, finish);
  if (!/^spt_[A-Za-z0-9_]{1,200}$/.test(payment.token)) {
    throw acpInvalid('invalid', text('acp.error.sptExpected'), TOKEN_PARAM);
  }
  return completeWithProvider(ctx, deps, who, protocol, id, payment.token);
}

// ---- ACP's operations ---------------------------------------------------------------------------

/** POST /checkout_sessions: 201 with the session, quoted and held when it can be. */
export async function createAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  input: AcpCreateSessionRequest,
  locale: string | undefined,
): Promise<AcpCheckoutSession> {
  if (input.currency.toLowerCase() !== 'cad') {
    throw acpInvalid('invalid', text('acp.error.cadOnly'), '$.currency');
  }
  const request: AcpSessionRequest = {
    items: mergedItems(input.line_items),
    ...(input.buyer ? { buyer: input.buyer } : {}),
    ...(input.fulfillment_details ? { fulfillmentDetails: input.fulfillment_details } : {}),
    coupons: couponsOf(input),
    ...((input.locale ?? locale) ? { locale: input.locale ?? locale } : {}),
    ...(input.order_notes ? { orderNotes: input.order_notes } : {}),
  };
  return acpAnswer(
    deps,
    ctx,
    await createSession(ctx, deps, who, 'acp', request, storedWithCommit(deps, 201)),
  );
}

/** POST /checkout_sessions/:id: the items, buyer, address, option or coupons changed, quoted again. */
export async function updateAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  id: string,
  input: AcpUpdateSessionRequest,
): Promise<AcpCheckoutSession> {
  const option = input.selected_fulfillment_options?.find((o) => o.option_id !== SHIPPING_OPTION);
  if (option) {
    throw acpInvalid(
      'invalid',
      text('acp.error.noFulfillmentOption', { option: option.option_id, offered: SHIPPING_OPTION }),
      '$.selected_fulfillment_options',
    );
  }
  const state = await updateSession(
    ctx,
    deps,
    who,
    'acp',
    id,
    {
      ...(input.line_items ? { items: mergedItems(input.line_items) } : {}),
      ...(input.buyer ? { buyer: input.buyer } : {}),
      ...(input.fulfillment_details ? { fulfillmentDetails: input.fulfillment_details } : {}),
      ...(input.coupons || input.discounts ? { coupons: couponsOf(input) } : {}),
      ...(input.order_notes ? { orderNotes: input.order_notes } : {}),
    },
    storedWithCommit(deps, 200),
  );
  return acpAnswer(deps, ctx, state);
}

/** GET /checkout_sessions/:id. */
export async function getAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  id: string,
): Promise<AcpCheckoutSession> {
  return acpAnswer(deps, ctx, await readSession(ctx, who, 'acp', id));
}

/** POST /checkout_sessions/:id/cancel: 200 canceled, its stock back at once; 405 if completed or canceled. */
export async function cancelAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  id: string,
): Promise<AcpCheckoutSession> {
  return acpAnswer(deps, ctx, await cancelSession(ctx, who, 'acp', id, storedWithCommit(deps, 200)));
}

/**
 * POST /checkout_sessions/:id/complete: spends the delegated token on the held checkout. The
 * order is made by the purchase flow under the checkout's lock, once, whichever of this answer
 * and the provider's webhook comes first; a session completed already answers its order.
 */
export async function completeAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  id: string,
  input: AcpCompleteSessionRequest,
): Promise<AcpCheckoutSession> {
  const payment = input.payment_data;
  if (!payment.handler_id || !payment.instrument) {
    throw acpInvalid('unsupported', text('acp.error.tokenOnly'), '$.payment_data');
  }
  const token = payment.instrument.credential.token;
  const state = await completeSession(
    ctx,
    deps,
    who,
    'acp',
    id,
    { handlerId: payment.handler_id, token },
    storedWithCommit(deps, 200),
  );
  return acpAnswer(deps, ctx, state);
}

/** Answers made inside an operation's transaction (and stored with its commit), by their state. */
const answered = new WeakMap<SessionState, AcpCheckoutSession>();

/** A session's state as ACP says it, in the request's locale: the one stored with the commit, if any. */
function acpAnswer(deps: AcpDeps, ctx: RequestContext, state: SessionState): AcpCheckoutSession {
  return (
    answered.get(state) ?? toAcpSession(deps, state.row, state.checkout, ctx.now(), ctx.locale ?? BASE_LOCALE)
  );
}

/**
 * The operation's answer, made in its transaction and stored under the request's Idempotency-Key
 * with its commit (no round trip of its own); the operation then answers that same object.
 */
const storedWithCommit =
  (deps: AcpDeps, status: number): Finish =>
  async (tx, state) => {
    if (!tx.answerWithCommit) return;
    const answer = toAcpSession(deps, state.row, state.checkout, tx.now(), tx.locale ?? BASE_LOCALE);
    answered.set(state, answer);
    await tx.answerWithCommit(tx, status, answer);
  };

// ---- paying -------------------------------------------------------------------------------------

type Payable<T> = { done: SessionState } | { row: AcpRow; checkout: CheckoutRow; also: T | undefined };

/**
 * The session locked for its payment: answered as it is when completed, refused unless payable.
 * `also` is sent in the round trip of the checkout's locks, after them (see lockedSession).
 */
async function payable<T = undefined>(
  tx: RequestContext,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  also?: (tx: RequestContext) => Promise<T>,
): Promise<Payable<T>> {
  const { row, checkout, also: extra } = await lockedSession(tx, who, protocol, id, also);
  const status = effectiveStatus(row, checkout, tx.now());
  if (status === 'completed') return { done: { row, checkout } };
  if (!checkout || (status !== 'ready_for_payment' && status !== 'complete_in_progress')) {
    throw acpInvalid(
      status,
      status === 'not_ready_for_payment'
        ? text('acp.error.notReady')
        : text('acp.error.nothingCharged', { status }),
      undefined,
      409,
    );
  }
  return { row, checkout, also: extra };
}

/** A session found paid already, once its token was spent: thrown to roll the spending back. */
class PaidAlready {
  constructor(readonly state: SessionState) {}
}

/**
 * The sandbox's vault: the token checked against the held total and spent, and the sandbox's
 * payment made, in one transaction under the session's lock (then its checkout's). A refusal
 * rolls it all back: nothing charged, the token unspent, the session as it was.
 */
async function completeWithVault(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  token: string,
  finish?: Finish,
): Promise<SessionState> {
  const sandbox = deps.sandbox;
  if (!sandbox) throw new Error('the sandbox handler is offered only with the sandbox');
  const paying = await inTransaction(ctx, async (tx) => {
    // The token is spent in the round trip of the checkout's locks, after them; it is checked
    // once the session is known payable, and anything else rolls the spending back.
    const spend =
      token.length <= MAX_TOKEN_LENGTH ? (c: RequestContext) => spendVaultToken(c, token) : undefined;
    const p = await payable(tx, who, protocol, id, spend);
    if ('done' in p) throw new PaidAlready(p.done);
    const vaulted = await checkSpentToken(tx, p.also, {
      token,
      owner: vaultOwner(who),
      sessionId: p.row.id,
      amount: p.checkout.totalCents,
    });
    if (vaulted.outcome === 'authenticates') {
      // Rolled back with the transaction: the token stays unspent, nothing is charged.
      throw acpInvalid('requires_3ds', text('acp.error.requires3ds'), TOKEN_PARAM, 402);
    }
    const card = SANDBOX_CARDS[vaulted.outcome];
    const outcome = await paySandboxIn(tx, { ...deps, sign: sandbox.sign }, p.checkout.id, card, p.checkout);
    // Orders made: the checkout is complete, nothing else changed (without orders, sandboxPaid
    // below refuses the payment, refunded).
    const state: SessionState = { row: p.row, checkout: { ...p.checkout, status: 'complete' } };
    if (outcome.paid.orderIds?.length) await finish?.(tx, state);
    return { state, outcome };
  }).catch((err) => {
    if (err instanceof PaidAlready) return { done: err.state };
    return paymentRefusal(err);
  });
  if ('done' in paying) return paying.done;
  await sandboxPaid(ctx, deps, paying.outcome).catch(paymentRefusal);
  return paying.state;
}

/**
 * A provider's token (Stripe's Shared Payment Token): the session goes complete_in_progress under
 * its lock, then the provider is asked after the commit (never inside a transaction). While the
 * provider settles or did not answer, the session stays complete_in_progress, and completing it
 * again with the same token asks again under the same idempotency key.
 */
async function completeWithProvider(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  token: string,
): Promise<SessionState> {
  const tokenHash = sha256(token);
  const claim = await inTransaction(ctx, async (tx) => {
    const p = await payable(tx, who, protocol, id);
    if ('done' in p) return p;
    if (p.row.status === 'complete_in_progress' && p.row.paymentTokenHash !== tokenHash) {
      // Another token while the first one's payment may still land would be a second charge.
      throw acpInvalid('complete_in_progress', text('acp.error.otherTokenInProgress'), TOKEN_PARAM, 409);
    }
    const [paying] = await tx.db
      .update(acpSessions)
      .set({ status: acpSessionMachine.to('pay'), paymentTokenHash: tokenHash, updatedAt: tx.now() })
      .where(sql`${acpSessions.id} = ${p.row.id} and ${acpSessionMachine.where('pay', acpSessions.status)}`)
      .returning();
    return { row: paying ?? p.row, checkout: p.checkout };
  });
  if ('done' in claim) return claim.done;
  try {
    await payDelegated(ctx, deps, {
      checkoutId: claim.checkout.id,
      token,
      amountCents: claim.checkout.totalCents,
      idempotencyKey: `acp-complete:${claim.checkout.id}:${tokenHash.slice(0, 32)}`,
    });
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 503) {
      // The provider did not answer: the money may have moved. The session stays
      // complete_in_progress; a retried complete asks again under the same key.
      throw new AcpFailure(
        503,
        { type: 'service_unavailable', code: 'payment_provider_unavailable' },
        err.text,
        5,
      );
    }
    if (err instanceof AppError && err.code === 'PAYMENT_PROVIDER_ERROR') {
      // Declined: nothing was charged, and the session can pay again (this token's attempt only).
      await ctx.db
        .update(acpSessions)
        .set({ status: acpSessionMachine.to('payment_failed'), paymentTokenHash: null, updatedAt: ctx.now() })
        .where(
          sql`${acpSessions.id} = ${id} and ${acpSessions.paymentTokenHash} = ${tokenHash}
            and ${acpSessionMachine.where('payment_failed', acpSessions.status)}`,
        );
    }
    // Anything else (the hold ended meanwhile and the money was refunded, or a failure of ours
    // after the charge) leaves the session complete_in_progress: the money may have moved.
    return paymentRefusal(err);
  }
  // Paid (completed, read from its checkout), or accepted and settling (complete_in_progress).
  return { row: claim.row, checkout: await checkoutOf(ctx, claim.row) };
}

/** A payment's refusal as ACP says it: declined is 402, a checkout that ended meanwhile 409. */
function paymentRefusal(err: unknown): never {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'PAYMENT_PROVIDER_ERROR')
    throw acpInvalid('payment_declined', err.text, '$.payment_data', 402);
  throw acpInvalid('conflict', err.text, undefined, 409);
}

// ---- quoting ------------------------------------------------------------------------------------

export type Change = Partial<
  Pick<AcpSessionRequest, 'items' | 'buyer' | 'fulfillmentDetails' | 'coupons' | 'orderNotes'>
>;

/**
 * Applies a change and quotes the session again, in one transaction under the session's lock:
 * what the buyer must fix becomes messages (not_ready_for_payment, no hold); otherwise the
 * checkout holds the items (ready_for_payment), replacing the session's earlier hold.
 */
async function requote(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AcpCaller,
  protocol: SessionProtocol,
  /** The session's id, or a new session's row (written in the same transaction). */
  target: string | AcpRow,
  change: Change,
  finish?: Finish,
): Promise<SessionState> {
  const done = await inTransaction(ctx, async (tx) => {
    if (typeof target !== 'string') await insertSession.later(tx.db, [target]);
    const locked =
      typeof target === 'string'
        ? await lockedSession(tx, who, protocol, target)
        : { row: target, checkout: undefined };
    const before = locked.row;
    const status = effectiveStatus(before, locked.checkout, tx.now());
    if (status !== 'not_ready_for_payment' && status !== 'ready_for_payment') {
      throw acpInvalid('invalid', text('acp.error.cannotChange', { status }), undefined, 409);
    }
    const request: AcpSessionRequest = { ...before.request, ...change };
    // The platform's holds are counted in the buyer's round trip (sent first, awaited after).
    const overHolds = 'platform' in who ? refuseOverHolds(tx, deps, who.platform.id, before.id) : undefined;
    overHolds?.catch(() => {});
    const buyer = await buyerOf(tx, who, request.buyer);
    await overHolds;
    const address = addressOf(request);
    const messages: StoredMessage[] = [...buyer.messages, ...address.messages];
    let held: Awaited<ReturnType<typeof holdCheckout>> | undefined;
    if (messages.length === 0 && buyer.user && address.value) {
      const asBuyer = { ...tx, user: buyer.user };
      const attempt = (coupon: string | undefined) =>
        withSavepoint(asBuyer, () =>
          holdCheckout(
            asBuyer,
            deps,
            {
              kind: 'given',
              lines: request.items.map((i) => ({ productId: i.id, quantity: i.quantity })),
              heldFor: {
                key: before.id,
                ...('platform' in who ? { owner: who.platform.id } : {}),
                until: before.expiresAt,
              },
            },
            { shipping_address: address.value!, ...(coupon ? { coupon } : {}) },
          ),
        );
      const coupon = request.coupons[0];
      try {
        held = await attempt(coupon);
      } catch (err) {
        if (!(err instanceof CheckoutRefusal)) throw err;
        if (coupon && (err.reason === 'coupon' || err.reason === 'no_such_coupon')) {
          // A refused coupon does not stop the purchase: quoted without it, and said so.
          messages.push(couponMessage(err));
          try {
            held = await attempt(undefined);
          } catch (again) {
            if (!(again instanceof CheckoutRefusal)) throw again;
            messages.push(...refusalMessages(again, request));
          }
        } else {
          messages.push(...refusalMessages(err, request));
        }
      }
    }
    const holding = held?.row;
    // The earlier hold ends when this quote does not take its place (a new hold replaced it already).
    if (before.checkoutId && before.checkoutId !== holding?.id) await expireCheckout(tx, before.checkoutId);
    const transition = holding ? 'hold' : 'refuse';
    const row: AcpRow = {
      ...before,
      request,
      buyerId: buyer.user?.id ?? null,
      checkoutId: holding?.id ?? null,
      messages,
      status: acpSessionMachine.to(transition),
      updatedAt: tx.now(),
    };
    // Written with the commit, and answered from the values written: the session is locked (or
    // new in this transaction) and its state was checked above, so the write cannot miss it.
    await sessionQuoted[transition].later(tx.db, {
      id: row.id,
      request: acpSessions.request.mapToDriverValue(row.request),
      buyerId: row.buyerId,
      checkoutId: row.checkoutId,
      messages: acpSessions.messages.mapToDriverValue(row.messages),
      updatedAt: row.updatedAt.toISOString(),
    });
    const state: SessionState = { row, checkout: holding };
    await finish?.(tx, state);
    return { state, superseded: held?.superseded ?? [], signedOutUserId: buyer.signedOutUserId };
  });
  // After the commit: a concurrent read cannot cache the account's old sign-ins again.
  if (done.signedOutUserId) deps.auth?.forget(done.signedOutUserId);
  await endProviderSessions(ctx, deps, done.superseded);
  return done.state;
}

/** A quote's outcome written to its session, by the transition it makes. */
const quotedBy = (transition: 'hold' | 'refuse') =>
  statement(
    `acp_session_${transition}`,
    sql`update ${acpSessions} set request = ${ph('request')}, buyer_id = ${ph('buyerId')},
      checkout_id = ${ph('checkoutId')}, messages = ${ph('messages')},
      status = ${acpSessionMachine.to(transition)}, updated_at = ${ph('updatedAt')}
      where id = ${ph('id')} and ${acpSessionMachine.where(transition, acpSessions.status)}`,
  );
const sessionQuoted = { hold: quotedBy('hold'), refuse: quotedBy('refuse') };

/**
 * A platform holds stock for people it names by email, guest accounts included: without a cap,
 * one key could hold a catalog's whole stock for 30 minutes at a time. Past `maxPlatformHolds`
 * live holds (sessions held or paying, this one aside) a quote is 429 until some are paid,
 * canceled or lapse. A soft cap: requests in flight together may each pass it once.
 */
async function refuseOverHolds(tx: RequestContext, deps: AcpDeps, platformId: string, sessionId: string) {
  const max = deps.maxPlatformHolds;
  if ((await liveHoldsOf(tx, platformId, sessionId, tx.now())) >= max) {
    throw new AcpFailure(
      429,
      { type: 'invalid_request', code: 'rate_limited' },
      text('acp.error.tooManyHolds', { max }),
      60,
    );
  }
}

const savepoint = statement('', sql.raw('savepoint acp_hold'));
const releaseSavepoint = statement('', sql.raw('release savepoint acp_hold'));
const rollbackToSavepoint = statement('', sql.raw('rollback to savepoint acp_hold'));

/**
 * Runs `work` under a savepoint of tx's transaction: a refused hold (some units reserved before
 * another product ran out) leaves nothing of itself behind. Setting and releasing it go out with
 * the next statements; only a rollback costs a round trip of its own.
 */
async function withSavepoint<T>(tx: RequestContext, work: () => Promise<T>): Promise<T> {
  await savepoint.later(tx.db);
  try {
    const done = await work();
    await releaseSavepoint.later(tx.db);
    return done;
  } catch (err) {
    await rollbackToSavepoint(tx.db);
    throw err;
  }
}

/** One line per product: a product named twice is one line of the summed quantity. */
export function mergedItems(items: AcpCreateSessionRequest['line_items']): AcpSessionRequest['items'] {
  const byId = new Map<string, AcpSessionRequest['items'][number]>();
  for (const item of items) {
    const seen = byId.get(item.id);
    const quantity = (seen?.quantity ?? 0) + (item.quantity ?? 1);
    byId.set(item.id, { ...seen, ...item, quantity });
  }
  const merged = [...byId.values()];
  const over = merged.findIndex((i) => i.quantity > 999);
  if (over >= 0)
    throw acpInvalid('invalid', text('acp.error.lineTooBig', { max: 999 }), `$.line_items[${over}].quantity`);
  if (merged.length > 50)
    throw acpInvalid('invalid', text('acp.error.tooManyLines', { max: 50 }), '$.line_items');
  return merged;
}

export function couponsOf(input: { coupons?: string[]; discounts?: { codes?: string[] } }): string[] {
  const codes = [...(input.discounts?.codes ?? []), ...(input.coupons ?? [])]
    .map((c) => c.trim())
    .filter(Boolean);
  return [...new Set(codes)].slice(0, 5);
}

/** The session's buyer: the agent's person, or the account of the email the platform names (a guest one if new). */
async function buyerOf(
  ctx: RequestContext,
  who: AcpCaller,
  buyer: AcpBuyer | undefined,
): Promise<{ user?: AuthUser; messages: StoredMessage[]; signedOutUserId?: string }> {
  if ('user' in who) return { user: who.user, messages: [] };
  if (!buyer?.email) {
    return {
      messages: [
        error('missing', '$.buyer.email', 'requires_buyer_input', text('acp.message.buyerEmailNeeded')),
      ],
    };
  }
  const name =
    buyer.full_name ?? ([buyer.first_name, buyer.last_name].filter(Boolean).join(' ') || buyer.email);
  const { account, signedOut } = await accountForEmail(ctx, buyer.email, name.slice(0, 100));
  if (account.role !== 'buyer') {
    return {
      messages: [
        error('invalid', '$.buyer.email', 'requires_buyer_input', text('acp.message.emailCannotBuy')),
      ],
    };
  }
  return {
    user: { id: account.id, email: account.email, role: 'buyer' },
    messages: [],
    ...(signedOut ? { signedOutUserId: account.id } : {}),
  };
}

/** The ACP address as checkout takes it, or the messages naming what to fix (JSONPaths into the request). */
function addressOf(request: AcpSessionRequest) {
  const details = request.fulfillmentDetails;
  const a = details?.address;
  if (!a) {
    return {
      messages: [
        error(
          'missing',
          '$.fulfillment_details.address',
          'requires_buyer_input',
          text('acp.message.addressNeeded'),
        ),
      ],
    };
  }
  const digits = (details.phone_number ?? '').replace(/\D/g, '');
  const compact = a.postal_code.toUpperCase().replace(/\s+/g, '');
  const candidate = {
    street: [a.line_one, a.line_two].filter(Boolean).join(', '),
    city: a.city,
    province: a.state.toUpperCase(),
    postalCode: compact.length === 6 ? `${compact.slice(0, 3)} ${compact.slice(3)}` : a.postal_code,
    country: a.country.toUpperCase(),
    phone: digits.length === 10 ? `+1${digits}` : `+${digits}`,
  };
  const parsed = shippingAddressInput.safeParse(candidate);
  if (parsed.success) return { value: parsed.data, messages: [] as StoredMessage[] };
  const paths: Record<string, string> = {
    street: '$.fulfillment_details.address.line_one',
    city: '$.fulfillment_details.address.city',
    province: '$.fulfillment_details.address.state',
    postalCode: '$.fulfillment_details.address.postal_code',
    country: '$.fulfillment_details.address.country',
    phone: '$.fulfillment_details.phone_number',
  };
  // Each problem in our words (the address schema's own, or zod's worded from the field).
  const worded = inputProblems(shippingAddressInput, parsed.error);
  return {
    messages: parsed.error.issues.map((issue, i) => {
      const field = String(issue.path[0] ?? 'street');
      const missing = field === 'phone' && digits.length === 0;
      return error(
        missing ? 'missing' : 'invalid',
        paths[field] ?? '$.fulfillment_details.address',
        'requires_buyer_input',
        missing
          ? text('acp.message.phoneNeeded')
          : text('acp.message.fieldProblem', {
              field: String(paths[field]?.split('.').pop()),
              problem: worded[i]!.message,
            }),
      );
    }),
  };
}

/** A checkout's refusal as the agent sees it: one message per product it names, with its line. */
function refusalMessages(err: CheckoutRefusal, request: AcpSessionRequest): StoredMessage[] {
  const code: Record<CheckoutRefusal['reason'], Extract<AcpMessage, { type: 'error' }>['code']> = {
    empty: 'missing',
    unavailable: 'not_found',
    unverified_limit: 'quantity_exceeded',
    cooling_down: 'conflict',
    no_such_coupon: 'coupon_invalid',
    coupon: 'coupon_invalid',
    unshippable: 'region_restricted',
    out_of_stock: 'out_of_stock',
    opening: 'conflict',
  };
  const resolution =
    err.reason === 'unverified_limit' || err.reason === 'unshippable'
      ? 'requires_buyer_input'
      : 'recoverable';
  const errorCode = code[err.reason];
  const lines = err.productIds.map((p) => request.items.findIndex((i) => i.id === p)).filter((n) => n >= 0);
  const params = lines.length > 0 ? lines.map((n) => `$.line_items[${n}]`) : ['$.line_items'];
  return params.map((param) => error(errorCode, param, resolution, err.text));
}

/** A refused coupon, the purchase quoted without it: the refusal's own words (not its advice to remove it). */
function couponMessage(err: CheckoutRefusal): StoredMessage {
  const refusal = err.text;
  const problem =
    refusal.key === 'error.checkout.couponRefused' && refusal.values?.problem !== undefined
      ? refusal.values.problem
      : refusal;
  return spoken(
    {
      type: 'warning',
      code: 'discount_code_invalid',
      param: '$.discounts.codes',
      resolution: 'recoverable',
      content_type: 'plain',
    },
    text('acp.message.couponQuotedWithout', { problem }),
  );
}

function error(
  code: Extract<AcpMessage, { type: 'error' }>['code'],
  param: string,
  resolution: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review',
  said: Text,
): StoredMessage {
  return spoken({ type: 'error', code, param, resolution, content_type: 'plain' }, said);
}

/** A message but for its content (each kind of message: distributed over the union). */
type Unsaid = AcpMessage extends infer M ? (M extends unknown ? Omit<M, 'content'> : never) : never;

/**
 * A message as a session keeps it: its words, said again in each reader's locale, and its
 * content in the base locale (what a reading falls back to, and the log's).
 */
function spoken(message: Unsaid, said: Text): StoredMessage {
  return { ...message, content: render(BASE_LOCALE, said), words: said } as StoredMessage;
}

// ---- reading ------------------------------------------------------------------------------------

/** Whether `id` can be a session of `protocol` (else it is not looked up). */
const isSessionId = (protocol: SessionProtocol, id: string) =>
  id.length <= 64 && id.startsWith(`${protocol}_cs_`);

/** The row, when it is the caller's session; another caller's, or none, is 404. */
function callersSession(row: AcpRow | undefined, who: AcpCaller, id: string): AcpRow {
  const mine =
    row && ('platform' in who ? row.platformId === who.platform.id : row.agentUserId === who.user.id);
  if (!row || !mine) throw acpNotFound(id.slice(0, 64));
  return row;
}

/** The caller's session; another caller's, or none, is 404. */
async function sessionOf(ctx: RequestContext, who: AcpCaller, protocol: SessionProtocol, id: string) {
  const [row] = isSessionId(protocol, id) ? await sessionRead(ctx.db, { id }) : [];
  return callersSession(row, who, id);
}

const sessionRead = query('acp_session', (db, name) =>
  db
    .select()
    .from(acpSessions)
    .where(eq(acpSessions.id, ph('id')))
    .prepare(name),
);
// `for no key update`: a payment's transaction writes the session's webhook row, whose foreign
// key takes a key-share lock on this row; `for update` would make the two wait on each other.
const sessionLocked = query('acp_session_locked', (db, name) =>
  db
    .select()
    .from(acpSessions)
    .where(eq(acpSessions.id, ph('id')))
    .for('no key update')
    .prepare(name),
);

/**
 * The caller's session locked, then its checkout locked as a payment locks it (the buyer's cart,
 * then the checkout): what the session is cannot change under a decision made on it, and a
 * payment being made waits for it, or it for the payment.
 */
async function lockedSession<T = undefined>(
  tx: RequestContext,
  who: AcpCaller,
  protocol: SessionProtocol,
  id: string,
  /** A step sent in the same round trip as the locks, after them (a lock of its own). */
  also?: (tx: RequestContext) => Promise<T>,
) {
  if (!isSessionId(protocol, id)) throw acpNotFound(id.slice(0, 64));
  // One round trip, in the lock order: the session row, then the checkout it names (found
  // through that row), then `also`. Another caller's session is 404 once they are back, and the
  // rollback lets go of what was locked.
  const [[found], checkout, extra] = await pipeline(tx, [
    (c) => sessionLocked(c.db, { id }),
    (c) => lockCheckoutOfSession(c, id),
    also,
  ]);
  const row = callersSession(found, who, id);
  return { row, checkout: row.checkoutId ? checkout : undefined, also: extra };
}

/** The checkout a session names, locked as a payment locks it, found through the session's row. */
const lockCheckoutOfSession = paymentLockOf(
  'acp_session_checkout',
  sql`select checkout_id from ${acpSessions} where id = ${ph('sessionId')}`,
);

async function checkoutOf(ctx: RequestContext, row: AcpRow) {
  return row.checkoutId ? await sessionForPayment(ctx, row.checkoutId) : undefined;
}
