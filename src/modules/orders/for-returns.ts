// What the returns module may do with orders, and only this: read and lock the order a return is
// about, mark it as having a refund asked for, write an approved return's refund, and say where
// the order ships (the language of the return's emails).
import { eq } from 'drizzle-orm';
import { isRecordId } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import type { OrderStatus } from '../../contract/orders.ts';
import type { RequestContext } from '../context.ts';
import { requestRefund, unrefundedCentsOf } from '../payments/refunds.ts';
import { itemsOf, soldItems } from './service.ts';

export { orderNumberOf, shippingProvinceOf } from './service.ts';

import { orders } from './tables.ts';

export interface ReturnableOrder {
  id: string;
  buyerId: string;
  sellerId: string;
  status: OrderStatus;
  deliveredAt: Date | null;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxAmountCents: number;
  totalAmountCents: number;
  /** Its lines, one per variant sold. */
  items: Array<{
    productId: string;
    variantId: string;
    name: string;
    quantity: number;
    unitPriceCents: number;
  }>;
  /** The total less the refunds requested or made (a failed refund gave nothing back). */
  unrefundedCents: number;
}

/**
 * The order a return is about, locked (FOR UPDATE) in ctx's transaction: its returns and refunds
 * change one at a time. Every path that changes a return takes this lock first, then the
 * return's row (one lock order, no deadlock). With `buyerId`, another buyer's order is 404.
 */
export async function lockOrderForReturn(
  ctx: RequestContext,
  orderId: string,
  buyerId?: string,
): Promise<ReturnableOrder> {
  if (!isRecordId('orders', orderId)) throw notFound('error.orders.notFound', { id: orderId });
  const [row] = await ctx.db.select().from(orders).where(eq(orders.id, orderId)).for('update');
  if (!row || (buyerId !== undefined && row.buyerId !== buyerId))
    throw notFound('error.orders.notFound', { id: orderId });
  const items = await itemsOf(ctx, orderId);
  return {
    id: row.id,
    buyerId: row.buyerId,
    sellerId: row.sellerId,
    status: row.status,
    deliveredAt: row.deliveredAt,
    subtotalCents: row.subtotalCents,
    discountCents: row.discountCents,
    shippingCostCents: row.shippingCostCents,
    taxAmountCents: row.taxAmountCents,
    totalAmountCents: row.totalAmountCents,
    items: soldItems(items).map(({ imageUrl: _, ...item }) => item),
    unrefundedCents: await unrefundedCentsOf(ctx, row),
  };
}

/** A return was requested: the order says so (`refundRequested`), in ctx's transaction. */
export async function markRefundRequested(ctx: RequestContext, orderId: string): Promise<void> {
  await ctx.db.update(orders).set({ refundRequested: true }).where(eq(orders.id, orderId));
}

/**
 * What an approved return refunds, in ctx's transaction (the caller holds the order's lock,
 * lockOrderForReturn): at most `maxCents`, and never more than is left unrefunded (refunds
 * requested or made count); 0 when nothing is left.
 */
export async function returnRefundAmount(
  ctx: RequestContext,
  input: { orderId: string; maxCents: number },
): Promise<{ order: typeof orders.$inferSelect; amountCents: number }> {
  const [order] = await ctx.db.select().from(orders).where(eq(orders.id, input.orderId));
  if (!order) throw notFound('error.orders.notFound', { id: input.orderId });
  return { order, amountCents: Math.max(0, Math.min(input.maxCents, await unrefundedCentsOf(ctx, order))) };
}

/**
 * Writes that refund (returnRefundAmount's, above 0) as an intent in ctx's transaction; answers its
 * id, which the caller sends with sendRefund after commit.
 */
export function requestReturnRefund(
  ctx: RequestContext,
  refund: { order: typeof orders.$inferSelect; amountCents: number; returnId: string },
): Promise<string> {
  return requestRefund(ctx, refund.order, refund.amountCents, 'return', refund.returnId);
}
