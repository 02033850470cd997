-- The sellers whose products are not on sale whatever their status: their shop is pending approval
-- or suspended, or their account is suspended
-- (docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)"). A few rows, read
-- through two partial indexes. Every lookup of what is on sale reads it: the search index's
-- refresh (search/queries.ts), the catalog's listings and details for buyers (catalog/queries.ts,
-- catalog/service.ts), portage_sale_variant (the cart's and checkout's lines) and the stock's
-- claims (inventory/queries.ts). LANGUAGE sql, STABLE, a set: PostgreSQL inlines it where it is
-- called in a FROM (`not in (select h from portage_hidden_sellers() h)`), not in a select list.
CREATE OR REPLACE FUNCTION portage_hidden_sellers() RETURNS SETOF text
  LANGUAGE sql STABLE AS $$
  SELECT user_id FROM seller_profiles WHERE status <> 'active'
  UNION ALL
  SELECT id FROM users WHERE suspended_at IS NOT NULL
$$;
