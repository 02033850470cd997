// What other modules read of sellers. Accounts and shops are the auth module's tables; other
// modules ask here instead of reading them (docs/decisions.md "Principles").
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { isRecordId, type Province } from '../../contract/common.ts';
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

/** What an order email of a paid checkout needs of people: the buyer's address and name, and shop names. */
export interface MailNames {
  /** Null when the account is gone. */
  buyer: { email: string; name: string } | null;
  /** Seller id to its shop name (a seller without a shop: its account name). */
  shops: Record<string, string>;
}

/**
 * MailNames as a column of the caller's own read (a paid checkout's session, read anyway): the
 * buyer `buyerId` names and the sellers of the text array `sellerIds`, both qualified columns
 * or expressions of the caller's.
 */
export function mailNamesOf(buyerId: SQL, sellerIds: SQL): SQL<MailNames> {
  // Aliased and qualified: the query builder writes columns unqualified in a one-table select.
  return sql<MailNames>`json_build_object(
    'buyer', (select json_build_object('email', u.email, 'name', u.name) from ${users} u where u.id = ${buyerId}),
    'shops', (select coalesce(json_object_agg(u.id, coalesce(sp.shop_name, u.name)), '{}'::json)
      from ${users} u left join ${sellerProfiles} sp on sp.user_id = u.id where u.id = any(${sellerIds})))`;
}
