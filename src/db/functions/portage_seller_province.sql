-- The province a seller ships from (no row for a seller without a shop, made outside the API).
-- The auth module's tables, read by others inside one statement through this function:
-- portage_sale_product (the catalog's sale view of a product).
-- LANGUAGE sql, STABLE, not STRICT, a set: PostgreSQL inlines it in the caller's FROM like a view.
CREATE OR REPLACE FUNCTION portage_seller_province(seller_id text) RETURNS SETOF text
  LANGUAGE sql STABLE AS $$
  SELECT sp.province FROM seller_profiles sp WHERE sp.user_id = seller_id
$$;
