// Wire schemas of orders (docs/api.md "Orders" and "Order states").
import { z } from 'zod';
import { taxLine } from './cart.ts';
import { intParam } from './catalog.ts';
import { shippingAddress } from './checkout.ts';
import { unixSeconds } from './common.ts';
import { LOCALES } from './i18n.ts';

export const ORDER_STATUSES = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const orderStatus = z.enum(ORDER_STATUSES);

export const listOrdersQuery = z.object({
  status: orderStatus.optional(),
  limit: intParam('limit', 1, 100).default(20),
  offset: intParam('offset', 0, 1_000_000).default(0),
  sort: z.enum(['newest', 'oldest'], { message: 'validation.newestOrOldest' }).default('newest'),
});

export const orderListItem = z
  .object({
    id: z.string(),
    buyerId: z.string(),
    status: orderStatus,
    totalAmountCents: z.number().int(),
    createdAt: unixSeconds,
    confirmedAt: unixSeconds.nullable(),
    itemCount: z.number().int(),
    estimatedDelivery: z.string().describe('YYYY-MM-DD'),
    // Beyond the spec's list fields (a superset):
    sellerId: z.string(),
    number: z
      .string()
      .describe(
        "The order's number as people read it (pages, emails, invoice): `2026-000123`, sequential per year",
      ),
  })
  .meta({ id: 'OrderListItem' });

export const orderList = z.object({
  orders: z.array(orderListItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

const orderItem = z.object({
  productId: z.string(),
  name: z.string(),
  quantity: z.number().int(),
  unitPriceCents: z.number().int(),
  imageUrl: z.string().nullable(),
});

export const orderDetail = z
  .object({
    id: z.string(),
    buyerId: z.string(),
    sellerId: z.string(),
    status: orderStatus,
    items: z.array(orderItem),
    subtotalCents: z.number().int(),
    taxAmountCents: z.number().int(),
    shippingCostCents: z.number().int(),
    discountCents: z.number().int(),
    sellerDiscountCents: z
      .number()
      .int()
      .describe('Of discountCents, what the shop pays (its automatic discount, its coupon)'),
    platformDiscountCents: z
      .number()
      .int()
      .describe("Of discountCents, what the platform pays (its coupon's share)"),
    platformFeeCents: z.number().int(),
    totalAmountCents: z.number().int(),
    shippingAddress,
    trackingNumber: z.string().nullable(),
    createdAt: unixSeconds,
    confirmedAt: unixSeconds.nullable(),
    shippedAt: unixSeconds.nullable(),
    deliveredAt: unixSeconds.nullable(),
    paymentIntentId: z.string(),
    refundRequested: z.boolean(),
    // Beyond the spec's detail fields (a superset):
    number: z
      .string()
      .describe(
        "The order's number as people read it (pages, emails, invoice): `2026-000123`, sequential per year",
      ),
    taxLines: z.array(taxLine),
    carrier: z.string().nullable(),
    cancelledAt: unixSeconds.nullable(),
    refundedCents: z.number().int(),
    estimatedDelivery: z.string(),
    itemCount: z.number().int(),
    invoiceUrl: z
      .string()
      .optional()
      .describe(
        "The order's invoice (PDF, with a credit note per refund): `GET` it signed in as its buyer or seller; " +
          '`?locale=fr-CA` or `en-CA` (docs/invoices.md). Always present in answers',
      ),
  })
  .meta({ id: 'Order' });

/** Where an order's invoice is served (GET, signed in): under PUBLIC_BASE_URL in answers and emails. */
export const invoicePath = (orderId: string) => `/orders/${encodeURIComponent(orderId)}/invoice`;

export const orderParams = z.object({ orderId: z.string() });

export const invoiceQuery = z.object({
  locale: z.enum(LOCALES).optional().describe("The invoice's language; the buyer's saved one by default"),
});

export const cancelOrderBody = z.object({ reason: z.string().trim().max(500).optional() }).default({});
export const cancelOrderAnswer = orderDetail.extend({ refund_amount_cents: z.number().int() });

export const shipOrderBody = z.object({
  trackingNumber: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9 -]+$/, 'validation.trackingNumber'),
  carrier: z.string().trim().min(1).max(64),
});
