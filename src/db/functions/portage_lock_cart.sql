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
