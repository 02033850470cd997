// What other modules read of sellers. Accounts and shops are the auth module's tables; other
// modules ask here instead of reading them (../shared/design/architecture.md, "Layout").
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { isRecordId, type Province } from '../../contract/common.ts';
import { prepared } from '../../db/prepared.ts';
import type { RequestContext } from '../context.ts';
import { sellerProfiles, users } from './tables.ts';

/** Whether the user is a seller with a shop (who can own products). */
export async function isSeller(ctx: RequestContext, userId: string): Promise<boolean> {
  if (!isRecordId('users', userId)) return false;
  const rows = await ctx.db
    .select({ id: users.id })
    .from(users)
    .innerJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(and(eq(users.id, userId), eq(users.role, 'seller')));
  return rows.length > 0;
}

/**
 * The province the seller `sellerId` names ships from, as a column of the caller's own read
 * (null for a seller without a shop, made outside the API): no second statement. `sellerId` is
 * a qualified column of the caller's (sql`p.seller_id`).
 */
export function shipFromProvinceOf(sellerId: SQL): SQL<Province | null> {
  // Aliased and qualified: the query builder writes columns unqualified in a one-table select.
  return sql<Province | null>`(select sp.province from ${sellerProfiles} sp where sp.user_id = ${sellerId})`;
}

/** The shop name of each seller (for order emails); a seller without a shop gets its account name. */
export async function shopNames(ctx: RequestContext, sellerIds: string[]): Promise<Map<string, string>> {
  if (sellerIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: users.id, name: users.name, shopName: sellerProfiles.shopName })
    .from(users)
    .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(inArray(users.id, [...new Set(sellerIds)]));
  return new Map(rows.map((r) => [r.id, r.shopName ?? r.name]));
}

const buyerAndShopsStatement = prepared('auth_buyer_and_shops', (db, name) =>
  db
    .select({ id: users.id, email: users.email, name: users.name, shopName: sellerProfiles.shopName })
    .from(users)
    .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(sql`${users.id} = any(${sql.placeholder('ids')}::text[])`)
    .prepare(name),
);

/**
 * A buyer's address and name and the shop names of sellers, in one read (an order email of a
 * paid checkout): the buyer is undefined if the account is gone.
 */
export async function buyerAndShopNames(
  ctx: RequestContext,
  buyerId: string,
  sellerIds: string[],
): Promise<{ buyer: { email: string; name: string } | undefined; shops: Map<string, string> }> {
  const rows = await buyerAndShopsStatement(ctx.db, { ids: [...new Set([buyerId, ...sellerIds])] });
  const buyer = rows.find((r) => r.id === buyerId);
  return {
    buyer: buyer ? { email: buyer.email, name: buyer.name } : undefined,
    shops: new Map(rows.filter((r) => sellerIds.includes(r.id)).map((r) => [r.id, r.shopName ?? r.name])),
  };
}
