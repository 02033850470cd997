import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { RETURN_REASONS, RETURN_STATUSES } from '../../contract/returns.ts';
import { users } from '../auth/tables.ts';
import { orders } from '../orders/tables.ts';

/** A returned line as it was sold (the emails and the seller's list show it without the order). */
export interface ReturnedItem {
  productId: string;
  /** The order line's variant; absent on returns made before variants (then the product's id, its one variant's). */
  variantId?: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
}

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/**
 * A return request of a delivered order (docs/api.md "Returns"). At most one is open (pending,
 * awaiting its parcel, received or approved, not yet refunded) per order: the partial unique index holds it, so two racing
 * requests make one return. A rejected or refunded return closes; a new one may follow.
 */
export const returns = pgTable(
  'returns',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** Copied from the order: the buyer's and the seller's lists read them without the order. */
    buyerId: text('buyer_id')
      .notNull()
      .references(() => users.id),
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id),
    status: text('status', { enum: RETURN_STATUSES }).notNull().default('pending'),
    reason: text('reason', { enum: RETURN_REASONS }).notNull(),
    description: text('description'),
    items: jsonb('items').$type<ReturnedItem[]>().notNull(),
    wholeOrder: boolean('whole_order').notNull(),
    estimatedRefundCents: integer('estimated_refund_cents').notNull(),
    /** Set on approval: the estimate capped by what was left unrefunded on the order then. */
    refundAmountCents: integer('refund_amount_cents'),
    /** The refund approval wrote (refunds.id); null while undecided, rejected, or nothing was left. */
    refundId: text('refund_id'),
    note: text('note'),
    /** Where and how to send the items back (approved with them: awaiting the parcel). */
    instructions: text('instructions'),
    /** Units the seller put back in stock of each returned line (its id) when the parcel came. */
    restocked: jsonb('restocked').$type<Record<string, number>>(),
    decidedBy: text('decided_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    windowClosesAt: timestamp('window_closes_at', { withTimezone: true }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    receivedAt: timestamp('received_at', { withTimezone: true }),
    /** Left pending past the seller's time to answer: the platform's admins have it (the escalation job). */
    escalatedAt: timestamp('escalated_at', { withTimezone: true }),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('returns_one_open_per_order')
      .on(t.orderId)
      .where(sql`${t.status} in ('pending', 'awaiting_parcel', 'received', 'approved')`),
    // The escalation job's pass and the desk's queue: pending ones by age.
    index('returns_pending_created_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
    index('returns_awaiting_decided_idx').on(t.decidedAt).where(sql`${t.status} = 'awaiting_parcel'`),
    check('returns_instructions_bounded', sql`coalesce(length(${t.instructions}), 0) <= 2000`),
    check('returns_status_check', sql`${t.status} in (${inList(RETURN_STATUSES)})`),
    check('returns_reason_check', sql`${t.reason} in (${inList(RETURN_REASONS)})`),
    check('returns_estimate_not_negative', sql`${t.estimatedRefundCents} >= 0`),
    check('returns_refund_not_negative', sql`${t.refundAmountCents} >= 0`),
    index('returns_buyer_created_idx').on(t.buyerId, t.createdAt, t.id),
    index('returns_seller_created_idx').on(t.sellerId, t.createdAt, t.id),
  ],
);
