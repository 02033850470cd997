-- Written by `npm run db:functions -- portage_products_changed portage_variant_changed` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- Sets products.changed_at, which the search index sync and the agent feeds read, only when a
-- column one of them reads changes (COLUMNS in src/modules/search/queries.ts and FEED_COLUMNS in
-- src/modules/feeds/queries.ts: keep them in step; the option names among them); stock lives on
-- the variants (portage_variant_changed).
-- Runs from trigger products_changed (BEFORE UPDATE ON products, each row).
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.category_id, NEW.seller_id, NEW.price_cents, NEW.is_digital, NEW.is_perishable,
      NEW.rating, NEW.units_sold_30d, NEW.created_at, NEW.status, NEW.title, NEW.keywords, NEW.description,
      NEW.language, NEW.translations, NEW.options, NEW.image_urls, NEW.agent_channels)
     IS DISTINCT FROM
     (OLD.id, OLD.category_id, OLD.seller_id, OLD.price_cents, OLD.is_digital, OLD.is_perishable,
      OLD.rating, OLD.units_sold_30d, OLD.created_at, OLD.status, OLD.title, OLD.keywords, OLD.description,
      OLD.language, OLD.translations, OLD.options, OLD.image_urls, OLD.agent_channels)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
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
