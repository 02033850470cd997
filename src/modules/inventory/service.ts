// Availability and stock: how many units of a product can be bought now, and the only writes of
// stock that checkout and orders make: reserve, release, commit, restock
// (docs/api.md "Cart and coupons", "Stock holds").
//
// A live reservation (neither released nor committed) is counted in products.reserved_quantity,
// changed in the same statement as the reservation row. A reservation is one conditional update
// of the product row (`stock - reserved >= wanted`): the row lock makes racing checkouts queue
// and re-check against the latest row, so no two can take the same unit. Availability is
// stock less the live reservations that have not expired (a lapsed one counts as free even
// before the expiry job releases it).
import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { inventoryAnswer } from '../../contract/cart.ts';
import { isRecordId } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, t } from '../../contract/i18n.ts';
import { products } from '../catalog/tables.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import {
  activeProductUnits,
  claimUnits,
  claimUnitsInTurn,
  commitHeldLines,
  commitLinesAllOrNone,
  deleteReservationsEndedBefore,
  lockProductRows,
  lockProductUnlessHeld,
  releaseCheckoutProduct,
  releaseLapsedOfProduct,
} from './queries.ts';
import { reservations } from './tables.ts';

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
  return activeProductUnits(ctx.db, productId, ctx.now());
}

/** check_inventory: whether `quantity` units can be bought now; 404 for a product not on sale. */
export async function checkInventory(
  ctx: RequestContext,
  productId: string,
  quantity: number,
): Promise<z.infer<typeof inventoryAnswer>> {
  const found = await availableUnits(ctx, productId);
  if (!found) throw notFound('error.catalog.productNotFound', { id: productId });
  const available = found.units >= quantity;
  const units = String(found.units);
  const message = t(
    ctx.locale ?? BASE_LOCALE,
    found.units === 0
      ? 'tool.checkInventory.outOfStock'
      : available
        ? 'tool.checkInventory.inStock'
        : 'tool.checkInventory.notEnough',
    { title: found.title, units, n: found.units, asked: String(quantity) },
  );
  return {
    product_id: productId,
    available,
    stock_quantity: found.units,
    requested_quantity: quantity,
    message,
  };
}

export interface ReserveLine {
  productId: string;
  quantity: number;
}

/**
 * Holds `quantity` units of each line for the checkout until `expiresAt`: one statement per
 * product (the conditional update of its row, and the reservation row written from its result),
 * in product id order so that two checkouts never wait on each other in a cycle. Answers the
 * lines that could not be held, each with the units left of it now (nothing is held for them;
 * the caller rolls back the rest).
 *
 * The statements go out together (one round trip on PostgreSQL: db/batching-client.ts) and run
 * in that order. Each holds its product only when every line before it was held (`after`: the
 * number of the checkout's reservations it must find), so a refused line leaves the products
 * after it untouched and unlocked. A refused line is tried again once the lapsed holds standing
 * in its way (if any) are given back; if it is still refused, the lines after it are not held
 * (the checkout fails: waiting on their locks would only delay its answer), only read, and
 * those short of units are answered too.
 */
export async function reserve(
  ctx: RequestContext,
  checkoutId: string,
  lines: ReserveLine[],
  expiresAt: Date,
): Promise<Array<ReserveLine & { left: number }>> {
  const now = ctx.now();
  const hold = { checkoutId, expiresAt, now };
  const claim = (line: ReserveLine) => claimUnits(ctx.db, { ...hold, ...line, after: -1 });
  const sorted = [...lines].sort((a, b) => (a.productId < b.productId ? -1 : 1));
  // In product id order (the order every writer locks products in), each only after those before it.
  const held = await claimUnitsInTurn(ctx.db, hold, sorted);
  const first = held.indexOf(false);
  if (first < 0) return [];
  const refused: Array<ReserveLine & { left: number }> = [];
  const unitsLeft = async (line: ReserveLine) => (await availableUnits(ctx, line.productId))?.units ?? 0;
  for (const [n, line] of sorted.slice(first).entries()) {
    if (refused.length > 0) {
      const left = await unitsLeft(line);
      if (left < line.quantity) refused.push({ ...line, left });
      continue;
    }
    // The first was refused above; the ones after it were not tried yet.
    if (n > 0 && (await claim(line))) continue;
    await releaseLapsed(ctx, line.productId);
    if (!(await claim(line))) refused.push({ ...line, left: await unitsLeft(line) });
  }
  return refused;
}

/**
 * Gives back the live reservations of a product that have expired (one statement: the rows are
 * marked and the product's count lowered together). The expiry job does it for every product;
 * a checkout does it for its own products first, so a lapsed hold never refuses it.
 */
async function releaseLapsed(ctx: RequestContext, productId: string, skipLocked = false) {
  await inTransaction(ctx, async (tx) => {
    // The product row first, then its reservations: the order every writer takes them in. The
    // job skips a product someone else holds (it comes back on a later pass).
    if (skipLocked) {
      if (!(await lockProductUnlessHeld(tx.db, productId))) return;
    } else {
      await lockProducts(tx, [productId]);
    }
    await releaseLapsedOfProduct(tx.db, productId, ctx.now());
  });
}

/**
 * Gives back the live reservations of a checkout (expired, superseded, its provider failed), or
 * only those of some products: the rows are marked and the products' counts lowered in one
 * statement. Answers how many were released.
 */
export async function releaseCheckout(
  ctx: RequestContext,
  checkoutId: string,
  productIds?: string[],
): Promise<number> {
  const live = await ctx.db
    .select({ productId: reservations.productId })
    .from(reservations)
    .where(
      and(
        eq(reservations.checkoutId, checkoutId),
        isNull(reservations.releasedAt),
        isNull(reservations.committedAt),
      ),
    );
  const ids = live
    .map((r) => r.productId)
    .filter((id) => !productIds || productIds.includes(id))
    .sort();
  let released = 0;
  // One product at a time, in id order: product rows are always locked in that order.
  for (const productId of ids) {
    await lockProducts(ctx, [productId]);
    if (await releaseCheckoutProduct(ctx.db, checkoutId, productId, ctx.now())) released++;
  }
  return released;
}

/**
 * Takes a paid parcel's units out of stock: from the checkout's live reservation where there is
 * one, otherwise from what is available now (the reservation lapsed and was released; or no
 * checkout: a seller confirming a `pending` order). All the lines or none, in a savepoint:
 * answers false, changing no stock, when one cannot be taken; the checkout's live reservations
 * of these lines are then released (the order is `pending` and holds nothing).
 */
export async function commitParcel(
  ctx: RequestContext,
  checkoutId: string | null,
  lines: ReserveLine[],
): Promise<boolean> {
  const sorted = [...lines].sort((a, b) => (a.productId < b.productId ? -1 : 1));
  if (checkoutId) {
    // The usual case in one statement: every line is held by a live reservation of the checkout
    // and the stock is there, and then all of them are committed; otherwise nothing is (the
    // products are locked by the caller, so nothing changes between the check and the writes).
    if (await commitHeldLines(ctx.db, checkoutId, sorted, ctx.now())) return true;
  }
  // Some line lost its reservation (it lapsed and was released): line by line, all or none.
  const committed = await commitLinesAllOrNone(ctx.db, checkoutId, sorted, ctx.now());
  if (!committed && checkoutId) {
    await releaseCheckout(
      ctx,
      checkoutId,
      lines.map((l) => l.productId),
    );
  }
  return committed;
}

/**
 * commitParcel for each parcel of a paid checkout (their products locked by the caller): in the
 * usual case, every line of every parcel held by a live reservation, in one statement; otherwise
 * (that statement changes nothing then) parcel by parcel. Answers, per parcel, whether its
 * units were taken.
 */
export async function commitParcels(
  ctx: RequestContext,
  checkoutId: string,
  parcels: ReserveLine[][],
): Promise<boolean[]> {
  if (parcels.length > 1) {
    const lines = parcels.flat().sort((a, b) => (a.productId < b.productId ? -1 : 1));
    if (await commitHeldLines(ctx.db, checkoutId, lines, ctx.now())) return parcels.map(() => true);
  }
  const committed: boolean[] = [];
  for (const lines of parcels) committed.push(await commitParcel(ctx, checkoutId, lines));
  return committed;
}

/** Puts units back in stock (a cancelled order whose units had left it). */
export async function restock(ctx: RequestContext, lines: ReserveLine[]): Promise<void> {
  for (const line of [...lines].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
    await ctx.db
      .update(products)
      .set({ stockQuantity: sql`${products.stockQuantity} + ${line.quantity}` })
      .where(eq(products.id, line.productId));
  }
}

/**
 * The expiry job's pass over reservations: releases the lapsed live reservations of up to
 * `limit` products (one statement each; a product another instance is releasing is skipped).
 * Answers how many products it released.
 */
export async function releaseLapsedReservations(ctx: RequestContext, limit: number): Promise<number> {
  const due = await ctx.db
    .selectDistinct({ productId: reservations.productId })
    .from(reservations)
    .where(
      and(
        isNull(reservations.releasedAt),
        isNull(reservations.committedAt),
        lte(reservations.expiresAt, ctx.now()),
      ),
    )
    .orderBy(reservations.productId)
    .limit(limit);
  for (const { productId } of due) await releaseLapsed(ctx, productId, true);
  return due.length;
}

/**
 * Deletes up to `limit` reservations released or committed more than a day ago: once ended, a
 * reservation is history nothing reads (orders keep their items), and the table would otherwise
 * grow with every checkout. Answers how many it deleted.
 */
export async function deleteEndedReservations(ctx: RequestContext, limit: number): Promise<number> {
  const before = new Date(ctx.now().getTime() - 86_400_000);
  return deleteReservationsEndedBefore(ctx.db, before, limit);
}

/** Locks product rows for the rest of the transaction, in id order (a paid checkout's products). */
export async function lockProducts(ctx: RequestContext, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await lockProductRows(ctx.db, [...new Set(productIds)].sort());
}
