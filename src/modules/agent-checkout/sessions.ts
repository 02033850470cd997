// The agent checkout's sessions over Portage's one checkout (docs/acp.md, docs/ucp.md): a
// session's items and address are quoted and held by checkout (hold.ts), paid by the payments
// module's own sandbox payment or Stripe (payment.ts), and made into orders by the purchase flow,
// exactly as POST /checkout. These operations take neutral input (request.ts) and answer the
// session's state (its row and checkout); each protocol's skin (acp/, ucp/) reads its wire into
// them and says their state and refusals (problems.ts) in its protocol. A session belongs to one
// protocol (its id's prefix) and one caller.
// Lock order: the session row, then its checkout as a payment locks it (the buyer's cart, then
// the checkout), then (inside holdCheckout) the buyer's other open checkouts of the session.
import { randomKey } from '../../contract/common.ts';
import { cancelCheckout } from '../checkout/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import type { AgentCaller } from './caller.ts';
import { refusal } from './problems.ts';
import { markCanceled } from './queries.ts';
import { requote } from './quote.ts';
import type { SessionChange, SessionRequest } from './request.ts';
import { checkoutOf, lockedSession, sessionOf } from './session-reads.ts';
import { effectiveStatus } from './status.ts';
import type { AgentCheckoutDeps, Finish, SessionProtocol, SessionRow, SessionState } from './types.ts';

export { completeAgentSession, type SessionPayment } from './payment.ts';

/** How long a session lives, and so at most its hold (checkout's 30 minutes). */
const SESSION_TTL_MS = 30 * 60 * 1000;

const newSessionId = (protocol: SessionProtocol) => `${protocol}_cs_${randomKey(15)}`;

/** A new session, quoted and held when it can be. */
export async function createSession(
  ctx: RequestContext,
  deps: AgentCheckoutDeps,
  who: AgentCaller,
  protocol: SessionProtocol,
  request: SessionRequest,
  finish?: Finish,
): Promise<SessionState> {
  const now = ctx.now();
  const row: SessionRow = {
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
  deps: AgentCheckoutDeps,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
  change: SessionChange,
  finish?: Finish,
): Promise<SessionState> {
  return requote(ctx, deps, who, protocol, id, change, finish);
}

/** The caller's session as it is now (not found when another's, or another protocol's). */
export async function readSession(
  ctx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
): Promise<SessionState> {
  const row = await sessionOf(ctx, who, protocol, id);
  return { row, checkout: await checkoutOf(ctx, row) };
}

/** Cancels a session: its stock back at once; refused (not_cancelable) if completed or canceled. */
export async function cancelSession(
  ctx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
  finish?: Finish,
): Promise<SessionState> {
  return inTransaction(ctx, async (tx) => {
    const { row, checkout } = await lockedSession(tx, who, protocol, id);
    const status = effectiveStatus(row, checkout, tx.now());
    const refused = () => refusal('not_cancelable', 'invalid', 'agent.error.cannotCancel', { status });
    if (status !== 'not_ready_for_payment' && status !== 'ready_for_payment') throw refused();
    const canceled = await markCanceled(tx, row.id);
    if (!canceled) throw refused();
    if (row.checkoutId) await cancelCheckout(tx, row.checkoutId);
    // A canceled session shows nothing of its checkout: no need to read it again.
    const state = { row: canceled, checkout: undefined };
    await finish?.(tx, state);
    return state;
  });
}
