// The shops module's reads and writes: a shop as its page shows it (the seller's profile with its
// page's logo and texts), and the seller's own writing of it.
import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { ShopTexts } from '../../contract/shops.ts';
import type { Db } from '../../db/index.ts';
import { type ShopStatus, sellerProfiles, users } from '../auth/tables.ts';
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
  status: sellerProfiles.status,
  reason: sellerProfiles.statusReason,
  accountSuspended: sql<boolean>`${users.suspendedAt} is not null`,
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
  status: ShopStatus;
  reason: string | null;
  /** The seller's account is suspended: nothing of the shop is on sale, whatever its state. */
  accountSuspended: boolean;
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

// ---- a shop's state (docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)") ----

const stateColumns = {
  sellerId: sellerProfiles.userId,
  shopName: sellerProfiles.shopName,
  slug: sellerProfiles.slug,
  province: sellerProfiles.province,
  status: sellerProfiles.status,
  reason: sellerProfiles.statusReason,
  suspendedAt: sellerProfiles.suspendedAt,
  createdAt: sellerProfiles.createdAt,
  email: users.email,
  name: users.name,
  locale: users.locale,
  accountSuspendedAt: users.suspendedAt,
};

export type ShopStateRow = {
  sellerId: string;
  shopName: string;
  slug: string;
  province: string;
  status: ShopStatus;
  reason: string | null;
  suspendedAt: Date | null;
  createdAt: Date;
  email: string;
  name: string;
  locale: string | null;
  accountSuspendedAt: Date | null;
};

/** The seller's shop and its state (null: no shop); `lock` holds the row for the caller's transaction. */
export async function shopStateRow(
  db: Db,
  sellerId: string,
  lock = false,
): Promise<ShopStateRow | undefined> {
  const q = db
    .select(stateColumns)
    .from(sellerProfiles)
    .innerJoin(users, eq(users.id, sellerProfiles.userId))
    .where(eq(sellerProfiles.userId, sellerId));
  const [row] = lock ? await q.for('update', { of: sellerProfiles }) : await q;
  return row;
}

/** Writes the shop's state, its reason and when it was suspended, as the check constraint wants them. */
export async function writeShopState(
  db: Db,
  sellerId: string,
  state: { status: ShopStatus; reason: string | null; suspendedAt: Date | null },
): Promise<void> {
  await db
    .update(sellerProfiles)
    .set({ status: state.status, statusReason: state.reason, suspendedAt: state.suspendedAt })
    .where(eq(sellerProfiles.userId, sellerId));
}

/**
 * A page of the shops in a state: pending ones oldest first (the approval queue), suspended ones
 * newest suspension first; and how many there are. Through the partial index of shops not active.
 */
export async function shopsInState(
  db: Db,
  status: Exclude<ShopStatus, 'active'>,
  page: { limit: number; offset: number },
): Promise<{ rows: ShopStateRow[]; total: number }> {
  const where = eq(sellerProfiles.status, status);
  const [rows, [counted]] = await Promise.all([
    db
      .select(stateColumns)
      .from(sellerProfiles)
      .innerJoin(users, eq(users.id, sellerProfiles.userId))
      .where(where)
      .orderBy(
        ...(status === 'pending'
          ? [asc(sellerProfiles.createdAt), asc(sellerProfiles.userId)]
          : [desc(sellerProfiles.suspendedAt), asc(sellerProfiles.userId)]),
      )
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(sellerProfiles).where(where),
  ]);
  return { rows, total: counted?.n ?? 0 };
}
