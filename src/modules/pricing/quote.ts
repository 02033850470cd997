// One quote of a purchase: the lines grouped into one parcel per seller, the discounts (each
// shop's automatic one, then the cart's coupon, docs/api.md "Discounts"), shipping and tax per
// parcel, and the totals
// (docs/api.md "Pricing"). The cart's estimate and
// checkout both price through `quote`, so that for the same lines, address and day the cart
// shows what checkout charges, to the cent; each parcel becomes its own order.
import type { Province } from '../../contract/common.ts';
import { type AppError, invalid } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, render } from '../../contract/i18n.ts';
import type { CarrierRate, ParcelSpec } from '../shipping/carrier.ts';
import type { ShippingProfile } from '../shipping/profile.ts';
import { torontoDate } from './dates.ts';
import { assertSafeInteger, percentOf, splitProportionally } from './money.ts';
import { parcelShipping, type ShippingOption, type ShippingProblem } from './shipping.ts';
import { type TaxLine, taxFor } from './tax.ts';

export interface QuoteLine {
  productId: string;
  /** What is sold (the stock's key); the product's own id for a product sold one way. */
  variantId: string;
  variantTitle: string;
  sku: string;
  title: string;
  unitPriceCents: number;
  quantity: number;
  sellerId: string;
  /** The seller's ship-from province. */
  sellerProvince: Province;
  isDigital: boolean;
  isPerishable: boolean;
  /** Per unit; null when the seller gave none, which counts as no weight. */
  weightKg: number | null;
  /** Width, height and depth of one unit in cm; null or absent when not given. */
  dimensionsCm?: [number, number, number] | null;
  /** The seller's shipping profile; null or absent: the platform's flat rate. */
  shipping?: ShippingProfile | null;
  /** The seller's automatic discount (the same on each of the seller's lines); null or absent: none. */
  shopDiscount?: ShopDiscount | null;
}

/**
 * A shop's automatic discount: `percent` off its items when they add up to `minSubtotalCents`,
 * from `startsOn` to `endsOn` (Toronto days, YYYY-MM-DD; null: open).
 */
export interface ShopDiscount {
  minSubtotalCents: number;
  percent: number;
  startsOn?: string | null;
  endsOn?: string | null;
}

/**
 * A coupon's discount as its terms: a percent of the items, or a fixed amount. A platform's
 * coupon (no `sellerId`) is computed on every item left after the shops' automatic discounts,
 * then shared between the parcels; a shop's, on that shop's items left, all of it its parcel's.
 */
export type DiscountTerms = ({ percent: number } | { amountCents: number }) & { sellerId?: string | null };

export interface QuoteInput {
  lines: QuoteLine[];
  destinationProvince: Province;
  /** The terms of a coupon that applies (checked by the coupons service), or none. */
  discount?: DiscountTerms | null;
  /** The day the tax rates are taken from, and the day shipping's dates count from. */
  on: Date;
  /** "H2X 1Y4": carrier rates are for it; absent, for the province (an estimate). */
  destinationPostalCode?: string;
  /** Carrier rates fetched before (shipping/rates.ts); a parcel without: the built-in table. */
  carrierRates?: (spec: ParcelSpec) => CarrierRate[] | undefined;
  /** The option the buyer chose per seller (option id by seller id); a parcel not named: its cheapest. */
  choices?: ReadonlyMap<string, string>;
}

/** A choice naming an option its parcel does not have. */
export interface ChoiceProblem {
  sellerId: string;
  optionId: string;
  /** The parcel's options' ids. */
  offered: string[];
}

/** Why a line cannot ship to the destination (a perishable item leaving its seller's province). */
export type QuoteProblem = ShippingProblem;

export interface ParcelQuote {
  sellerId: string;
  originProvince: Province;
  lines: Array<QuoteLine & { lineTotalCents: number }>;
  subtotalCents: number;
  /** Everything taken off this parcel's items: its shop's automatic discount and its coupon share. */
  discountCents: number;
  /** The shop's automatic discount (0 when it has none or its items are under the threshold). */
  automaticDiscountCents: number;
  /** The coupon's share: all of a shop's coupon on its own parcel; a platform's in proportion to what is left. */
  couponDiscountCents: number;
  /** Who pays: the shop (its automatic discount and its own coupon) and the platform (its coupon). */
  sellerDiscountCents: number;
  platformDiscountCents: number;
  shippingCostCents: number;
  /** Every way it can go, cheapest first. */
  shippingOptions: ShippingOption[];
  /** The one chosen (its price is shippingCostCents). */
  shipping: ShippingOption;
  /** Items - discount + shipping: what the tax is on. */
  taxableCents: number;
  /** Each component rounded half-up to the cent on this parcel. */
  taxLines: TaxLine[];
  taxAmountCents: number;
  totalCents: number;
}

export interface Quote {
  destinationProvince: Province;
  /** One per seller, in seller id order. */
  parcels: ParcelQuote[];
  subtotalCents: number;
  /** Everything taken off the items: the automatic discounts and the coupon's. */
  discountCents: number;
  automaticDiscountCents: number;
  couponDiscountCents: number;
  shippingCostCents: number;
  /** Each component summed over the parcels (the destination's components, 0 when empty). */
  taxLines: TaxLine[];
  taxAmountCents: number;
  totalCents: number;
  /** Lines that cannot ship as they are. Their parcel is priced as if it could go. */
  problems: QuoteProblem[];
  /** Choices naming no option of their parcel (the parcel is priced with its cheapest). */
  choiceProblems: ChoiceProblem[];
}

/**
 * What the terms take off `subtotalCents`: a percent rounded half-up to the cent, a fixed
 * amount, never more than the subtotal. No terms: nothing.
 */
export function discountFor(terms: DiscountTerms | null | undefined, subtotalCents: number): number {
  assertSafeInteger(subtotalCents, 'subtotalCents');
  if (!terms) return 0;
  if ('percent' in terms) {
    if (!(terms.percent > 0 && terms.percent <= 100)) {
      throw new Error(`discount percent must be above 0 and at most 100, got ${terms.percent}`);
    }
    return Math.min(percentOf(subtotalCents, terms.percent), subtotalCents);
  }
  assertSafeInteger(terms.amountCents, 'amountCents');
  if (terms.amountCents <= 0)
    throw new Error(`discount amountCents must be above 0, got ${terms.amountCents}`);
  return Math.min(terms.amountCents, subtotalCents);
}

/**
 * A shop's automatic discount on its items' subtotal on `today` (YYYY-MM-DD, Toronto): its
 * percent rounded half-up, once the threshold is met, within its days.
 */
export function automaticDiscount(
  rule: ShopDiscount | null | undefined,
  subtotalCents: number,
  today: string,
): number {
  if (!rule || subtotalCents <= 0 || subtotalCents < rule.minSubtotalCents) return 0;
  if ((rule.startsOn && today < rule.startsOn) || (rule.endsOn && today > rule.endsOn)) return 0;
  return discountFor({ percent: rule.percent }, subtotalCents);
}

/** Groups the lines by seller, in seller id order, each parcel's lines in the order given. */
function parcelsOf(lines: QuoteLine[]): Array<{
  sellerId: string;
  originProvince: Province;
  profile: ShippingProfile | null;
  lines: QuoteLine[];
}> {
  const bySeller = new Map<
    string,
    { sellerId: string; originProvince: Province; profile: ShippingProfile | null; lines: QuoteLine[] }
  >();
  for (const line of lines) {
    const parcel = bySeller.get(line.sellerId);
    if (!parcel) {
      bySeller.set(line.sellerId, {
        sellerId: line.sellerId,
        // A profile's ship-from province is where its parcels leave from (the perishable rule's too).
        originProvince: line.shipping?.originProvince ?? line.sellerProvince,
        profile: line.shipping ?? null,
        lines: [line],
      });
    } else if (parcel.originProvince !== (line.shipping?.originProvince ?? line.sellerProvince)) {
      throw new Error(
        `Seller ${line.sellerId} given two provinces: ${parcel.originProvince}, ${line.sellerProvince}`,
      );
    } else {
      parcel.lines.push(line);
    }
  }
  // By seller id, not by the order of the lines: the cent a discount split gives to the
  // larger remainder (ties to the earlier parcel) must go the same way however the caller
  // ordered its lines, or the cart and checkout could differ by a cent.
  return [...bySeller.values()].sort((a, b) =>
    a.sellerId < b.sellerId ? -1 : a.sellerId > b.sellerId ? 1 : 0,
  );
}

/** Prices a purchase. Pure: no database, no clock (the day comes in `on`). */
export function quote(input: QuoteInput): Quote {
  const { destinationProvince, on } = input;
  const grouped = parcelsOf(input.lines).map((parcel) => {
    const lines = parcel.lines.map((line) => {
      assertSafeInteger(line.unitPriceCents, 'unitPriceCents');
      assertSafeInteger(line.quantity, 'quantity');
      return { ...line, lineTotalCents: line.unitPriceCents * line.quantity };
    });
    return { ...parcel, lines, subtotalCents: lines.reduce((sum, line) => sum + line.lineTotalCents, 0) };
  });
  const subtotalCents = grouped.reduce((sum, parcel) => sum + parcel.subtotalCents, 0);
  // The combination rule (docs/api.md "Discounts"): each shop's automatic discount first, on its
  // own items; then the one coupon on what is left.
  const today = torontoDate(on);
  const automatic = grouped.map((parcel) =>
    automaticDiscount(parcel.lines[0]?.shopDiscount, parcel.subtotalCents, today),
  );
  const left = grouped.map((parcel, index) => parcel.subtotalCents - automatic[index]!);
  const terms = input.discount ?? null;
  const shopCoupon = terms?.sellerId ?? null;
  const shares = shopCoupon
    ? grouped.map((parcel, index) => (parcel.sellerId === shopCoupon ? discountFor(terms, left[index]!) : 0))
    : // Largest remainder: the shares sum to the discount exactly, none above what its parcel has left.
      splitProportionally(
        discountFor(
          terms,
          left.reduce((sum, cents) => sum + cents, 0),
        ),
        left,
      );

  const problems: QuoteProblem[] = [];
  const choiceProblems: ChoiceProblem[] = [];
  const parcels = grouped.map((parcel, index): ParcelQuote => {
    const shipping = parcelShipping({
      profile: parcel.profile,
      originProvince: parcel.originProvince,
      destinationProvince,
      ...(input.destinationPostalCode ? { destinationPostalCode: input.destinationPostalCode } : {}),
      items: parcel.lines,
      today,
      ...(input.carrierRates ? { carrierRates: input.carrierRates } : {}),
    });
    problems.push(...shipping.problems);
    const wanted = input.choices?.get(parcel.sellerId);
    const chosen = (wanted && shipping.options.find((o) => o.id === wanted)) || shipping.options[0]!;
    if (wanted && chosen.id !== wanted) {
      choiceProblems.push({
        sellerId: parcel.sellerId,
        optionId: wanted,
        offered: shipping.options.map((o) => o.id),
      });
    }
    const share = shares[index]!;
    const discountCents = automatic[index]! + share;
    const taxableCents = parcel.subtotalCents - discountCents + chosen.priceCents;
    const tax = taxFor(destinationProvince, taxableCents, on);
    return {
      sellerId: parcel.sellerId,
      originProvince: parcel.originProvince,
      lines: parcel.lines,
      subtotalCents: parcel.subtotalCents,
      discountCents,
      automaticDiscountCents: automatic[index]!,
      couponDiscountCents: share,
      sellerDiscountCents: automatic[index]! + (shopCoupon ? share : 0),
      platformDiscountCents: shopCoupon ? 0 : share,
      shippingCostCents: chosen.priceCents,
      shippingOptions: shipping.options,
      shipping: chosen,
      taxableCents,
      taxLines: tax.lines,
      taxAmountCents: tax.totalCents,
      totalCents: taxableCents + tax.totalCents,
    };
  });

  const taxLines = taxFor(destinationProvince, 0, on).lines.map((component) => ({
    ...component,
    amountCents: parcels.reduce(
      (sum, parcel) => sum + (parcel.taxLines.find((l) => l.name === component.name)?.amountCents ?? 0),
      0,
    ),
  }));
  const sum = (pick: (parcel: ParcelQuote) => number) => parcels.reduce((n, parcel) => n + pick(parcel), 0);
  return {
    destinationProvince,
    parcels,
    subtotalCents,
    discountCents: sum((parcel) => parcel.discountCents),
    automaticDiscountCents: sum((parcel) => parcel.automaticDiscountCents),
    couponDiscountCents: sum((parcel) => parcel.couponDiscountCents),
    shippingCostCents: sum((parcel) => parcel.shippingCostCents),
    taxLines,
    taxAmountCents: sum((parcel) => parcel.taxAmountCents),
    totalCents: sum((parcel) => parcel.totalCents),
    problems,
    choiceProblems,
  };
}

/**
 * The refusal checkout gives for a quote with problems: `400 VALIDATION_ERROR` naming each
 * product, on the field `shipping_address.province`; null when every line can ship.
 */
export function quoteRefusal(q: Quote, locale: Locale = BASE_LOCALE): AppError | null {
  if (q.problems.length === 0) return null;
  const problems = q.problems.map((p) => ({ field: 'shipping_address.province', message: p.text }));
  const [only] = q.problems;
  if (q.problems.length === 1 && only) return invalid(only.text.key, only.text.values, problems);
  // Several: the message lists them, put into words in the reader's locale.
  const list = q.problems.map((p) => render(locale, p.text)).join('. ');
  return invalid('error.pricing.problems', { problems: list }, problems);
}
