-- Written by `npm run db:functions -- portage_seller_province portage_sale_product portage_mail_names portage_lock_cart` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- The province a seller ships from (no row for a seller without a shop, made outside the API).
-- The auth module's tables, read by others inside one statement through this function:
-- portage_sale_product (the catalog's sale view of a product).
-- LANGUAGE sql, STABLE, not STRICT, a set: PostgreSQL inlines it in the caller's FROM like a view.
CREATE OR REPLACE FUNCTION portage_seller_province(seller_id text) RETURNS SETOF text
  LANGUAGE sql STABLE AS $$
  SELECT sp.province FROM seller_profiles sp WHERE sp.user_id = seller_id
$$;
--> statement-breakpoint
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
--> statement-breakpoint
-- What an order email of a paid checkout needs of people, as the JSON of the auth module's
-- MailNames: the buyer's email and name (null when the account is gone) and each seller's shop
-- name (its account name without a shop). The auth module's tables, read by others inside one
-- statement through this function: checkout/service.ts sessionByIdLocked (a paid checkout's
-- session, read anyway). LANGUAGE sql, STABLE, not STRICT, a set: inlined in the caller's FROM.
CREATE OR REPLACE FUNCTION portage_mail_names(buyer_id text, seller_ids text[]) RETURNS SETOF json
  LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'buyer', (SELECT json_build_object('email', u.email, 'name', u.name) FROM users u WHERE u.id = buyer_id),
    'shops', (SELECT coalesce(json_object_agg(u.id, coalesce(sp.shop_name, u.name)), '{}'::json)
      FROM users u LEFT JOIN seller_profiles sp ON sp.user_id = u.id WHERE u.id = ANY (seller_ids)))
$$;
--> statement-breakpoint
-- Locks the cart row of a buyer for the rest of the transaction (making an empty cart, dated made_at, if there
-- is none), leaving its updated_at. The cart module's table, locked by others inside one
-- statement through this function: checkout/service.ts lockCartOfCheckout (a payment turning
-- into orders locks its buyer's cart before the checkout, knowing only the checkout's id).
-- PL/pgSQL: its plan is kept for the connection (a LANGUAGE sql function is planned per call).
CREATE OR REPLACE FUNCTION portage_lock_cart(buyer_id text, made_at timestamptz) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO carts (user_id, updated_at) VALUES (buyer_id, made_at)
  ON CONFLICT (user_id) DO UPDATE SET updated_at = carts.updated_at;
END
$$;
