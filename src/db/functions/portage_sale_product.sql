-- A product on sale (active) as the JSON object of the catalog's SaleProduct (sellerProvince
-- null for a seller without a shop); no row for a product not on sale or gone. The catalog's
-- table, read by others inside one statement through this function: the cart's lines
-- (cart/service.ts cartLines), which checkout and the cart's estimate price.
-- LANGUAGE sql, STABLE, not STRICT, a set: PostgreSQL inlines it in the caller's FROM like a view.
CREATE OR REPLACE FUNCTION portage_sale_product(product_id text) RETURNS SETOF json
  LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', p.id, 'title', p.title, 'priceCents', p.price_cents,
    'imageUrls', p.image_urls, 'isDigital', p.is_digital, 'isPerishable', p.is_perishable,
    'weightKg', p.weight_kg, 'sellerId', p.seller_id, 'sellerProvince', sp.province)
  FROM products p
    LEFT JOIN LATERAL portage_seller_province(p.seller_id) AS sp(province) ON true
  WHERE p.id = product_id AND p.status = 'active'
$$;
