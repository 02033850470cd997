-- Sets product_variants.changed_at, which the search index sync and the agent feeds read, when
-- what they read of a variant changes: its product, price, status, option values, whether it has
-- free units (stock_quantity - reserved_quantity > 0), and for the feeds its SKU, compare-at
-- price, barcode and picture. Other stock and hold moves leave it, so most
-- checkouts change nothing the index reads. Runs from trigger product_variants_changed
-- (BEFORE INSERT OR UPDATE ON product_variants, each row).
CREATE OR REPLACE FUNCTION portage_variant_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.changed_at := clock_timestamp();
  ELSIF (NEW.product_id, NEW.price_cents, NEW.status, NEW.option_values,
         NEW.stock_quantity - NEW.reserved_quantity > 0,
         NEW.sku, NEW.compare_at_price_cents, NEW.barcode, NEW.image_url)
        IS DISTINCT FROM
        (OLD.product_id, OLD.price_cents, OLD.status, OLD.option_values,
         OLD.stock_quantity - OLD.reserved_quantity > 0,
         OLD.sku, OLD.compare_at_price_cents, OLD.barcode, OLD.image_url)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
