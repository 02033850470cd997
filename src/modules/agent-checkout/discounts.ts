// A held checkout's discounts as both agent protocols list them (ACP's and UCP's `discounts.applied`):
// each shop's automatic discount, applied first, then the coupon's part of what was left
// (docs/api.md "Discounts": the one rule the quote applies).
import type { StoredParcel } from '../checkout/tables.ts';

export interface AppliedDiscounts {
  automatic: Array<{ sellerId: string; shopName: string; amountCents: number }>;
  /** The coupon's code and its part; null without a coupon. */
  coupon: { code: string; amountCents: number } | null;
}

export function appliedDiscounts(checkout: {
  parcels: StoredParcel[];
  discountCents: number;
  couponCode: string | null;
}): AppliedDiscounts {
  const automatic = checkout.parcels
    .filter((p) => (p.automaticDiscountCents ?? 0) > 0)
    .map((p) => ({
      sellerId: p.sellerId,
      shopName: p.shopName ?? '',
      amountCents: p.automaticDiscountCents!,
    }));
  const byRule = automatic.reduce((n, a) => n + a.amountCents, 0);
  return {
    automatic,
    coupon: checkout.couponCode
      ? { code: checkout.couponCode, amountCents: checkout.discountCents - byRule }
      : null,
  };
}
