// Paying a session with a delegated token of one of deps.handlers: the sandbox's vault token, or
// a provider's (Stripe's Shared Payment Token). The order is made by the purchase flow under the
// checkout's lock, once, whichever of this answer and the provider's webhook comes first; a
// session completed already answers its order.
import { AppError } from '../../contract/errors.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { SANDBOX_CARDS } from '../payments/providers/sandbox.ts';
import { payDelegated, paySandboxIn, sandboxPaid } from '../payments/service.ts';
import { sha256 } from '../secrets.ts';
import { type AgentCaller, vaultOwner } from './caller.ts';
import { SANDBOX_HANDLER_ID } from './handlers.ts';
import { AgentCheckoutRefusal, refusal } from './problems.ts';
import { markPaying, markPaymentFailed } from './queries.ts';
import { checkoutOf, lockedSession } from './session-reads.ts';
import { effectiveStatus } from './status.ts';
import type { AgentCheckoutDeps, Finish, SessionProtocol, SessionRow, SessionState } from './types.ts';
import { checkSpentToken, MAX_TOKEN_LENGTH, spendVaultToken, unspendVaultToken } from './vault.ts';

/** A checkout as a payment locks it (with what the payment needs to make orders). */
type CheckoutRow = NonNullable<Awaited<ReturnType<typeof lockedSession>>['checkout']>;

/** What pays: a handler of deps.handlers, and the token it gave. */
export interface SessionPayment {
  handlerId: string;
  token: string;
}

export async function completeAgentSession(
  ctx: RequestContext,
  deps: AgentCheckoutDeps,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
  payment: SessionPayment,
  /** Called in the payment's transaction once it made the orders (the sandbox's vault only). */
  finish?: Finish,
): Promise<SessionState> {
  const handler = deps.handlers.find((h) => h === payment.handlerId);
  if (!handler) {
    throw refusal(
      'payment_refused',
      'invalid',
      'agent.error.noHandler',
      {
        handler: payment.handlerId.slice(0, 100),
        handlers: deps.handlers.join(', '),
        count: deps.handlers.length,
      },
      'payment.handler',
    );
  }
  if (handler === SANDBOX_HANDLER_ID)
    return completeWithVault(ctx, deps, who, protocol, id, payment.token, finish);
  if (!/^spt_[A-Za-z0-9_]{1,200}$/.test(payment.token)) {
    throw refusal('payment_refused', 'invalid', 'agent.error.sptExpected', undefined, 'payment.token');
  }
  return completeWithProvider(ctx, deps, who, protocol, id, payment.token);
}

type Payable<T> =
  | { done: SessionState; also: T | undefined }
  | { row: SessionRow; checkout: CheckoutRow; also: T | undefined };

/**
 * The session locked for its payment: answered as it is when completed, refused unless payable.
 * `also` is sent in the round trip of the checkout's locks, after them (see lockedSession).
 */
async function payable<T = undefined>(
  tx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
  also?: (tx: RequestContext) => Promise<T>,
): Promise<Payable<T>> {
  const { row, checkout, also: extra } = await lockedSession(tx, who, protocol, id, also);
  const status = effectiveStatus(row, checkout, tx.now());
  if (status === 'completed') return { done: { row, checkout }, also: extra };
  if (!checkout || (status !== 'ready_for_payment' && status !== 'complete_in_progress')) {
    throw status === 'not_ready_for_payment'
      ? refusal('wrong_state', status, 'agent.error.notReady')
      : refusal('wrong_state', status, 'agent.error.nothingCharged', { status });
  }
  return { row, checkout, also: extra };
}

/**
 * The sandbox's vault: the token checked against the held total and spent, and the sandbox's
 * payment made, in one transaction under the session's lock (then its checkout's). A refusal
 * rolls it all back: nothing charged, the token unspent, the session as it was.
 */
async function completeWithVault(
  ctx: RequestContext,
  deps: AgentCheckoutDeps,
  who: AgentCaller,
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
    if ('done' in p) {
      // Paid already (a retry): answered as it is, and a token this call spent is given back.
      if (p.also) await unspendVaultToken(tx, token);
      return { done: p.done } as const;
    }
    const vaulted = await checkSpentToken(tx, p.also, {
      token,
      owner: vaultOwner(who),
      sessionId: p.row.id,
      amount: p.checkout.totalCents,
    });
    if (vaulted.outcome === 'authenticates') {
      // Rolled back with the transaction: the token stays unspent, nothing is charged.
      throw refusal(
        'needs_authentication',
        'requires_3ds',
        'agent.error.requires3ds',
        undefined,
        'payment.token',
      );
    }
    const card = SANDBOX_CARDS[vaulted.outcome];
    const outcome = await paySandboxIn(tx, { ...deps, sign: sandbox.sign }, p.checkout.id, card, p.checkout);
    // Orders made: the checkout is complete, nothing else changed (without orders, sandboxPaid
    // below refuses the payment, refunded).
    const state: SessionState = { row: p.row, checkout: { ...p.checkout, status: 'complete' } };
    if (outcome.paid.orderIds?.length) await finish?.(tx, state);
    return { state, outcome, done: undefined };
  }).catch(paymentRefusal);
  if (paying.done) return paying.done;
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
  deps: AgentCheckoutDeps,
  who: AgentCaller,
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
      throw refusal(
        'wrong_state',
        'complete_in_progress',
        'agent.error.otherTokenInProgress',
        undefined,
        'payment.token',
      );
    }
    const paying = await markPaying(tx, p.row.id, tokenHash);
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
      throw new AgentCheckoutRefusal(
        'provider_unavailable',
        'payment_provider_unavailable',
        err.text,
        undefined,
        5,
      );
    }
    if (err instanceof AppError && err.code === 'PAYMENT_PROVIDER_ERROR') {
      // Declined: nothing was charged, and the session can pay again (this token's attempt only).
      await markPaymentFailed(ctx, id, tokenHash);
    }
    // Anything else (the hold ended meanwhile and the money was refunded, or a failure of ours
    // after the charge) leaves the session complete_in_progress: the money may have moved.
    return paymentRefusal(err);
  }
  // Paid (completed, read from its checkout), or accepted and settling (complete_in_progress).
  return { row: claim.row, checkout: await checkoutOf(ctx, claim.row) };
}

/** A payment's refusal: declined, or the checkout ended meanwhile. */
function paymentRefusal(err: unknown): never {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'PAYMENT_PROVIDER_ERROR') {
    throw new AgentCheckoutRefusal('payment_declined', 'payment_declined', err.text, 'payment');
  }
  throw new AgentCheckoutRefusal('wrong_state', 'conflict', err.text);
}
