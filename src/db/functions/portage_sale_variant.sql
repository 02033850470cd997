-- A variant on sale (it and its product active, its shop open: portage_hidden_sellers) as the JSON object of the catalog's SaleProduct:
-- `id` the variant's, `productId` its product's, `title` the name it is sold under ("Canoe
-- paddle, Cedar / 150 cm"; the product's title alone for a product sold one way), its own price
-- and image before the product's, its weight and dimensions or else the product's (sellerProvince
-- null for a seller without a shop), its seller's shipping profile (`shipping`, null for none)
-- and automatic discount (`shopDiscount`, null for none); no row for a variant not on sale or gone. The catalog's tables, read by
-- others inside one statement through this function: the cart's lines (cart/queries.ts) and the
-- lines a platform gives (checkout/queries.ts), which checkout and the cart's estimate price.
-- LANGUAGE sql, STABLE, not STRICT, a set: PostgreSQL inlines it in the caller's FROM like a view.
CREATE OR REPLACE FUNCTION portage_sale_variant(variant_id text) RETURNS SETOF json
  LANGUAGE sql STABLE AS $$
  SELECT json_build_object('id', v.id, 'productId', p.id,
    'title', CASE WHEN cardinality(v.option_values) = 0 THEN p.title
      ELSE p.title || ', ' || array_to_string(v.option_values, ' / ') END,
    'variantTitle', array_to_string(v.option_values, ' / '), 'sku', v.sku,
    'priceCents', v.price_cents,
    'imageUrls', CASE WHEN v.image_url IS NULL THEN p.image_urls
      ELSE array_prepend(v.image_url, array_remove(p.image_urls, v.image_url)) END,
    'isDigital', p.is_digital, 'isPerishable', p.is_perishable,
    'weightKg', coalesce(v.weight_kg, p.weight_kg),
    'dimensionsCm', CASE WHEN v.width_cm IS NOT NULL AND v.height_cm IS NOT NULL AND v.depth_cm IS NOT NULL
        THEN json_build_array(v.width_cm, v.height_cm, v.depth_cm)
      WHEN p.width_cm IS NOT NULL AND p.height_cm IS NOT NULL AND p.depth_cm IS NOT NULL
        THEN json_build_array(p.width_cm, p.height_cm, p.depth_cm) END,
    'sellerId', p.seller_id, 'sellerProvince', sp.province,
    'shipping', (SELECT json_build_object('originPostalCode', s.origin_postal_code,
        'originProvince', s.origin_province, 'handlingDays', s.handling_days, 'rates', s.rates,
        'services', s.services, 'flatCents', s.flat_cents, 'freeOverCents', s.free_over_cents,
        'parcel', json_build_object('lengthCm', s.parcel_length_cm, 'widthCm', s.parcel_width_cm,
          'heightCm', s.parcel_height_cm, 'weightKg', s.parcel_weight_kg))
      FROM seller_shipping s WHERE s.seller_id = p.seller_id),
    'shopDiscount', (SELECT json_build_object('percent', d.percent,
        'minSubtotalCents', d.min_subtotal_cents, 'startsOn', d.starts_on, 'endsOn', d.ends_on)
      FROM shop_discounts d WHERE d.seller_id = p.seller_id))
  FROM product_variants v
    JOIN products p ON p.id = v.product_id
    LEFT JOIN LATERAL portage_seller_province(p.seller_id) AS sp(province) ON true
  WHERE v.id = variant_id AND v.status = 'active' AND p.status = 'active'
    AND p.seller_id NOT IN (SELECT h FROM portage_hidden_sellers() h)
$$;
