// Coupons: created by admins; checked whenever a cart is priced. A redemption is counted
// when an order is paid, not when the code is applied (../shared/design/decisions.md, "Cart,
// coupons, stock").
import { and, count, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { coupon, createCouponBody } from '../../contract/cart.ts';
import { toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { insertRows } from '../../db/prepared.ts';
import { caller, type RequestContext } from '../context.ts';
import type { DiscountTerms } from '../pricing/index.ts';
import { couponRedemptions, coupons } from './tables.ts';

type CouponRow = typeof coupons.$inferSelect;

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** Today's date (YYYY-MM-DD) in America/Toronto: coupons expire at the end of their last day there. */
export function torontoDate(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Toronto',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

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
    createdAt: toUnix(row.createdAt),
  };
}

export async function createCoupon(ctx: RequestContext, input: z.infer<typeof createCouponBody>) {
  const [row] = await ctx.db
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
      createdBy: caller(ctx).id,
    })
    .onConflictDoNothing({ target: coupons.code })
    .returning();
  if (!row) throw conflict(`A coupon with the code ${input.code} already exists`);
  return toCoupon(row, 0);
}

export async function findCoupon(ctx: RequestContext, code: string): Promise<CouponRow | undefined> {
  const [row] = await ctx.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()));
  return row;
}

export interface CouponCheck {
  coupon: CouponRow;
  /** The terms to price with (the quote computes and splits the amount), or null with a problem. */
  discount: DiscountTerms | null;
  /** Why the coupon gives nothing now (CONFLICT when applying), or null. */
  problem: string | null;
}

/** A coupon's discount as the pricing quote takes it. */
function discountTerms(row: CouponRow): DiscountTerms {
  return row.discountPercent !== null
    ? { percent: row.discountPercent }
    : { amountCents: row.discountCents! };
}

/**
 * Whether a coupon applies to a subtotal for this buyer today, or why it cannot: expired,
 * used up (in total or by this buyer), or the minimum subtotal not met. What it takes off
 * is the quote's to say (pricing's `discountFor`: never more than the subtotal).
 */
export async function checkCoupon(
  ctx: RequestContext,
  row: CouponRow,
  userId: string,
  subtotalCents: number,
  /** Uses held by open checkouts (not yet paid), counted like redemptions at checkout. */
  held: { total: number; mine: number } = { total: 0, mine: 0 },
): Promise<CouponCheck> {
  const [[total], [mine]] = await Promise.all([
    ctx.db.select({ n: count() }).from(couponRedemptions).where(eq(couponRedemptions.code, row.code)),
    ctx.db
      .select({ n: count() })
      .from(couponRedemptions)
      .where(and(eq(couponRedemptions.code, row.code), eq(couponRedemptions.userId, userId))),
  ]);
  let problem: string | null = null;
  if (row.expiresOn && row.expiresOn < torontoDate(ctx.now())) {
    problem = `Coupon ${row.code} expired on ${row.expiresOn}`;
  } else if (row.maxRedemptions !== null && (total?.n ?? 0) + held.total >= row.maxRedemptions) {
    problem = `Coupon ${row.code} has been used up (${row.maxRedemptions} redemptions)`;
  } else if (
    row.maxRedemptionsPerCustomer !== null &&
    (mine?.n ?? 0) + held.mine >= row.maxRedemptionsPerCustomer
  ) {
    problem = `You have already used coupon ${row.code} ${(mine?.n ?? 0) + held.mine} time(s), its limit per customer`;
  } else if (subtotalCents < row.minSubtotalCents) {
    problem =
      `Coupon ${row.code} needs a subtotal of at least ${dollars(row.minSubtotalCents)}; ` +
      `the cart's is ${dollars(subtotalCents)}`;
  }
  return { coupon: row, discount: problem ? null : discountTerms(row), problem };
}

/** A coupon by its code (any case), or 404. */
export async function requireCoupon(ctx: RequestContext, code: string): Promise<CouponRow> {
  const row = await findCoupon(ctx, code);
  if (!row) throw notFound(`No coupon with the code ${code.toUpperCase()}`);
  return row;
}

/**
 * Locks a coupon's row for the rest of the transaction, so that checkouts using it count its
 * uses one at a time (a limited coupon is never promised to more checkouts than it has uses).
 * `no key update`: the redemptions written by payments (which reference the row) do not wait.
 */
export async function lockCoupon(ctx: RequestContext, code: string): Promise<void> {
  await ctx.db
    .select({ code: coupons.code })
    .from(coupons)
    .where(eq(coupons.code, code))
    .for('no key update');
}

const insertRedemption = insertRows('coupon_redemptions_insert', couponRedemptions, {
  onConflictDoNothing: [couponRedemptions.orderId],
});

/** Counts a paid checkout's use of its coupon (once: keyed by the first order's id). */
export async function redeemCoupon(ctx: RequestContext, code: string, userId: string, orderId: string) {
  await insertRedemption.later(ctx.db, [{ code, userId, orderId, createdAt: ctx.now() }]);
}
