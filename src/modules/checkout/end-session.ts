// Ending an open checkout: its status moves to expired (and canceled, when its holder let it
// go) and its stock goes back, in ctx's transaction.
import type { RequestContext } from '../context.ts';
import { releaseCheckout } from '../inventory/service.ts';
import { markExpired } from './queries.ts';

/** Ends an open session and gives back its stock; whether it was open. */
export async function endSession(
  ctx: RequestContext,
  checkoutId: string,
  how?: { canceled: true },
): Promise<boolean> {
  const ended = await markExpired(ctx, checkoutId, Boolean(how));
  if (ended) await releaseCheckout(ctx, checkoutId);
  return ended;
}
