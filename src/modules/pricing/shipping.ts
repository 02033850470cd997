// Shipping per seller parcel (docs/shipping.md): the options a buyer chooses from, and what
// stops a parcel from shipping. A seller without a shipping profile keeps the platform's flat
// rate (shippingFor); one with a profile charges their own flat rate, or a carrier's services,
// rated by the carrier before the checkout's transaction (shipping/rates.ts) or by the built-in
// table. Pure: the carrier's answers come in as a lookup.
import { POSTAL_LETTERS } from '../../contract/checkout.ts';
import type { Province } from '../../contract/common.ts';
import { BASE_LOCALE, render, type Text, text } from '../../contract/i18n.ts';
import type { CarrierRate, ParcelSpec } from '../shipping/carrier.ts';
import type { ShippingProfile } from '../shipping/profile.ts';
import { tableRates } from '../shipping/rate-table.ts';
import { addBusinessDays } from './dates.ts';
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
  /** One unit's width, height and depth in cm; null or absent when not given. */
  dimensionsCm?: [number, number, number] | null;
}

/** A parcel whose items come to $75.00 or more ships free. */
export const FREE_SHIPPING_FROM_CENTS = 7500;
export const WITHIN_PROVINCE_CENTS = 899;
export const OTHER_PROVINCE_CENTS = 1299;
export const TO_TERRITORY_CENTS = 2499;
const TERRITORIES: readonly Province[] = ['YT', 'NT', 'NU'];
/** $1.00 per started kg above 5 kg. */
const INCLUDED_GRAMS = 5000;
export const PER_EXTRA_KG_CENTS = 100;

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
 * The platform's flat rate for one seller's parcel, and the problems that would stop it from shipping.
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

/** One way a parcel can go: a service, its price before tax and the day it should arrive. */
export interface ShippingOption {
  /** Stable within a parcel: "canada_post:DOM.EP", "seller:flat", "portage:standard". */
  id: string;
  carrier: 'canada_post' | 'seller' | 'portage';
  /** The carrier's service code, or "flat" / "standard". */
  service: string;
  priceCents: number;
  /** YYYY-MM-DD. */
  deliveryDate: string;
  /** Business days from the order to the delivery (handling and transit): a late confirmation's date. */
  businessDays: number;
  /** Who priced it: the carrier's API, the built-in table (no carrier, or it failed), the seller, the platform. */
  ratedBy: 'carrier' | 'table' | 'seller' | 'platform';
}

/** Business days in transit of the flat rates (the platform's and a seller's). */
export function flatTransitDays(origin: Province, destination: Province): number {
  return TERRITORIES.includes(destination) ? 12 : origin === destination ? 3 : 7;
}

export interface ParcelShippingInput {
  /** The seller's profile; null: the platform's flat rate. */
  profile: ShippingProfile | null;
  originProvince: Province;
  destinationProvince: Province;
  /** "H2X 1Y4"; absent for an estimate by province. */
  destinationPostalCode?: string;
  items: ParcelItem[];
  /** Today (YYYY-MM-DD, America/Toronto). */
  today: string;
  /** The carrier's rates for a parcel when they were fetched before (shipping/rates.ts); undefined: none. */
  carrierRates?: (spec: ParcelSpec) => CarrierRate[] | undefined;
}

/** Whole grams of the physical items, or the profile's default weight when they give none. */
function parcelGrams(physical: ParcelItem[], profile: ShippingProfile): number {
  const grams = totalGrams(physical);
  return grams > 0 ? grams : Math.round(profile.parcel.weightKg * 1000);
}

/** The carrier parcel a profile ships `items` as, to `destinationPostalCode`. */
export function parcelSpec(
  profile: ShippingProfile,
  physical: ParcelItem[],
  destinationPostalCode: string,
  today: string,
): ParcelSpec {
  // The profile's box, grown to hold the largest item on each side (sides compared longest first).
  const box = [profile.parcel.lengthCm, profile.parcel.widthCm, profile.parcel.heightCm].sort(
    (a, b) => b - a,
  );
  for (const item of physical) {
    const sides = item.dimensionsCm ? [...item.dimensionsCm].sort((a, b) => b - a) : [];
    sides.forEach((side, n) => {
      box[n] = Math.max(box[n]!, Math.ceil(side * 10) / 10);
    });
  }
  return {
    originPostalCode: profile.originPostalCode.replace(' ', ''),
    destinationPostalCode: destinationPostalCode.replace(' ', ''),
    weightGrams: Math.max(1, parcelGrams(physical, profile)),
    dimensionsCm: { length: box[0]!, width: box[1]!, height: box[2]! },
    mailingDate: addBusinessDays(today, profile.handlingDays),
    services: profile.services,
  };
}

/**
 * The options of one seller's parcel, cheapest first (the first is the one chosen when nobody
 * chooses), and its problems. A parcel of digital items only has one free option. Free-over
 * applies to the items before the discount, as the platform's $75 does.
 */
export function parcelShipping(input: ParcelShippingInput): {
  options: ShippingOption[];
  problems: ShippingProblem[];
} {
  const { profile, originProvince, destinationProvince, items, today } = input;
  const flat = shippingFor({ originProvince, destinationProvince, items });
  const physical = items.filter((item) => !item.isDigital);
  const flatDays = (handling: number) => handling + flatTransitDays(originProvince, destinationProvince);
  const option = (o: Omit<ShippingOption, 'id'>): ShippingOption => ({
    id: `${o.carrier}:${o.service}`,
    ...o,
  });
  if (!profile || physical.length === 0) {
    const days = flatDays(profile?.handlingDays ?? 0);
    const deliveryDate = addBusinessDays(today, days);
    const base = { priceCents: flat.costCents, deliveryDate, businessDays: days };
    return {
      options: [
        profile
          ? option({ carrier: 'seller', service: 'flat', ratedBy: 'seller', ...base, priceCents: 0 })
          : option({ carrier: 'portage', service: 'standard', ratedBy: 'platform', ...base }),
      ],
      problems: flat.problems,
    };
  }
  const subtotalCents = items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
  const free = profile.freeOverCents !== null && subtotalCents >= profile.freeOverCents;
  if (profile.rates === 'flat') {
    const days = flatDays(profile.handlingDays);
    return {
      options: [
        option({
          carrier: 'seller',
          service: 'flat',
          ratedBy: 'seller',
          priceCents: free ? 0 : (profile.flatCents ?? 0),
          deliveryDate: addBusinessDays(today, days),
          businessDays: days,
        }),
      ],
      problems: flat.problems,
    };
  }
  // A destination that is only a province (the cart's estimate): a postal code of its first district.
  const postal = input.destinationPostalCode ?? `${POSTAL_LETTERS[destinationProvince][0]}0A0A0`;
  const spec = parcelSpec(profile, physical, postal, today);
  const fetched = input.carrierRates?.(spec)?.filter((r) => spec.services.includes(r.service));
  const rated = fetched && fetched.length > 0 ? fetched : undefined;
  const rates = rated ?? tableRates(spec);
  const handling = profile.handlingDays;
  const options = rates.map((rate) => {
    const transit = rate.transitDays ?? daysBetween(spec.mailingDate, rate.deliveryDate);
    const businessDays = handling + transit;
    return option({
      carrier: 'canada_post',
      service: rate.service,
      ratedBy: rated ? 'carrier' : 'table',
      priceCents: free ? 0 : rate.priceCents,
      deliveryDate: rate.deliveryDate ?? addBusinessDays(spec.mailingDate, transit),
      businessDays,
    });
  });
  // Cheapest first; at the same price, the sooner.
  options.sort(
    (a, b) =>
      a.priceCents - b.priceCents ||
      (a.deliveryDate < b.deliveryDate ? -1 : a.deliveryDate > b.deliveryDate ? 1 : 0),
  );
  return { options, problems: flat.problems };
}

/** Business days from `from` to `to` (YYYY-MM-DD); 0 when `to` is absent or not later. */
function daysBetween(from: string, to: string | null): number {
  if (!to || to <= from) return 0;
  let days = 0;
  let day = from;
  while (day < to && days < 60) {
    day = addBusinessDays(day, 1);
    days++;
  }
  return days;
}
