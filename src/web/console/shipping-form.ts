// The shipping profile's form as a seller fills it: the amounts in dollars (a comma for the
// decimal point in French), the box in centimetres, the services as checkboxes; the API's body
// made from it (PUT /sellers/me/shipping, docs/shipping.md), and its refusal put in the form's
// words (the amounts' bounds in dollars, the two rules that depend on the rates chosen).
import type { z } from 'zod';
import { AppError, type Problem } from '../../contract/errors.ts';
import { formatMoney, type Locale, text } from '../../contract/i18n.ts';
import type { shippingProfileAnswer } from '../../contract/shipping.ts';
import { DEFAULT_PARCEL } from '../../modules/shipping/profile.ts';
import { type Body, centsOf, decimal, numberOf, one } from './form.ts';

type Profile = z.infer<typeof shippingProfileAnswer>;

export const BOX_FIELDS = ['lengthCm', 'widthCm', 'heightCm', 'weightKg'] as const;
type BoxField = (typeof BOX_FIELDS)[number];

/** The form's fields as typed (strings, as the page shows them again after a refusal). */
export interface ShippingForm {
  originPostalCode: string;
  originProvince: string;
  handlingDays: string;
  rates: 'carrier' | 'flat';
  services: string[];
  /** Dollars. */
  flat: string;
  /** Dollars; empty: never free. */
  freeOver: string;
  box: Record<BoxField, string>;
}

/** The bounds of the amounts (contract/shipping.ts), in cents. */
const MAX_CENTS = { flatCents: 100_000, freeOverCents: 10_000_000 } as const;

/** Cents as a person types dollars: "9.50", "9,50" in French. */
const dollars = (l: Locale, cents: number | null) =>
  cents === null ? '' : (cents / 100).toFixed(2).replace('.', l === 'fr-CA' ? ',' : '.');

/** The form of a profile, or of none yet (the shop's province, a day of handling, the default box). */
export function shippingFormOf(l: Locale, p: Profile | undefined, shopProvince = ''): ShippingForm {
  const box = p?.parcel ?? DEFAULT_PARCEL;
  return {
    originPostalCode: p?.originPostalCode ?? '',
    originProvince: p?.originProvince ?? shopProvince,
    handlingDays: String(p?.handlingDays ?? 1),
    rates: p?.rates ?? 'carrier',
    services: p?.services ?? [],
    flat: dollars(l, p?.flatCents ?? null),
    freeOver: dollars(l, p?.freeOverCents ?? null),
    box: {
      lengthCm: decimal(l, box.lengthCm),
      widthCm: decimal(l, box.widthCm),
      heightCm: decimal(l, box.heightCm),
      weightKg: decimal(l, box.weightKg),
    },
  };
}

export const shippingFormOfBody = (b: Body): ShippingForm => ({
  originPostalCode: one(b.originPostalCode).trim(),
  originProvince: one(b.originProvince),
  handlingDays: one(b.handlingDays).trim(),
  rates: one(b.rates) === 'flat' ? 'flat' : 'carrier',
  services: ([] as string[]).concat(b.services ?? []),
  flat: one(b.flat).trim(),
  freeOver: one(b.freeOver).trim(),
  box: {
    lengthCm: one(b['parcel.lengthCm']).trim(),
    widthCm: one(b['parcel.widthCm']).trim(),
    heightCm: one(b['parcel.heightCm']).trim(),
    weightKg: one(b['parcel.weightKg']).trim(),
  },
});

/**
 * PUT /sellers/me/shipping's body for the form. The flat rate is sent with flat rates only and
 * the services with carrier rates only (the service keeps the other empty), so a field the seller
 * left aside is never refused. An empty box is the default one.
 */
export function shippingBody(f: ShippingForm) {
  const boxTyped = BOX_FIELDS.some((k) => f.box[k] !== '');
  return {
    originPostalCode: f.originPostalCode,
    originProvince: f.originProvince,
    handlingDays: numberOf(f.handlingDays),
    rates: f.rates,
    services: f.rates === 'carrier' ? f.services : [],
    flatCents: f.rates === 'flat' ? (centsOf(f.flat) ?? null) : null,
    freeOverCents: centsOf(f.freeOver) ?? null,
    ...(boxTyped ? { parcel: Object.fromEntries(BOX_FIELDS.map((k) => [k, numberOf(f.box[k])])) } : {}),
  };
}

/**
 * A refusal with its problems in the form's words: the amounts' bounds in dollars (the API says
 * cents), the rules on the rates said for this form.
 */
export function onShippingForm(l: Locale, err: unknown): unknown {
  if (!(err instanceof AppError) || !err.problems) return err;
  const problems: Problem[] = err.problems.map((p) => {
    if (p.message.key === 'validation.shippingServices') {
      return { field: p.field, message: text('web.console.shipping.needService') };
    }
    if (p.message.key === 'validation.shippingFlat') {
      return { field: p.field, message: text('web.console.shipping.needFlat') };
    }
    if (p.field === 'flatCents' || p.field === 'freeOverCents') {
      const to = formatMoney(l, MAX_CENTS[p.field]);
      return {
        field: p.field,
        message: text('web.console.shipping.dollars', { from: formatMoney(l, 0), to }),
      };
    }
    return p;
  });
  return new AppError(err.code, err.statusCode, err.text, problems);
}
