-- Written by `npm run db:functions -- portage_variant_totals` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- Keeps a product's price range (products.price_cents, price_max_cents) equal to its active
-- variants' lowest and highest price; a product with no active variant keeps its last prices.
-- Listings, search and sorting by price read one row per product. Runs from three triggers on
-- product_variants: product_variants_totals_insert (AFTER INSERT, each statement, new_rows) and
-- product_variants_totals_delete (AFTER DELETE, each statement, old_rows), so a multi-row insert
-- (a CSV import's batch) reads its products' prices once; and product_variants_totals (AFTER
-- UPDATE OF price_cents, status, product_id, each row), kept per row because transition tables
-- refuse a column list: a checkout changes stock and holds only and does not run it, so it never
-- writes a product row.
CREATE OR REPLACE FUNCTION portage_variant_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'ROW' THEN
    UPDATE products p SET price_cents = t.lo, price_max_cents = t.hi
    FROM (SELECT min(v.price_cents) AS lo, max(v.price_cents) AS hi
          FROM product_variants v WHERE v.product_id = NEW.product_id AND v.status = 'active') t
    WHERE p.id = NEW.product_id AND t.lo IS NOT NULL
      AND (p.price_cents, p.price_max_cents) IS DISTINCT FROM (t.lo, t.hi);
  ELSIF TG_OP = 'INSERT' THEN
    UPDATE products p SET price_cents = t.lo, price_max_cents = t.hi
    FROM (SELECT v.product_id, min(v.price_cents) AS lo, max(v.price_cents) AS hi
          FROM product_variants v
          WHERE v.product_id IN (SELECT DISTINCT product_id FROM new_rows) AND v.status = 'active'
          GROUP BY v.product_id) t
    WHERE p.id = t.product_id
      AND (p.price_cents, p.price_max_cents) IS DISTINCT FROM (t.lo, t.hi);
  ELSE
    UPDATE products p SET price_cents = t.lo, price_max_cents = t.hi
    FROM (SELECT v.product_id, min(v.price_cents) AS lo, max(v.price_cents) AS hi
          FROM product_variants v
          WHERE v.product_id IN (SELECT DISTINCT product_id FROM old_rows) AND v.status = 'active'
          GROUP BY v.product_id) t
    WHERE p.id = t.product_id
      AND (p.price_cents, p.price_max_cents) IS DISTINCT FROM (t.lo, t.hi);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Insert and delete once per statement (a batch of variants reads its products' prices once);
-- one trigger per event, as transition tables require. Update stays per row, on its columns.
DROP TRIGGER product_variants_totals ON product_variants;--> statement-breakpoint
CREATE TRIGGER product_variants_totals AFTER UPDATE OF price_cents, status, product_id
  ON product_variants FOR EACH ROW EXECUTE FUNCTION portage_variant_totals();--> statement-breakpoint
CREATE TRIGGER product_variants_totals_insert AFTER INSERT ON product_variants
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION portage_variant_totals();--> statement-breakpoint
CREATE TRIGGER product_variants_totals_delete AFTER DELETE ON product_variants
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION portage_variant_totals();
