// Coupons: the platform's (made by admins, on every item, paid by the platform) and a shop's
// (made by its seller, on its items only, paid by the seller); checked whenever a cart is
// priced. A redemption is counted when an order is paid, not when the code is applied
// (docs/api.md "Cart and coupons", "Discounts").
import { desc, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { coupon, createCouponBody, shopDiscount, shopDiscountBody } from '../../contract/cart.ts';
import { toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, formatDate, formatMoney, type Locale, type Text, text } from '../../contract/i18n.ts';
import { recordAdminAction } from '../audit/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { torontoDate } from '../pricing/dates.ts';
import type { DiscountTerms } from '../pricing/index.ts';
import {
  couponsOfSeller,
  insertRedemptionRow,
  lockCouponRow,
  lockSellerForCoupons,
  usesOfCoupon,
} from './queries.ts';
import { couponRedemptions, coupons, shopDiscounts } from './tables.ts';

type CouponRow = typeof coupons.$inferSelect;

/** An amount in a coupon's problem: English keeps its "$1000.00" (no grouping); French "1 000,00 $". */
const amount = (locale: Locale, cents: number) =>
  locale === BASE_LOCALE ? `$${(cents / 100).toFixed(2)}` : formatMoney(locale, cents);
/** A date in a coupon's problem: English keeps YYYY-MM-DD; French "24 novembre 2026". */
const day = (locale: Locale, date: string) => (locale === BASE_LOCALE ? date : formatDate(locale, date));

function toCoupon(row: CouponRow, redemptions: number): z.infer<typeof coupon> {
  return {
    code: row.code,
    discountPercent: row.discountPercent,
    discountCents: row.discountCents,
    minSubtotalCents: row.minSubtotalCents,
    expirationDate: row.expiresOn,
    maxRedemptions: row.maxRedemptions,
    maxRedemptionsPerCustomer: row.maxRedemptionsPerCustomer,
    redemptions,
    terms: row.terms,
    sellerId: row.sellerId,
    createdAt: toUnix(row.createdAt),
  };
}

/** Most coupons a shop may have made (they are never deleted: an expired one stays on its orders). */
export const MAX_SHOP_COUPONS = 200;

/**
 * An admin's coupon (the platform's); with `sellerId`, that seller's own (at most
 * MAX_SHOP_COUPONS, counted under the seller's row lock so two at once cannot pass it).
 */
export async function createCoupon(
  ctx: RequestContext,
  input: z.infer<typeof createCouponBody>,
  sellerId: string | null = null,
) {
  const row = await inTransaction(ctx, async (tx) => {
    if (sellerId) {
      await lockSellerForCoupons(tx.db, sellerId);
      if ((await couponsOfSeller(tx.db, sellerId)) >= MAX_SHOP_COUPONS)
        throw conflict('error.coupon.shopLimit', { n: MAX_SHOP_COUPONS });
    }
    const [made] = await tx.db
      .insert(coupons)
      .values({
        code: input.code,
        discountPercent: input.discountPercent ?? null,
        discountCents: input.discountCents ?? null,
        minSubtotalCents: input.minSubtotalCents,
        expiresOn: input.expirationDate ?? null,
        maxRedemptions: input.maxRedemptions ?? null,
        maxRedemptionsPerCustomer: input.maxRedemptionsPerCustomer ?? null,
        terms: input.terms,
        sellerId,
        createdBy: caller(ctx).id,
      })
      .onConflictDoNothing({ target: coupons.code })
      .returning();
    if (made && !sellerId)
      await recordAdminAction(tx, { action: 'coupon.create', subject: made.code, after: { ...made } });
    return made;
  });
  if (!row) throw conflict('error.coupon.codeTaken', { code: input.code });
  return toCoupon(row, 0);
}

/**
 * The newest coupons (at most `limit`), each with its redemptions so far: the platform's (the
 * admin's desk lists them), or with `sellerId` that shop's.
 */
export async function listCoupons(ctx: RequestContext, limit = 50, sellerId: string | null = null) {
  const used = ctx.db
    .select({ code: couponRedemptions.code, n: sql<number>`count(*)::int`.as('n') })
    .from(couponRedemptions)
    .groupBy(couponRedemptions.code)
    .as('used');
  const rows = await ctx.db
    .select({ row: coupons, n: used.n })
    .from(coupons)
    .leftJoin(used, eq(used.code, coupons.code))
    .where(sellerId ? eq(coupons.sellerId, sellerId) : isNull(coupons.sellerId))
    .orderBy(desc(coupons.createdAt), desc(coupons.code))
    .limit(limit);
  return rows.map((r) => toCoupon(r.row, r.n ?? 0));
}

export async function findCoupon(ctx: RequestContext, code: string): Promise<CouponRow | undefined> {
  const [row] = await ctx.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()));
  return row;
}

export interface CouponCheck {
  coupon: CouponRow;
  /** The terms to price with (the quote computes and splits the amount), or null with a problem. */
  discount: DiscountTerms | null;
  /**
   * Why the coupon gives nothing now (CONFLICT when applying), or null: not yet put into words,
   * its amounts and dates written for the request's locale.
   */
  reason: Text | null;
}

/** A coupon's discount as the pricing quote takes it. */
function discountTerms(row: CouponRow): DiscountTerms {
  return row.discountPercent !== null
    ? { percent: row.discountPercent, sellerId: row.sellerId }
    : { amountCents: row.discountCents!, sellerId: row.sellerId };
}

/** The items a coupon is checked against: each line's seller, unit price and quantity. */
export type CouponItems = ReadonlyArray<{ sellerId: string; priceCents: number; quantity: number }>;

/** What a coupon's minimum is measured on: every item for the platform's, its shop's items for a shop's. */
function couponBase(row: CouponRow, items: CouponItems): number {
  return items
    .filter((i) => row.sellerId === null || i.sellerId === row.sellerId)
    .reduce((n, i) => n + i.priceCents * i.quantity, 0);
}

/**
 * Whether a coupon applies to these items for this buyer today, or why it cannot: expired,
 * used up (in total or by this buyer), a shop's coupon without that shop's items, or the
 * minimum not met. What it takes off is the quote's to say (pricing's `quote`).
 */
export async function checkCoupon(
  ctx: RequestContext,
  row: CouponRow,
  userId: string,
  items: CouponItems,
): Promise<CouponCheck> {
  return couponProblem(ctx, row, await couponUses(ctx, row.code, userId), items);
}

/** A coupon's redemptions: in all, and by this buyer. */
export interface CouponUses {
  total: number;
  mine: number;
}

/** Counts a coupon's redemptions (prepared, one statement: every checkout with a coupon asks). */
export async function couponUses(ctx: RequestContext, code: string, userId: string): Promise<CouponUses> {
  return usesOfCoupon(ctx.db, code, userId);
}

/**
 * Whether a coupon applies to these items for this buyer today, given its uses (redeemed, and
 * `held` by open checkouts, counted like redemptions at checkout), or why it cannot.
 */
export function couponProblem(
  ctx: RequestContext,
  row: CouponRow,
  used: CouponUses,
  items: CouponItems,
  held: CouponUses = { total: 0, mine: 0 },
): CouponCheck {
  const locale = ctx.locale ?? BASE_LOCALE;
  const code = row.code;
  const subtotalCents = couponBase(row, items);
  let reason: Text | null = null;
  if (row.expiresOn && row.expiresOn < torontoDate(ctx.now())) {
    reason = text('error.coupon.expired', { code, date: day(locale, row.expiresOn) });
  } else if (row.maxRedemptions !== null && used.total + held.total >= row.maxRedemptions) {
    reason = text('error.coupon.usedUp', { code, n: row.maxRedemptions, shown: String(row.maxRedemptions) });
  } else if (
    row.maxRedemptionsPerCustomer !== null &&
    used.mine + held.mine >= row.maxRedemptionsPerCustomer
  ) {
    reason = text('error.coupon.perCustomerLimit', { code, times: String(used.mine + held.mine) });
  } else if (row.sellerId !== null && !items.some((i) => i.sellerId === row.sellerId)) {
    reason = text('error.coupon.otherShop', { code });
  } else if (subtotalCents < row.minSubtotalCents) {
    reason = text('error.coupon.minimumSubtotal', {
      code,
      min: amount(locale, row.minSubtotalCents),
      subtotal: amount(locale, subtotalCents),
    });
  }
  return {
    coupon: row,
    discount: reason ? null : discountTerms(row),
    reason,
  };
}

/** The 404 for a code no coupon has (applying it, or naming it at checkout). */
export const noSuchCoupon = (code: string) => notFound('error.coupon.notFound', { code: code.toUpperCase() });

/** A coupon by its code (any case), or 404. */
export async function requireCoupon(ctx: RequestContext, code: string): Promise<CouponRow> {
  const row = await findCoupon(ctx, code);
  if (!row) throw noSuchCoupon(code);
  return row;
}

/**
 * A coupon by its code (upper case), its row locked for the rest of the transaction, so that
 * checkouts using it count its uses one at a time (a limited coupon is never promised to more
 * checkouts than it has uses). `no key update`: the redemptions written by payments (which
 * reference the row) do not wait. Prepared; statements the caller issues in the same tick run
 * after it, so the uses they count are those the lock holder sees (db/batching-client.ts).
 */
export async function lockedCoupon(ctx: RequestContext, code: string): Promise<CouponRow | undefined> {
  return lockCouponRow(ctx.db, code);
}

/**
 * Whether one more redemption of `code` by `userId` would pass either of its limits, counted
 * under the coupon's lock (taken here, before the payment locks its products: the order
 * checkout takes them in), so two payments never both take the last use.
 */
export async function couponLimitReached(
  ctx: RequestContext,
  code: string,
  userId: string,
): Promise<boolean> {
  const row = await lockedCoupon(ctx, code);
  if (!row || (row.maxRedemptions === null && row.maxRedemptionsPerCustomer === null)) return false;
  const used = await couponUses(ctx, code, userId);
  return (
    (row.maxRedemptions !== null && used.total >= row.maxRedemptions) ||
    (row.maxRedemptionsPerCustomer !== null && used.mine >= row.maxRedemptionsPerCustomer)
  );
}

/** Counts a paid checkout's use of its coupon (once: keyed by the first order's id). */
export async function redeemCoupon(ctx: RequestContext, code: string, userId: string, orderId: string) {
  await insertRedemptionRow(ctx.db, { code, userId, orderId, createdAt: ctx.now() });
}

// ---- a shop's automatic discount ------------------------------------------------------------

type ShopDiscountRow = typeof shopDiscounts.$inferSelect;

const toShopDiscount = (row: ShopDiscountRow): z.infer<typeof shopDiscount> => ({
  percent: row.percent,
  minSubtotalCents: row.minSubtotalCents,
  startsOn: row.startsOn,
  endsOn: row.endsOn,
  updatedAt: toUnix(row.updatedAt),
});

/** The seller's automatic discount, or null. */
export async function getShopDiscount(ctx: RequestContext, sellerId: string) {
  const [row] = await ctx.db.select().from(shopDiscounts).where(eq(shopDiscounts.sellerId, sellerId));
  return row ? toShopDiscount(row) : null;
}

/** Sets (or replaces) the seller's automatic discount: checkouts priced from now on take it. */
export async function setShopDiscount(
  ctx: RequestContext,
  sellerId: string,
  input: z.output<typeof shopDiscountBody>,
) {
  const values = { ...input, updatedAt: ctx.now() };
  const [row] = await ctx.db
    .insert(shopDiscounts)
    .values({ sellerId, ...values })
    .onConflictDoUpdate({ target: shopDiscounts.sellerId, set: values })
    .returning();
  return toShopDiscount(row!);
}

/** Ends the seller's automatic discount (checkouts already priced keep theirs); whether there was one. */
export async function removeShopDiscount(ctx: RequestContext, sellerId: string): Promise<boolean> {
  const gone = await ctx.db
    .delete(shopDiscounts)
    .where(eq(shopDiscounts.sellerId, sellerId))
    .returning({ sellerId: shopDiscounts.sellerId });
  return gone.length > 0;
}
