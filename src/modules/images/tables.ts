import { sql } from 'drizzle-orm';
import {
  check,
  customType,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { products, productVariants } from '../catalog/tables.ts';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * Images the service serves itself at /images/:name (the sample shop's, made by `portage seed`).
 * A name carries a hash of its content, so an image never changes under its name.
 */
export const images = pgTable(
  'images',
  {
    name: text('name').primaryKey(),
    contentType: text('content_type').notNull(),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('images_name_check', sql`${t.name} ~ '^[a-z0-9-]{1,100}[.]svg$'`),
    check('images_content_type_check', sql`${t.contentType} = 'image/svg+xml'`),
    check('images_body_length', sql`octet_length(${t.body}) <= 65536`),
  ],
);

/** One stored file of an uploaded image: a width it was resized to, under its content-hashed name. */
export interface ImageFile {
  width: number;
  height: number;
  name: string;
  contentType: 'image/webp' | 'image/jpeg';
}

/**
 * A product's gallery: the images its seller uploaded, in `position` order (0 first). The files
 * themselves are in the image store (data directory, database or bucket: store.ts).
 */
export const productImages = pgTable(
  'product_images',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id),
    // The variant of this product it shows, if any (the key below holds it to this product's).
    variantId: text('variant_id'),
    position: integer('position').notNull(),
    altEn: text('alt_en').notNull().default(''),
    altFr: text('alt_fr').notNull().default(''),
    // The uploaded original's size, after orientation.
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    files: jsonb('files').$type<ImageFile[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('product_images_product_idx').on(t.productId, t.position),
    foreignKey({
      name: 'product_images_variant_fk',
      columns: [t.variantId, t.productId],
      foreignColumns: [productVariants.id, productVariants.productId],
    }),
    check(
      'product_images_bounded',
      sql`length(${t.altEn}) <= 300 and length(${t.altFr}) <= 300 and coalesce(length(${t.variantId}), 0) <= 100 and ${t.position} >= 0`,
    ),
  ],
);

/** The image store's files when it is the database (PostgreSQL without a bucket). */
export const imageBlobs = pgTable(
  'image_blobs',
  {
    name: text('name').primaryKey(),
    contentType: text('content_type').notNull(),
    body: bytea('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('image_blobs_name_check', sql`${t.name} ~ '^[0-9a-f]{16}-[0-9]{1,5}[.](webp|jpg)$'`)],
);
