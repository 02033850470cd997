-- Dropping the column dropped its index: it is made again below.
ALTER TABLE "products" drop column "search_doc";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search_doc" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', portage_join_words(keywords)), 'B') || setweight(to_tsvector('english', description), 'C') || setweight(to_tsvector('simple', title || ' ' || portage_join_words(keywords)), 'D')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search_doc") WHERE "products"."status" = 'active';
