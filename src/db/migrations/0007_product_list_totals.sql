CREATE TABLE "product_count_versions" (
	"category_key" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "products_active_category_created_idx" ON "products" USING btree ("category_id","created_at","id") WHERE "products"."status" = 'active';--> statement-breakpoint
-- GET /products keeps the totals it counted under a category's version; every change that
-- can change a listing's total bumps the version of the categories it touches, in the same
-- transaction (README "Catalog"). Statement triggers: a batch of 5,000 inserted rows bumps
-- each category once. Versions are bumped in category order, so two statements never wait
-- on each other in a cycle.
CREATE OR REPLACE FUNCTION portage_product_count_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO product_count_versions AS v (category_key, version)
      SELECT DISTINCT coalesce(category_id, ''), 1 FROM new_rows ORDER BY 1
      ON CONFLICT (category_key) DO UPDATE SET version = v.version + 1;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO product_count_versions AS v (category_key, version)
      SELECT DISTINCT coalesce(category_id, ''), 1 FROM old_rows ORDER BY 1
      ON CONFLICT (category_key) DO UPDATE SET version = v.version + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Stock, ratings and units sold change often and never change who matches a listing.
    INSERT INTO product_count_versions AS v (category_key, version)
      SELECT DISTINCT unnest(ARRAY[coalesce(o.category_id, ''), coalesce(n.category_id, '')]), 1
        FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE (o.status, o.seller_id, o.category_id, o.price_cents, o.search_doc)
             IS DISTINCT FROM (n.status, n.seller_id, n.category_id, n.price_cents, n.search_doc)
       ORDER BY 1
      ON CONFLICT (category_key) DO UPDATE SET version = v.version + 1;
  ELSE
    UPDATE product_count_versions SET version = version + 1;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER products_count_version_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portage_product_count_versions();
--> statement-breakpoint
CREATE TRIGGER products_count_version_update AFTER UPDATE ON products
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portage_product_count_versions();
--> statement-breakpoint
CREATE TRIGGER products_count_version_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portage_product_count_versions();
--> statement-breakpoint
CREATE TRIGGER products_count_version_truncate AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION portage_product_count_versions();
