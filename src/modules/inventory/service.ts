// Availability: how many units of a product can be bought now. The one place that answers it
// (the cart asks here, never reads the stock itself), so that checkout reservations change
// every answer at once when they come (../shared/design/decisions.md, "Cart, coupons, stock").
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { inventoryAnswer } from '../../contract/cart.ts';
import { isRecordId } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import { products } from '../catalog/tables.ts';
import type { RequestContext } from '../context.ts';

/**
 * Units of `products.id` held by unexpired checkout reservations. None exist yet: the
 * reservations table comes with checkout, and then this becomes
 * `coalesce((select sum(r.quantity) from reservations r where r.product_id = products.id
 * and r.expires_at > ctx.now()), 0)`, the one subtraction in availableUnits.
 */
function heldUnits(_ctx: RequestContext): SQL<number> {
  return sql<number>`0`;
}

/**
 * Units of an active product that can be bought now: its stock less the units held by open
 * checkouts (today that is the stock: nothing is held yet). Undefined for an unknown, malformed
 * or not active product. Inside a transaction it reads what that transaction sees.
 */
export async function availableUnits(
  ctx: RequestContext,
  productId: string,
): Promise<{ title: string; units: number } | undefined> {
  if (!isRecordId('products', productId)) return undefined;
  const [row] = await ctx.db
    .select({
      title: products.title,
      units: sql<number>`greatest(${products.stockQuantity} - ${heldUnits(ctx)}, 0)::int`,
    })
    .from(products)
    .where(and(eq(products.id, productId), eq(products.status, 'active')));
  return row;
}

/** check_inventory: whether `quantity` units can be bought now; 404 for a product not on sale. */
export async function checkInventory(
  ctx: RequestContext,
  productId: string,
  quantity: number,
): Promise<z.infer<typeof inventoryAnswer>> {
  const found = await availableUnits(ctx, productId);
  if (!found) throw notFound(`Product ${productId} not found`);
  const available = found.units >= quantity;
  const message =
    found.units === 0
      ? `Out of stock: ${found.title}`
      : available
        ? `In stock: ${found.units} available`
        : `Only ${found.units} left of ${productId}; you asked for ${quantity}`;
  return {
    product_id: productId,
    available,
    stock_quantity: found.units,
    requested_quantity: quantity,
    message,
  };
}
