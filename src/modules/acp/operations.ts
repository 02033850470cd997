// ACP's operations over the agent checkout's core: each reads its wire request into the core's
// input (request.ts), runs the core's operation, and answers the session as ACP says it
// (answer.ts), that answer made in the operation's transaction and stored under the request's
// Idempotency-Key with its commit. The core's refusals leave as ACP's errors (routes.ts, errors.ts).
import type {
  AcpCheckoutSession,
  AcpCompleteSessionRequest,
  AcpCreateSessionRequest,
  AcpDelegatePaymentRequest,
  AcpDelegatePaymentResponse,
  AcpUpdateSessionRequest,
} from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import { BASE_LOCALE } from '../../contract/i18n.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import {
  cancelSession,
  completeAgentSession,
  createSession,
  readSession,
  updateSession,
} from '../agent-checkout/sessions.ts';
import type { AgentCheckoutDeps, Finish, SessionState } from '../agent-checkout/types.ts';
import { vaultCard } from '../agent-checkout/vault.ts';
import type { RequestContext } from '../context.ts';
import { type AnswerDeps, toAcpSession } from './answer.ts';
import { sessionChangeOf, sessionPaymentOf, sessionRequestOf, vaultRequestOf } from './request.ts';

/** What ACP's operations need: the core's, and what its answers show (its handlers as ACP describes them). */
export type AcpDeps = AgentCheckoutDeps & { acp: AnswerDeps };

/** A session's id prefix: ACP's sessions are `acp_cs_…`. */
const PROTOCOL = 'acp';

/** POST /checkout_sessions: 201 with the session, quoted and held when it can be. */
export async function createAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AgentCaller,
  input: AcpCreateSessionRequest,
  locale: string | undefined,
): Promise<AcpCheckoutSession> {
  const request = sessionRequestOf(input, locale);
  const state = await createSession(ctx, deps, who, PROTOCOL, request, storedWithCommit(deps, 201));
  return acpAnswer(deps, ctx, state);
}

/** POST /checkout_sessions/:id: the items, buyer, address, option or coupons changed, quoted again. */
export async function updateAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AgentCaller,
  id: string,
  input: AcpUpdateSessionRequest,
): Promise<AcpCheckoutSession> {
  const change = sessionChangeOf(input);
  const state = await updateSession(ctx, deps, who, PROTOCOL, id, change, storedWithCommit(deps, 200));
  return acpAnswer(deps, ctx, state);
}

/** GET /checkout_sessions/:id. */
export async function getAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AgentCaller,
  id: string,
): Promise<AcpCheckoutSession> {
  return acpAnswer(deps, ctx, await readSession(ctx, who, PROTOCOL, id));
}

/** POST /checkout_sessions/:id/cancel: 200 canceled, its stock back at once; 405 if completed or canceled. */
export async function cancelAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AgentCaller,
  id: string,
): Promise<AcpCheckoutSession> {
  return acpAnswer(deps, ctx, await cancelSession(ctx, who, PROTOCOL, id, storedWithCommit(deps, 200)));
}

/**
 * POST /checkout_sessions/:id/complete: spends the delegated token on the held checkout. The
 * order is made by the purchase flow under the checkout's lock, once, whichever of this answer
 * and the provider's webhook comes first; a session completed already answers its order.
 */
export async function completeAcpSession(
  ctx: RequestContext,
  deps: AcpDeps,
  who: AgentCaller,
  id: string,
  input: AcpCompleteSessionRequest,
): Promise<AcpCheckoutSession> {
  const payment = sessionPaymentOf(input);
  const state = await completeAgentSession(
    ctx,
    deps,
    who,
    PROTOCOL,
    id,
    payment,
    storedWithCommit(deps, 200),
  );
  return acpAnswer(deps, ctx, state);
}

/** POST /agentic_commerce/delegate_payment: the sandbox's vault token for a test card (201). */
export async function delegatePayment(
  ctx: RequestContext,
  who: AgentCaller,
  input: AcpDelegatePaymentRequest,
): Promise<AcpDelegatePaymentResponse> {
  let answer: AcpDelegatePaymentResponse | undefined;
  // The token and the answer under the request's Idempotency-Key go out with the commit: one round trip.
  await vaultCard(ctx, who, vaultRequestOf(input), async (tx, token) => {
    answer = { id: token.id, created: isoSecond(token.createdAt), metadata: input.metadata };
    await tx.answerWithCommit?.(tx, 201, answer);
  });
  return answer!;
}

/** Answers made inside an operation's transaction (and stored with its commit), by their state. */
const answered = new WeakMap<SessionState, AcpCheckoutSession>();

/** A session's state as ACP says it, in the request's locale: the one stored with the commit, if any. */
function acpAnswer(deps: AcpDeps, ctx: RequestContext, state: SessionState): AcpCheckoutSession {
  return (
    answered.get(state) ??
    toAcpSession(deps.acp, state.row, state.checkout, ctx.now(), ctx.locale ?? BASE_LOCALE)
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
    const answer = toAcpSession(deps.acp, state.row, state.checkout, tx.now(), tx.locale ?? BASE_LOCALE);
    answered.set(state, answer);
    await tx.answerWithCommit(tx, status, answer);
  };
