// Wire schemas of inventory, the cart and coupons. Where a path backs an agent tool, the
// answer is exactly the tool's output shape of the spec (its mixed casing included).
import { z } from 'zod';
import { province, unixSeconds } from './common.ts';

/**
 * A cart holds at most this many lines, and at most MAX_QUANTITY of one product
 * (docs/api.md "Cart and coupons").
 */
export const MAX_LINES = 50;
export const MAX_QUANTITY = 100;

// Worded from its bounds ("must be a whole number from 1 to 100"), left out or not.
const quantity = z.number({ message: 'validation.cartQuantity' }).int().min(1).max(MAX_QUANTITY);

const quantityParam = z.coerce
  .number({ message: 'validation.wholeNumberFromOne' })
  .int('validation.wholeNumberFromOne')
  .min(1, 'validation.wholeNumberFromOne')
  .max(1_000_000, 'validation.atMost');

// ---- inventory ----------------------------------------------------------------------------

export const inventoryQuery = z.object({
  quantity: quantityParam.default(1),
  variant: z.string().max(100).optional().describe('Variant id or SKU; optional for a product sold one way'),
});
export const inventoryAnswer = z
  .object({
    product_id: z.string(),
    variant_id: z.string().describe('The variant the answer is about'),
    available: z.boolean().describe('Whether the requested quantity can be bought now'),
    stock_quantity: z
      .number()
      .int()
      .describe('Units available now (stock less units held by open checkouts)'),
    requested_quantity: z.number().int(),
    message: z.string(),
  })
  .meta({ id: 'Inventory' });

// ---- cart -----------------------------------------------------------------------------------

export const cartItem = z.object({
  product_id: z.string(),
  variant_id: z.string().describe("What is in the cart: the product's own id for a product sold one way"),
  variant_title: z
    .string()
    .describe("The variant's option values (\"Cedar / 150 cm\"); '' for a product sold one way"),
  sku: z.string(),
  title: z.string().describe('The product and its variant: "Canoe paddle, Cedar / 150 cm"'),
  quantity: z.number().int(),
  unit_price_cents: z.number().int(),
  line_total_cents: z.number().int(),
  image_url: z.string().nullable(),
});

export const taxLine = z.object({
  name: z.enum(['GST', 'HST', 'PST', 'QST']),
  ratePercent: z.number(),
  amountCents: z.number().int(),
});

/** One discount of a cart: a shop's automatic discount, or the coupon (a shop's or the platform's). */
export const cartDiscount = z
  .object({
    kind: z.enum(['automatic', 'coupon']),
    code: z.string().nullable().describe('The coupon’s code; null for an automatic discount'),
    sellerId: z.string().nullable().describe('The shop giving it; null: the platform’s coupon'),
    shopName: z.string().nullable(),
    amountCents: z.number().int(),
    paidBy: z.enum(['seller', 'platform']),
  })
  .meta({ id: 'CartDiscount' });

export const cart = z
  .object({
    items: z.array(cartItem),
    itemCount: z.number().int().describe('Units in the cart'),
    subtotalCents: z.number().int(),
    discount_cents: z.number().int(),
    discounts: z
      .array(cartDiscount)
      .describe(
        'What discount_cents is made of: each shop’s automatic discount, then the coupon (docs/api.md "Discounts")',
      ),
    coupon_applied: z.string().nullable(),
    coupon_problem: z
      .string()
      .nullable()
      .describe('Why the applied coupon gives no discount now (e.g. the minimum is no longer met)'),
    shippingCostCents: z.number().int().describe('Estimate to taxProvince; final at checkout'),
    shipping_problem: z
      .string()
      .nullable()
      .describe(
        'Why checkout would refuse to ship a parcel to taxProvince (a perishable item across provinces)',
      ),
    taxAmountCents: z.number().int().describe('Estimate for taxProvince; final at checkout'),
    taxLines: z.array(taxLine),
    taxProvince: province.describe("Province of the buyer's last shipping address, or ON"),
    totalAmountCents: z.number().int(),
    lastUpdated: unixSeconds,
  })
  .meta({ id: 'Cart' });

export const addToCartBody = z.object({
  product_id: z.string().min(1).max(100),
  quantity,
  variant: z
    .string()
    .max(100)
    .optional()
    .describe('Variant or SKU; required for a product with options (the refusal lists the choices)'),
});
export const addToCartAnswer = z.object({
  product_id: z.string(),
  variant_id: z.string().describe('The variant added'),
  quantity: z.number().int().describe('Units of this variant now in the cart'),
  added: z.boolean(),
  cart,
});

export const cartItemParams = z.object({ productId: z.string() });
/** PUT /cart/items/:productId: the line's quantity, 0 removing it. */
export const setCartQuantityBody = z.object({
  quantity: z
    .number({ message: 'validation.cartQuantityOrZero' })
    .int('validation.cartQuantityOrZero')
    .min(0, 'validation.cartQuantityOrZero')
    .max(MAX_QUANTITY, 'validation.cartQuantityOrZero')
    .describe(`Units of the product in the cart, 0 to ${MAX_QUANTITY}; 0 removes the line`),
});
export const removeFromCartQuery = z.object({
  quantity: quantityParam.optional().describe('Units to remove; all of them when absent'),
  variant: z.string().max(100).optional().describe("A variant id or SKU: only that variant's line"),
});
export const removeFromCartAnswer = z.object({
  removed: z.boolean(),
  quantity_removed: z.number().int(),
  cart,
});

// ---- coupons --------------------------------------------------------------------------------

const couponCode = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9_-]+$/, 'validation.couponCode')
  .transform((c) => c.toUpperCase());

export const applyCouponBody = z.object({ code: couponCode });
export const applyCouponAnswer = z
  .object({
    applied: z.boolean(),
    code: z.string(),
    discount_cents: z.number().int(),
    discount_percent: z.number().nullable(),
    new_total_cents: z.number().int(),
    expiration_date: z.string().nullable().describe('YYYY-MM-DD, the last day the code works'),
    terms: z.string(),
  })
  .meta({ id: 'AppliedCoupon' });

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'validation.isoDate')
  .refine((d) => {
    const t = new Date(`${d}T00:00:00Z`);
    return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(d) && d >= '2000-01-01';
  }, 'validation.calendarDate');

/** Whole numbers that fit the database's 32-bit integers, with a business ceiling. */
const count = (max: number) =>
  z.number().int('validation.Int').positive('validation.aboveZero').max(max, 'validation.atMost');

export const createCouponBody = z
  .object({
    code: couponCode.pipe(z.string().min(3)),
    discountPercent: z
      .number()
      .gt(0, 'validation.aboveZero')
      .max(100, 'validation.atMost')
      // The money math works in thousandths of a percent (9.975%).
      .refine((p) => Math.abs(p * 1000 - Math.round(p * 1000)) < 1e-6, {
        message: 'validation.atMostDecimals',
        params: { n: 3 },
      })
      .optional(),
    discountCents: z
      .number()
      .int('validation.wholeCents')
      .positive('validation.aboveZero')
      .max(100_000_000, 'validation.atMost')
      .optional(),
    minSubtotalCents: z
      .number()
      .int('validation.wholeCents')
      .min(0, 'validation.notBelow')
      .max(100_000_000, 'validation.atMost')
      .default(0),
    expirationDate: isoDate.optional().describe('Last day the code works (America/Toronto)'),
    maxRedemptions: count(1_000_000_000).optional(),
    maxRedemptionsPerCustomer: count(1_000_000).optional(),
    terms: z.string().max(1000).default(''),
  })
  .refine((c) => (c.discountPercent === undefined) !== (c.discountCents === undefined), {
    message: 'validation.oneDiscount',
    path: ['discountPercent'],
  });

export const coupon = z
  .object({
    code: z.string(),
    discountPercent: z.number().nullable(),
    discountCents: z.number().int().nullable(),
    minSubtotalCents: z.number().int(),
    expirationDate: z.string().nullable(),
    maxRedemptions: z.number().int().nullable(),
    maxRedemptionsPerCustomer: z.number().int().nullable(),
    redemptions: z.number().int(),
    terms: z.string(),
    sellerId: z
      .string()
      .nullable()
      .describe("The shop whose coupon it is (on its items only); null: the platform's"),
    createdAt: unixSeconds,
  })
  .meta({ id: 'Coupon' });

export const shopCouponsAnswer = z.object({ coupons: z.array(coupon) });

/** A shop's automatic discount: `percent` off its items once they add up to `minSubtotalCents`. */
export const shopDiscountBody = z
  .object({
    percent: z.number().int('validation.Int').min(1, 'validation.notBelow').max(90, 'validation.atMost'),
    minSubtotalCents: z
      .number()
      .int('validation.wholeCents')
      .min(0, 'validation.notBelow')
      .max(100_000_000, 'validation.atMost'),
    startsOn: isoDate.nullable().default(null).describe('First day (America/Toronto); null: now'),
    endsOn: isoDate.nullable().default(null).describe('Last day (America/Toronto); null: until removed'),
  })
  .refine((d) => d.startsOn === null || d.endsOn === null || d.startsOn <= d.endsOn, {
    message: 'validation.periodEndBeforeStart',
    path: ['endsOn'],
  });

export const shopDiscount = z
  .object({
    percent: z.number().int(),
    minSubtotalCents: z.number().int(),
    startsOn: z.string().nullable(),
    endsOn: z.string().nullable(),
    updatedAt: unixSeconds,
  })
  .meta({ id: 'ShopDiscount' });

export const shopDiscountAnswer = z.object({ discount: shopDiscount.nullable() });
