// Step "rate": carrier rates are read inside the checkout's transaction from what was fetched
// before, never fetched there (docs/shipping.md "Rates"). A quote that meets a parcel the carrier
// was never asked about stops the transaction (RatesNeeded: it rolls back, nothing written); its
// owner fetches those parcels' rates outside any transaction and holds again, once
// (withCarrierRates). A cached parcel costs nothing more; one the carrier failed on is priced by
// the table without asking again.
import type { Locale } from '../../../contract/i18n.ts';
import type { QuoteInput } from '../../pricing/index.ts';
import type { ParcelSpec } from '../../shipping/carrier.ts';
import type { CarrierRates } from '../../shipping/rates.ts';

/** The parcels a quote needs carrier rates for, never asked yet: the hold stops for them. */
export class RatesNeeded extends Error {
  constructor(readonly specs: ParcelSpec[]) {
    super('carrier rates to fetch before holding');
    this.name = 'RatesNeeded';
  }
}

/**
 * The quote's lookup of carrier rates in a hold: what was fetched; a parcel never asked about
 * stops the hold (RatesNeeded, thrown by `check` after the quote), unless this is the hold after
 * the fetch (`fetched`), which prices it by the table.
 */
export function ratesLookup(rates: CarrierRates, fetched: boolean) {
  const unknown: ParcelSpec[] = [];
  const carrierRates: NonNullable<QuoteInput['carrierRates']> = (spec) => {
    if (!fetched && !rates.known(spec)) unknown.push(spec);
    return rates.lookup(spec);
  };
  const check = () => {
    if (unknown.length > 0) throw new RatesNeeded(unknown);
  };
  return { carrierRates, check };
}

/**
 * Runs `hold` (a transaction that quotes with ratesLookup); when it stops for rates, fetches them
 * outside any transaction and runs it once more, told they were fetched.
 */
export async function withCarrierRates<T>(
  rates: CarrierRates | undefined,
  locale: Locale | undefined,
  hold: (fetched: boolean) => Promise<T>,
): Promise<T> {
  try {
    return await hold(false);
  } catch (err) {
    if (!(err instanceof RatesNeeded) || !rates) throw err;
    await rates.fetch(err.specs, locale ?? 'en-CA');
    return hold(true);
  }
}
