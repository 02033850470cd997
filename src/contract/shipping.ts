// Wire schemas of a seller's shipping profile (docs/shipping.md): PUT and GET /sellers/me/shipping.
import { z } from 'zod';
import { canadianPostalCode } from './auth.ts';
import { POSTAL_LETTERS } from './checkout.ts';
import { type Province, province } from './common.ts';

/** The Canada Post domestic services Portage offers (their codes, as the carrier names them). */
export const CARRIER_SERVICES = ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'] as const;
export type CarrierService = (typeof CARRIER_SERVICES)[number];

const cents = (max: number) => z.number().int().min(0).max(max);
/** Centimetres with one decimal, as a carrier takes them. */
const cm = z
  .number()
  .min(1)
  .max(200)
  .refine(
    (n) => Number.isInteger(Math.round(n * 10)) && Math.abs(n * 10 - Math.round(n * 10)) < 1e-9,
    'validation.oneDecimal',
  );

export const shippingParcel = z.object({
  lengthCm: cm,
  widthCm: cm,
  heightCm: cm,
  weightKg: z.number().min(0.01).max(30).describe("A parcel's weight when its items give none"),
});

export const shippingProfileBody = z
  .object({
    originPostalCode: canadianPostalCode.describe('Where parcels leave from ("M5H 2N2")'),
    originProvince: province,
    handlingDays: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(1)
      .describe('Business days before a parcel is handed over'),
    rates: z
      .enum(['carrier', 'flat'])
      .describe(
        "'carrier': the buyer chooses among `services`, priced by the carrier; 'flat': `flatCents` a parcel",
      ),
    services: z
      .array(z.enum(CARRIER_SERVICES))
      .max(4)
      .default([])
      .describe(
        'Canada Post services offered (DOM.RP Regular Parcel, DOM.EP Expedited, DOM.XP Xpresspost, DOM.PC Priority)',
      ),
    flatCents: cents(100_000).nullable().default(null),
    freeOverCents: cents(10_000_000)
      .nullable()
      .default(null)
      .describe('Parcels of this much or more ship free'),
    parcel: shippingParcel.optional().describe('The box parcels ship in (default 30 x 23 x 13 cm, 0.5 kg)'),
  })
  .superRefine((p, ctx) => {
    const letters = POSTAL_LETTERS[p.originProvince as Province];
    if (letters && !letters.includes(p.originPostalCode[0]!)) {
      ctx.addIssue({
        code: 'custom',
        path: ['originPostalCode'],
        message: 'validation.postalCodeProvince',
        params: {
          province: p.originProvince,
          n: letters.length,
          letters: letters.split('').join(' or '),
          list: letters.split('').join(', '),
        },
      });
    }
    if (p.rates === 'carrier' && p.services.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['services'], message: 'validation.shippingServices' });
    }
    if (new Set(p.services).size !== p.services.length) {
      ctx.addIssue({ code: 'custom', path: ['services'], message: 'validation.shippingServicesTwice' });
    }
    if (p.rates === 'flat' && p.flatCents === null) {
      ctx.addIssue({ code: 'custom', path: ['flatCents'], message: 'validation.shippingFlat' });
    }
  });

export const shippingProfileAnswer = z
  .object({
    originPostalCode: z.string(),
    originProvince: province,
    handlingDays: z.number().int(),
    rates: z.enum(['carrier', 'flat']),
    services: z.array(z.enum(CARRIER_SERVICES)),
    flatCents: z.number().int().nullable(),
    freeOverCents: z.number().int().nullable(),
    parcel: shippingParcel,
    updatedAt: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'ShippingProfile' });
