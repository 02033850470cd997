// Step "quote": the lines priced by the one quote for the address, refused ('unshippable', 400)
// when a product cannot go there: each problem a field problem, the message the one problem's
// or the list of them (words made when the answer leaves); refused ('shipping_choice', 400) when
// a chosen shipping option is not one of its parcel's. Carrier rates come in fetched (never
// fetched here: this runs inside the checkout's transaction).
import type { Province } from '../../../contract/common.ts';
import { invalid } from '../../../contract/errors.ts';
import { quoteLines } from '../../cart/service.ts';
import { type Quote, type QuoteInput, quote } from '../../pricing/index.ts';
import { CheckoutRefusal, listOf } from '../refusal.ts';
import type { Discount } from './lock-coupon.ts';
import type { CheckoutLine } from './read-lines.ts';

export function quoteCheckout(
  lines: CheckoutLine[],
  args: {
    province: Province;
    postalCode: string;
    discount: Discount;
    on: Date;
    choices?: ReadonlyMap<string, string>;
    carrierRates?: QuoteInput['carrierRates'];
  },
): Quote {
  const priced = quote({
    lines: quoteLines(lines),
    destinationProvince: args.province,
    destinationPostalCode: args.postalCode,
    discount: args.discount,
    on: args.on,
    ...(args.choices ? { choices: args.choices } : {}),
    ...(args.carrierRates ? { carrierRates: args.carrierRates } : {}),
  });
  const [wrong] = priced.choiceProblems;
  if (wrong) {
    const problems = priced.choiceProblems.map((p) => ({
      field: 'shipping_choices',
      message: { key: 'error.checkout.shippingChoice' as const, values: choiceValues(p) },
    }));
    throw new CheckoutRefusal(
      'shipping_choice',
      invalid('error.checkout.shippingChoice', choiceValues(wrong), problems),
    );
  }
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

const choiceValues = (p: Quote['choiceProblems'][number]) => ({
  option: p.optionId,
  seller: p.sellerId,
  offered: p.offered.join(', '),
});
