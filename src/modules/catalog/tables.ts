import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  type CategoryTranslations,
  CONTENT_LANGUAGES,
  type ContentLanguage,
  PRODUCT_STATUSES,
  type ProductOption,
  type ProductTranslations,
  VARIANT_STATUSES,
} from '../../contract/catalog.ts';
import { users } from '../auth/tables.ts';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const categories = pgTable(
  'categories',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    parentId: text('parent_id').references((): never => categories.id as never),
    // The language `name` is written in; `translations` holds the other one's (docs/api.md "Languages").
    language: text('language').$type<ContentLanguage>().notNull().default('en-CA'),
    translations: jsonb('translations').$type<CategoryTranslations>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('categories_parent_idx').on(t.parentId),
    check(
      'categories_language_check',
      sql`${t.language} in (${sql.raw(CONTENT_LANGUAGES.map((l) => `'${l}'`).join(', '))})`,
    ),
  ],
);

export const products = pgTable(
  'products',
  {
    id: text('id').primaryKey(),
    sellerId: text('seller_id')
      .notNull()
      .references(() => users.id),
    categoryId: text('category_id').references(() => categories.id),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    keywords: text('keywords').array().notNull().default(sql`'{}'::text[]`),
    // The language title, description and keywords are written in; `translations` holds the
    // other one's, optional (docs/api.md "Languages"). Both are in the search document.
    language: text('language').$type<ContentLanguage>().notNull().default('en-CA'),
    translations: jsonb('translations').$type<ProductTranslations>().notNull().default({}),
    imageUrls: text('image_urls').array().notNull().default(sql`'{}'::text[]`),
    // The lowest and highest price of the product's active variants: kept by a trigger on
    // product_variants (migration 0037), so that listings, search and sorting by price read one
    // row per product. Stock is the variants' alone (a checkout never writes a product row).
    priceCents: integer('price_cents').notNull(),
    priceMaxCents: integer('price_max_cents').notNull(),
    /** Up to 3 options (name and ordered values); [] for a product sold one way. */
    options: jsonb('options').$type<ProductOption[]>().notNull().default([]),
    status: text('status', { enum: PRODUCT_STATUSES }).notNull().default('active'),
    isDigital: boolean('is_digital').notNull().default(false),
    isPerishable: boolean('is_perishable').notNull().default(false),
    // False: kept out of the agent channels (the product feeds, UCP's catalog, ACP and UCP
    // checkouts) by its seller or an admin; the store and the API still sell it.
    agentChannels: boolean('agent_channels').notNull().default(true),
    weightKg: doublePrecision('weight_kg'),
    widthCm: doublePrecision('width_cm'),
    heightCm: doublePrecision('height_cm'),
    depthCm: doublePrecision('depth_cm'),
    specifications: jsonb('specifications').$type<Record<string, string>>().notNull().default({}),
    // Review aggregates, kept by a trigger on reviews (published reviews only).
    reviewCount: integer('review_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    rating: real('rating').notNull().default(0),
    // Units sold in the last 30 days ("popular" sort); kept by the orders module.
    unitsSold30d: integer('units_sold_30d').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    // When a column the search index reads last changed, by the database's clock (a trigger
    // sets it, migration 0016): search indexes follow the catalog by reading what changed since
    // they last looked. Stock and reservations do not set it (the index reads neither).
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
    // Title weighs most, then keywords, then description, stemmed in their language (English or
    // French, the translation's in its own), accents folded; title and keyword words are also
    // kept as written, folded (weight D) so that a prefix of a word as typed
    // matches even where the stem is shorter ("runn" -> "running", stem "run"). Computed by a
    // trigger when the text changes (migration 0016), not as a generated column: PostgreSQL
    // recomputes those at every update, a checkout's stock changes included.
    searchDoc: tsvector('search_doc').notNull().default(sql`''::tsvector`),
  },
  (t) => [
    check('products_price_positive', sql`${t.priceCents} > 0`),
    check('products_price_range', sql`${t.priceMaxCents} >= ${t.priceCents}`),
    check(
      'products_status_check',
      sql`${t.status} in (${sql.raw(PRODUCT_STATUSES.map((s) => `'${s}'`).join(', '))})`,
    ),
    check(
      'products_language_check',
      sql`${t.language} in (${sql.raw(CONTENT_LANGUAGES.map((l) => `'${l}'`).join(', '))})`,
    ),
    check('products_not_digital_and_perishable', sql`not (${t.isDigital} and ${t.isPerishable})`),
    index('products_seller_idx').on(t.sellerId, t.createdAt, t.id),
    index('products_active_created_idx').on(t.createdAt, t.id).where(sql`${t.status} = 'active'`),
    // GET /products of a category, oldest first: a page reads its 20 rows and no others.
    index('products_active_category_created_idx')
      .on(t.categoryId, t.createdAt, t.id)
      .where(sql`${t.status} = 'active'`),
    index('products_active_category_price_idx')
      .on(t.categoryId, t.priceCents)
      .where(sql`${t.status} = 'active'`),
    index('products_active_price_idx').on(t.priceCents).where(sql`${t.status} = 'active'`),
    index('products_changed_idx').on(t.changedAt),
    index('products_search_idx').using('gin', t.searchDoc).where(sql`${t.status} = 'active'`),
  ],
);

/**
 * How many times the products of each category (`''`: uncategorised) changed in a way that
 * can change a listing's total: a product added, removed, or its status, seller, category,
 * price or text changed. Statement triggers on products keep it, in the same transaction
 * as the change (migration 0007). Two reads that see the same version of a category (of the
 * sum over all categories, for a listing of every category) see the same matching products,
 * so GET /products may answer a total it counted under that version (docs/api.md "Catalog").
 */
export const productCountVersions = pgTable('product_count_versions', {
  categoryKey: text('category_key').primaryKey(),
  version: bigint('version', { mode: 'bigint' }).notNull().default(sql`0`),
});

/**
 * What is sold: a product's variants, each with its SKU (unique per seller), its option values
 * (one per product option, in the options' order), price, stock and parcel. A product without
 * options has exactly one, whose id is the product's own: every id a cart, a hold, an order or a
 * platform held before variants existed still names what it named (docs/decisions.md, issue 40).
 */
export const productVariants = pgTable(
  'product_variants',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id),
    sellerId: text('seller_id').notNull(),
    sku: text('sku').notNull(),
    optionValues: text('option_values').array().notNull().default(sql`'{}'::text[]`),
    position: integer('position').notNull().default(0),
    priceCents: integer('price_cents').notNull(),
    compareAtPriceCents: integer('compare_at_price_cents'),
    stockQuantity: integer('stock_quantity').notNull().default(0),
    // Units held by unreleased checkout reservations; kept by the inventory module, which
    // alone writes it, in the same statement as the reservation rows
    // (docs/decisions.md "Checkout and holds").
    reservedQuantity: integer('reserved_quantity').notNull().default(0),
    /** null: the product's. */
    weightKg: doublePrecision('weight_kg'),
    widthCm: doublePrecision('width_cm'),
    heightCm: doublePrecision('height_cm'),
    depthCm: doublePrecision('depth_cm'),
    imageUrl: text('image_url'),
    barcode: text('barcode'),
    status: text('status', { enum: VARIANT_STATUSES }).notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    // When what search reads of the variant last changed (price, status, option values, whether
    // units are free), by the database's clock: a trigger sets it (portage_variant_changed,
    // migration 0041), so that the search index sees a sell-out without a checkout writing the
    // product row. Other stock moves leave it (and the index) alone.
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [
    check('product_variants_price_positive', sql`${t.priceCents} > 0`),
    check(
      'product_variants_compare_at_above_price',
      sql`${t.compareAtPriceCents} is null or ${t.compareAtPriceCents} > ${t.priceCents}`,
    ),
    check('product_variants_stock_non_negative', sql`${t.stockQuantity} >= 0`),
    check('product_variants_reserved_non_negative', sql`${t.reservedQuantity} >= 0`),
    check(
      'product_variants_status_check',
      sql`${t.status} in (${sql.raw(VARIANT_STATUSES.map((s) => `'${s}'`).join(', '))})`,
    ),
    check(
      'product_variants_bounded',
      sql`length(${t.sku}) between 1 and 64 and cardinality(${t.optionValues}) <= 3
        and coalesce(length(${t.barcode}), 0) <= 14 and coalesce(length(${t.imageUrl}), 0) <= 2048`,
    ),
    // A deleted variant's SKU may be given again (its orders keep their own copy of it).
    uniqueIndex('product_variants_seller_sku').on(t.sellerId, t.sku).where(sql`${t.status} <> 'deleted'`),
    index('product_variants_product_idx').on(t.productId, t.position),
    index('product_variants_changed_idx').on(t.changedAt),
    // What a row naming a variant of its product refers to (product_images' variant link).
    unique('product_variants_id_product').on(t.id, t.productId),
  ],
);
