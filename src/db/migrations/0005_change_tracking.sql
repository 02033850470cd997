ALTER TABLE "products" ADD COLUMN "changed_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL;--> statement-breakpoint
CREATE INDEX "products_changed_idx" ON "products" USING btree ("changed_at");--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.changed_at := clock_timestamp();
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER products_changed BEFORE UPDATE ON products
  FOR EACH ROW EXECUTE FUNCTION portage_products_changed();
