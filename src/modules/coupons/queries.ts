// The coupon statements every checkout and payment with a coupon runs, named (parsed once per
// connection); the redemption's insert goes out with the transaction's next statement.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { insertInto, query, statement } from '../../db/sql.ts';
import { couponRedemptions, coupons } from './tables.ts';

const ph = sql.placeholder;

const usesStatement = statement<{ total: number; mine: number }>(
  'coupons_uses',
  sql`select count(*)::int as total, (count(*) filter (where ${couponRedemptions.userId} = ${ph('userId')}))::int as mine
    from ${couponRedemptions} where ${couponRedemptions.code} = ${ph('code')}`,
);

/** A coupon's redemptions: in all, and by this buyer. */
export async function usesOfCoupon(db: Db, code: string, userId: string) {
  const [row] = await usesStatement(db, { code, userId });
  return { total: row?.total ?? 0, mine: row?.mine ?? 0 };
}

const lockedStatement = query('coupons_locked', (db, name) =>
  db
    .select()
    .from(coupons)
    .where(eq(coupons.code, ph('code')))
    .for('no key update')
    .prepare(name),
);

/** The coupon of this code (upper case), its row locked `for no key update` until the transaction ends. */
export async function lockCouponRow(db: Db, code: string): Promise<typeof coupons.$inferSelect | undefined> {
  const [row] = await lockedStatement(db, { code });
  return row;
}

const insertRedemption = insertInto('coupon_redemptions_insert', couponRedemptions, {
  onConflictDoNothing: [couponRedemptions.orderId],
});

/** Writes a redemption (once per order), with the transaction's next statement. */
export const insertRedemptionRow = (db: Db, row: typeof couponRedemptions.$inferInsert) =>
  insertRedemption.later(db, [row]);

/** Takes the seller's user row lock: a shop's coupons are counted and made one at a time. */
export async function lockSellerForCoupons(db: Db, sellerId: string): Promise<void> {
  await db.execute(sql`select 1 from users where id = ${sellerId} for no key update`);
}

/** How many coupons the seller has made. */
export async function couponsOfSeller(db: Db, sellerId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(coupons)
    .where(eq(coupons.sellerId, sellerId));
  return row?.n ?? 0;
}
