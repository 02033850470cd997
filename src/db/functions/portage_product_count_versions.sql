-- Bumps the product_count_versions of each category a statement on products touches, in category
-- order, so GET /products knows when the listing totals it kept are stale (docs/api.md "Catalog").
-- Runs from triggers products_count_version_insert, _update, _delete, _truncate (AFTER … ON products, each statement).
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
