// Step "quote": the lines priced by the one quote for the address, refused ('unshippable', 400)
// when a product cannot go there: each problem a field problem, the message the one problem's
// or the list of them (words made when the answer leaves).
import type { Province } from '../../../contract/common.ts';
import { invalid } from '../../../contract/errors.ts';
import { quoteLines } from '../../cart/service.ts';
import { type Quote, quote } from '../../pricing/index.ts';
import { CheckoutRefusal, listOf } from '../refusal.ts';
import type { Discount } from './lock-coupon.ts';
import type { CheckoutLine } from './read-lines.ts';

export function quoteCheckout(
  lines: CheckoutLine[],
  args: { province: Province; discount: Discount; on: Date },
): Quote {
  const priced = quote({
    lines: quoteLines(lines),
    destinationProvince: args.province,
    discount: args.discount,
    on: args.on,
  });
  if (priced.problems.length === 0) return priced;
  const problems = priced.problems.map((p) => ({ field: 'shipping_address.province', message: p.text }));
  const [only] = priced.problems;
  const error =
    priced.problems.length === 1 && only
      ? invalid(only.text.key, only.text.values, problems)
      : invalid(
          'error.pricing.problems',
          {
            problems: listOf(
              priced.problems.map((p) => p.text),
              'period',
            ),
          },
          problems,
        );
  throw new CheckoutRefusal(
    'unshippable',
    error,
    priced.problems.map((p) => p.variantId),
  );
}
