// The built-in rate table: what a carrier would answer, by weight and zone, without credentials
// or a network (the embedded default, the tests of everything else, and the fallback when the
// carrier is slow or down). Zones come from the postal codes' first letters (their districts and
// provinces); prices are Portage's own, close to Canada Post's counter prices of 2026 for a box.
import { addBusinessDays } from '../pricing/dates.ts';
import type { CarrierRate, CarrierService, ParcelSpec } from './carrier.ts';

type Region = 'atlantic' | 'central' | 'prairies' | 'west' | 'north';

/** The province of each postal district letter (X is both NT and NU: the same zone either way). */
const PROVINCE_OF_LETTER: Record<string, string> = {
  A: 'NL',
  B: 'NS',
  C: 'PE',
  E: 'NB',
  G: 'QC',
  H: 'QC',
  J: 'QC',
  K: 'ON',
  L: 'ON',
  M: 'ON',
  N: 'ON',
  P: 'ON',
  R: 'MB',
  S: 'SK',
  T: 'AB',
  V: 'BC',
  X: 'NT',
  Y: 'YT',
};

const REGION_OF_PROVINCE: Record<string, Region> = {
  NL: 'atlantic',
  NS: 'atlantic',
  PE: 'atlantic',
  NB: 'atlantic',
  QC: 'central',
  ON: 'central',
  MB: 'prairies',
  SK: 'prairies',
  AB: 'prairies',
  BC: 'west',
  NT: 'north',
  YT: 'north',
};

/** Regions next to each other: a parcel between them is zone 3, like one within a region. */
const NEIGHBOURS = new Set(['atlantic:central', 'central:prairies', 'prairies:west']);

/**
 * Zone 1 within a postal district, 2 within a province, 3 within a region or to the next one,
 * 4 across the country, 5 to or from the territories.
 */
export function zoneOf(origin: string, destination: string): 1 | 2 | 3 | 4 | 5 {
  const [a, b] = [origin[0]!, destination[0]!];
  const [pa, pb] = [PROVINCE_OF_LETTER[a], PROVINCE_OF_LETTER[b]];
  if (!pa || !pb) throw new Error(`not a Canadian postal code: ${origin}, ${destination}`);
  if (a === b) return 1;
  if (pa === pb) return 2;
  const [ra, rb] = [REGION_OF_PROVINCE[pa]!, REGION_OF_PROVINCE[pb]!];
  if (ra === 'north' || rb === 'north') return 5;
  if (ra === rb || NEIGHBOURS.has(`${ra}:${rb}`) || NEIGHBOURS.has(`${rb}:${ra}`)) return 3;
  return 4;
}

interface ServiceRow {
  /** Cents for the first kilogram, by zone 1-5. */
  base: readonly [number, number, number, number, number];
  /** Cents for each further started kilogram, by zone. */
  perKg: readonly [number, number, number, number, number];
  /** Business days in transit, by zone. */
  days: readonly [number, number, number, number, number];
  guaranteed: boolean;
}

const TABLE: Record<CarrierService, ServiceRow> = {
  'DOM.RP': {
    base: [1099, 1349, 1599, 1899, 2999],
    perKg: [75, 110, 150, 190, 350],
    days: [2, 3, 5, 7, 12],
    guaranteed: false,
  },
  'DOM.EP': {
    base: [1199, 1499, 1799, 2099, 3299],
    perKg: [85, 125, 165, 210, 390],
    days: [1, 2, 4, 6, 10],
    guaranteed: true,
  },
  'DOM.XP': {
    base: [1699, 2199, 2699, 3199, 4999],
    perKg: [120, 180, 240, 300, 550],
    days: [1, 1, 2, 3, 6],
    guaranteed: true,
  },
  'DOM.PC': {
    base: [2899, 3699, 4499, 5299, 7999],
    perKg: [200, 280, 360, 440, 800],
    days: [1, 1, 1, 2, 4],
    guaranteed: true,
  },
};

/** Volumetric divisor (cm³ per kg), as Canada Post bills a light, bulky box. */
const CUBIC_CM_PER_KG = 6000;

/** The weight billed: the heavier of the actual and the volumetric weight, in grams. */
export function billedGrams(parcel: Pick<ParcelSpec, 'weightGrams' | 'dimensionsCm'>): number {
  const { length, width, height } = parcel.dimensionsCm;
  return Math.max(parcel.weightGrams, Math.ceil(((length * width * height) / CUBIC_CM_PER_KG) * 1000));
}

/** GST on the table's price where the carrier would charge it (the seller's records only). */
const CARRIER_TAX_PERCENT = 5;

/** The table's rates for `parcel`'s services, cheapest first: the shape a carrier answers. */
export function tableRates(parcel: ParcelSpec): CarrierRate[] {
  const zone = zoneOf(parcel.originPostalCode, parcel.destinationPostalCode);
  const extraKg = Math.max(0, Math.ceil(billedGrams(parcel) / 1000) - 1);
  return parcel.services
    .map((service) => {
      const row = TABLE[service];
      const at = zone - 1;
      const priceCents = row.base[at]! + row.perKg[at]! * extraKg;
      const transitDays = row.days[at]!;
      return {
        service,
        priceCents,
        priceWithTaxCents: priceCents + Math.round((priceCents * CARRIER_TAX_PERCENT) / 100),
        deliveryDate: addBusinessDays(parcel.mailingDate, transitDays),
        transitDays,
        guaranteed: row.guaranteed,
      };
    })
    .sort((a, b) => a.priceCents - b.priceCents);
}
