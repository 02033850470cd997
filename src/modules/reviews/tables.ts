import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { users } from '../auth/tables.ts';
import { products } from '../catalog/tables.ts';

export const reviews = pgTable(
  'reviews',
  {
    id: text('id').primaryKey(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id),
    buyerId: text('buyer_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orderId: text('order_id'),
    rating: smallint('rating').notNull(),
    title: text('title').notNull().default(''),
    comment: text('comment').notNull().default(''),
    verifiedPurchase: boolean('verified_purchase').notNull().default(false),
    published: boolean('published').notNull().default(true),
    /** Set when an admin refused the review: it stays unpublished, and still counts as the buyer's one review. */
    rejectedAt: timestamp('rejected_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('reviews_rating_range', sql`${t.rating} between 1 and 5`),
    unique('reviews_one_per_buyer_product').on(t.productId, t.buyerId),
    index('reviews_product_published_idx').on(t.productId, t.createdAt).where(sql`${t.published}`),
    check('reviews_rejected_unpublished', sql`not (${t.published} and ${t.rejectedAt} is not null)`),
    // The admin's lists, newest first; the moderation queue (and its count) from a small index.
    index('reviews_created_idx').on(t.createdAt, t.id),
    // A buyer's reviews, newest first (the desk's page of a user).
    index('reviews_buyer_created_idx').on(t.buyerId, t.createdAt, t.id),
    index('reviews_unpublished_idx').on(t.createdAt, t.id).where(sql`not ${t.published}`),
  ],
);
