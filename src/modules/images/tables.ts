import { sql } from 'drizzle-orm';
import { check, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
