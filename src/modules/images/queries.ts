// The images table's statements.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { products, productVariants } from '../catalog/tables.ts';
import { imageBlobs, images, productImages } from './tables.ts';

/** Stores an image unless one of its name is there (a name is its content). */
export async function insertImageUnlessThere(
  db: Db,
  image: { name: string; contentType: string; body: string },
): Promise<void> {
  await db.execute(sql`insert into images (name, content_type, body)
      values (${image.name}, ${image.contentType}, ${image.body}) on conflict do nothing`);
}

/** The image of this name. */
export async function imageNamed(db: Db, name: string) {
  const [row] = await db.select().from(images).where(eq(images.name, name));
  return row;
}

/** Stores a file of the database's image store unless one of its name is there. */
export async function insertBlobUnlessThere(
  db: Db,
  blob: { name: string; contentType: string; body: Buffer },
): Promise<void> {
  await db.insert(imageBlobs).values(blob).onConflictDoNothing();
}

export async function blobNamed(db: Db, name: string) {
  const [row] = await db
    .select({ contentType: imageBlobs.contentType, body: imageBlobs.body })
    .from(imageBlobs)
    .where(eq(imageBlobs.name, name));
  return row ? { contentType: row.contentType, body: Buffer.from(row.body) } : undefined;
}

export async function blobExists(db: Db, name: string): Promise<boolean> {
  const rows = await db.select({ name: imageBlobs.name }).from(imageBlobs).where(eq(imageBlobs.name, name));
  return rows.length > 0;
}

type ProductImageRow = typeof productImages.$inferSelect;

/** The product's row locked for this transaction: gallery changes of one product run one at a time. */
export async function lockProductImages(db: Db, productId: string) {
  const [row] = await db
    .select({ id: products.id, status: products.status, imageUrls: products.imageUrls })
    .from(products)
    .where(eq(products.id, productId))
    .for('update');
  return row;
}

/**
 * The product's gallery, first image first. An image whose variant was deleted answers no variant:
 * it shows the product, as the variant's rows stay for its orders.
 */
export async function galleryRows(db: Db, productId: string): Promise<ProductImageRow[]> {
  const rows = await db
    .select({ image: productImages, variantStatus: productVariants.status })
    .from(productImages)
    .leftJoin(productVariants, eq(productVariants.id, productImages.variantId))
    .where(eq(productImages.productId, productId))
    .orderBy(asc(productImages.position), asc(productImages.createdAt));
  return rows.map((r) => (r.variantStatus === 'deleted' ? { ...r.image, variantId: null } : r.image));
}

/** Whether `variantId` is a variant of `productId` that is not deleted: one an image may show. */
export async function isLiveVariantOf(db: Db, productId: string, variantId: string): Promise<boolean> {
  const rows = await db
    .select({ id: productVariants.id })
    .from(productVariants)
    .where(
      and(
        eq(productVariants.id, variantId),
        eq(productVariants.productId, productId),
        ne(productVariants.status, 'deleted'),
      ),
    );
  return rows.length > 0;
}

export async function insertProductImage(db: Db, row: typeof productImages.$inferInsert) {
  await db.insert(productImages).values(row);
}

export async function updateProductImage(
  db: Db,
  id: string,
  change: Partial<Pick<ProductImageRow, 'altEn' | 'altFr' | 'variantId' | 'position'>>,
) {
  const set = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) return;
  await db.update(productImages).set(set).where(eq(productImages.id, id));
}

export async function deleteProductImage(db: Db, id: string) {
  await db.delete(productImages).where(eq(productImages.id, id));
}

export async function setProductImageUrls(db: Db, productId: string, imageUrls: string[], now: Date) {
  await db.update(products).set({ imageUrls, updatedAt: now }).where(eq(products.id, productId));
}
