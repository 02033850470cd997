// A product's options and variants: what is sold, each with its SKU, option values, price and
// stock. The rules of a variant set (every option valued, each combination once, a SKU once per
// seller), which variant a caller names, and the seller's writes. A product without options has
// exactly one variant, whose id is the product's (docs/decisions.md, issue 40).
import { and, asc, eq, ne } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  createVariantBody,
  ProductOption,
  productVariant,
  updateProductBody,
  updateVariantBody,
} from '../../contract/catalog.ts';
import { isRecordId, newId } from '../../contract/common.ts';
import { conflict, invalid, notFound, problem } from '../../contract/errors.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import type { VariantRow } from './queries.ts';
import { products, productVariants } from './tables.ts';

type Variant = z.infer<typeof productVariant>;
type VariantInput = z.infer<typeof createVariantBody>;
type VariantChange = z.infer<typeof updateVariantBody>;
export type VariantInSet = NonNullable<z.infer<typeof updateProductBody>['variants']>[number];

/** What a variant is named by in an answer: its option values in the options' order ('' for none). */
export const variantTitle = (optionValues: string[]) => optionValues.join(' / ');

/** A variant row as the wire shows it, with its options by name. */
/**
 * A variant's option values as shown: each written value's translation at its position in
 * `shown` (the translated options, `options` when there are none).
 */
export function shownValues(values: string[], options: ProductOption[], shown: ProductOption[]): string[] {
  if (shown === options) return values;
  return values.map((value, n) => shown[n]?.values[options[n]?.values.indexOf(value) ?? -1] ?? value);
}

/** `shown`: the options in the reader's language (names and values by position), else `options`. */
export function toVariant(
  row: VariantRow,
  options: ProductOption[],
  productActive: boolean,
  shown: ProductOption[] = options,
): Variant {
  const values = shownValues(row.optionValues, options, shown);
  return {
    id: row.id,
    sku: row.sku,
    options: Object.fromEntries(shown.map((o, n) => [o.name, values[n] ?? ''])),
    title: variantTitle(values),
    priceCents: row.priceCents,
    compareAtPriceCents: row.compareAtPriceCents,
    stockQuantity: row.stockQuantity,
    available: productActive && row.status === 'active' && row.freeUnits > 0,
    weight: row.weightKg,
    dimensions:
      row.widthCm === null || row.heightCm === null || row.depthCm === null
        ? null
        : { width: row.widthCm, height: row.heightCm, depth: row.depthCm },
    imageUrl: row.imageUrl,
    barcode: row.barcode,
    status: row.status,
  };
}

/** The choices a buyer has, for a refusal's message: "S, M, L" per option, or the SKUs. */
function choicesOf(options: ProductOption[], skus: string[]): string {
  return options.length
    ? options.map((o) => `${o.name}: ${o.values.join(', ')}`).join('; ')
    : skus.join(', ');
}

/**
 * The variant a caller names: `product` a product id (or a variant's own id), `variant` a variant
 * id or SKU of that product. Without `variant`, a product sold one way is its one variant; a
 * product with options is refused (VALIDATION_ERROR listing the choices). Only variants on sale
 * are named (a buyer's view); 404 for a product not found.
 */
export async function resolveVariant(
  ctx: RequestContext,
  product: string,
  variant: string | undefined,
  field = 'variant',
): Promise<{ productId: string; variantId: string }> {
  let productId = product;
  if (isRecordId('variants', product)) {
    const [v] = await ctx.db
      .select({ productId: productVariants.productId })
      .from(productVariants)
      .where(eq(productVariants.id, product));
    if (!v) throw notFound('error.catalog.productNotFound', { id: product });
    productId = v.productId;
    variant ??= product;
  }
  if (!isRecordId('products', productId)) throw notFound('error.catalog.productNotFound', { id: product });
  const [p] = await ctx.db
    .select({ options: products.options, status: products.status })
    .from(products)
    .where(eq(products.id, productId));
  if (p?.status !== 'active') throw notFound('error.catalog.productNotFound', { id: product });
  const onSale = await ctx.db
    .select({ id: productVariants.id, sku: productVariants.sku })
    .from(productVariants)
    .where(and(eq(productVariants.productId, productId), eq(productVariants.status, 'active')))
    .orderBy(asc(productVariants.position), asc(productVariants.id));
  const choices = choicesOf(
    p.options,
    onSale.map((v) => v.sku),
  );
  if (variant === undefined || variant === '') {
    if (onSale.length === 1 && p.options.length === 0) return { productId, variantId: onSale[0]!.id };
    if (onSale.length === 0) throw notFound('error.catalog.productNotFound', { id: product });
    throw invalid('error.catalog.chooseVariant', { id: productId, choices }, [
      problem(field, 'validation.chooseVariant'),
    ]);
  }
  const named = onSale.find((v) => v.id === variant) ?? onSale.find((v) => v.sku === variant);
  if (!named) {
    throw invalid(
      'error.catalog.unknownVariant',
      { id: productId, variant: variant.slice(0, 100), choices },
      [problem(field, 'validation.unknownVariant')],
    );
  }
  return { productId, variantId: named.id };
}

// ---- the rules of a set -------------------------------------------------------------------

/** A variant's option values in the options' order, checked against the product's options. */
function valuesOf(options: ProductOption[], given: Record<string, string>, path: string): string[] {
  const names = Object.keys(given);
  const unknown = names.find((n) => !options.some((o) => o.name === n));
  if (unknown !== undefined) {
    throw invalid('error.catalog.unknownOption', { name: unknown }, [
      problem(path, 'validation.unknownOption'),
    ]);
  }
  return options.map((o) => {
    const value = given[o.name];
    if (value === undefined) {
      throw invalid('error.catalog.optionMissing', { name: o.name }, [
        problem(path, 'validation.optionMissing'),
      ]);
    }
    if (!o.values.includes(value)) {
      throw invalid(
        'error.catalog.unknownOptionValue',
        { name: o.name, value, values: o.values.join(', ') },
        [problem(path, 'validation.unknownOptionValue')],
      );
    }
    return value;
  });
}

/** Each combination of option values at most once in a set. */
function checkDistinct(sets: Array<{ values: string[]; path: string }>) {
  const seen = new Set<string>();
  for (const s of sets) {
    const key = JSON.stringify(s.values);
    if (seen.has(key)) {
      throw conflict('error.catalog.variantTwice', { values: variantTitle(s.values) || '—' });
    }
    seen.add(key);
  }
}

/** The physical rules of a variant: a digital product's variants have no weight or size. */
function checkParcel(isDigital: boolean, v: { weight?: number | null; dimensions?: unknown }, path: string) {
  if (isDigital && ((v.weight ?? null) !== null || (v.dimensions ?? null) !== null)) {
    throw invalid('error.catalog.digitalVariantParcel', undefined, [
      problem(path, 'validation.digitalNoParcel'),
    ]);
  }
}

function checkCompareAt(
  v: { priceCents?: number; compareAtPriceCents?: number | null },
  price: number,
  path: string,
) {
  const compareAt = v.compareAtPriceCents ?? null;
  if (compareAt !== null && compareAt <= price) {
    throw invalid('error.catalog.compareAtNotAbove', undefined, [
      problem(`${path}.compareAtPriceCents`, 'validation.compareAtAbovePrice'),
    ]);
  }
}

/**
 * A SKU a seller did not give: the record part of the variant's id, with a `v` before it when it
 * starts with `_` or `-` (a SKU starts with a letter or a digit: sent back by the console's form,
 * it would be refused).
 */
export function defaultSku(id: string): string {
  const key = id.slice(id.indexOf(':') + 1);
  return /^[A-Za-z0-9]/.test(key) ? key : `v${key}`;
}

/** A SKU taken by another live variant of the seller: 409 naming it. */
function isSkuTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  const pg = e?.cause ?? e;
  return (
    pg?.code === '23505' && (pg.constraint ?? 'product_variants_seller_sku') === 'product_variants_seller_sku'
  );
}

async function skuGuard<T>(skus: string[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isSkuTaken(err)) throw conflict('error.catalog.skuTaken', { sku: skus.join(', ') });
    throw err;
  }
}

export interface ProductForVariants {
  id: string;
  sellerId: string;
  isDigital: boolean;
  options: ProductOption[];
}

type NewVariantRow = typeof productVariants.$inferInsert;

function rowOf(
  ctx: RequestContext,
  product: ProductForVariants,
  v: VariantInput,
  id: string,
  values: string[],
  position: number,
): NewVariantRow {
  return {
    id,
    productId: product.id,
    sellerId: product.sellerId,
    sku: v.sku ?? defaultSku(id),
    optionValues: values,
    position,
    priceCents: v.priceCents,
    compareAtPriceCents: v.compareAtPriceCents ?? null,
    stockQuantity: v.stockQuantity,
    weightKg: product.isDigital ? null : (v.weight ?? null),
    widthCm: product.isDigital ? null : (v.dimensions?.width ?? null),
    heightCm: product.isDigital ? null : (v.dimensions?.height ?? null),
    depthCm: product.isDigital ? null : (v.dimensions?.depth ?? null),
    imageUrl: v.imageUrl ?? null,
    barcode: v.barcode ?? null,
    status: v.status,
    createdAt: ctx.now(),
    updatedAt: ctx.now(),
  };
}

/**
 * The variants of a new product, checked: with options, each names a value of every option and
 * each combination comes once; without, exactly one, under the product's own id. Inserted by the
 * caller's transaction, after the product row.
 */
export function newVariantRows(
  ctx: RequestContext,
  product: ProductForVariants,
  variants: VariantInput[],
): NewVariantRow[] {
  if (product.options.length === 0 && variants.length !== 1) {
    throw invalid('error.catalog.optionsForVariants', undefined, [
      problem('options', 'validation.optionsForVariants'),
    ]);
  }
  const rows = variants.map((v, n) => {
    const path = `variants.${n}`;
    checkParcel(product.isDigital, v, path);
    checkCompareAt(v, v.priceCents, path);
    const values = valuesOf(product.options, v.options, `${path}.options`);
    const id = product.options.length === 0 ? product.id : newId('variants');
    return rowOf(ctx, product, v, id, values, n);
  });
  checkDistinct(rows.map((r, n) => ({ values: r.optionValues ?? [], path: `variants.${n}` })));
  return rows;
}

export async function insertVariants(ctx: RequestContext, rows: NewVariantRow[]) {
  await skuGuard(
    rows.map((r) => r.sku),
    () => ctx.db.insert(productVariants).values(rows),
  );
}

// ---- the seller's writes ------------------------------------------------------------------

/** The product's variants that are not deleted, in the seller's order. */
export async function liveVariants(ctx: RequestContext, productId: string) {
  return ctx.db
    .select()
    .from(productVariants)
    .where(and(eq(productVariants.productId, productId), ne(productVariants.status, 'deleted')))
    .orderBy(asc(productVariants.position), asc(productVariants.id));
}

/** Locks the product row, then (by the caller) its variants: the order every seller write takes. */
export async function lockProduct(ctx: RequestContext, productId: string) {
  await ctx.db.select({ id: products.id }).from(products).where(eq(products.id, productId)).for('update');
}

/** A new variant of a product with options (the owner checked by the caller). */
export async function addVariant(ctx: RequestContext, product: ProductForVariants, input: VariantInput) {
  if (product.options.length === 0) {
    throw conflict('error.catalog.noOptions', { id: product.id });
  }
  checkParcel(product.isDigital, input, 'body');
  checkCompareAt(input, input.priceCents, 'body');
  const values = valuesOf(product.options, input.options, 'options');
  return inTransaction(ctx, async (tx) => {
    await lockProduct(tx, product.id);
    const live = await liveVariants(tx, product.id);
    checkDistinct([
      ...live.map((v) => ({ values: v.optionValues, path: v.id })),
      { values, path: 'options' },
    ]);
    const id = newId('variants');
    await insertVariants(tx, [rowOf(tx, product, input, id, values, live.length)]);
    return id;
  });
}

/** Changes a variant of the product (the owner checked by the caller); 404 for another product's. */
export async function updateVariant(
  ctx: RequestContext,
  product: ProductForVariants,
  variantId: string,
  change: VariantChange,
) {
  await inTransaction(ctx, async (tx) => {
    await lockProduct(tx, product.id);
    const live = await liveVariants(tx, product.id);
    const current = live.find((v) => v.id === variantId);
    if (!current) throw notFound('error.catalog.variantNotFound', { id: variantId });
    checkParcel(product.isDigital, change, 'body');
    checkCompareAt(
      {
        compareAtPriceCents:
          change.compareAtPriceCents === undefined ? current.compareAtPriceCents : change.compareAtPriceCents,
      },
      change.priceCents ?? current.priceCents,
      'body',
    );
    let values: string[] | undefined;
    if (change.options !== undefined) {
      values = valuesOf(product.options, change.options, 'options');
      checkDistinct([
        ...live.filter((v) => v.id !== variantId).map((v) => ({ values: v.optionValues, path: v.id })),
        { values, path: 'options' },
      ]);
    }
    const dims = change.dimensions;
    await skuGuard(change.sku ? [change.sku] : [], () =>
      tx.db
        .update(productVariants)
        .set({
          sku: change.sku,
          optionValues: values,
          priceCents: change.priceCents,
          compareAtPriceCents: change.compareAtPriceCents,
          stockQuantity: change.stockQuantity,
          weightKg: change.weight,
          ...(dims !== undefined
            ? { widthCm: dims?.width ?? null, heightCm: dims?.height ?? null, depthCm: dims?.depth ?? null }
            : {}),
          imageUrl: change.imageUrl,
          barcode: change.barcode,
          status: change.status,
          updatedAt: tx.now(),
        })
        .where(eq(productVariants.id, variantId)),
    );
  });
}

/** Deletes a variant for good (the row stays for its orders); the last one is refused (409). */
export async function deleteVariant(ctx: RequestContext, product: ProductForVariants, variantId: string) {
  await inTransaction(ctx, async (tx) => {
    await lockProduct(tx, product.id);
    const live = await liveVariants(tx, product.id);
    if (!live.some((v) => v.id === variantId))
      throw notFound('error.catalog.variantNotFound', { id: variantId });
    if (live.length === 1) throw conflict('error.catalog.lastVariant', { id: variantId });
    await tx.db
      .update(productVariants)
      .set({ status: 'deleted', updatedAt: tx.now() })
      .where(eq(productVariants.id, variantId));
  });
}

/**
 * The rules of a product's whole set (PATCH's and a CSV import's), checked before anything is
 * written: each variant named by id is one of `live`, each names a value of every option, each
 * combination comes once, and a product without options has exactly one.
 */
export function checkVariantSet(
  product: ProductForVariants,
  live: Array<{ id: string }>,
  variants: VariantInSet[],
) {
  const ids = new Set(live.map((v) => v.id));
  if (product.options.length === 0 && variants.length !== 1) {
    throw invalid('error.catalog.optionsForVariants', undefined, [
      problem('options', 'validation.optionsForVariants'),
    ]);
  }
  const planned = variants.map((v, n) => {
    const path = `variants.${n}`;
    if (v.id !== undefined && !ids.has(v.id)) throw notFound('error.catalog.variantNotFound', { id: v.id });
    checkParcel(product.isDigital, v, path);
    checkCompareAt(v, v.priceCents, path);
    return { input: v, values: valuesOf(product.options, v.options, `${path}.options`), position: n };
  });
  checkDistinct(planned.map((p, n) => ({ values: p.values, path: `variants.${n}` })));
  return planned;
}

/**
 * A product's whole set at once (PATCH /products/:id with `options` and `variants`, the console's
 * form): a variant given with its id is kept and changed, one without is added, one not given is
 * deleted (its row stays for its orders). Run in the caller's transaction, the product locked.
 */
export async function replaceVariantSet(
  tx: RequestContext,
  product: ProductForVariants,
  variants: VariantInSet[],
) {
  const live = await liveVariants(tx, product.id);
  const byId = new Map(live.map((v) => [v.id, v]));
  const planned = checkVariantSet(product, live, variants);
  const kept = new Set(planned.flatMap((p) => (p.input.id ? [p.input.id] : [])));
  // Deleted first: a SKU or combination they held may be given to another in the same set.
  for (const v of live) {
    if (!kept.has(v.id)) {
      await tx.db
        .update(productVariants)
        .set({ status: 'deleted', updatedAt: tx.now() })
        .where(eq(productVariants.id, v.id));
    }
  }
  const skus = variants.flatMap((v) => (v.sku ? [v.sku] : []));
  await skuGuard(skus, async () => {
    for (const p of planned) {
      const id =
        p.input.id ??
        (product.options.length === 0 && !byId.has(product.id) ? product.id : newId('variants'));
      const row = rowOf(tx, product, p.input, id, p.values, p.position);
      if (p.input.id) {
        const { id: _id, productId: _p, sellerId: _s, createdAt: _c, sku, ...change } = row;
        await tx.db
          .update(productVariants)
          .set({ ...change, sku: p.input.sku === undefined ? undefined : sku })
          .where(eq(productVariants.id, id));
      } else {
        await tx.db.insert(productVariants).values(row);
      }
    }
  });
}

/** Sets the price and stock of a product sold one way (PATCH /products/:id `priceCents`, `stockQuantity`). */
export async function updateSingleVariant(
  tx: RequestContext,
  product: ProductForVariants,
  change: { priceCents?: number; stockQuantity?: number; sku?: string },
) {
  if (change.priceCents === undefined && change.stockQuantity === undefined && change.sku === undefined)
    return;
  const live = await liveVariants(tx, product.id);
  if (product.options.length > 0 || live.length !== 1) {
    throw invalid('error.catalog.priceOnVariants', { id: product.id }, [
      problem(
        change.priceCents !== undefined
          ? 'priceCents'
          : change.stockQuantity !== undefined
            ? 'stockQuantity'
            : 'sku',
        'validation.priceOnVariants',
      ),
    ]);
  }
  const [only] = live;
  checkCompareAt(
    { compareAtPriceCents: only!.compareAtPriceCents },
    change.priceCents ?? only!.priceCents,
    'priceCents',
  );
  await skuGuard(change.sku ? [change.sku] : [], () =>
    tx.db
      .update(productVariants)
      .set({
        priceCents: change.priceCents,
        stockQuantity: change.stockQuantity,
        sku: change.sku,
        updatedAt: tx.now(),
      })
      .where(eq(productVariants.id, only!.id)),
  );
}
