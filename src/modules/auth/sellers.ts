// What other modules read of sellers. Accounts and shops are the auth module's tables; other
// modules ask here instead of reading them (docs/decisions.md "Principles").
import { and, eq, inArray } from 'drizzle-orm';
import { isRecordId } from '../../contract/common.ts';
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

/**
 * What an order email of a paid checkout needs of people: the buyer's address and name, and shop
 * names. Other modules read it inside one of their statements through the database function
 * portage_mail_names (src/db/functions).
 */
export interface MailNames {
  /** Null when the account is gone. */
  buyer: { email: string; name: string } | null;
  /** Seller id to its shop name (a seller without a shop: its account name). */
  shops: Record<string, string>;
}
