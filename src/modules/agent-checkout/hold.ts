// The one place the agent checkout asks the buyer's checkout for a hold: a session's lines,
// address and coupon quoted and held as POST /checkout would, for the session's buyer, under a
// savepoint so a refused hold leaves nothing of itself behind.
import { type CheckoutDeps, holdCheckout } from '../checkout/service.ts';
import type { AuthUser, RequestContext } from '../context.ts';
import type { AgentCaller } from './caller.ts';
import { withSavepoint } from './queries.ts';
import type { SessionRequest } from './request.ts';
import type { SessionRow } from './types.ts';

type ShippingAddressInput = Parameters<typeof holdCheckout>[3]['shipping_address'];
export type SessionHold = Awaited<ReturnType<typeof holdCheckout>>;

/** Holds the session's lines for `buyer` (a CheckoutRefusal when checkout refuses). */
export function holdForSession(
  tx: RequestContext,
  deps: CheckoutDeps,
  hold: {
    who: AgentCaller;
    session: SessionRow;
    buyer: AuthUser;
    request: SessionRequest;
    address: ShippingAddressInput;
    coupon: string | undefined;
    /** The hold after carrier rates were fetched for it (checkout's steps/rate.ts). */
    ratesFetched: boolean;
  },
): Promise<SessionHold> {
  const asBuyer = { ...tx, user: hold.buyer };
  return withSavepoint(asBuyer, () =>
    holdCheckout(
      asBuyer,
      deps,
      {
        kind: 'given',
        lines: hold.request.items.map((i) => ({ variantId: i.id, quantity: i.quantity })),
        heldFor: {
          key: hold.session.id,
          ...('platform' in hold.who ? { owner: hold.who.platform.id } : {}),
          until: hold.session.expiresAt,
        },
      },
      {
        shipping_address: hold.address,
        ratesFetched: hold.ratesFetched,
        ...(hold.coupon ? { coupon: hold.coupon } : {}),
        ...(hold.request.shippingChoices
          ? {
              shipping_choices: hold.request.shippingChoices.map((c) => ({
                seller_id: c.sellerId,
                option_id: c.optionId,
              })),
            }
          : {}),
      },
    ),
  );
}
