// Where a seller's parcels leave from and in what box, as a label needs it: the seller's shipping
// profile (tables.ts), or the defaults of a seller without one (docs/shipping.md "Labels").
import { eq } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { DEFAULT_PARCEL } from './profile.ts';
import { sellerShipping } from './tables.ts';

export interface ShipFrom {
  /** "M5H 2N2"; null for a seller without a profile. */
  originPostalCode: string | null;
  originProvince: string | null;
  handlingDays: number;
  parcel: { lengthCm: number; widthCm: number; heightCm: number; weightKg: number };
}

/** The seller's ship-from postal code, handling days and box (the defaults without a profile). */
export async function shipFromOfSeller(ctx: RequestContext, sellerId: string): Promise<ShipFrom> {
  const [row] = await ctx.db.select().from(sellerShipping).where(eq(sellerShipping.sellerId, sellerId));
  if (!row) return { originPostalCode: null, originProvince: null, handlingDays: 0, parcel: DEFAULT_PARCEL };
  return {
    originPostalCode: row.originPostalCode,
    originProvince: row.originProvince,
    handlingDays: row.handlingDays,
    parcel: {
      lengthCm: row.parcelLengthCm,
      widthCm: row.parcelWidthCm,
      heightCm: row.parcelHeightCm,
      weightKg: row.parcelWeightKg,
    },
  };
}
