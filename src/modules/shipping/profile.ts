// A seller's shipping profile as pricing reads it (the table is tables.ts, its API service.ts):
// where parcels leave from, how long the seller takes to hand them over, and how they charge.
import type { Province } from '../../contract/common.ts';
import type { CarrierService } from './carrier.ts';

export interface ShippingProfile {
  /** "M5H 2N2". */
  originPostalCode: string;
  originProvince: Province;
  /** Business days between the order and the parcel's hand-over, 0-10. */
  handlingDays: number;
  /** Carrier rates for `services`, or the seller's own flat rate. */
  rates: 'carrier' | 'flat';
  services: CarrierService[];
  /** The flat rate per parcel ('flat'). */
  flatCents: number | null;
  /** Parcels whose items come to this much or more ship free ('flat' and 'carrier'); null: never. */
  freeOverCents: number | null;
  /** The box a parcel ships in, and the weight of one whose items give none. */
  parcel: { lengthCm: number; widthCm: number; heightCm: number; weightKg: number };
}

/** The box of a seller who names none: a medium shipping box. */
export const DEFAULT_PARCEL = { lengthCm: 30, widthCm: 23, heightCm: 13, weightKg: 0.5 } as const;
