// Flat-rate shipping per seller parcel (docs/api.md "Pricing").
// Carrier rate APIs are meant to plug in behind this same function later, so it
// takes a parcel and answers a cost and what stops it from shipping, nothing more.
import type { Province } from '../../contract/common.ts';
import { BASE_LOCALE, render, type Text, text } from '../../contract/i18n.ts';
import { assertSafeInteger } from './money.ts';

export interface ParcelItem {
  productId: string;
  variantId: string;
  title: string;
  unitPriceCents: number;
  quantity: number;
  isDigital: boolean;
  isPerishable: boolean;
  /** Per unit; null when the seller gave none, which counts as no weight. */
  weightKg: number | null;
}

/** A parcel whose items come to $75.00 or more ships free. */
const FREE_SHIPPING_FROM_CENTS = 7500;
const WITHIN_PROVINCE_CENTS = 899;
const OTHER_PROVINCE_CENTS = 1299;
const TO_TERRITORY_CENTS = 2499;
const TERRITORIES: readonly Province[] = ['YT', 'NT', 'NU'];
/** $1.00 per started kg above 5 kg. */
const INCLUDED_GRAMS = 5000;
const PER_EXTRA_KG_CENTS = 100;

/** Why a parcel cannot ship as it stands, naming the product: data, for the caller to refuse or show. */
export interface ShippingProblem {
  /** The variant's id (what the lines are keyed by). */
  variantId: string;
  /** The problem in the base locale (logs); `text` says it in the reader's. */
  message: string;
  text: Text;
}

/**
 * A perishable item may only ship within the seller's province: one problem per such item.
 * Digital items do not ship, so they never have one.
 */
function perishableProblems(
  originProvince: Province,
  destinationProvince: Province,
  physical: ParcelItem[],
): ShippingProblem[] {
  if (destinationProvince === originProvince) return [];
  return physical
    .filter((item) => item.isPerishable)
    .map((item) => {
      const said = text('error.pricing.perishable', {
        title: item.title,
        id: item.productId,
        province: originProvince,
      });
      return { variantId: item.variantId, message: render(BASE_LOCALE, said), text: said };
    });
}

/**
 * Total weight in whole grams. Summed in integers so 2.1 kg x 3 + 0.7 kg is exactly 7 kg
 * (floats make it 7.000000000000001, which would start an 8th kg).
 */
function totalGrams(physical: ParcelItem[]): number {
  return physical.reduce((sum, item) => {
    if (item.weightKg === null) return sum;
    if (!(item.weightKg >= 0)) throw new Error(`weightKg must not be negative, got ${item.weightKg}`);
    return sum + Math.round(item.weightKg * 1000) * item.quantity;
  }, 0);
}

function baseRateCents(originProvince: Province, destinationProvince: Province): number {
  if (destinationProvince === originProvince) return WITHIN_PROVINCE_CENTS;
  if (TERRITORIES.includes(destinationProvince)) return TO_TERRITORY_CENTS;
  return OTHER_PROVINCE_CENTS;
}

/**
 * Shipping cost of one seller's parcel, and the problems that would stop it from shipping.
 * Digital items ship free and add no weight, but they do count toward the free-shipping
 * subtotal (the rule reads "a parcel with subtotal of $75.00 or more"). A parcel with a
 * problem (a perishable item leaving the seller's province) is still priced as if it could
 * go: the cart shows an estimate with the problem, checkout refuses it (see quote.ts).
 */
export function shippingFor(parcel: {
  originProvince: Province;
  destinationProvince: Province;
  items: ParcelItem[];
}): { costCents: number; problems: ShippingProblem[] } {
  const { originProvince, destinationProvince, items } = parcel;
  for (const item of items) {
    assertSafeInteger(item.unitPriceCents, 'unitPriceCents');
    assertSafeInteger(item.quantity, 'quantity');
    if (item.unitPriceCents < 0 || item.quantity < 1) {
      throw new Error(`Parcel item ${item.productId}: price must be >= 0 and quantity >= 1`);
    }
  }
  const physical = items.filter((item) => !item.isDigital);
  const problems = perishableProblems(originProvince, destinationProvince, physical);

  if (physical.length === 0) return { costCents: 0, problems };
  const subtotalCents = items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
  if (subtotalCents >= FREE_SHIPPING_FROM_CENTS) return { costCents: 0, problems };

  const extraGrams = totalGrams(physical) - INCLUDED_GRAMS;
  const startedExtraKg = extraGrams > 0 ? Math.ceil(extraGrams / 1000) : 0;
  return {
    costCents: baseRateCents(originProvince, destinationProvince) + startedExtraKg * PER_EXTRA_KG_CENTS,
    problems,
  };
}
