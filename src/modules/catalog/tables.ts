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
} from 'drizzle-orm/pg-core';
import {
  type CategoryTranslations,
  CONTENT_LANGUAGES,
  type ContentLanguage,
  PRODUCT_STATUSES,
  type ProductTranslations,
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
    priceCents: integer('price_cents').notNull(),
    stockQuantity: integer('stock_quantity').notNull().default(0),
    // Units held by unreleased checkout reservations; kept by the inventory module, which
    // alone writes it, in the same statement as the reservation rows
    // (docs/decisions.md "Checkout and holds").
    reservedQuantity: integer('reserved_quantity').notNull().default(0),
    status: text('status', { enum: PRODUCT_STATUSES }).notNull().default('active'),
    isDigital: boolean('is_digital').notNull().default(false),
    isPerishable: boolean('is_perishable').notNull().default(false),
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
    check('products_stock_non_negative', sql`${t.stockQuantity} >= 0`),
    check('products_reserved_non_negative', sql`${t.reservedQuantity} >= 0`),
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
