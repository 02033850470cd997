// The buyer's cart: lines, limits, availability, and an estimate of discount, shipping and
// tax. Every change locks the buyer's cart row first, so two changes of one buyer never
// interleave (two concurrent adds of the last units: one wins, one is refused).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type addToCartBody,
  type applyCouponAnswer,
  type cart,
  MAX_LINES,
  MAX_QUANTITY,
} from '../../contract/cart.ts';
import { isRecordId, type Province, toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import type { Db } from '../../db/index.ts';
import { sellerProfiles } from '../auth/tables.ts';
import { products } from '../catalog/tables.ts';
import { caller, type RequestContext } from '../context.ts';
import { checkCoupon, findCoupon, requireCoupon } from '../coupons/service.ts';
import { type ParcelItem, shippingFor, taxFor } from '../pricing/index.ts';
import { cartItems, carts } from './tables.ts';

type Cart = z.infer<typeof cart>;

/**
 * Units of a product that can be bought now. Checkout reservations will be subtracted here
 * when checkout exists; until then it is the stock.
 */
async function availableUnits(
  db: Db,
  productId: string,
): Promise<{ title: string; units: number } | undefined> {
  if (!isRecordId('products', productId)) return undefined;
  const [p] = await db
    .select({ title: products.title, stock: products.stockQuantity })
    .from(products)
    .where(and(eq(products.id, productId), eq(products.status, 'active')));
  return p ? { title: p.title, units: p.stock } : undefined;
}

export async function checkInventory(ctx: RequestContext, productId: string, quantity: number) {
  const found = await availableUnits(ctx.db, productId);
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

/**
 * The province the cart's tax and shipping are estimated for
 * (../shared/design/decisions.md, "Cart, coupons, stock").
 */
async function taxProvince(_ctx: RequestContext): Promise<Province> {
  // The buyer's last shipping address comes with orders; until a buyer has one, Ontario.
  return 'ON';
}

/** Locks (creating if needed) the buyer's cart row for the rest of the transaction. */
async function lockCart(tx: Db, userId: string, now: Date) {
  const [row] = await tx
    .insert(carts)
    .values({ userId, updatedAt: now })
    .onConflictDoUpdate({ target: carts.userId, set: { updatedAt: now } })
    .returning();
  return row!;
}

/** The cart's lines whose product is on sale, in the order they were added. */
function activeLines(db: Db, userId: string) {
  return (
    db
      .select({
        productId: cartItems.productId,
        quantity: cartItems.quantity,
        title: products.title,
        priceCents: products.priceCents,
        imageUrls: products.imageUrls,
        isDigital: products.isDigital,
        isPerishable: products.isPerishable,
        weightKg: products.weightKg,
        sellerId: products.sellerId,
        sellerProvince: sellerProfiles.province,
      })
      .from(cartItems)
      .innerJoin(products, eq(products.id, cartItems.productId))
      .leftJoin(sellerProfiles, eq(sellerProfiles.userId, products.sellerId))
      // A product that stopped being sold stays in the cart but out of the totals; it comes
      // back if the seller sells it again.
      .where(and(eq(cartItems.userId, userId), eq(products.status, 'active')))
      .orderBy(asc(cartItems.addedAt), asc(cartItems.productId))
  );
}

export async function getCart(ctx: RequestContext): Promise<Cart> {
  const me = caller(ctx);
  const [row] = await ctx.db.select().from(carts).where(eq(carts.userId, me.id));
  const lines = await activeLines(ctx.db, me.id);

  const items = lines.map((l) => ({
    product_id: l.productId,
    title: l.title,
    quantity: l.quantity,
    unit_price_cents: l.priceCents,
    line_total_cents: l.priceCents * l.quantity,
    image_url: l.imageUrls[0] ?? null,
  }));
  const subtotalCents = items.reduce((n, i) => n + i.line_total_cents, 0);

  let discountCents = 0;
  let couponProblem: string | null = null;
  const couponRow = row?.couponCode ? await findCoupon(ctx.db, row.couponCode) : undefined;
  if (couponRow) {
    const checked = await checkCoupon(ctx, couponRow, me.id, subtotalCents);
    discountCents = checked.discountCents;
    couponProblem = checked.problem;
  }

  const province = await taxProvince(ctx);
  let shippingCostCents = 0;
  let shippingProblem: string | null = null;
  const bySeller = new Map<string, { origin: Province; items: ParcelItem[] }>();
  for (const l of lines) {
    const parcel = bySeller.get(l.sellerId) ?? { origin: (l.sellerProvince ?? 'ON') as Province, items: [] };
    parcel.items.push({
      productId: l.productId,
      title: l.title,
      unitPriceCents: l.priceCents,
      quantity: l.quantity,
      isDigital: l.isDigital,
      isPerishable: l.isPerishable,
      weightKg: l.weightKg,
    });
    bySeller.set(l.sellerId, parcel);
  }
  for (const parcel of bySeller.values()) {
    // An estimate still: a parcel that cannot go is priced as if it could; checkout refuses it.
    const shipping = shippingFor({
      originProvince: parcel.origin,
      destinationProvince: province,
      items: parcel.items,
    });
    shippingCostCents += shipping.costCents;
    if (shipping.problems.length) shippingProblem = shipping.problems.map((p) => p.message).join('. ');
  }
  const tax = taxFor(province, subtotalCents - discountCents + shippingCostCents, ctx.now());
  return {
    items,
    itemCount: items.reduce((n, i) => n + i.quantity, 0),
    subtotalCents,
    discount_cents: discountCents,
    coupon_applied: couponRow?.code ?? null,
    coupon_problem: couponProblem,
    shippingCostCents,
    shipping_problem: shippingProblem,
    taxAmountCents: tax.totalCents,
    taxLines: tax.lines,
    taxProvince: province,
    totalAmountCents: subtotalCents - discountCents + shippingCostCents + tax.totalCents,
    lastUpdated: toUnix(row?.updatedAt ?? ctx.now()),
  };
}

export async function addToCart(ctx: RequestContext, input: z.infer<typeof addToCartBody>) {
  const me = caller(ctx);
  const quantity = await ctx.db.transaction(async (tx) => {
    await lockCart(tx, me.id, ctx.now());
    const found = await availableUnits(tx, input.product_id);
    if (!found) throw notFound(`Product ${input.product_id} not found`);
    const [line] = await tx
      .select({ quantity: cartItems.quantity })
      .from(cartItems)
      .where(and(eq(cartItems.userId, me.id), eq(cartItems.productId, input.product_id)));
    const inCart = line?.quantity ?? 0;
    const wanted = inCart + input.quantity;
    if (wanted > MAX_QUANTITY) {
      throw conflict(
        `A cart holds at most ${MAX_QUANTITY} of one product; you have ${inCart} of ${input.product_id} and asked for ${input.quantity} more`,
      );
    }
    if (wanted > found.units) {
      throw conflict(
        `Only ${found.units} left of ${input.product_id}; you have ${inCart} in your cart and asked for ${input.quantity} more`,
      );
    }
    if (!line) {
      const [{ n } = { n: 0 }] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(cartItems)
        .where(eq(cartItems.userId, me.id));
      if (n >= MAX_LINES) throw conflict(`A cart holds at most ${MAX_LINES} products; remove one first`);
    }
    await tx
      .insert(cartItems)
      .values({
        userId: me.id,
        productId: input.product_id,
        quantity: input.quantity,
        variant: input.variant ?? null,
        addedAt: ctx.now(),
      })
      .onConflictDoUpdate({
        target: [cartItems.userId, cartItems.productId],
        set: { quantity: wanted, variant: input.variant ?? sql`${cartItems.variant}` },
      });
    return wanted;
  });
  return { product_id: input.product_id, quantity, added: true, cart: await getCart(ctx) };
}

export async function removeFromCart(ctx: RequestContext, productId: string, quantity?: number) {
  const me = caller(ctx);
  const removed = await ctx.db.transaction(async (tx) => {
    await lockCart(tx, me.id, ctx.now());
    const [line] = isRecordId('products', productId)
      ? await tx
          .select({ quantity: cartItems.quantity })
          .from(cartItems)
          .where(and(eq(cartItems.userId, me.id), eq(cartItems.productId, productId)))
      : [];
    if (!line) throw notFound(`Product ${productId} is not in your cart`);
    const take = Math.min(quantity ?? line.quantity, line.quantity);
    const where = and(eq(cartItems.userId, me.id), eq(cartItems.productId, productId));
    if (take === line.quantity) await tx.delete(cartItems).where(where);
    else
      await tx
        .update(cartItems)
        .set({ quantity: line.quantity - take })
        .where(where);
    return take;
  });
  return { removed: true, quantity_removed: removed, cart: await getCart(ctx) };
}

/** Applies a coupon to the cart: 404 unknown code; 409 expired, used up or minimum not met. */
export async function applyCoupon(
  ctx: RequestContext,
  code: string,
): Promise<z.infer<typeof applyCouponAnswer>> {
  const me = caller(ctx);
  const row = await requireCoupon(ctx.db, code);
  const subtotalCents = (await activeLines(ctx.db, me.id)).reduce((n, l) => n + l.priceCents * l.quantity, 0);
  const checked = await checkCoupon(ctx, row, me.id, subtotalCents);
  if (checked.problem) throw conflict(checked.problem);
  await ctx.db
    .insert(carts)
    .values({ userId: me.id, couponCode: row.code, updatedAt: ctx.now() })
    .onConflictDoUpdate({ target: carts.userId, set: { couponCode: row.code, updatedAt: ctx.now() } });
  const after = await getCart(ctx);
  return {
    applied: true,
    code: row.code,
    discount_cents: after.discount_cents,
    discount_percent: row.discountPercent,
    new_total_cents: after.totalAmountCents,
    expiration_date: row.expiresOn,
    terms: row.terms,
  };
}

export async function removeCoupon(ctx: RequestContext): Promise<Cart> {
  await ctx.db
    .update(carts)
    .set({ couponCode: null, updatedAt: ctx.now() })
    .where(eq(carts.userId, caller(ctx).id));
  return getCart(ctx);
}
