ALTER TABLE "product_variants" ADD COLUMN "changed_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL;--> statement-breakpoint
CREATE INDEX "product_variants_changed_idx" ON "product_variants" USING btree ("changed_at");--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.category_id, NEW.seller_id, NEW.price_cents, NEW.is_digital, NEW.is_perishable,
      NEW.rating, NEW.units_sold_30d, NEW.created_at, NEW.status, NEW.title, NEW.keywords, NEW.description,
      NEW.language, NEW.translations, NEW.options)
     IS DISTINCT FROM
     (OLD.id, OLD.category_id, OLD.seller_id, OLD.price_cents, OLD.is_digital, OLD.is_perishable,
      OLD.rating, OLD.units_sold_30d, OLD.created_at, OLD.status, OLD.title, OLD.keywords, OLD.description,
      OLD.language, OLD.translations, OLD.options)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TRIGGER product_variants_changed BEFORE INSERT OR UPDATE ON product_variants FOR EACH ROW EXECUTE FUNCTION portage_variant_changed();
