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
