// Images the service makes and serves itself: the sample shop's tiles, drawn as SVG at seed time
// (no network), one per kind of product, named by a hash of their content.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { newId, toUnix } from '../../contract/common.ts';
import { conflict, invalid, notFound, type Problem, problem } from '../../contract/errors.ts';
import {
  ALT_MAX,
  GALLERY_MAX,
  type productImage,
  type updateProductImageBody,
} from '../../contract/images.ts';
import type { Db } from '../../db/index.ts';
import { getOwnProduct, visibleProduct } from '../catalog/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { processImage, rasterOfSvg } from './process.ts';
import {
  deleteProductImage,
  galleryRows,
  imageNamed,
  insertImageUnlessThere,
  insertProductImage,
  isLiveVariantOf,
  lockProductImages,
  setProductImageUrls,
  updateProductImage,
} from './queries.ts';
import type { ImageStore } from './store.ts';
import type { productImages } from './tables.ts';
import { UPLOADED_NAME, withGalleryFirst } from './urls.ts';

/** The largest image stored, in bytes (the table's check says the same). */
export const IMAGE_MAX_BYTES = 65_536;

export interface StoredImage {
  name: string;
  contentType: 'image/svg+xml';
  body: string;
}

const xml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

const slugOf = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);

/** A 400×300 tile: the product's kind on its category's colour, with its initial. */
export function sampleImage(category: string, noun: string, colour: string): StoredImage {
  const body = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300" role="img" aria-label="${xml(noun)}"><rect width="400" height="300" fill="${colour}"/><circle cx="200" cy="125" r="62" fill="#ffffff" fill-opacity="0.22"/><text x="200" y="150" text-anchor="middle" font-family="system-ui, sans-serif" font-size="72" font-weight="700" fill="#ffffff">${xml(noun.slice(0, 1).toUpperCase())}</text><text x="200" y="242" text-anchor="middle" font-family="system-ui, sans-serif" font-size="24" fill="#ffffff">${xml(noun.slice(0, 30))}</text></svg>`;
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return {
    name: `sample-${slugOf(category)}-${slugOf(noun)}-${hash}.svg`,
    contentType: 'image/svg+xml',
    body,
  };
}

/** Stores images that are not there yet (a name is its content: one there is the same). */
export async function storeImages(db: Db, list: readonly StoredImage[]) {
  for (const image of list) {
    if (Buffer.byteLength(image.body) > IMAGE_MAX_BYTES) throw new Error(`image ${image.name} is too large`);
    await insertImageUnlessThere(db, image);
  }
}

export const findImage = (db: Db, name: string) => imageNamed(db, name);

// ---- uploaded product images ------------------------------------------------------------

/** What the gallery's rules need besides the request: where files go, and the public address. */
export interface ImageDeps {
  store: ImageStore;
  /** PUBLIC_BASE_URL: the images' URLs are absolute, as the sample shop's. */
  baseUrl: string;
}

type ImageRow = typeof productImages.$inferSelect;
type WireImage = z.infer<typeof productImage>;

const fileUrl = (deps: ImageDeps, name: string) => `${deps.baseUrl}/images/${name}`;
const largest = (row: ImageRow) => row.files.reduce((a, b) => (b.width > a.width ? b : a));

function toWire(deps: ImageDeps, row: ImageRow): WireImage {
  return {
    id: row.id,
    productId: row.productId,
    variantId: row.variantId,
    position: row.position,
    altEn: row.altEn,
    altFr: row.altFr,
    width: row.width,
    height: row.height,
    url: fileUrl(deps, largest(row).name),
    files: row.files.map((f) => ({
      width: f.width,
      height: f.height,
      url: fileUrl(deps, f.name),
      contentType: f.contentType,
    })),
    dateCreated: toUnix(row.createdAt),
  };
}

async function rewriteImageUrls(ctx: RequestContext, deps: ImageDeps, productId: string, current: string[]) {
  const rows = await galleryRows(ctx.db, productId);
  // Renumbered 0..n-1: a gap left by a delete closes.
  for (const [i, row] of rows.entries()) {
    if (row.position !== i) await updateProductImage(ctx.db, row.id, { position: i });
    row.position = i;
  }
  const urls = withGalleryFirst(
    rows.map((r) => fileUrl(deps, largest(r).name)),
    current,
  );
  await setProductImageUrls(ctx.db, productId, urls, ctx.now());
  return rows;
}

/** A product the caller may change the gallery of: theirs (any, for an admin), not deleted. */
export async function editableProduct(ctx: RequestContext, productId: string) {
  const product = await getOwnProduct(ctx, productId);
  if (product.status === 'deleted') throw conflict('error.catalog.productDeleted', { id: productId });
  const rows = await galleryRows(ctx.db, productId);
  return { product, count: rows.length };
}

export interface UploadInput {
  file: Buffer;
  altEn?: string;
  altFr?: string;
  variantId?: string;
}

/** Fields of an upload beyond the file, bounded as PATCH bounds them. */
export function uploadFields(fields: Record<string, string>): Omit<UploadInput, 'file'> {
  const problems: Problem[] = [];
  const bounded = (name: string, max: number) => {
    const v = fields[name]?.trim();
    if (v !== undefined && v.length > max) problems.push(problem(name, 'validation.tooLong', { max }));
    return v || undefined;
  };
  const out = {
    altEn: bounded('altEn', ALT_MAX),
    altFr: bounded('altFr', ALT_MAX),
    variantId: bounded('variantId', 100),
  };
  if (problems.length) throw invalid('error.images.badFields', undefined, problems);
  return out;
}

/**
 * Refuses a variant that is not one of the product's, or is deleted (400 naming `variantId`): the
 * same answer for another product's variant as for an unknown one. Run under the product's lock,
 * which a variant's deletion also takes.
 */
async function checkVariant(db: Db, productId: string, variantId: string | null | undefined) {
  if (!variantId) return;
  if (!(await isLiveVariantOf(db, productId, variantId))) {
    throw invalid('error.images.badFields', undefined, [problem('variantId', 'validation.notAVariant')]);
  }
}

export const GALLERY_LIMIT = GALLERY_MAX;
export const galleryFull = () => conflict('error.images.galleryFull', { max: GALLERY_MAX });

export async function uploadImage(
  ctx: RequestContext,
  deps: ImageDeps,
  productId: string,
  input: UploadInput,
): Promise<WireImage> {
  const { count } = await editableProduct(ctx, productId);
  if (count >= GALLERY_MAX) throw galleryFull();
  // Before the work of processing; checked again under the lock.
  await checkVariant(ctx.db, productId, input.variantId);
  const processed = await processImage(input.file);
  // Files first, rows after: a file no row names is harmless (its name is its content), a row
  // whose file is missing is not.
  await storeMissing(deps.store, processed.files);
  const id = newId('images');
  return inTransaction(ctx, async (tx) => {
    const locked = await lockProductImages(tx.db, productId);
    if (!locked || locked.status === 'deleted')
      throw conflict('error.catalog.productDeleted', { id: productId });
    const before = await galleryRows(tx.db, productId);
    if (before.length >= GALLERY_MAX) throw galleryFull();
    await checkVariant(tx.db, productId, input.variantId);
    await insertProductImage(tx.db, {
      id,
      productId,
      variantId: input.variantId ?? null,
      position: before.length,
      altEn: input.altEn ?? '',
      altFr: input.altFr ?? '',
      width: processed.width,
      height: processed.height,
      files: processed.files.map(({ body: _, ...f }) => f),
      createdAt: ctx.now(),
    });
    const rows = await rewriteImageUrls(tx, deps, productId, locked.imageUrls);
    return toWire(deps, rows.find((r) => r.id === id)!);
  });
}

/** The gallery of a product the caller may see. */
export async function listImages(ctx: RequestContext, deps: ImageDeps, productId: string) {
  await visibleProduct(ctx, productId);
  const rows = await galleryRows(ctx.db, productId);
  return { images: rows.map((r) => toWire(deps, r)) };
}

async function ownImage(ctx: RequestContext, productId: string, imageId: string) {
  await editableProduct(ctx, productId);
  const locked = await lockProductImages(ctx.db, productId);
  if (!locked) throw notFound('error.catalog.productNotFound', { id: productId });
  const rows = await galleryRows(ctx.db, productId);
  const row = rows.find((r) => r.id === imageId);
  if (!row) throw notFound('error.images.imageNotFound', { id: imageId.slice(0, 120) });
  return { locked, rows, row };
}

export async function updateImage(
  ctx: RequestContext,
  deps: ImageDeps,
  productId: string,
  imageId: string,
  change: z.infer<typeof updateProductImageBody>,
): Promise<WireImage> {
  return inTransaction(ctx, async (tx) => {
    const { locked, rows, row } = await ownImage(tx, productId, imageId);
    await checkVariant(tx.db, productId, change.variantId);
    await updateProductImage(tx.db, imageId, {
      altEn: change.altEn,
      altFr: change.altFr,
      variantId: change.variantId === undefined ? undefined : change.variantId || null,
    });
    if (change.position !== undefined) {
      const order = rows.filter((r) => r.id !== imageId);
      order.splice(Math.min(change.position, order.length), 0, row);
      for (const [i, r] of order.entries())
        if (r.position !== i) await updateProductImage(tx.db, r.id, { position: i });
    }
    const after = await rewriteImageUrls(tx, deps, productId, locked.imageUrls);
    return toWire(deps, after.find((r) => r.id === imageId)!);
  });
}

/** Takes the image out of the gallery; its files stay (another image may be the same bytes). */
export async function deleteImage(ctx: RequestContext, deps: ImageDeps, productId: string, imageId: string) {
  return inTransaction(ctx, async (tx) => {
    const { locked } = await ownImage(tx, productId, imageId);
    await deleteProductImage(tx.db, imageId);
    const after = await rewriteImageUrls(tx, deps, productId, locked.imageUrls);
    return { images: after.map((r) => toWire(deps, r)) };
  });
}

/** An uploaded file by name, from the store; undefined when the name is not one of ours. */
export async function findUploadedFile(store: ImageStore, name: string) {
  return UPLOADED_NAME.test(name) ? store.get(name) : undefined;
}

/** Puts the files the store does not hold yet (a name is its content: one held is the same). */
async function storeMissing(
  store: ImageStore,
  files: ReadonlyArray<{ name: string; contentType: string; body: Buffer }>,
) {
  for (const f of files) if (!(await store.has(f.name))) await store.put(f.name, f.contentType, f.body);
}

/**
 * The sample shop's tiles as raster images in `store` (WebP, as an upload is stored): for each
 * sample's key, the name of its largest file. Made locally from the SVGs; the same bytes are not
 * stored twice.
 */
export async function storeSampleRasters(
  store: ImageStore,
  samples: ReadonlyMap<string, StoredImage>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const [key, image] of samples) {
    const { files } = await processImage(await rasterOfSvg(image.body));
    await storeMissing(store, files);
    names.set(key, files.at(-1)!.name);
  }
  return names;
}
