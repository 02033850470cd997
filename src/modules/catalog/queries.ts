// The catalog's statements that the query builder does not write, or writes once: the product
// list items by ids, the listing's page and count by shape, a product's detail. Each is built
// once; why each is named or not is said where it is built.
import { and, asc, type SQL, sql } from 'drizzle-orm';
import type { PRODUCT_STATUSES } from '../../contract/catalog.ts';
import type { Db } from '../../db/index.ts';
import { rowsOf, statement } from '../../db/sql.ts';
import { productCountVersions, products, type productVariants } from './tables.ts';
import { tsQueryOf } from './text-query.ts';

type ProductRow = typeof products.$inferSelect;

const REVIEWS_IN_DETAIL = 5;

/**
 * The columns every product answer is made of: a list item, a search result, a detail.
 * `dateCreated` is read as whole Unix seconds (`floor(extract(epoch ...))`, what `toUnix`
 * makes of the timestamp), so that no timestamp text is parsed per row.
 */
export type ListItemRow = Pick<
  ProductRow,
  | 'id'
  | 'title'
  | 'description'
  | 'priceCents'
  | 'imageUrls'
  | 'sellerId'
  | 'categoryId'
  | 'status'
  | 'isPerishable'
  | 'isDigital'
  | 'rating'
  | 'reviewCount'
  | 'priceMaxCents'
  | 'language'
  | 'translations'
> & { dateCreated: number; stockQuantity: number };

/** A product's stock: its active variants' (a checkout writes variant rows only). */
const STOCK_SQL = `(select coalesce(sum(v.stock_quantity), 0)::int from product_variants v
    where v.product_id = p.id and v.status = 'active')`;

const unixSeconds = (column: SQL | typeof products.createdAt) =>
  sql<number>`floor(extract(epoch from ${column}))::float8`;

// In the order the positional reads below (rowToListItem) take them.
const listItemColumns = {
  id: products.id,
  title: products.title,
  description: products.description,
  priceCents: products.priceCents,
  // As JSON, which the drivers parse natively: their text[] parser walks the text a character at a time.
  imageUrls: sql<string[]>`to_json(${products.imageUrls})`,
  // Qualified by hand: the query builder writes a one-table select's columns unqualified.
  stockQuantity: sql<number>`(select coalesce(sum(v.stock_quantity), 0)::int from product_variants v
    where v.product_id = "products"."id" and v.status = 'active')`,
  sellerId: products.sellerId,
  categoryId: products.categoryId,
  status: products.status,
  dateCreated: unixSeconds(products.createdAt),
  isPerishable: products.isPerishable,
  isDigital: products.isDigital,
  rating: products.rating,
  reviewCount: products.reviewCount,
  priceMaxCents: products.priceMaxCents,
  language: products.language,
  translations: products.translations,
};
export const LIST_ITEM_COLUMNS = Object.keys(listItemColumns).length;

const BY_IDS_SQL = `select id, title, description, price_cents, to_json(image_urls), ${STOCK_SQL}, seller_id, category_id,
    status, floor(extract(epoch from created_at))::float8, is_perishable, is_digital, rating, review_count, price_max_cents,
    language, translations
  from products p where id = any($1::text[])`;
const byIdsStatement = statement('product_list_items_by_ids', sql.raw(BY_IDS_SQL));

/** The products of `ids` as list-item rows (arrays in the order of listItemColumns), in no order. */
export const listItemRowsByIds = (db: Db, ids: string[]) => byIdsStatement.arrays(db, [ids]);

/** The version that a listing's total depends on: its category's, or the sum over all. */
function countVersion(categoryId: unknown): SQL<string> {
  const v = productCountVersions;
  return categoryId === undefined
    ? sql<string>`(select coalesce(sum(${v.version}), 0)::text from ${v})`
    : sql<string>`(select coalesce(max(${v.version}), 0)::text from ${v} where ${v.categoryKey} = ${categoryId})`;
}

/**
 * Which conditions a listing has. Each shape's two statements (page and count) are built
 * once, not on every request (building a query cost more than running it); at most a few
 * hundred shapes exist. They are sent unnamed, so that PostgreSQL plans them with the
 * request's values: the generic plan it may switch a named statement to (after five runs)
 * sorts all 107,000 products of a category to answer its first page (1.1 s, not 0.1 ms).
 * Statuses are written into the statement, not passed, so that the indexes kept for active
 * products only stay usable.
 */
export interface ListShape {
  /** What the caller may see: everything (an admin), active products, or those and their own (a seller). */
  visibility: 'all' | 'active' | 'activeOrOwn';
  status: (typeof PRODUCT_STATUSES)[number] | undefined;
  sellerId: boolean;
  categoryId: boolean;
  minPrice: boolean;
  maxPrice: boolean;
  search: 'none' | 'prefix' | 'words';
}

function listStatements(db: Db, shape: ListShape) {
  const ph = sql.placeholder;
  const status = (s: (typeof PRODUCT_STATUSES)[number]) => sql.raw(`'${s}'`);
  // On sale: active, of a shop that is open (portage_hidden_sellers: a few ids, hashed once).
  const onSale = sql`${products.status} = ${status('active')} and ${products.sellerId} not in (select h from portage_hidden_sellers() h)`;
  const where = and(
    shape.visibility === 'active' ? onSale : undefined,
    shape.visibility === 'activeOrOwn' ? sql`((${onSale}) or ${products.sellerId} = ${ph('me')})` : undefined,
    shape.status
      ? sql`${products.status} = ${status(shape.status)}`
      : sql`${products.status} <> ${status('deleted')}`,
    shape.sellerId ? sql`${products.sellerId} = ${ph('sellerId')}` : undefined,
    shape.categoryId ? sql`${products.categoryId} = ${ph('categoryId')}` : undefined,
    shape.minPrice ? sql`${products.priceCents} >= ${ph('minPrice')}` : undefined,
    shape.maxPrice ? sql`${products.priceCents} <= ${ph('maxPrice')}` : undefined,
    shape.search === 'none'
      ? undefined
      : sql`${products.searchDoc} @@ ${tsQueryOf(shape.search === 'words' ? ph('leading') : null, ph('prefix'))}`,
  );
  const version = countVersion(shape.categoryId ? ph('categoryId') : undefined);
  const unnamed = '';
  // Oldest first, then id: a product added while someone pages lands after their pages,
  // so pages never overlap nor skip.
  const page = db
    .select({ ...listItemColumns, version })
    .from(products)
    .where(where)
    .orderBy(asc(products.createdAt), asc(products.id))
    .limit(ph('limit'))
    .offset(ph('offset'));
  const pageStatement = statement(unnamed, page.getSQL());
  const countStatement = statement(
    unnamed,
    db.select({ n: sql<number>`count(*)::int`, version }).from(products).where(where).getSQL(),
  );
  return {
    /** The page's rows as arrays: the list item's columns, then the count version. */
    page: (values: Record<string, unknown>): Promise<unknown[][]> => pageStatement.arrays(db, values),
    /** The count and the count version, as one row. */
    async count(values: Record<string, unknown>): Promise<{ n: number; version: string | number }[]> {
      return (await countStatement.arrays(db, values)).map(([n, version]) => ({
        n: n as number,
        version: version as string | number,
      }));
    },
  };
}

type ListStatements = ReturnType<typeof listStatements>;
const statementsByDatabase = new WeakMap<Db, Map<string, ListStatements>>();

/** A listing shape's two statements, built once per database. */
export function listStatementsFor(db: Db, shape: ListShape): ListStatements {
  let byShape = statementsByDatabase.get(db);
  if (!byShape) {
    byShape = new Map();
    statementsByDatabase.set(db, byShape);
  }
  const key = `${shape.visibility} ${shape.status} ${shape.search} ${Number(shape.sellerId)}${Number(shape.categoryId)}${Number(shape.minPrice)}${Number(shape.maxPrice)}`;
  const kept = byShape.get(key);
  if (kept) return kept;
  const made = listStatements(db, shape);
  byShape.set(key, made);
  return made;
}

export interface DetailRow extends ListItemRow {
  sellerName: string;
  /** Whether the seller's shop is open (active, its account not suspended): else nothing of it is on sale. */
  shopOpen: boolean;
  /** Offered to AI agents (products.agent_channels): its seller's and admins' to read. */
  agentChannels: boolean;
  sellerRating: number;
  sellerReviewCount: number;
  weightKg: number | null;
  widthCm: number | null;
  heightCm: number | null;
  depthCm: number | null;
  keywords: string[];
  specifications: Record<string, string>;
  options: Array<{ name: string; values: string[] }>;
  variants: VariantRow[];
  reviews: Array<{
    rating: number;
    title: string;
    comment: string;
    author: string;
    dateCreated: number | string;
  }>;
}

/** A variant as the detail reads it (not deleted ones), in the seller's order. */
export interface VariantRow {
  id: string;
  sku: string;
  optionValues: string[];
  priceCents: number;
  compareAtPriceCents: number | null;
  stockQuantity: number;
  /** Stock less the units held by checkouts (lapsed holds until the job gives them back). */
  freeUnits: number;
  weightKg: number | null;
  widthCm: number | null;
  heightCm: number | null;
  depthCm: number | null;
  imageUrl: string | null;
  barcode: string | null;
  status: 'active' | 'inactive' | 'deleted';
}

const VARIANTS_SQL = `(select coalesce(json_agg(json_build_object('id', v.id, 'sku', v.sku, 'optionValues', v.option_values,
      'priceCents', v.price_cents, 'compareAtPriceCents', v.compare_at_price_cents, 'stockQuantity', v.stock_quantity,
      'freeUnits', greatest(v.stock_quantity - v.reserved_quantity, 0), 'weightKg', v.weight_kg, 'widthCm', v.width_cm,
      'heightCm', v.height_cm, 'depthCm', v.depth_cm, 'imageUrl', v.image_url, 'barcode', v.barcode, 'status', v.status)
      order by v.position, v.id), '[]'::json)
    from product_variants v where v.product_id = p.id and v.status <> 'deleted')`;

// Column names as toListItem reads them; the drivers parse timestamps, arrays and json.
const DETAIL_SQL = `select p.id, p.title, p.description, p.price_cents as "priceCents", p.image_urls as "imageUrls",
    ${STOCK_SQL} as "stockQuantity", p.price_max_cents as "priceMaxCents", p.options, ${VARIANTS_SQL} as variants, p.seller_id as "sellerId", p.category_id as "categoryId", p.status,
    floor(extract(epoch from p.created_at))::float8 as "dateCreated", p.is_perishable as "isPerishable", p.is_digital as "isDigital",
    p.rating, p.review_count as "reviewCount", p.weight_kg as "weightKg", p.width_cm as "widthCm",
    p.height_cm as "heightCm", p.depth_cm as "depthCm", p.keywords, p.specifications, p.language, p.translations,
    p.agent_channels as "agentChannels", coalesce(sp.shop_name, u.name) as "sellerName", coalesce(sp.rating, 0) as "sellerRating",
    coalesce(sp.review_count, 0) as "sellerReviewCount",
    p.seller_id not in (select h from portage_hidden_sellers() h) as "shopOpen",
    (select coalesce(json_agg(x), '[]'::json) from (
       select r.rating, r.title, r.comment, ru.name as author, floor(extract(epoch from r.created_at))::bigint as "dateCreated"
         from reviews r join users ru on ru.id = r.buyer_id
        where r.product_id = p.id and r.published
        order by r.created_at desc limit ${REVIEWS_IN_DETAIL}) x) as reviews
  from products p
  join users u on u.id = p.seller_id
  left join seller_profiles sp on sp.user_id = p.seller_id
 where p.id = $1`;
const detailStatement = statement<DetailRow>('product_detail', sql.raw(DETAIL_SQL));

/**
 * One round trip: the product, its variants, its seller and its newest published reviews. A prepared
 * statement: planning this join costs more than running it (1.3 ms against 0.2 ms).
 */
export async function productDetailRow(db: Db, id: string): Promise<DetailRow | undefined> {
  const [r] = await detailStatement(db, [id]);
  return r;
}

/**
 * Every listing's kept totals stale at once: a shop opening or closing changes who matches many
 * listings, in any category (as portage_product_count_versions does for a truncate).
 */
export async function bumpAllCountVersions(db: Db): Promise<void> {
  await rowsOf(db, sql`update ${productCountVersions} set version = version + 1`);
}

/** The sellers whose products are not on sale (portage_hidden_sellers): a few ids. */
export async function hiddenSellerIds(db: Db): Promise<Set<string>> {
  const rows = await rowsOf<{ id: string }>(db, sql`select h as id from portage_hidden_sellers() h`);
  return new Set(rows.map((r) => r.id));
}

// ---- bulk import ----------------------------------------------------------------------------

type NewProductRow = typeof products.$inferInsert;
type NewVariantRow = typeof productVariants.$inferInsert;

const PRODUCT_IMPORT_COLUMNS = [
  'id',
  'seller_id',
  'category_id',
  'title',
  'description',
  'keywords',
  'image_urls',
  'price_cents',
  'price_max_cents',
  'options',
  'status',
  'is_digital',
  'is_perishable',
  'weight_kg',
  'width_cm',
  'height_cm',
  'depth_cm',
  'specifications',
  'created_at',
  'updated_at',
] as const;

const VARIANT_IMPORT_COLUMNS = [
  'id',
  'product_id',
  'seller_id',
  'sku',
  'option_values',
  'position',
  'price_cents',
  'compare_at_price_cents',
  'stock_quantity',
  'weight_kg',
  'width_cm',
  'height_cm',
  'depth_cm',
  'image_url',
  'barcode',
  'status',
  'created_at',
  'updated_at',
] as const;

/**
 * Many rows in one statement and one parameter: the rows as a JSON array, typed by the table's
 * own row type (jsonb_populate_recordset). A multi-row VALUES of 2,000 variants is 36,000
 * parameters that the query builder checks one by one; this is one string.
 */
async function insertJsonRows(
  db: Db,
  table: 'products' | 'product_variants',
  columns: readonly string[],
  rows: object[],
) {
  const list = sql.raw(columns.join(', '));
  await rowsOf(
    db,
    sql`insert into ${sql.raw(table)} (${list})
        select ${list} from jsonb_populate_recordset(null::${sql.raw(table)}, ${JSON.stringify(rows)}::jsonb)`,
  );
}

/** New products of an import, their price range already the variants' (the trigger's update is then a no-op). */
export async function insertImportedProducts(db: Db, rows: NewProductRow[]) {
  await insertJsonRows(
    db,
    'products',
    PRODUCT_IMPORT_COLUMNS,
    rows.map((r) => ({
      id: r.id,
      seller_id: r.sellerId,
      category_id: r.categoryId ?? null,
      title: r.title,
      description: r.description ?? '',
      keywords: r.keywords ?? [],
      image_urls: r.imageUrls ?? [],
      price_cents: r.priceCents,
      price_max_cents: r.priceMaxCents,
      options: r.options ?? [],
      status: r.status ?? 'active',
      is_digital: r.isDigital ?? false,
      is_perishable: r.isPerishable ?? false,
      weight_kg: r.weightKg ?? null,
      width_cm: r.widthCm ?? null,
      height_cm: r.heightCm ?? null,
      depth_cm: r.depthCm ?? null,
      specifications: r.specifications ?? {},
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    })),
  );
}

export async function insertImportedVariants(db: Db, rows: NewVariantRow[]) {
  await insertJsonRows(
    db,
    'product_variants',
    VARIANT_IMPORT_COLUMNS,
    rows.map((r) => ({
      id: r.id,
      product_id: r.productId,
      seller_id: r.sellerId,
      sku: r.sku,
      option_values: r.optionValues ?? [],
      position: r.position ?? 0,
      price_cents: r.priceCents,
      compare_at_price_cents: r.compareAtPriceCents ?? null,
      stock_quantity: r.stockQuantity ?? 0,
      weight_kg: r.weightKg ?? null,
      width_cm: r.widthCm ?? null,
      height_cm: r.heightCm ?? null,
      depth_cm: r.depthCm ?? null,
      image_url: r.imageUrl ?? null,
      barcode: r.barcode ?? null,
      status: r.status ?? 'active',
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    })),
  );
}

/** Which of `skus` a live variant of the seller already has. */
export async function liveSkusAmong(db: Db, sellerId: string, skus: string[]): Promise<string[]> {
  const rows = await rowsOf<{ sku: string }>(
    db,
    sql`select sku from product_variants
        where seller_id = ${sellerId} and status <> 'deleted' and sku in (select jsonb_array_elements_text(${JSON.stringify(skus)}::jsonb))`,
  );
  return rows.map((r) => r.sku);
}
