// Wire schemas of checkout: the shipping address and the checkout session
// (docs/api.md "Checkout"; docs/decisions.md "Checkout and holds").
// The body of POST /checkout is create_checkout's input.
import { z } from 'zod';
import { taxLine } from './cart.ts';
import { PROVINCES, type Province, province, unixSeconds } from './common.ts';

const POSTAL_CODE = /^[A-Z]\d[A-Z] \d[A-Z]\d$/;
const PHONE = /^\+1\d{10}$/;

/** The first letter(s) of the postal codes of each province. */
export const POSTAL_LETTERS: Record<Province, string> = {
  NL: 'A',
  NS: 'B',
  PE: 'C',
  NB: 'E',
  QC: 'GHJ',
  ON: 'KLMNP',
  MB: 'R',
  SK: 'S',
  AB: 'T',
  BC: 'V',
  NT: 'X',
  NU: 'X',
  YT: 'Y',
};

const text = (max: number) => z.string().trim().min(1).max(max);

const addressFields = {
  street: text(200),
  city: text(100),
  province,
  postalCode: z.string().regex(POSTAL_CODE, 'validation.postalCode'),
  country: z.literal('CA', { message: 'validation.countryCa' }),
};

/** The address as the buyer gives it (with the phone, for the carrier). */
export const shippingAddressInput = z
  .object({
    ...addressFields,
    phone: z.string().regex(PHONE, 'validation.phone'),
  })
  .superRefine((a, ctx) => {
    const letters = POSTAL_LETTERS[a.province as Province];
    if (letters && POSTAL_CODE.test(a.postalCode) && !letters.includes(a.postalCode[0]!)) {
      ctx.addIssue({
        code: 'custom',
        path: ['postalCode'],
        message: 'validation.postalCodeProvince',
        params: {
          province: a.province,
          n: letters.length,
          letters: letters.split('').join(' or '),
          list: letters.split('').join(', '),
        },
      });
    }
  });

/** The address as an order stores it: no phone. */
export const shippingAddress = z
  .object({
    street: z.string(),
    city: z.string(),
    province: z.enum(PROVINCES),
    postalCode: z.string(),
    country: z.string(),
  })
  .meta({ id: 'ShippingAddress' });

export const createCheckoutBody = z.object({
  shipping_address: shippingAddressInput,
  coupon: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z0-9_-]+$/, 'validation.couponCode')
    .transform((c) => c.toUpperCase())
    .optional()
    .describe("A coupon code to use instead of the cart's"),
  shipping_choices: z
    .array(
      z.strictObject({
        seller_id: z.string().max(64),
        option_id: z.string().max(64).describe("One of the parcel's `shippingOptions[].id`"),
      }),
    )
    .max(50)
    .optional()
    .describe(
      "The shipping option per seller parcel (the session answers each parcel's `shippingOptions`); a parcel not " +
        'named ships by its cheapest. A choice naming no option of its parcel is `400`.',
    ),
});

/** One way a parcel can go, as a session or cart shows it. */
export const shippingOption = z
  .object({
    id: z.string().describe('"canada_post:DOM.EP", "seller:flat", "portage:standard"'),
    carrier: z.enum(['canada_post', 'seller', 'portage']),
    service: z.string().describe('The carrier\'s service code ("DOM.RP"), or "flat" / "standard"'),
    name: z.string().describe("The service's name in the reader's language"),
    priceCents: z.number().int().describe('Before tax'),
    deliveryDate: z.string().describe('YYYY-MM-DD, the expected delivery'),
    ratedBy: z
      .enum(['carrier', 'table', 'seller', 'platform'])
      .describe(
        "Who priced it: the carrier's API, Portage's rate table (no carrier, or it did not answer in time), the seller, the platform",
      ),
  })
  .meta({ id: 'ShippingOption' });

export const PAYMENT_METHODS = ['card', 'apple_pay', 'google_pay', 'klarna'] as const;
export const CHECKOUT_STATUSES = ['ready_for_payment', 'complete', 'expired'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

const checkoutParcel = z.object({
  sellerId: z.string(),
  subtotalCents: z.number().int(),
  discountCents: z.number().int(),
  shippingCostCents: z.number().int(),
  shippingOption: shippingOption
    .nullable()
    .describe('The option chosen (null on sessions made before options)'),
  shippingOptions: z.array(shippingOption).describe('Every option of this parcel, cheapest first'),
  taxAmountCents: z.number().int(),
  taxLines: z.array(taxLine),
  totalCents: z.number().int(),
  items: z.array(
    z.object({
      productId: z.string(),
      name: z.string(),
      quantity: z.number().int(),
      unitPriceCents: z.number().int(),
    }),
  ),
});

export const checkoutSession = z
  .object({
    sessionId: z.string(),
    sessionUrl: z.string().describe('Show this to the person: the payment page'),
    clientSecret: z.string(),
    publishableKey: z.string(),
    subtotalCents: z.number().int(),
    taxAmountCents: z.number().int(),
    shippingCostCents: z.number().int(),
    discountCents: z.number().int(),
    totalCents: z.number().int(),
    status: z.enum(CHECKOUT_STATUSES),
    paymentMethods: z.array(z.string()),
    expiresAt: unixSeconds,
    // Beyond the spec's fields (a superset):
    taxLines: z.array(taxLine),
    coupon: z.string().nullable(),
    parcels: z.array(checkoutParcel).describe('One per seller: each becomes its own order when paid'),
    orderIds: z.array(z.string()).describe('The orders made from this session once paid; empty before'),
    orderNumbers: z
      .array(z.string())
      .describe('Their numbers as people read them (`2026-000123`), in the order of `orderIds`'),
  })
  .meta({ id: 'CheckoutSession' });

export const checkoutParams = z.object({ sessionId: z.string() });

/** What the pages' address forms add to the API's address: who receives it and a unit line. */
export const recipientFields = z.object({
  recipientName: text(100),
  line2: z
    .string()
    .trim()
    .max(100)
    .optional()
    .transform((v) => v || undefined),
});
