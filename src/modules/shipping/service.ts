// A seller's shipping profile: read, set, removed (GET, PUT, DELETE /sellers/me/shipping). Pricing
// reads it with each line (the database function portage_sale_variant), not through here.
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { type Province, toUnix } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import type { shippingProfileAnswer, shippingProfileBody } from '../../contract/shipping.ts';
import { caller, type RequestContext } from '../context.ts';
import { DEFAULT_PARCEL } from './profile.ts';
import { sellerShipping } from './tables.ts';

type Answer = z.infer<typeof shippingProfileAnswer>;
type Row = typeof sellerShipping.$inferSelect;

function answer(row: Row): Answer {
  return {
    originPostalCode: row.originPostalCode,
    originProvince: row.originProvince as Province,
    handlingDays: row.handlingDays,
    rates: row.rates,
    services: row.services as Answer['services'],
    flatCents: row.flatCents,
    freeOverCents: row.freeOverCents,
    parcel: {
      lengthCm: row.parcelLengthCm,
      widthCm: row.parcelWidthCm,
      heightCm: row.parcelHeightCm,
      weightKg: row.parcelWeightKg,
    },
    updatedAt: toUnix(row.updatedAt),
  };
}

export async function getShippingProfile(ctx: RequestContext): Promise<Answer> {
  const me = caller(ctx);
  const [row] = await ctx.db.select().from(sellerShipping).where(eq(sellerShipping.sellerId, me.id));
  if (!row) throw notFound('error.shipping.noProfile');
  return answer(row);
}

/** Sets the whole profile (PUT: what is not sent takes its default). */
export async function putShippingProfile(
  ctx: RequestContext,
  body: z.output<typeof shippingProfileBody>,
): Promise<Answer> {
  const me = caller(ctx);
  const parcel = body.parcel ?? DEFAULT_PARCEL;
  const values = {
    sellerId: me.id,
    originPostalCode: body.originPostalCode,
    originProvince: body.originProvince,
    handlingDays: body.handlingDays,
    rates: body.rates,
    // A flat rate offers no carrier services; carrier rates have no flat price.
    services: body.rates === 'carrier' ? body.services : [],
    flatCents: body.rates === 'flat' ? body.flatCents : null,
    freeOverCents: body.freeOverCents,
    parcelLengthCm: parcel.lengthCm,
    parcelWidthCm: parcel.widthCm,
    parcelHeightCm: parcel.heightCm,
    parcelWeightKg: parcel.weightKg,
    updatedAt: ctx.now(),
  };
  const [row] = await ctx.db
    .insert(sellerShipping)
    .values(values)
    .onConflictDoUpdate({ target: sellerShipping.sellerId, set: values })
    .returning();
  return answer(row!);
}

/** Back to the platform's flat rate. */
export async function deleteShippingProfile(ctx: RequestContext): Promise<void> {
  const me = caller(ctx);
  const gone = await ctx.db
    .delete(sellerShipping)
    .where(eq(sellerShipping.sellerId, me.id))
    .returning({ id: sellerShipping.sellerId });
  if (gone.length === 0) throw notFound('error.shipping.noProfile');
}
