-- Keeps a product's price range (products.price_cents, price_max_cents) equal to its active
-- variants' lowest and highest price; a product with no active variant keeps its last prices.
-- Listings, search and sorting by price read one row per product. Runs from trigger
-- product_variants_totals (AFTER INSERT OR DELETE OR UPDATE OF price_cents, status, product_id
-- ON product_variants, each row): a checkout changes stock and holds only and does not run it,
-- so it never writes a product row.
CREATE OR REPLACE FUNCTION portage_variant_totals() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid text := CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
BEGIN
  UPDATE products p SET price_cents = t.lo, price_max_cents = t.hi
  FROM (SELECT min(v.price_cents) AS lo, max(v.price_cents) AS hi
        FROM product_variants v WHERE v.product_id = pid AND v.status = 'active') t
  WHERE p.id = pid AND t.lo IS NOT NULL
    AND (p.price_cents, p.price_max_cents) IS DISTINCT FROM (t.lo, t.hi);
  RETURN NULL;
END $$;
