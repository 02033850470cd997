// A caller's session found, read or locked: another caller's session, another protocol's, or
// none is not found (the same refusal, so no caller learns of another's sessions).
import { sessionForPayment } from '../checkout/service.ts';
import type { RequestContext } from '../context.ts';
import { ordersOfOneCheckout } from '../orders/service.ts';
import type { AgentCaller } from './caller.ts';
import { sessionNotFound } from './problems.ts';
import { lockSessionAndCheckout, readSessionRow, type SessionRow, sessionOfCheckoutRow } from './queries.ts';
import type { SessionProtocol } from './types.ts';

/** Whether `id` can be a session of `protocol` (else it is not looked up). */
const isSessionId = (protocol: SessionProtocol, id: string) =>
  id.length <= 64 && id.startsWith(`${protocol}_cs_`);

/** The row, when it is the caller's session; another caller's, or none, is not found. */
function callersSession(row: SessionRow | undefined, who: AgentCaller, id: string): SessionRow {
  const mine =
    row && ('platform' in who ? row.platformId === who.platform.id : row.agentUserId === who.user.id);
  if (!row || !mine) throw sessionNotFound(id.slice(0, 64));
  return row;
}

/** The caller's session. */
export async function sessionOf(
  ctx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
) {
  const row = isSessionId(protocol, id) ? await readSessionRow(ctx, id) : undefined;
  return callersSession(row, who, id);
}

/**
 * The caller's session locked, then its checkout locked as a payment locks it (the buyer's cart,
 * then the checkout): what the session is cannot change under a decision made on it, and a
 * payment being made waits for it, or it for the payment. Another caller's session is not found
 * once the locks are back, and the rollback lets go of what was locked.
 */
export async function lockedSession<T = undefined>(
  tx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  id: string,
  /** A step sent in the same round trip as the locks, after them (a lock of its own). */
  also?: (tx: RequestContext) => Promise<T>,
) {
  if (!isSessionId(protocol, id)) throw sessionNotFound(id.slice(0, 64));
  const locked = await lockSessionAndCheckout(tx, id, also);
  const row = callersSession(locked.row, who, id);
  return { row, checkout: row.checkoutId ? locked.checkout : undefined, also: locked.also };
}

/** The checkout a session names, if any. */
export async function checkoutOf(ctx: RequestContext, row: SessionRow) {
  return row.checkoutId ? await sessionForPayment(ctx, row.checkoutId) : undefined;
}

/**
 * The orders a checkout became, when a session of the caller's and of `protocol` held it (with
 * that session's id); undefined otherwise, or before it made orders.
 */
export async function ordersOfCallersCheckout(
  ctx: RequestContext,
  who: AgentCaller,
  protocol: SessionProtocol,
  checkoutId: string,
) {
  const session = await sessionOfCheckoutRow(ctx, checkoutId);
  const mine =
    session?.id.startsWith(`${protocol}_cs_`) &&
    ('platform' in who ? session.platformId === who.platform.id : session.agentUserId === who.user.id);
  if (!session || !mine) return undefined;
  const orders = await ordersOfOneCheckout(ctx, { checkoutId });
  return orders.length === 0 ? undefined : { sessionId: session.id, orders };
}
