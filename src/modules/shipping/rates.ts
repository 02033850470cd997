// Carrier rates, fetched before a checkout's transaction and read inside it (docs/shipping.md
// "Rates"): each parcel's answer cached briefly by parcel and destination, a carrier slower than
// the budget or down left for the built-in table (and its failure remembered a short while, so
// that a carrier that is down costs one wait, not one per checkout). Bounded: at most
// MAX_ENTRIES parcels cached, one request in flight per parcel.
import type { Locale } from '../../contract/i18n.ts';

/** Where a failure is told. */
interface Log {
  warn(details: object, message: string): void;
}

import type { Carrier, CarrierRate, ParcelSpec } from './carrier.ts';

const MAX_ENTRIES = 10_000;
/**
 * The most parcels one checkout asks the carrier for: a cart of 50 sellers' products must not
 * become 50 carrier requests per checkout (the carrier's quota is ours); the rest use the table.
 */
export const MAX_PARCELS_RATED = 10;
/** How long a carrier's failure for a parcel sends its checkouts to the table without asking again. */
const FAILURE_MS = 30_000;

export interface CarrierRates {
  /** The carrier's rates of a parcel when fetched and fresh; undefined: price it by the table. */
  lookup(spec: ParcelSpec): CarrierRate[] | undefined;
  /** Whether the carrier was asked about the parcel lately (its answer or its failure is remembered). */
  known(spec: ParcelSpec): boolean;
  /** Fetches what is not cached, every parcel at once, within the budget; never throws. */
  fetch(specs: ParcelSpec[], locale: Locale): Promise<void>;
}

const keyOf = (s: ParcelSpec) =>
  `${s.originPostalCode}>${s.destinationPostalCode}:${s.weightGrams}g:${s.dimensionsCm.length}x${s.dimensionsCm.width}x${s.dimensionsCm.height}:${s.mailingDate}:${s.services.join(',')}`;

export function carrierRates(
  carrier: Carrier,
  opts: { budgetMs: number; cacheMs: number; log: Log; now?: () => number },
): CarrierRates {
  const now = opts.now ?? Date.now;
  // Insertion order is age: the oldest entry is the first one.
  const cache = new Map<string, { rates: CarrierRate[] | null; until: number }>();
  const inFlight = new Map<string, Promise<void>>();

  const remember = (key: string, rates: CarrierRate[] | null, forMs: number) => {
    cache.delete(key);
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { rates, until: now() + forMs });
  };

  const fresh = (key: string) => {
    const hit = cache.get(key);
    if (!hit) return undefined;
    if (hit.until > now()) return hit;
    cache.delete(key);
    return undefined;
  };

  async function fetchOne(spec: ParcelSpec, key: string, locale: Locale) {
    const started = now();
    try {
      const rates = await carrier.rates(spec, { locale, signal: AbortSignal.timeout(opts.budgetMs) });
      remember(key, rates, opts.cacheMs);
    } catch (err) {
      opts.log.warn(
        { err: (err as Error).message, carrier: carrier.id, ms: now() - started },
        'carrier rates failed: the parcel is priced by the rate table',
      );
      remember(key, null, Math.min(FAILURE_MS, opts.cacheMs));
    }
  }

  return {
    lookup(spec) {
      return fresh(keyOf(spec))?.rates ?? undefined;
    },
    known(spec) {
      return fresh(keyOf(spec)) !== undefined;
    },
    async fetch(specs, locale) {
      const waits = new Map<string, Promise<void>>();
      for (const spec of specs) {
        if (waits.size >= MAX_PARCELS_RATED) break;
        const key = keyOf(spec);
        if (waits.has(key) || fresh(key)) continue;
        let running = inFlight.get(key);
        if (!running) {
          running = fetchOne(spec, key, locale).finally(() => inFlight.delete(key));
          inFlight.set(key, running);
        }
        waits.set(key, running);
      }
      await Promise.all(waits.values());
    },
  };
}
