// Wire schemas of the admins' lists of orders and users, and of an order's and a user's history
// (docs/api.md "Orders and users for admins"). Every parameter is bounded; a search answers only
// what an index answers (docs/decisions.md "Issue 43: desk lists").
import { z } from 'zod';
import { isoDate } from './analytics.ts';
import { intParam } from './catalog.ts';
import { isRecordId, PROVINCES, ROLES, unixSeconds } from './common.ts';
import { orderDetail, orderStatus } from './orders.ts';
import { RETURN_STATUSES } from './returns.ts';

/** At most this many accounts whose email begins with an order search's `q` are searched. */
export const ORDER_SEARCH_BUYERS = 20;
/** A user's page counts their orders, returns and reviews up to this many. */
export const HISTORY_COUNT_MAX = 10_000;
/** A user's page shows this many of their newest orders, returns, reviews and admin actions. */
export const HISTORY_RECENT = 10;

/** An order's number as people read it (`2026-000123`). */
export const ORDER_NUMBER = /^\d{4}-\d{6,}$/;

const cursorOf = (collection: 'orders' | 'users') =>
  z
    .string()
    .max(100)
    .refine((v) => isRecordId(collection, v), 'validation.pageCursor')
    .optional()
    .describe('The `nextBefore` of the previous page');

export const adminOrdersQuery = z
  .object({
    q: z
      .string()
      .trim()
      .max(320)
      .optional()
      .describe(
        `An order's number (\`2026-000123\`) or id, or a buyer's email or its beginning (the orders of the first ${ORDER_SEARCH_BUYERS} accounts by email)`,
      ),
    status: orderStatus.optional(),
    from: isoDate.optional().describe('Placed on or after this day (YYYY-MM-DD, America/Toronto)'),
    to: isoDate.optional().describe('Placed on or before this day (YYYY-MM-DD, America/Toronto)'),
    province: z.enum(PROVINCES).optional().describe("The shipping address's province"),
    shop: z
      .string()
      .max(100)
      .refine((v) => isRecordId('users', v), 'validation.userId')
      .optional()
      .describe("A seller's id: that shop's orders"),
    limit: intParam('limit', 1, 100).default(50),
    before: cursorOf('orders'),
  })
  .superRefine((q, ctx) => {
    if (q.from && q.to && q.from > q.to) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: 'validation.notAfterTo',
        params: { to: q.to },
      });
    }
  });
export type AdminOrdersQuery = z.infer<typeof adminOrdersQuery>;

export const adminOrderRow = z.object({
  id: z.string(),
  number: z.string(),
  status: orderStatus,
  buyerId: z.string(),
  buyerEmail: z.string(),
  sellerId: z.string(),
  shopName: z.string().nullable(),
  province: z.string(),
  totalAmountCents: z.number().int(),
  refundedCents: z.number().int(),
  itemCount: z.number().int(),
  createdAt: unixSeconds,
});
export type AdminOrderRow = z.infer<typeof adminOrderRow>;

export const adminOrderList = z.object({
  orders: z.array(adminOrderRow),
  nextBefore: z.string().nullable().describe('Pass as `before` for the next (older) page; null on the last'),
  broad: z
    .boolean()
    .describe(
      `The search's email beginning matched more than ${ORDER_SEARCH_BUYERS} accounts: only the first ${ORDER_SEARCH_BUYERS} (by email) were searched`,
    ),
});

/** What an order's history names: its own steps, its payment's events, refunds, returns, labels, admins. */
export const ORDER_HISTORY_EVENTS = [
  'order.placed',
  'order.confirmed',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'payment.event',
  'label.bought',
  'refund.requested',
  'refund.succeeded',
  'refund.failed',
  'return.requested',
  'return.escalated',
  'return.decided',
  'return.received',
  'return.refunded',
  'admin.action',
] as const;
export type OrderHistoryEvent = (typeof ORDER_HISTORY_EVENTS)[number];

export const historyEntry = z.object({
  at: unixSeconds,
  event: z.enum(ORDER_HISTORY_EVENTS),
  detail: z
    .string()
    .nullable()
    .describe(
      "What happened, as recorded: the carrier and tracking number, a payment event's type, an amount in cents, a return's status, an admin's action and email",
    ),
  ref: z.string().nullable().describe('The refund, return or audit record it is about'),
});
export type HistoryEntry = z.infer<typeof historyEntry>;

export const adminOrderAnswer = z.object({
  order: orderDetail.omit({ invoiceUrl: true }),
  buyer: z.object({ id: z.string(), email: z.string(), name: z.string() }),
  shop: z.object({ id: z.string(), name: z.string().nullable() }),
  refunds: z.array(
    z.object({
      id: z.string(),
      amountCents: z.number().int(),
      reason: z.string(),
      status: z.enum(['requested', 'succeeded', 'failed']),
      returnId: z.string().nullable(),
      createdAt: unixSeconds,
      completedAt: unixSeconds.nullable(),
    }),
  ),
  returns: z.array(
    z.object({
      id: z.string(),
      status: z.enum(RETURN_STATUSES),
      reason: z.string(),
      refundAmountCents: z.number().int().nullable(),
      createdAt: unixSeconds,
    }),
  ),
  history: z.array(historyEntry).describe('Oldest first'),
});
export type AdminOrderAnswer = z.infer<typeof adminOrderAnswer>;

export const adminUsersQuery = z.object({
  q: z
    .string()
    .trim()
    .max(320)
    .optional()
    .describe(
      "With `@`: an email or its beginning; without: the beginning of a name (case ignored). Listed in that key's order",
    ),
  role: z.enum(ROLES).optional(),
  suspended: z
    .enum(['true', 'false'], { message: 'validation.trueOrFalse' })
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only the suspended; false: only the others'),
  limit: intParam('limit', 1, 100).default(50),
  before: cursorOf('users'),
});
export type AdminUsersQuery = z.infer<typeof adminUsersQuery>;

export const adminUserRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  emailVerified: z.boolean(),
  createdAt: unixSeconds,
  suspendedAt: unixSeconds.nullable(),
});
export type AdminUserRow = z.infer<typeof adminUserRow>;

export const adminUserList = z.object({
  users: z.array(adminUserRow),
  nextBefore: z.string().nullable().describe('Pass as `before` for the next page; null on the last'),
});

const counted = <T extends z.ZodType>(item: T) =>
  z.object({
    count: z
      .number()
      .int()
      .describe(`Counted up to ${HISTORY_COUNT_MAX.toLocaleString('en-CA')}`),
    more: z.boolean().describe('There are more than `count`'),
    recent: z.array(item).describe(`The newest ${HISTORY_RECENT}`),
  });

export const adminUserAnswer = z.object({
  user: adminUserRow.extend({ locale: z.string().nullable() }),
  shop: z
    .object({ name: z.string(), slug: z.string(), province: z.string(), createdAt: unixSeconds })
    .nullable(),
  orders: counted(adminOrderRow).describe('Orders they bought'),
  sales: counted(adminOrderRow).nullable().describe("Their shop's orders (a seller)"),
  returns: counted(
    z.object({
      id: z.string(),
      orderId: z.string(),
      status: z.enum(RETURN_STATUSES),
      reason: z.string(),
      createdAt: unixSeconds,
    }),
  ),
  reviews: counted(
    z.object({
      id: z.string(),
      productId: z.string(),
      rating: z.number().int(),
      title: z.string(),
      status: z.enum(['published', 'pending', 'rejected']),
      createdAt: unixSeconds,
    }),
  ),
  adminActions: z
    .array(
      z.object({
        id: z.number().int(),
        actorEmail: z.string(),
        action: z.string(),
        before: z.record(z.string(), z.unknown()).nullable(),
        after: z.record(z.string(), z.unknown()).nullable(),
        createdAt: unixSeconds,
      }),
    )
    .describe(`The newest ${HISTORY_RECENT} admin actions on them (role changes, suspensions)`),
});
export type AdminUserAnswer = z.infer<typeof adminUserAnswer>;
