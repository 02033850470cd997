// What other modules may ask about a buyer's purchases (reviews: is this a verified purchase?).
// Orders' tables are read here, not by those modules (docs/decisions.md "Principles").
import { and, eq, ne, sql } from 'drizzle-orm';
import { isRecordId } from '../../contract/common.ts';
import type { RequestContext } from '../context.ts';
import { orderItems, orders } from './tables.ts';

/**
 * Whether `orderId` is `buyerId`'s own paid order that contains `productId` and was not
 * cancelled. An order row exists only once paid, so any status but `cancelled` counts
 * (`pending` too: paid, waiting for stock). Someone else's order, an unknown id and an order
 * without the product all answer false, alike.
 */
export async function orderContainsProduct(
  ctx: RequestContext,
  buyerId: string,
  orderId: string,
  productId: string,
): Promise<boolean> {
  if (!isRecordId('orders', orderId) || !isRecordId('products', productId)) return false;
  const rows = await ctx.db
    .select({ one: sql<number>`1` })
    .from(orders)
    .innerJoin(orderItems, and(eq(orderItems.orderId, orders.id), eq(orderItems.productId, productId)))
    .where(and(eq(orders.id, orderId), eq(orders.buyerId, buyerId), ne(orders.status, 'cancelled')))
    .limit(1);
  return rows.length > 0;
}
