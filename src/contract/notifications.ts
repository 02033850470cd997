// Wire schemas of a seller's notifications (docs/api.md "Seller notifications"): the inbox, the
// choice of what reaches the seller by email and in the inbox, and the low-stock thresholds.
import { z } from 'zod';
import { intParam } from './catalog.ts';
import { unixSeconds } from './common.ts';

/** What a seller is told of, in the order the settings list them. */
export const NOTIFICATION_KINDS = [
  'order_placed',
  'order_waiting_for_stock',
  'return_requested',
  'review_posted',
  'stock_low',
  'payout_sent',
  'payout_failed',
  'dispute_opened',
  'order_message',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const notificationKind = z.enum(NOTIFICATION_KINDS);

/** A page of the inbox holds at most this many; one call marks at most this many read by id. */
export const MAX_NOTIFICATIONS_PAGE = 100;

export const notificationsQuery = z.object({
  limit: intParam('limit', 1, MAX_NOTIFICATIONS_PAGE).default(20),
  unread: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only those not read yet'),
  before: z.string().max(100).optional().describe('The `nextBefore` of the previous page'),
});

export const notificationAnswer = z
  .object({
    id: z.string(),
    kind: notificationKind,
    /** What it is about: an order, a return, a review, a variant, a payout or a dispute id. */
    subjectId: z.string(),
    message: z.string().describe("One line, in the reader's language"),
    /** The console's page of it (a path of this site). */
    link: z.string(),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    createdAt: unixSeconds,
    readAt: unixSeconds.nullable(),
  })
  .meta({ id: 'SellerNotification' });

export const notificationList = z.object({
  notifications: z.array(notificationAnswer),
  unread: z.number().int().describe('Unread notifications in all (counted up to 1,000)'),
  nextBefore: z.string().nullable().describe('Pass as `before` for the next page; null on the last'),
});

export const markReadBody = z
  .strictObject({
    ids: z.array(z.string().max(100)).min(1).max(MAX_NOTIFICATIONS_PAGE, 'validation.atMost').optional(),
    all: z.literal(true).optional(),
  })
  .refine((b) => (b.ids === undefined) !== (b.all === undefined), 'validation.idsOrAll');

export const notificationSetting = z.strictObject({
  kind: notificationKind,
  email: z.boolean(),
  inbox: z.boolean(),
});
export type NotificationSetting = z.infer<typeof notificationSetting>;

export const notificationSettings = z.object({
  settings: z.array(notificationSetting).describe('Every kind, in order; a kind never chosen is on for both'),
});

export const notificationSettingsBody = z.strictObject({
  settings: z
    .array(notificationSetting)
    .min(1)
    .max(NOTIFICATION_KINDS.length)
    .refine((list) => new Set(list.map((s) => s.kind)).size === list.length, 'validation.kindTwice'),
});

/** A product's low-stock threshold: a variant at or below it after a sale tells the seller. */
export const lowStockBody = z.strictObject({
  threshold: z
    .number({ message: 'validation.nonNegativeInteger' })
    .int('validation.nonNegativeInteger')
    .min(0, 'validation.nonNegativeInteger')
    .max(1_000_000, 'validation.atMost')
    .nullable()
    .describe('null: no alert'),
});

export const lowStockAnswer = z.object({ productId: z.string(), threshold: z.number().int().nullable() });
export const lowStockList = z.object({ thresholds: z.array(lowStockAnswer) });
