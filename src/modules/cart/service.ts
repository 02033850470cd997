// The buyer's cart: lines, limits, and an estimate of discount, shipping and tax from the
// pricing quote that checkout charges by. Availability is inventory's to say. Every change
// locks the buyer's cart row first, in one transaction, so two changes of one buyer never
// interleave (two concurrent adds of the last units: one wins, one is refused).
import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  type addToCartBody,
  type applyCouponAnswer,
  type cart,
  type cartDiscount,
  MAX_LINES,
  MAX_QUANTITY,
} from '../../contract/cart.ts';
import { type Province, toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, render } from '../../contract/i18n.ts';
import { shopNames } from '../auth/sellers.ts';
import { variantNamesIn } from '../catalog/service.ts';
import { productVariants } from '../catalog/tables.ts';
import { resolveVariant } from '../catalog/variants.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { type CouponCheck, checkCoupon, findCoupon, requireCoupon } from '../coupons/service.ts';
import { availableUnits } from '../inventory/service.ts';
import { lastShippingProvince } from '../orders/service.ts';
import { type Quote, type QuoteLine, quote } from '../pricing/index.ts';
import {
  type CartLineRow,
  cartLineRows,
  clearPurchasedLines,
  lockCartKeepingStamp,
  lockCartThenLines,
} from './queries.ts';
import { cartItems, carts } from './tables.ts';

type Cart = z.infer<typeof cart>;
type CartDiscount = z.infer<typeof cartDiscount>;

/**
 * The province the cart's tax and shipping are estimated for
 * (docs/api.md "Cart and coupons").
 */
async function taxProvince(ctx: RequestContext): Promise<Province> {
  return (await lastShippingProvince(ctx, caller(ctx).id)) ?? 'ON';
}

/**
 * Locks (creating if needed) the buyer's cart row for the rest of the transaction `ctx` runs
 * in (call it inside inTransaction), stamping it as changed now unless `touch` is false (a
 * checkout or a payment reading the cart does not change it: its lastUpdated stays).
 */
async function lockCart(ctx: RequestContext, userId: string, touch = true) {
  const now = ctx.now();
  if (!touch) return lockCartKeepingStamp(ctx.db, userId, now);
  const [row] = await ctx.db
    .insert(carts)
    .values({ userId, updatedAt: now })
    .onConflictDoUpdate({ target: carts.userId, set: { updatedAt: touch ? now : sql`${carts.updatedAt}` } })
    .returning();
  return row!;
}

/**
 * The cart's lines whose product is on sale, in the order they were added, with what the
 * quote needs of each product and its seller (read through the catalog, in the same statement). A product that
 * stopped being sold stays in the cart but out of the totals; it counts again if the seller
 * sells it again.
 */
async function activeLines(ctx: RequestContext, userId: string) {
  return onSale(await cartLineRows(ctx.db, userId));
}

/** The lines whose variant is on sale, with what the quote needs. */
function onSale(rows: CartLineRow[]) {
  return rows.flatMap(({ productId, variantId, quantity, product: p }) =>
    p ? [{ ...p, sellerProvince: p.sellerProvince ?? undefined, productId, variantId, quantity }] : [],
  );
}

type CartRow = typeof carts.$inferSelect;

/** The cart's lines as the pricing quote takes them (the cart's estimate and checkout alike). */
export function quoteLines(lines: Line[]): QuoteLine[] {
  return lines.map((l) => ({
    productId: l.productId,
    variantId: l.variantId,
    variantTitle: l.variantTitle,
    sku: l.sku,
    title: l.title,
    unitPriceCents: l.priceCents,
    quantity: l.quantity,
    sellerId: l.sellerId,
    // A seller without a shop profile (not made through the API) ships from Ontario.
    sellerProvince: l.sellerProvince ?? 'ON',
    isDigital: l.isDigital,
    isPerishable: l.isPerishable,
    weightKg: l.weightKg,
    dimensionsCm: l.dimensionsCm,
    shipping: l.shipping,
    shopDiscount: l.shopDiscount,
  }));
}
type Line = Awaited<ReturnType<typeof activeLines>>[number];

/** The cart, its estimate for `province` (the pages' choice), else for the buyer's last shipping province. */
export async function getCart(ctx: RequestContext, opts: { province?: Province } = {}): Promise<Cart> {
  const me = caller(ctx);
  const [row] = await ctx.db.select().from(carts).where(eq(carts.userId, me.id));
  const lines = await activeLines(ctx, me.id);
  const coupon = row?.couponCode ? await findCoupon(ctx, row.couponCode) : undefined;
  const checked = coupon ? await checkCoupon(ctx, coupon, me.id, lines) : undefined;
  return priceCart(ctx, row, lines, checked, opts.province);
}

/** The cart as get_cart answers it: its lines priced by the quote for the cart's province. */
async function priceCart(
  ctx: RequestContext,
  row: CartRow | undefined,
  lines: Line[],
  coupon: CouponCheck | undefined,
  province?: Province,
): Promise<Cart> {
  const priced = quote({
    lines: quoteLines(lines),
    destinationProvince: province ?? (await taxProvince(ctx)),
    discount: coupon?.discount,
    on: ctx.now(),
  });
  // Lines are named in the reader's language where the product is translated; the quote and
  // checkout keep the names as written (the names an order is sold under).
  const names = ctx.locale
    ? await variantNamesIn(
        ctx,
        lines.map((l) => l.variantId),
        ctx.locale,
      )
    : undefined;
  const items = lines.map((l) => ({
    product_id: l.productId,
    variant_id: l.variantId,
    variant_title: names?.get(l.variantId)?.variantTitle ?? l.variantTitle,
    sku: l.sku,
    title: names?.get(l.variantId)?.title ?? l.title,
    quantity: l.quantity,
    unit_price_cents: l.priceCents,
    line_total_cents: l.priceCents * l.quantity,
    image_url: l.imageUrls[0] ?? null,
  }));
  return {
    items,
    itemCount: items.reduce((n, i) => n + i.quantity, 0),
    subtotalCents: priced.subtotalCents,
    discount_cents: priced.discountCents,
    discounts: await discountsOf(ctx, priced, coupon?.coupon.code ?? null),
    coupon_applied: coupon?.coupon.code ?? null,
    coupon_problem: coupon?.reason ? render(ctx.locale ?? BASE_LOCALE, coupon.reason) : null,
    shippingCostCents: priced.shippingCostCents,
    // An estimate still: a parcel that cannot go is priced as if it could; checkout refuses it.
    shipping_problem: priced.problems.length
      ? priced.problems.map((p) => render(ctx.locale ?? BASE_LOCALE, p.text)).join('. ')
      : null,
    taxAmountCents: priced.taxAmountCents,
    taxLines: priced.taxLines,
    taxProvince: priced.destinationProvince,
    totalAmountCents: priced.totalCents,
    lastUpdated: toUnix(row?.updatedAt ?? ctx.now()),
  };
}

/** What a quote's discount is made of, named for people: each shop's automatic discount, then the coupon. */
async function discountsOf(ctx: RequestContext, priced: Quote, code: string | null): Promise<CartDiscount[]> {
  if (priced.discountCents === 0) return [];
  const shops = await shopNames(
    ctx,
    priced.parcels.filter((p) => p.discountCents > 0).map((p) => p.sellerId),
  );
  const automatic = priced.parcels
    .filter((p) => p.automaticDiscountCents > 0)
    .map((p) => ({
      kind: 'automatic' as const,
      code: null,
      sellerId: p.sellerId,
      shopName: shops.get(p.sellerId) ?? null,
      amountCents: p.automaticDiscountCents,
      paidBy: 'seller' as const,
    }));
  const byShop = priced.parcels.find((p) => p.sellerDiscountCents > p.automaticDiscountCents);
  const coupon =
    priced.couponDiscountCents > 0
      ? [
          {
            kind: 'coupon' as const,
            code,
            sellerId: byShop?.sellerId ?? null,
            shopName: byShop ? (shops.get(byShop.sellerId) ?? null) : null,
            amountCents: priced.couponDiscountCents,
            paidBy: byShop ? ('seller' as const) : ('platform' as const),
          },
        ]
      : [];
  return [...automatic, ...coupon];
}

export async function addToCart(ctx: RequestContext, input: z.infer<typeof addToCartBody>) {
  const me = caller(ctx);
  // Which variant: the one named (an id or a SKU), or the only one of a product sold one way.
  const target = await resolveVariant(ctx, input.product_id, input.variant);
  const quantity = await inTransaction(ctx, async (tx) => {
    await lockCart(tx, me.id);
    return addUnits(tx, me.id, target, input.quantity);
  });
  return {
    product_id: target.productId,
    variant_id: target.variantId,
    quantity,
    added: true,
    cart: await getCart(ctx),
  };
}

type Target = { productId: string; variantId: string };

/** Adds units to the buyer's line of a variant, under the cart's lock the caller holds; answers the line's quantity. */
async function addUnits(tx: RequestContext, buyerId: string, target: Target, asked: number) {
  const input = { product_id: target.variantId, quantity: asked };
  const found = await availableUnits(tx, target.variantId);
  if (!found) throw notFound('error.catalog.productNotFound', { id: target.productId });
  const [line] = await tx.db
    .select({ quantity: cartItems.quantity })
    .from(cartItems)
    .where(and(eq(cartItems.userId, buyerId), eq(cartItems.variantId, target.variantId)));
  const inCart = line?.quantity ?? 0;
  const wanted = inCart + input.quantity;
  if (wanted > MAX_QUANTITY) {
    throw conflict('error.cart.quantityLimit', {
      max: MAX_QUANTITY,
      inCart,
      title: found.title,
      id: input.product_id,
      asked: input.quantity,
    });
  }
  if (wanted > found.units) {
    throw conflict('error.cart.notEnoughStock', {
      left: String(found.units),
      n: found.units,
      title: found.title,
      id: input.product_id,
      inCart,
      asked: input.quantity,
    });
  }
  if (!line) {
    const [{ n } = { n: 0 }] = await tx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(cartItems)
      .where(eq(cartItems.userId, buyerId));
    if (n >= MAX_LINES) throw conflict('error.cart.linesLimit', { max: MAX_LINES });
  }
  await tx.db
    .insert(cartItems)
    .values({
      userId: buyerId,
      productId: target.productId,
      variantId: target.variantId,
      quantity: input.quantity,
      addedAt: tx.now(),
    })
    .onConflictDoUpdate({
      target: [cartItems.userId, cartItems.variantId],
      set: { quantity: wanted },
    });
  return wanted;
}

/**
 * remove_from_cart: `productId` a product id or a variant's; with `variant` (an id or a SKU) only
 * that variant's line. A product id alone names its one line in the cart; when the cart holds
 * several of its variants, all of them (each loses `quantity`, or all of its units).
 */
export async function removeFromCart(
  ctx: RequestContext,
  productId: string,
  quantity?: number,
  variant?: string,
) {
  const me = caller(ctx);
  const removed = await inTransaction(ctx, async (tx) => {
    await lockCart(tx, me.id);
    const lines = await linesNamed(tx, me.id, productId, variant);
    if (lines.length === 0) throw notFound('error.cart.notInCart', { id: productId });
    let n = 0;
    for (const variantId of lines) n += await removeUnits(tx, me.id, variantId, quantity);
    return n;
  });
  return { removed: true, quantity_removed: removed, cart: await getCart(ctx) };
}

/** The variant ids of the buyer's lines that a product id, a variant id or a SKU names. */
async function linesNamed(tx: RequestContext, buyerId: string, product: string, variant?: string) {
  const rows = await tx.db
    .select({ productId: cartItems.productId, variantId: cartItems.variantId, sku: productVariants.sku })
    .from(cartItems)
    .innerJoin(productVariants, eq(productVariants.id, cartItems.variantId))
    .where(eq(cartItems.userId, buyerId));
  return rows
    .filter((r) => r.variantId === product || r.productId === product)
    .filter((r) => variant === undefined || r.variantId === variant || r.sku === variant)
    .map((r) => r.variantId);
}

/**
 * A line's new quantity, 0 removing it (the pages' quantity field): the difference is added or
 * removed under one hold of the cart's lock, so two changes sent at once each start from what
 * the other left. Checked as add_to_cart and remove_from_cart check them.
 */
export async function setCartQuantity(
  ctx: RequestContext,
  variantId: string,
  quantity: number,
): Promise<void> {
  const me = caller(ctx);
  await inTransaction(ctx, async (tx) => {
    await lockCart(tx, me.id);
    const [line] = await tx.db
      .select({ quantity: cartItems.quantity, productId: cartItems.productId })
      .from(cartItems)
      .where(and(eq(cartItems.userId, me.id), eq(cartItems.variantId, variantId)));
    const now = line?.quantity ?? 0;
    if (quantity === 0) await removeUnits(tx, me.id, variantId);
    else if (quantity > now) {
      const target = line
        ? { productId: line.productId, variantId }
        : await resolveVariant(tx, variantId, undefined);
      await addUnits(tx, me.id, target, quantity - now);
    } else if (quantity < now) await removeUnits(tx, me.id, variantId, now - quantity);
  });
}

/** Removes units of the buyer's line of a variant (all without `quantity`), under the cart's lock the caller holds. */
async function removeUnits(tx: RequestContext, buyerId: string, variantId: string, quantity?: number) {
  const [line] = await tx.db
    .select({ quantity: cartItems.quantity })
    .from(cartItems)
    .where(and(eq(cartItems.userId, buyerId), eq(cartItems.variantId, variantId)));
  if (!line) throw notFound('error.cart.notInCart', { id: variantId });
  const take = Math.min(quantity ?? line.quantity, line.quantity);
  const where = and(eq(cartItems.userId, buyerId), eq(cartItems.variantId, variantId));
  if (take === line.quantity) await tx.db.delete(cartItems).where(where);
  else
    await tx.db
      .update(cartItems)
      .set({ quantity: line.quantity - take })
      .where(where);
  return take;
}

/**
 * Applies a coupon to the cart: 404 unknown code; 409 expired, used up or minimum not met.
 * Checked and priced once, on the lines read under the cart's lock.
 */
export async function applyCoupon(
  ctx: RequestContext,
  code: string,
): Promise<z.infer<typeof applyCouponAnswer>> {
  const me = caller(ctx);
  const after = await inTransaction(ctx, async (tx) => {
    await lockCart(tx, me.id);
    const coupon = await requireCoupon(tx, code);
    const lines = await activeLines(tx, me.id);
    const checked = await checkCoupon(tx, coupon, me.id, lines);
    if (checked.reason) throw conflict(checked.reason.key, checked.reason.values);
    const [row] = await tx.db
      .update(carts)
      .set({ couponCode: coupon.code, updatedAt: tx.now() })
      .where(eq(carts.userId, me.id))
      .returning();
    return { coupon, cart: await priceCart(tx, row, lines, checked) };
  });
  return {
    applied: true,
    code: after.coupon.code,
    discount_cents: after.cart.discount_cents,
    discount_percent: after.coupon.discountPercent,
    new_total_cents: after.cart.totalAmountCents,
    expiration_date: after.coupon.expiresOn,
    terms: after.coupon.terms,
  };
}

export async function removeCoupon(ctx: RequestContext): Promise<Cart> {
  await ctx.db
    .update(carts)
    .set({ couponCode: null, updatedAt: ctx.now() })
    .where(eq(carts.userId, caller(ctx).id));
  return getCart(ctx);
}

/**
 * What checkout prices: the buyer's cart, locked for the rest of the transaction (so the cart
 * cannot change under a checkout, and two checkouts of one buyer queue), its lines on sale with
 * what the quote needs, and its coupon code.
 */
export async function lockedCartForCheckout(ctx: RequestContext, buyerId: string) {
  const { cart, lines } = await lockCartThenLines(ctx.db, buyerId, ctx.now());
  return { couponCode: cart.couponCode, lines: onSale(lines), unavailable: [] as string[] };
}

/**
 * Takes what was bought out of the buyer's cart (a line bought whole goes; a line the buyer
 * since raised keeps the difference), and the coupon if it was the one used. Run in the
 * transaction that creates the orders.
 */
export async function clearPurchased(
  ctx: RequestContext,
  buyerId: string,
  bought: Array<{ variantId: string; quantity: number }>,
  couponCode: string | null,
): Promise<void> {
  // The cart is locked already (lockCartOfBuyer, first thing of the paying transaction). One
  // statement: the lines bought whole go, the others keep the difference, and the cart row
  // changes (its lastUpdated moves on; it loses the coupon if it was the one used).
  const lines = JSON.stringify(bought.map((l) => ({ variantId: l.variantId, quantity: l.quantity })));
  await clearPurchasedLines(ctx.db, { lines, buyerId, now: ctx.now(), couponCode });
}
