// The shops module's reads and writes: a shop as its page shows it (the seller's profile with its
// page's logo and texts), and the seller's own writing of it.
import { and, eq } from 'drizzle-orm';
import type { ShopTexts } from '../../contract/shops.ts';
import type { Db } from '../../db/index.ts';
import { sellerProfiles, users } from '../auth/tables.ts';
import { shopPages } from './tables.ts';

const shopColumns = {
  sellerId: sellerProfiles.userId,
  slug: sellerProfiles.slug,
  name: sellerProfiles.shopName,
  province: sellerProfiles.province,
  rating: sellerProfiles.rating,
  reviewCount: sellerProfiles.reviewCount,
  logoUrl: shopPages.logoUrl,
  texts: shopPages.texts,
};

export type ShopRow = {
  sellerId: string;
  slug: string;
  name: string;
  province: string;
  rating: number;
  reviewCount: number;
  logoUrl: string | null;
  texts: ShopTexts | null;
};

/** The shop at `slug`, or of the seller `sellerId`. */
export async function shopRow(
  db: Db,
  by: { slug: string } | { sellerId: string },
): Promise<ShopRow | undefined> {
  const [row] = await db
    .select(shopColumns)
    .from(sellerProfiles)
    // A seller no more (demoted by an admin) keeps the profile, not the page.
    .innerJoin(users, and(eq(users.id, sellerProfiles.userId), eq(users.role, 'seller')))
    .leftJoin(shopPages, eq(shopPages.sellerId, sellerProfiles.userId))
    .where('slug' in by ? eq(sellerProfiles.slug, by.slug) : eq(sellerProfiles.userId, by.sellerId));
  return row;
}

/** Writes the seller's page (logo and texts), whole. */
export function saveShopPage(
  db: Db,
  sellerId: string,
  page: { logoUrl: string | null; texts: ShopTexts },
  now: Date,
) {
  return db
    .insert(shopPages)
    .values({ sellerId, logoUrl: page.logoUrl, texts: page.texts, updatedAt: now })
    .onConflictDoUpdate({
      target: shopPages.sellerId,
      set: { logoUrl: page.logoUrl, texts: page.texts, updatedAt: now },
    });
}
