-- Sets product_variants.changed_at, which the search index sync reads, when what search reads of
-- a variant changes: its product, price, status, option values, or whether it has free units
-- (stock_quantity - reserved_quantity > 0). Other stock and hold moves leave it, so most
-- checkouts change nothing the index reads. Runs from trigger product_variants_changed
-- (BEFORE INSERT OR UPDATE ON product_variants, each row).
CREATE OR REPLACE FUNCTION portage_variant_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.changed_at := clock_timestamp();
  ELSIF (NEW.product_id, NEW.price_cents, NEW.status, NEW.option_values,
         NEW.stock_quantity - NEW.reserved_quantity > 0)
        IS DISTINCT FROM
        (OLD.product_id, OLD.price_cents, OLD.status, OLD.option_values,
         OLD.stock_quantity - OLD.reserved_quantity > 0)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
