// Canadian sales tax by destination province (docs/api.md "Pricing"):
// GST everywhere, HST in its place in the harmonized provinces, and a
// provincial tax (PST, or QST in Quebec) on top where there is one. Each component is rounded
// half-up to the cent on its own, and the order records each one, so the total is the sum of
// the rounded lines.
import type { Province } from '../../contract/common.ts';
import { assertSafeInteger, roundHalfUp } from './money.ts';

export type TaxName = 'GST' | 'HST' | 'PST' | 'QST';

export interface TaxLine {
  name: TaxName;
  /** e.g. 5, 13, 9.975 */
  ratePercent: number;
  amountCents: number;
}

/** Rates in parts per 100,000 (5% = 5000, 9.975% = 9975): integers, so 9.975% rounds exactly. */
type RatePer100k = number;

interface TaxRegime {
  province: Province;
  /** First day (UTC calendar date, YYYY-MM-DD) this regime applies; it holds until a later row's. */
  from: string;
  components: ReadonlyArray<{ name: TaxName; rate: RatePer100k }>;
}

/** Before any change we track. Portage prices present-day orders; older history is not modelled. */
const ALWAYS = '0000-01-01';

const GST: RatePer100k = 5000;

/**
 * One row per province per change: a new rate (or a province moving to or from HST) is one
 * row with its `from` date, and the row with the latest `from` not after the pricing date wins.
 */
const TAX_REGIMES: readonly TaxRegime[] = [
  { province: 'AB', from: ALWAYS, components: [{ name: 'GST', rate: GST }] },
  {
    province: 'BC',
    from: ALWAYS,
    components: [
      { name: 'GST', rate: GST },
      { name: 'PST', rate: 7000 },
    ],
  },
  {
    province: 'MB',
    from: ALWAYS,
    components: [
      { name: 'GST', rate: GST },
      { name: 'PST', rate: 7000 },
    ],
  },
  { province: 'NB', from: ALWAYS, components: [{ name: 'HST', rate: 15000 }] },
  { province: 'NL', from: ALWAYS, components: [{ name: 'HST', rate: 15000 }] },
  { province: 'NS', from: ALWAYS, components: [{ name: 'HST', rate: 15000 }] },
  // Nova Scotia lowered its share of the HST by one point on April 1, 2025.
  { province: 'NS', from: '2025-04-01', components: [{ name: 'HST', rate: 14000 }] },
  { province: 'NT', from: ALWAYS, components: [{ name: 'GST', rate: GST }] },
  { province: 'NU', from: ALWAYS, components: [{ name: 'GST', rate: GST }] },
  { province: 'ON', from: ALWAYS, components: [{ name: 'HST', rate: 13000 }] },
  { province: 'PE', from: ALWAYS, components: [{ name: 'HST', rate: 15000 }] },
  {
    province: 'QC',
    from: ALWAYS,
    components: [
      { name: 'GST', rate: GST },
      { name: 'QST', rate: 9975 },
    ],
  },
  {
    province: 'SK',
    from: ALWAYS,
    components: [
      { name: 'GST', rate: GST },
      { name: 'PST', rate: 6000 },
    ],
  },
  { province: 'YT', from: ALWAYS, components: [{ name: 'GST', rate: GST }] },
];

/**
 * The UTC calendar date of `on`. Rate changes take effect at midnight local time, so for the
 * few hours after midnight UTC on a change date (evening of the day before in Canada) this
 * applies the new rate early; a Toronto-date comparison is not required for now.
 */
function utcDate(on: Date): string {
  if (Number.isNaN(on.getTime())) throw new Error('taxFor: invalid date');
  return on.toISOString().slice(0, 10);
}

function regimeFor(province: Province, day: string): TaxRegime {
  let current: TaxRegime | undefined;
  for (const regime of TAX_REGIMES) {
    if (regime.province === province && regime.from <= day && (!current || regime.from > current.from)) {
      current = regime;
    }
  }
  if (!current) throw new Error(`No tax rates for province ${province} on ${day}`);
  return current;
}

/**
 * Tax owed when shipping to `province` on date `on`. Callers pass the taxable amount
 * (items - discount + shipping) in cents; it must be a non-negative integer (a negative amount
 * is a bug upstream, so a plain Error). Each line is rounded half-up separately, and a zero
 * amount still answers the province's lines, with 0 amounts.
 */
export function taxFor(
  province: Province,
  taxableCents: number,
  on: Date,
): { lines: TaxLine[]; totalCents: number } {
  assertSafeInteger(taxableCents, 'taxableCents');
  if (taxableCents < 0) throw new Error(`taxableCents must not be negative, got ${taxableCents}`);
  const lines = regimeFor(province, utcDate(on)).components.map(
    ({ name, rate }): TaxLine => ({
      name,
      ratePercent: rate / 1000,
      amountCents: roundHalfUp(taxableCents * rate, 100_000),
    }),
  );
  return { lines, totalCents: lines.reduce((sum, line) => sum + line.amountCents, 0) };
}
