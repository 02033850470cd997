// Categories and products: who may see and change what, and every product rule.
// One job past 450 lines: the rules of categories and products, which share their visibility and
// list-item rules; their statements are in queries.ts.
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  createCategoryBody,
  createProductBody,
  createVariantBody,
  listProductsQuery,
  PRODUCT_STATUSES,
  ProductOption,
  ProductTranslations,
  productDetail,
  productListItem,
  updateCategoryBody,
  updateProductBody,
  updateVariantBody,
} from '../../contract/catalog.ts';
import { isRecordId, newId, type Province } from '../../contract/common.ts';
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  type Problem,
  problem,
  wordProblems,
} from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale } from '../../contract/i18n.ts';
import type { Db } from '../../db/index.ts';
import { recordAdminAction } from '../audit/service.ts';
import { isSeller } from '../auth/sellers.ts';
import { type AuthUser, caller, inTransaction, type RequestContext } from '../context.ts';
import { keepUploadedImages } from '../images/urls.ts';
import type { ShopDiscount } from '../pricing/quote.ts';
import type { ShippingProfile } from '../shipping/profile.ts';
import {
  bumpAllCountVersions,
  hiddenSellerIds,
  LIST_ITEM_COLUMNS,
  type ListItemRow,
  listItemRowsByIds,
  listStatementsFor,
  productDetailRow,
} from './queries.ts';
import { categories, products, productVariants } from './tables.ts';
import { searchTerms } from './text-query.ts';
import {
  addVariant,
  deleteVariant,
  insertVariants,
  lockProduct,
  newVariantRows,
  type ProductForVariants,
  replaceVariantSet,
  shownValues,
  toVariant,
  updateSingleVariant,
  updateVariant,
  variantTitle,
} from './variants.ts';

type ProductRow = typeof products.$inferSelect;
type ListItem = z.infer<typeof productListItem>;
type ProductStatus = (typeof PRODUCT_STATUSES)[number];
type Detail = z.infer<typeof productDetail>;

// ---- categories -------------------------------------------------------------------------

/** The categories, named in the reader's language when translated, sorted by that name. */
export async function listCategories(ctx: RequestContext, locale: Locale | null = ctx.locale ?? null) {
  const rows = await ctx.db
    .select({
      id: categories.id,
      name: categories.name,
      slug: categories.slug,
      parentId: categories.parentId,
      language: categories.language,
      translations: categories.translations,
    })
    .from(categories)
    .orderBy(asc(categories.name));
  const named = rows.map((r) => toCategory(r, locale));
  if (locale) named.sort((a, b) => a.name.localeCompare(b.name, locale) || (a.id < b.id ? -1 : 1));
  return { categories: named };
}

type CategoryRow = Pick<
  typeof categories.$inferSelect,
  'id' | 'name' | 'slug' | 'parentId' | 'language' | 'translations'
>;

/** A category as answered: its name in `locale` when translated, else as written. */
function toCategory(r: CategoryRow, locale: Locale | null) {
  const tr = locale !== null && locale !== r.language ? r.translations[locale] : undefined;
  return {
    id: r.id,
    name: tr ? tr.name : r.name,
    slug: r.slug,
    parentId: r.parentId,
    language: tr && locale ? locale : r.language,
  };
}

/** A translation in the text's own language is refused: the other language only. */
function checkTranslations(language: Locale, translations: Record<string, unknown>) {
  if (translations[language] !== undefined) {
    throw invalid('error.catalog.translationSameLanguage', { language }, [
      problem(`translations.${language}`, 'validation.translationSameLanguage'),
    ]);
  }
}

export async function createCategory(ctx: RequestContext, input: z.infer<typeof createCategoryBody>) {
  checkTranslations(input.language, input.translations);
  const parentId = input.parentId ?? null;
  if (parentId !== null && !(await categoryExists(ctx, parentId))) {
    throw invalid('error.catalog.unknownParent', { id: parentId }, [
      problem('parentId', 'validation.unknownCategory'),
    ]);
  }
  const row = await inTransaction(ctx, async (tx) => {
    const [made] = await tx.db
      .insert(categories)
      .values({
        id: newId('categories'),
        name: input.name,
        slug: input.slug,
        parentId,
        language: input.language,
        translations: input.translations,
      })
      .onConflictDoNothing({ target: categories.slug })
      .returning({
        id: categories.id,
        name: categories.name,
        slug: categories.slug,
        parentId: categories.parentId,
        language: categories.language,
        translations: categories.translations,
      });
    if (made)
      await recordAdminAction(tx, { action: 'category.create', subject: made.id, after: { ...made } });
    return made;
  });
  if (!row) throw conflict('error.catalog.slugTaken', { slug: input.slug });
  return toCategory(row, ctx.locale ?? null);
}

/** Every category as written (both languages), for the desk: by name. */
export async function categoriesAsWritten(ctx: RequestContext) {
  return ctx.db
    .select({
      id: categories.id,
      name: categories.name,
      slug: categories.slug,
      parentId: categories.parentId,
      language: categories.language,
      translations: categories.translations,
    })
    .from(categories)
    .orderBy(asc(categories.name), asc(categories.id))
    .limit(2000);
}

/**
 * PATCH /admin/categories/:id: renames a category (in its language, or the other's translation)
 * or moves it under another parent; a parent that is the category itself or one of its
 * descendants is 400 (the tree would loop), an unknown one 400, an unknown category 404. In one
 * transaction with its audit record.
 */
export async function updateCategory(
  ctx: RequestContext,
  id: string,
  input: z.infer<typeof updateCategoryBody>,
) {
  if (!isRecordId('categories', id)) throw notFound('error.catalog.categoryNotFound', { id });
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.db.select().from(categories).where(eq(categories.id, id)).for('update');
    if (!row) throw notFound('error.catalog.categoryNotFound', { id });
    if (input.translations) checkTranslations(row.language, input.translations);
    if (input.parentId) {
      if (!(await categoryExists(tx, input.parentId))) {
        throw invalid('error.catalog.unknownParent', { id: input.parentId }, [
          problem('parentId', 'validation.unknownCategory'),
        ]);
      }
      // Up from the new parent: meeting this category would make a loop.
      const all = await tx.db.select({ id: categories.id, parentId: categories.parentId }).from(categories);
      const parentOf = new Map(all.map((c) => [c.id, c.parentId]));
      for (
        let at: string | null | undefined = input.parentId, n = 0;
        at && n <= all.length;
        at = parentOf.get(at), n++
      ) {
        if (at === id) {
          throw invalid('error.catalog.parentLoop', { id }, [problem('parentId', 'validation.parentLoop')]);
        }
      }
    }
    const change = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.translations !== undefined ? { translations: input.translations } : {}),
      ...(input.parentId !== undefined ? { parentId: input.parentId } : {}),
    };
    const [updated] = await tx.db.update(categories).set(change).where(eq(categories.id, id)).returning();
    await recordAdminAction(tx, {
      action: 'category.update',
      subject: id,
      before: { name: row.name, translations: row.translations, parentId: row.parentId },
      after: { name: updated!.name, translations: updated!.translations, parentId: updated!.parentId },
    });
    return toCategory(updated!, tx.locale ?? null);
  });
}

async function categoryExists(ctx: RequestContext, id: string): Promise<boolean> {
  if (!isRecordId('categories', id)) return false;
  const rows = await ctx.db.select({ id: categories.id }).from(categories).where(eq(categories.id, id));
  return rows.length > 0;
}

// ---- visibility -------------------------------------------------------------------------

/**
 * Buyers see active products; a seller also sees every product of their own; an admin sees
 * everything. What a caller may not see does not exist for them (404).
 */
function visibilityOf(user: AuthUser): 'all' | 'active' | 'activeOrOwn' {
  return user.role === 'admin' ? 'all' : user.role === 'seller' ? 'activeOrOwn' : 'active';
}

// ---- reads ------------------------------------------------------------------------------

/**
 * The one mapping of a product row to the fields every product answer shares: title and
 * description in `locale` when the product has it, else as written (`null`: as written).
 */
export function toListItem(p: ListItemRow, locale: Locale | null = null): ListItem {
  const tr = locale !== null && locale !== p.language ? p.translations[locale] : undefined;
  const translatedDescription = tr !== undefined && tr.description !== '';
  return {
    id: p.id,
    title: tr ? tr.title : p.title,
    description: translatedDescription ? tr.description : p.description,
    priceCents: p.priceCents,
    imageUrl: p.imageUrls[0] ?? null,
    imageUrls: p.imageUrls,
    stockQuantity: p.stockQuantity,
    sellerId: p.sellerId,
    categoryId: p.categoryId,
    status: p.status,
    dateCreated: p.dateCreated,
    isPerishable: p.isPerishable,
    isDigital: p.isDigital,
    rating: Number(p.rating),
    reviewCount: p.reviewCount,
    priceRange: { minCents: p.priceCents, maxCents: p.priceMaxCents },
    language: tr && locale ? locale : p.language,
    descriptionLanguage: translatedDescription && locale ? locale : p.language,
  };
}

/**
 * The product's options in `locale` when its translation there names them (by position, as many
 * as the product's), else as written; with the language they are in.
 */
export function optionsIn(
  p: { options: ProductOption[]; language: Locale; translations: ProductTranslations },
  locale: Locale | null,
): { options: ProductOption[]; language: Locale } {
  const tr = locale !== null && locale !== p.language ? p.translations[locale]?.options : undefined;
  if (!tr || p.options.length === 0 || tr.length !== p.options.length) {
    return { options: p.options, language: p.language };
  }
  return { options: tr, language: locale! };
}

/**
 * A translation's options must match the product's: as many options, each with as many values,
 * each name and value once (400 naming the field). Absent: the options are not translated.
 */
function checkOptionTranslations(
  locale: Locale,
  options: ProductOption[],
  translations: ProductTranslations,
) {
  const problems: Problem[] = [];
  for (const [language, tr] of Object.entries(translations)) {
    if (!tr?.options) continue;
    const at = `translations.${language}.options`;
    if (tr.options.length !== options.length) {
      problems.push(problem(at, 'validation.translatedOptionsCount', { n: options.length }));
      continue;
    }
    if (!uniqueFolded(tr.options.map((o) => o.name)))
      problems.push(problem(at, 'validation.optionNamesUnique'));
    tr.options.forEach((o, n) => {
      const want = options[n]!.values.length;
      if (o.values.length !== want) {
        problems.push(problem(`${at}.${n}.values`, 'validation.translatedValuesCount', { n: want }));
      } else if (!uniqueFolded(o.values)) {
        problems.push(problem(`${at}.${n}.values`, 'validation.optionValuesUnique'));
      }
    });
  }
  if (problems.length) {
    const list = wordProblems(locale, problems)
      .map((x) => `${x.field} ${x.message}`)
      .join('; ');
    throw invalid('error.catalog.invalidProduct', { list }, problems);
  }
}

const uniqueFolded = (list: string[]) => new Set(list.map((v) => v.toLowerCase())).size === list.length;

/** Whole Unix seconds of a timestamp column, as `toUnix` truncates them. */
/** A list item from a row read as an array, its columns in the order of `listItemColumns`. */
function rowToListItem(r: unknown[], locale: Locale | null): ListItem {
  return toListItem(
    {
      id: r[0] as string,
      title: r[1] as string,
      description: r[2] as string,
      priceCents: r[3] as number,
      imageUrls: r[4] as string[],
      stockQuantity: r[5] as number,
      sellerId: r[6] as string,
      categoryId: r[7] as string | null,
      status: r[8] as ProductStatus,
      dateCreated: r[9] as number,
      isPerishable: r[10] as boolean,
      isDigital: r[11] as boolean,
      rating: r[12] as number,
      reviewCount: r[13] as number,
      priceMaxCents: r[14] as number,
      language: r[15] as Locale,
      translations: r[16] as ProductTranslations,
    },
    locale,
  );
}

/**
 * The products of `ids` as list items, in the order of `ids` (unknown ids are left out):
 * the page of a search, whose engine found the ids. A prepared statement (a primary-key
 * lookup plans the same for any ids).
 */
export async function listItemsByIds(ctx: RequestContext, ids: string[]): Promise<ListItem[]> {
  if (ids.length === 0) return [];
  const rows = await listItemRowsByIds(ctx.db, ids);
  const byId = new Map<string, ListItem>();
  for (const r of rows) byId.set(r[0] as string, rowToListItem(r, ctx.locale ?? null));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * listItemsByIds, keeping only the products on sale to AI agents: active, of a shop that is open,
 * not kept out of agent channels (the protocols' lookups by id). Its two more reads, together:
 * the few hidden sellers, and which of `ids` are kept out.
 */
export async function agentSaleItemsByIds(ctx: RequestContext, ids: string[]): Promise<ListItem[]> {
  if (ids.length === 0) return [];
  const [items, hidden, kept] = await Promise.all([
    listItemsByIds(ctx, ids),
    hiddenSellerIds(ctx.db),
    ctx.db
      .select({ id: products.id })
      .from(products)
      .where(and(inArray(products.id, ids), eq(products.agentChannels, false))),
  ]);
  const out = new Set(kept.map((r) => r.id));
  return items.filter((p) => p.status === 'active' && !hidden.has(p.sellerId) && !out.has(p.id));
}

/**
 * A shop opened or closed (its state, or its seller's account suspended): every listing's kept
 * total is stale, in the caller's transaction. Search learns of it on its next refresh.
 */
export function shopVisibilityChanged(ctx: RequestContext): Promise<void> {
  return bumpAllCountVersions(ctx.db);
}

/**
 * Totals of GET /products, each remembered with the version of the categories it covers
 * (`productCountVersions` in tables.ts) and answered again only while that version holds:
 * the database bumps it in the same transaction as any change that can change a total, so
 * a remembered total is exactly what counting again would find, on every instance. Counting
 * a broad filter reads every matching index entry (15 ms for 100,000 products); checking
 * the version is one row read with the page. Bounded: the least recently used totals go.
 */
class ListTotals {
  private readonly totals = new Map<string, { version: bigint; total: number }>();

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.totals.has(key);
  }

  get(key: string, version: bigint): number | undefined {
    const kept = this.totals.get(key);
    if (kept?.version !== version) return undefined;
    this.totals.delete(key);
    this.totals.set(key, kept);
    return kept.total;
  }

  set(key: string, version: bigint, total: number) {
    const kept = this.totals.get(key);
    // A slower request may bring an older count: keep the newer one.
    if (kept && kept.version > version) return;
    this.totals.delete(key);
    this.totals.set(key, { version, total });
    if (this.totals.size > this.capacity) this.totals.delete(this.totals.keys().next().value as string);
  }
}

const TOTALS_KEPT = 1_000;
const TOTAL_KEY_MAX = 1_024;
/** One memory of totals per database (tests run several apps, on several databases, in one process). */
const totalsByDatabase = new WeakMap<Db, ListTotals>();

function listTotals(ctx: RequestContext): ListTotals {
  const kept = totalsByDatabase.get(ctx.db);
  if (kept) return kept;
  const totals = new ListTotals(TOTALS_KEPT);
  totalsByDatabase.set(ctx.db, totals);
  return totals;
}

/** What pricing needs of a variant on sale: the cart's and checkout's view of the catalog. */
export interface SaleProduct {
  /** The variant's id: what is sold. */
  id: string;
  productId: string;
  /** The name it is sold under: the product's title, then its option values ("Paddle, Cedar / 150 cm"). */
  title: string;
  /** Its option values ("Cedar / 150 cm"); '' for a product sold one way. */
  variantTitle: string;
  sku: string;
  priceCents: number;
  imageUrls: string[];
  isDigital: boolean;
  isPerishable: boolean;
  weightKg: number | null;
  /** Width, height and depth in cm (the variant's, else the product's); null when not all given. */
  dimensionsCm: [number, number, number] | null;
  sellerId: string;
  /** Where its seller ships from; undefined for a seller without a shop. */
  sellerProvince: Province | undefined;
  /** Its seller's shipping profile; null: the platform's flat rate. */
  shipping: ShippingProfile | null;
  /** Its seller's automatic discount; null: none. */
  shopDiscount: ShopDiscount | null;
}

/**
 * SaleProduct as other modules read it inside one of their statements, through the database
 * function portage_sale_variant (src/db/functions): sellerProvince null for a seller without a shop.
 */
export type SaleProductRow = Omit<SaleProduct, 'sellerProvince'> & { sellerProvince: Province | null };

export async function listProducts(ctx: RequestContext, q: z.infer<typeof listProductsQuery>) {
  const me = caller(ctx);
  const terms = q.search ? searchTerms(q.search) : null;
  if (q.search && !terms) return { products: [], total: 0, limit: q.limit, offset: q.offset };
  const { page, count } = listStatementsFor(ctx.db, {
    visibility: visibilityOf(me),
    status: q.status,
    sellerId: Boolean(q.sellerId),
    categoryId: Boolean(q.categoryId),
    minPrice: q.minPrice !== undefined,
    maxPrice: q.maxPrice !== undefined,
    search: terms === null ? 'none' : terms.leading === null ? 'prefix' : 'words',
  });
  const values = {
    me: me.id,
    sellerId: q.sellerId,
    categoryId: q.categoryId,
    minPrice: q.minPrice,
    maxPrice: q.maxPrice,
    leading: terms?.leading,
    prefix: terms?.prefix,
    limit: q.limit,
    offset: q.offset,
  };
  const answer = (rows: unknown[][], total: number) => ({
    products: rows.map((r) => rowToListItem(r, ctx.locale ?? null)),
    total,
    limit: q.limit,
    offset: q.offset,
  });

  // Inside a transaction the version may count writes that are not committed: count.
  const key = JSON.stringify([
    scopeOf(me),
    q.status,
    q.sellerId,
    q.categoryId,
    q.minPrice,
    q.maxPrice,
    terms?.leading,
    terms?.prefix,
  ]);
  const totals = ctx.inTransaction || key.length > TOTAL_KEY_MAX ? undefined : listTotals(ctx);
  if (!totals?.has(key)) {
    const [rows, [counted]] = await Promise.all([page(values), count(values)]);
    if (counted) totals?.set(key, BigInt(counted.version), counted.n);
    return answer(rows, counted?.n ?? 0);
  }
  const rows = await page(values);
  const [first] = rows;
  // A short page ends the listing: its total is known without counting.
  if ((first && rows.length < q.limit) || (!first && q.offset === 0)) {
    return answer(rows, q.offset + rows.length);
  }
  const kept = first && totals.get(key, BigInt(first[LIST_ITEM_COLUMNS] as string));
  if (kept !== undefined) return answer(rows, kept);
  const [counted] = await count(values);
  if (counted) totals.set(key, BigInt(counted.version), counted.n);
  return answer(rows, counted?.n ?? 0);
}

/** Who a listing is computed for: what they may see differs by role, and for a seller by seller. */
function scopeOf(user: AuthUser): string {
  return user.role === 'seller' ? `seller ${user.id}` : user.role;
}

/**
 * The product's detail: with its variants, its seller and its newest published reviews, in one
 * round trip; its text in `locale` when it has it (toListItem), else as written. Buyers see the
 * variants on sale; the seller and admins every one not deleted.
 */
async function loadDetail(
  ctx: RequestContext,
  id: string,
  locale: Locale | null,
): Promise<Detail | undefined> {
  if (!isRecordId('products', id)) return undefined;
  const r = await productDetailRow(ctx.db, id);
  if (!r) return undefined;
  const item = toListItem(r, locale);
  const shown = optionsIn(r, locale);
  const translatedKeywords = locale !== null && item.language === locale && locale !== r.language;
  const owner = ctx.user?.role === 'admin' || ctx.user?.id === r.sellerId;
  // Of a shop not open, nothing is on sale: its variants are shown unavailable to its seller.
  const active = r.status === 'active' && r.shopOpen;
  if (!owner && !active) return undefined;
  return {
    ...item,
    sellerName: r.sellerName,
    seller: { name: r.sellerName, rating: Number(r.sellerRating), reviewCount: r.sellerReviewCount },
    weight: r.weightKg,
    dimensions:
      r.widthCm === null || r.heightCm === null || r.depthCm === null
        ? null
        : { width: r.widthCm, height: r.heightCm, depth: r.depthCm },
    keywords: translatedKeywords ? (r.translations[locale]?.keywords ?? r.keywords) : r.keywords,
    specifications: r.specifications,
    reviews: r.reviews.map((x) => ({ ...x, dateCreated: Number(x.dateCreated) })),
    options: shown.options,
    variants: r.variants
      .filter((v) => owner || v.status === 'active')
      .map((v) => toVariant(v, r.options, active, shown.options)),
    optionsLanguage: shown.language,
    sourceLanguage: r.language,
    translations: r.translations,
    // A seller's choice of channels is theirs and the admins' to read (docs/decisions.md).
    ...(owner ? { agentChannels: r.agentChannels } : {}),
  };
}

/** Everyone sees an active product; its seller and admins see it in any state. A visitor of the storefront is anonymous. */
function canSee(user: AuthUser | undefined, p: { sellerId: string; status: string }): boolean {
  return p.status === 'active' || user?.role === 'admin' || p.sellerId === user?.id;
}

/**
 * The detail in the request's language and the options as written: the store's picker shows
 * the former and keys its choice by the latter, so an address means one variant in both languages.
 */
export async function getProductWithWrittenOptions(
  ctx: RequestContext,
  id: string,
): Promise<{ product: Detail; writtenOptions: ProductOption[] }> {
  const product = await getProduct(ctx, id);
  // Translated options only cost a second read.
  if (product.optionsLanguage === product.sourceLanguage) return { product, writtenOptions: product.options };
  return { product, writtenOptions: await writtenOptionsOf(ctx, id) };
}

async function writtenOptionsOf(ctx: RequestContext, id: string): Promise<ProductOption[]> {
  const [row] = await ctx.db.select({ options: products.options }).from(products).where(eq(products.id, id));
  return row?.options ?? [];
}

/** `locale`: the reader's (the request's by default); `null` answers the text as the seller wrote it. */
export async function getProduct(
  ctx: RequestContext,
  id: string,
  locale: Locale | null = ctx.locale ?? null,
): Promise<Detail> {
  const detail = await loadDetail(ctx, id, locale);
  if (!detail || !canSee(ctx.user, detail)) throw notFound('error.catalog.productNotFound', { id });
  return detail;
}

/**
 * A product of the caller's catalog (any, for an admin), as written (to be edited); another
 * seller's is not there for them (404).
 */
export async function getOwnProduct(ctx: RequestContext, id: string): Promise<Detail> {
  const me = caller(ctx);
  const product = await getProduct(ctx, id, null);
  if (product.sellerId !== me.id && me.role !== 'admin') {
    throw notFound('error.catalog.productNotFound', { id });
  }
  return product;
}

/** A product the caller may see (getProduct's rule): its seller and status; otherwise 404. */
export async function visibleProduct(
  ctx: RequestContext,
  id: string,
): Promise<{ id: string; sellerId: string; status: ProductStatus }> {
  const [p] = isRecordId('products', id)
    ? await ctx.db
        .select({ id: products.id, sellerId: products.sellerId, status: products.status })
        .from(products)
        .where(eq(products.id, id))
    : [];
  if (!p || !canSee(ctx.user, p)) throw notFound('error.catalog.productNotFound', { id });
  return p;
}

// ---- writes -----------------------------------------------------------------------------

type ProductInput = z.infer<typeof createProductBody>;
type ProductChange = z.infer<typeof updateProductBody>;
type VariantInput = z.infer<typeof createVariantBody>;
type VariantChange = z.infer<typeof updateVariantBody>;

/** The rules that hold between fields, checked on the product as it will be stored. */
export function checkProductRules(
  locale: Locale,
  p: { isDigital: boolean; isPerishable: boolean; weight?: number | null },
) {
  const problems: Problem[] = [];
  if (p.isDigital && p.isPerishable)
    problems.push(problem('isPerishable', 'validation.digitalNotPerishable'));
  if (!p.isDigital && !(typeof p.weight === 'number' && p.weight > 0)) {
    problems.push(problem('weight', 'validation.weightRequired'));
  }
  if (problems.length) {
    // The list is written in the reader's locale (the answer's), the details in each.
    const list = wordProblems(locale, problems)
      .map((x) => `${x.field} ${x.message}`)
      .join('; ');
    throw invalid('error.catalog.invalidProduct', { list }, problems);
  }
}

/** null (or absent) means uncategorised; any string must name a category, "" included. */
async function checkCategory(ctx: RequestContext, categoryId: string | null | undefined) {
  if (categoryId != null && !(await categoryExists(ctx, categoryId))) {
    throw invalid('error.catalog.unknownCategory', { id: categoryId || '""' }, [
      problem('categoryId', 'validation.unknownCategory'),
    ]);
  }
}

const imageList = (imageUrl: string | undefined, imageUrls: string[] | undefined) => [
  ...new Set([...(imageUrl ? [imageUrl] : []), ...(imageUrls ?? [])]),
];

export async function createProduct(ctx: RequestContext, input: ProductInput): Promise<Detail> {
  const me = caller(ctx);
  const sellerId = await owningSeller(ctx, me, input.sellerId);
  checkProductRules(ctx.locale ?? BASE_LOCALE, input);
  checkTranslations(input.language, input.translations);
  checkOptionTranslations(ctx.locale ?? BASE_LOCALE, input.options ?? [], input.translations);
  await checkCategory(ctx, input.categoryId);
  const id = newId('products');
  const options = input.options ?? [];
  const variants = variantsOfNew(input, options);
  const rows = newVariantRows(ctx, { id, sellerId, isDigital: input.isDigital, options }, variants);
  await inTransaction(ctx, async (tx) => {
    await tx.db.insert(products).values({
      ...newProductRow(ctx, { id, sellerId, input, variants: rows }),
      language: input.language,
      translations: input.translations,
      imageUrls: imageList(input.imageUrl, input.imageUrls),
      specifications: input.specifications,
    });
    await insertVariants(tx, rows);
  });
  return (await loadDetail(ctx, id, ctx.locale ?? null))!;
}

/**
 * A new product's row from a create body and its variants' rows: its price range is theirs (the
 * active ones', else all), as the trigger on product_variants would set it, so that its update is
 * a no-op; a digital product keeps no weight or size. Text in other languages, images and
 * specifications are the caller's to add.
 */
export function newProductRow(
  ctx: RequestContext,
  o: {
    id: string;
    sellerId: string;
    input: ProductInput;
    variants: Array<{ status?: string; priceCents: number }>;
  },
): typeof products.$inferInsert {
  const { input } = o;
  const active = o.variants.filter((r) => r.status !== 'inactive').map((r) => r.priceCents);
  const priced = active.length ? active : o.variants.map((r) => r.priceCents);
  const physical = !input.isDigital;
  return {
    id: o.id,
    sellerId: o.sellerId,
    categoryId: input.categoryId ?? null,
    title: input.title,
    description: input.description,
    keywords: input.keywords,
    imageUrls: [],
    priceCents: Math.min(...priced),
    priceMaxCents: Math.max(...priced),
    options: input.options ?? [],
    status: input.status,
    isDigital: input.isDigital,
    isPerishable: input.isPerishable,
    weightKg: physical ? input.weight : null,
    widthCm: physical ? (input.dimensions?.width ?? null) : null,
    heightCm: physical ? (input.dimensions?.height ?? null) : null,
    depthCm: physical ? (input.dimensions?.depth ?? null) : null,
    specifications: {},
    agentChannels: input.agentChannels,
    createdAt: ctx.now(),
    updatedAt: ctx.now(),
  };
}

/**
 * The variants a create body describes: its `variants`, or (a product sold one way) one made of
 * its `priceCents`, `stockQuantity` and `sku`. Options need variants; price and stock are then
 * each variant's, never the product's.
 */
function variantsOfNew(input: ProductInput, options: ProductOption[]) {
  if (input.variants) {
    if (input.priceCents !== undefined || input.sku !== undefined) {
      throw invalid('error.catalog.priceOnVariants', { id: 'new' }, [
        problem(input.priceCents !== undefined ? 'priceCents' : 'sku', 'validation.priceOnVariants'),
      ]);
    }
    return input.variants;
  }
  if (options.length > 0) {
    throw invalid('error.catalog.variantsForOptions', undefined, [
      problem('variants', 'validation.variantsForOptions'),
    ]);
  }
  if (input.priceCents === undefined) {
    throw invalid('error.catalog.invalidProduct', { list: 'priceCents' }, [
      problem('priceCents', 'validation.positiveCents'),
    ]);
  }
  return [
    {
      sku: input.sku,
      options: {},
      priceCents: input.priceCents,
      stockQuantity: input.stockQuantity,
      status: 'active' as const,
    },
  ];
}

/** A seller lists in their own catalog only; an admin names the seller. */
export async function owningSeller(
  ctx: RequestContext,
  me: AuthUser,
  requested: string | undefined,
): Promise<string> {
  if (me.role !== 'admin') {
    if (requested !== undefined && requested !== me.id) {
      throw forbidden('error.catalog.ownCatalogOnly');
    }
    return me.id;
  }
  if (!requested) {
    throw invalid('error.catalog.adminNamesSeller', undefined, [
      problem('sellerId', 'validation.requiredForAdmins'),
    ]);
  }
  if (!(await isSeller(ctx, requested)))
    throw invalid('error.catalog.notASeller', { id: requested }, [
      problem('sellerId', 'validation.notASeller'),
    ]);
  return requested;
}

/** The product as the caller may change it: 404 if they cannot see it, 403 if not theirs. */
async function ownProduct(ctx: RequestContext, id: string): Promise<ProductRow> {
  const me = caller(ctx);
  const [p] = isRecordId('products', id)
    ? await ctx.db.select().from(products).where(eq(products.id, id))
    : [];
  if (!p || !canSee(me, p)) throw notFound('error.catalog.productNotFound', { id });
  if (me.role !== 'admin' && p.sellerId !== me.id) {
    throw forbidden('error.catalog.notYourProduct', { id });
  }
  return p;
}

const sameOptions = (a: ProductOption[], b: ProductOption[]) =>
  a.length === b.length &&
  a.every(
    (o, n) =>
      o.name === b[n]!.name &&
      o.values.length === b[n]!.values.length &&
      o.values.every((x, k) => x === b[n]!.values[k]),
  );

const withoutTranslatedOptions = (translations: ProductTranslations): ProductTranslations =>
  Object.fromEntries(
    Object.entries(translations).map(([language, tr]) => {
      const { options: _, ...rest } = tr!;
      return [language, rest];
    }),
  );

export async function updateProduct(ctx: RequestContext, id: string, change: ProductChange): Promise<Detail> {
  const current = await ownProduct(ctx, id);
  if (current.status === 'deleted') throw conflict('error.catalog.productDeleted', { id });
  const isDigital = change.isDigital ?? current.isDigital;
  const weight = change.weight !== undefined ? change.weight : current.weightKg;
  checkProductRules(ctx.locale ?? BASE_LOCALE, {
    isDigital,
    isPerishable: change.isPerishable ?? current.isPerishable,
    weight,
  });
  // New options without new translations: the stored translated options named the old ones by
  // position, so they go (the rest of the translation stays). The same options sent again (the
  // console's variants form sends them with every stock change) keep them.
  const optionsChanged = change.options !== undefined && !sameOptions(change.options, current.options);
  const translations =
    change.translations ?? (optionsChanged ? withoutTranslatedOptions(current.translations) : undefined);
  checkTranslations(change.language ?? current.language, translations ?? current.translations);
  checkOptionTranslations(
    ctx.locale ?? BASE_LOCALE,
    change.options ?? current.options,
    translations ?? current.translations,
  );
  if (change.categoryId !== undefined) await checkCategory(ctx, change.categoryId);
  if (change.options !== undefined && change.variants === undefined) {
    throw invalid('error.catalog.variantsForOptions', undefined, [
      problem('variants', 'validation.variantsForOptions'),
    ]);
  }
  const dims = change.dimensions !== undefined ? change.dimensions : undefined;
  const images =
    change.imageUrl !== undefined || change.imageUrls !== undefined
      ? keepUploadedImages(
          current.imageUrls,
          imageList(change.imageUrl, change.imageUrls ?? (change.imageUrl ? current.imageUrls.slice(1) : [])),
        )
      : undefined;
  const product: ProductForVariants = {
    id,
    sellerId: current.sellerId,
    isDigital,
    options: change.options ?? current.options,
  };
  await inTransaction(ctx, async (tx) => {
    // The product row first, then its variants: the order every seller write takes them in.
    await lockProduct(tx, id);
    const [updated] = await tx.db
      .update(products)
      .set({
        title: change.title,
        description: change.description,
        keywords: change.keywords,
        language: change.language,
        translations,
        imageUrls: images,
        status: change.status,
        categoryId: change.categoryId,
        isDigital: change.isDigital,
        isPerishable: change.isPerishable,
        options: change.options,
        weightKg: isDigital ? null : weight,
        ...(isDigital
          ? { widthCm: null, heightCm: null, depthCm: null }
          : dims !== undefined
            ? { widthCm: dims?.width ?? null, heightCm: dims?.height ?? null, depthCm: dims?.depth ?? null }
            : {}),
        specifications: change.specifications,
        agentChannels: change.agentChannels,
        updatedAt: ctx.now(),
      })
      // The status check closes the race with a concurrent DELETE.
      .where(and(eq(products.id, id), ne(products.status, 'deleted')))
      .returning({ id: products.id });
    if (!updated) throw conflict('error.catalog.productDeleted', { id });
    // An admin changing a seller's product: which fields, not their values (a description or
    // translations could outgrow the record's 16 KB).
    await recordAdminAction(tx, {
      action: 'product.update',
      subject: id,
      before: { sellerId: current.sellerId, status: current.status },
      after: {
        fields: Object.keys(change).filter((k) => change[k as keyof ProductChange] !== undefined),
        ...(change.status !== undefined ? { status: change.status } : {}),
      },
    });
    if (change.variants !== undefined) {
      if (change.priceCents !== undefined || change.stockQuantity !== undefined || change.sku !== undefined) {
        throw invalid('error.catalog.priceOnVariants', { id }, [
          problem('priceCents', 'validation.priceOnVariants'),
        ]);
      }
      await replaceVariantSet(tx, product, change.variants);
    } else {
      await updateSingleVariant(tx, product, change);
    }
  });
  return (await loadDetail(ctx, id, ctx.locale ?? null))!;
}

/** Soft delete: the record stays (orders refer to it); only its status changes, for good. */
export async function deleteProduct(ctx: RequestContext, id: string): Promise<Detail> {
  const current = await ownProduct(ctx, id);
  await inTransaction(ctx, async (tx) => {
    await tx.db.update(products).set({ status: 'deleted', updatedAt: tx.now() }).where(eq(products.id, id));
    await recordAdminAction(tx, {
      action: 'product.delete',
      subject: id,
      before: { sellerId: current.sellerId, status: current.status },
      after: { status: 'deleted' },
    });
  });
  return (await loadDetail(ctx, id, ctx.locale ?? null))!;
}

// ---- variants -----------------------------------------------------------------------------

/** The product's variants as its detail lists them (the caller's view). */
export async function listVariants(ctx: RequestContext, productId: string) {
  return { variants: (await getProduct(ctx, productId)).variants };
}

async function ownForVariants(ctx: RequestContext, productId: string): Promise<ProductForVariants> {
  const p = await ownProduct(ctx, productId);
  if (p.status === 'deleted') throw conflict('error.catalog.productDeleted', { id: productId });
  return { id: p.id, sellerId: p.sellerId, isDigital: p.isDigital, options: p.options };
}

/** POST /products/:id/variants: the new variant, as the detail shows it. */
export async function createVariant(ctx: RequestContext, productId: string, input: VariantInput) {
  const id = await addVariant(ctx, await ownForVariants(ctx, productId), input);
  return variantOf(ctx, productId, id);
}

export async function changeVariant(
  ctx: RequestContext,
  productId: string,
  variantId: string,
  change: VariantChange,
) {
  await updateVariant(ctx, await ownForVariants(ctx, productId), variantId, change);
  return variantOf(ctx, productId, variantId);
}

export async function removeVariant(ctx: RequestContext, productId: string, variantId: string) {
  await deleteVariant(ctx, await ownForVariants(ctx, productId), variantId);
  return { deleted: true, id: variantId };
}

async function variantOf(ctx: RequestContext, productId: string, variantId: string) {
  const found = (await getProduct(ctx, productId)).variants.find((v) => v.id === variantId);
  if (!found) throw notFound('error.catalog.variantNotFound', { id: variantId });
  return found;
}

/** A product's options and its variants on sale, as the protocols' catalogs show them. */
export interface SaleVariants {
  options: ProductOption[];
  variants: Array<{
    id: string;
    sku: string;
    title: string;
    optionValues: string[];
    priceCents: number;
    compareAtPriceCents: number | null;
    imageUrl: string | null;
    barcode: string | null;
    available: boolean;
  }>;
}

/**
 * The variants on sale to agents (onSale) by product, in the seller's order: one read for a page
 * of products (a search's, a lookup's). Products with none are left out. The options' names and
 * values, and so the variants' titles, in `locale` when the product's translation there names
 * them (optionsIn), else as written.
 */
export async function saleVariantsOf(
  ctx: RequestContext,
  productIds: string[],
  locale: Locale | null = ctx.locale ?? null,
): Promise<Map<string, SaleVariants>> {
  const out = new Map<string, SaleVariants>();
  if (productIds.length === 0) return out;
  const rows = await ctx.db
    .select({
      productId: productVariants.productId,
      options: products.options,
      language: products.language,
      translations: products.translations,
      id: productVariants.id,
      sku: productVariants.sku,
      optionValues: productVariants.optionValues,
      priceCents: productVariants.priceCents,
      compareAtPriceCents: productVariants.compareAtPriceCents,
      imageUrl: productVariants.imageUrl,
      barcode: productVariants.barcode,
      free: sql<number>`greatest(${productVariants.stockQuantity} - ${productVariants.reservedQuantity}, 0)::int`,
    })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(and(inArray(productVariants.productId, productIds), onSale()))
    .orderBy(asc(productVariants.productId), asc(productVariants.position), asc(productVariants.id));
  for (const r of rows) {
    let entry = out.get(r.productId);
    if (!entry) {
      entry = { options: optionsIn(r, locale).options, variants: [] };
      out.set(r.productId, entry);
    }
    const values = shownValues(r.optionValues, r.options, entry.options);
    entry.variants.push({
      id: r.id,
      sku: r.sku,
      title: variantTitle(values),
      optionValues: values,
      priceCents: r.priceCents,
      compareAtPriceCents: r.compareAtPriceCents,
      imageUrl: r.imageUrl,
      barcode: r.barcode,
      available: r.free > 0,
    });
  }
  return out;
}

/**
 * A variant on sale to agents: active, of an active product of an open shop, the product not kept
 * out of agent channels (the query joins both). Only the protocols' catalog reads it.
 */
const onSale = () =>
  and(
    eq(productVariants.status, 'active'),
    eq(products.status, 'active'),
    eq(products.agentChannels, true),
    sql`${products.sellerId} not in (select h from portage_hidden_sellers() h)`,
  );

/**
 * The products of variants on sale to agents (onSale), by variant id: how a protocol that takes a
 * variant's id finds its product. Ids of no variant on sale are absent.
 */
export async function productsOfSaleVariants(
  ctx: RequestContext,
  variantIds: string[],
): Promise<Map<string, string>> {
  if (variantIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: productVariants.id, productId: productVariants.productId })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(and(inArray(productVariants.id, variantIds), onSale()));
  return new Map(rows.map((r) => [r.id, r.productId]));
}

/**
 * The names of variants (`title` "Product, Value / Value" and `variantTitle` the values) in
 * `locale`, for those whose product is translated there (title or options); the others are
 * absent (their names as written stand). The cart names its lines so; orders keep the name sold.
 */
export async function variantNamesIn(
  ctx: RequestContext,
  variantIds: string[],
  locale: Locale,
): Promise<Map<string, { title: string; variantTitle: string }>> {
  const names = new Map<string, { title: string; variantTitle: string }>();
  if (!variantIds.length) return names;
  const rows = await ctx.db
    .select({
      id: productVariants.id,
      optionValues: productVariants.optionValues,
      title: products.title,
      options: products.options,
      language: products.language,
      translations: products.translations,
    })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(and(inArray(productVariants.id, variantIds), ne(products.language, locale)));
  for (const r of rows) {
    const tr = r.translations[locale];
    if (!tr) continue;
    const shown = optionsIn(r, locale);
    const values = variantTitle(shownValues(r.optionValues, r.options, shown.options));
    const title = tr.title || r.title;
    names.set(r.id, { title: values ? `${title}, ${values}` : title, variantTitle: values });
  }
  return names;
}
