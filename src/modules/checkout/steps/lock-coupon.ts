// Step "lock coupon": the coupon named (or the cart's) locked, and checked under the lock against
// its redemptions and the uses other buyers' open checkouts hold. Answers the discount, or null.
import { conflict } from '../../../contract/errors.ts';
import type { RequestContext } from '../../context.ts';
import { type CouponItems, couponProblem, noSuchCoupon } from '../../coupons/service.ts';
import { readCouponLocked } from '../queries.ts';
import { CheckoutRefusal } from '../refusal.ts';

export type Discount = NonNullable<ReturnType<typeof couponProblem>['discount']> | null;

/**
 * `code` is the coupon to apply (named, or the cart's); a `named` one that does not exist is
 * refused ('no_such_coupon'), the cart's is dropped silently; one that does not apply is
 * refused ('coupon').
 */
export async function lockCoupon(
  tx: RequestContext,
  args: { buyerId: string; code: string | null | undefined; named: boolean; items: CouponItems },
): Promise<Discount> {
  if (!args.code) return null;
  const upper = args.code.toUpperCase();
  const { coupon, used, held } = await readCouponLocked(tx, upper, args.buyerId);
  if (!coupon && args.named) throw new CheckoutRefusal('no_such_coupon', noSuchCoupon(upper));
  if (!coupon) return null;
  const checked = couponProblem(tx, coupon, used, args.items, held);
  if (checked.reason) {
    throw new CheckoutRefusal(
      'coupon',
      conflict('error.checkout.couponRefused', { problem: checked.reason }),
    );
  }
  return checked.discount;
}
