// Availability and stock, per variant (what is sold): how many units can be bought now, and the
// only writes of stock that checkout and orders make: reserve, release, commit, restock
// (docs/api.md "Cart and coupons", "Stock holds").
//
// A live reservation (neither released nor committed) is counted in
// product_variants.reserved_quantity, changed in the same statement as the reservation row. A
// reservation is one conditional update of the variant row (`stock - reserved >= wanted`): the row lock makes racing checkouts queue
// and re-check against the latest row, so no two can take the same unit. Availability is
// stock less the live reservations that have not expired (a lapsed one counts as free even
// before the expiry job releases it).
import { and, eq, isNull, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { inventoryAnswer } from '../../contract/cart.ts';
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, t } from '../../contract/i18n.ts';
import { productVariants } from '../catalog/tables.ts';
import { variantTitle } from '../catalog/variants.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import {
  activeVariantUnits,
  claimUnits,
  claimUnitsInTurn,
  commitHeldLines,
  commitLinesAllOrNone,
  deleteReservationsEndedBefore,
  lockVariantRows,
  lockVariantUnlessHeld,
  releaseCheckoutVariant,
  releaseLapsedOfVariant,
} from './queries.ts';
import { reservations } from './tables.ts';

/** A variant on sale with the units of it free now, and the name it is sold under. */
export interface VariantUnits {
  id: string;
  productId: string;
  title: string;
  units: number;
}

const nameOf = (title: string, optionValues: string[]) =>
  optionValues.length ? `${title}, ${variantTitle(optionValues)}` : title;

/**
 * Units of variants on sale (they and their product active) that can be bought now: stock less
 * the units held by open checkouts. Unknown, malformed or not active ones are left out. Inside a
 * transaction it reads what that transaction sees.
 */
export async function availableUnitsOf(ctx: RequestContext, variantIds: string[]): Promise<VariantUnits[]> {
  const rows = await activeVariantUnits(ctx.db, variantIds, ctx.now());
  return rows.map((r) => ({
    id: r.id,
    productId: r.productId,
    title: nameOf(r.title, r.optionValues),
    units: r.units,
  }));
}

/** One variant's units (availableUnitsOf); undefined when it is not on sale. */
export async function availableUnits(
  ctx: RequestContext,
  variantId: string,
): Promise<VariantUnits | undefined> {
  return (await availableUnitsOf(ctx, [variantId]))[0];
}

/**
 * check_inventory: whether `quantity` units of the variant can be bought now (the catalog
 * resolved which one the caller named); 404 for a variant not on sale.
 */
export async function checkInventory(
  ctx: RequestContext,
  target: { productId: string; variantId: string; askedFor: string },
  quantity: number,
): Promise<z.infer<typeof inventoryAnswer>> {
  const found = await availableUnits(ctx, target.variantId);
  if (!found) throw notFound('error.catalog.productNotFound', { id: target.askedFor });
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
    product_id: target.productId,
    variant_id: found.id,
    available,
    stock_quantity: found.units,
    requested_quantity: quantity,
    message,
  };
}

export interface ReserveLine {
  variantId: string;
  quantity: number;
}

/** Lines in the order every writer locks variants in: by id. */
const byVariant = <T extends { variantId: string }>(lines: T[]) =>
  [...lines].sort((a, b) => (a.variantId < b.variantId ? -1 : a.variantId > b.variantId ? 1 : 0));

/**
 * Holds `quantity` units of each line for the checkout until `expiresAt`: one statement per
 * variant (the conditional update of its row, and the reservation row written from its result),
 * in variant id order so that two checkouts never wait on each other in a cycle. Answers the
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
  const sorted = byVariant(lines);
  // In variant id order (the order every writer locks variants in), each only after those before it.
  const held = await claimUnitsInTurn(ctx.db, hold, sorted);
  const first = held.indexOf(false);
  if (first < 0) return [];
  const refused: Array<ReserveLine & { left: number }> = [];
  const unitsLeft = async (line: ReserveLine) => (await availableUnits(ctx, line.variantId))?.units ?? 0;
  for (const [n, line] of sorted.slice(first).entries()) {
    if (refused.length > 0) {
      const left = await unitsLeft(line);
      if (left < line.quantity) refused.push({ ...line, left });
      continue;
    }
    // The first was refused above; the ones after it were not tried yet.
    if (n > 0 && (await claim(line))) continue;
    await releaseLapsed(ctx, line.variantId);
    if (!(await claim(line))) refused.push({ ...line, left: await unitsLeft(line) });
  }
  return refused;
}

/**
 * Gives back the live reservations of a variant that have expired (one statement: the rows are
 * marked and the variant's count lowered together). The expiry job does it for every variant;
 * a checkout does it for its own variants first, so a lapsed hold never refuses it.
 */
async function releaseLapsed(ctx: RequestContext, variantId: string, skipLocked = false) {
  await inTransaction(ctx, async (tx) => {
    // The variant row first, then its reservations: the order every writer takes them in. The
    // job skips a variant someone else holds (it comes back on a later pass).
    if (skipLocked) {
      if (!(await lockVariantUnlessHeld(tx.db, variantId))) return;
    } else {
      await lockVariants(tx, [variantId]);
    }
    await releaseLapsedOfVariant(tx.db, variantId, ctx.now());
  });
}

/**
 * Gives back the live reservations of a checkout (expired, superseded, its provider failed), or
 * only those of some variants: the rows are marked and the variants' counts lowered in one
 * statement. Answers how many were released.
 */
export async function releaseCheckout(
  ctx: RequestContext,
  checkoutId: string,
  variantIds?: string[],
): Promise<number> {
  const live = await ctx.db
    .select({ variantId: reservations.variantId })
    .from(reservations)
    .where(
      and(
        eq(reservations.checkoutId, checkoutId),
        isNull(reservations.releasedAt),
        isNull(reservations.committedAt),
      ),
    );
  const ids = live
    .map((r) => r.variantId)
    .filter((id) => !variantIds || variantIds.includes(id))
    .sort();
  let released = 0;
  // One variant at a time, in id order: variant rows are always locked in that order.
  for (const variantId of ids) {
    await lockVariants(ctx, [variantId]);
    if (await releaseCheckoutVariant(ctx.db, checkoutId, variantId, ctx.now())) released++;
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
  const sorted = byVariant(lines);
  if (checkoutId) {
    // The usual case in one statement: every line is held by a live reservation of the checkout
    // and the stock is there, and then all of them are committed; otherwise nothing is (the
    // variants are locked by the caller, so nothing changes between the check and the writes).
    if (await commitHeldLines(ctx.db, checkoutId, sorted, ctx.now())) return true;
  }
  // Some line lost its reservation (it lapsed and was released): line by line, all or none.
  const committed = await commitLinesAllOrNone(ctx.db, checkoutId, sorted, ctx.now());
  if (!committed && checkoutId) {
    await releaseCheckout(
      ctx,
      checkoutId,
      lines.map((l) => l.variantId),
    );
  }
  return committed;
}

/**
 * commitParcel for each parcel of a paid checkout (their variants locked by the caller): in the
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
    const lines = byVariant(parcels.flat());
    if (await commitHeldLines(ctx.db, checkoutId, lines, ctx.now())) return parcels.map(() => true);
  }
  const committed: boolean[] = [];
  for (const lines of parcels) committed.push(await commitParcel(ctx, checkoutId, lines));
  return committed;
}

/** Puts units back in stock (a cancelled order whose units had left it). */
export async function restock(ctx: RequestContext, lines: ReserveLine[]): Promise<void> {
  for (const line of byVariant(lines)) {
    await ctx.db
      .update(productVariants)
      .set({ stockQuantity: sql`${productVariants.stockQuantity} + ${line.quantity}` })
      .where(eq(productVariants.id, line.variantId));
  }
}

/**
 * The expiry job's pass over reservations: releases the lapsed live reservations of up to
 * `limit` variants (one statement each; a variant another instance is releasing is skipped).
 * Answers how many variants it released.
 */
export async function releaseLapsedReservations(ctx: RequestContext, limit: number): Promise<number> {
  const due = await ctx.db
    .selectDistinct({ variantId: reservations.variantId })
    .from(reservations)
    .where(
      and(
        isNull(reservations.releasedAt),
        isNull(reservations.committedAt),
        lte(reservations.expiresAt, ctx.now()),
      ),
    )
    .orderBy(reservations.variantId)
    .limit(limit);
  for (const { variantId } of due) await releaseLapsed(ctx, variantId, true);
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

/** Locks variant rows for the rest of the transaction, in id order (a paid checkout's variants). */
export async function lockVariants(ctx: RequestContext, variantIds: string[]): Promise<void> {
  if (variantIds.length === 0) return;
  await lockVariantRows(ctx.db, [...new Set(variantIds)].sort());
}
