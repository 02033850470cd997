// What every carrier answers and how it fails: the one interface the rest of Portage knows
// (docs/shipping.md). Canada Post (canada-post.ts) speaks it over its rating API; the built-in
// table (rate-table.ts) answers the same shape without credentials.

import { CARRIER_SERVICES, type CarrierService } from '../../contract/shipping.ts';

export { CARRIER_SERVICES, type CarrierService };

export const isCarrierService = (value: string): value is CarrierService =>
  (CARRIER_SERVICES as readonly string[]).includes(value);

/** One parcel to rate: from a postal code to another, its weight and box, the day it is mailed. */
export interface ParcelSpec {
  /** Six characters, no space ("M5H2N2"). */
  originPostalCode: string;
  destinationPostalCode: string;
  /** Whole grams, at least 1. */
  weightGrams: number;
  /** Centimetres, one decimal at most. */
  dimensionsCm: { length: number; width: number; height: number };
  /** YYYY-MM-DD: the day the seller hands it over (today plus the seller's handling days). */
  mailingDate: string;
  /** The services asked for (the seller's). */
  services: readonly CarrierService[];
}

/** One service's price and promise for a parcel. */
export interface CarrierRate {
  service: CarrierService;
  /** Before tax: what the buyer is charged for it (Portage's tax applies to shipping). */
  priceCents: number;
  /** The carrier's total with its own taxes, as it answered (kept for the seller's records). */
  priceWithTaxCents: number;
  /** YYYY-MM-DD the carrier expects to deliver, when it says. */
  deliveryDate: string | null;
  /** Business days in transit, when it says. */
  transitDays: number | null;
  guaranteed: boolean;
}

/** A carrier's messages (code and description), as its error documents give them. */
export interface CarrierMessage {
  code: string;
  description: string;
}

/**
 * A carrier that did not rate: `retryable` when it was down, slow or busy (5xx, a timeout, a
 * broken answer), not when it refused the request (4xx with its messages).
 */
export class CarrierError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly messages: CarrierMessage[] = [],
  ) {
    super(message);
    this.name = 'CarrierError';
  }
}

export interface Carrier {
  readonly id: 'canada_post';
  /** The rates of `parcel`'s services, cheapest first; names in `locale`'s language are the carrier's business. */
  rates(
    parcel: ParcelSpec,
    opts: { locale: 'en-CA' | 'fr-CA'; signal?: AbortSignal },
  ): Promise<CarrierRate[]>;
}
