CREATE TABLE "product_variants" (
	"id" text PRIMARY KEY NOT NULL,
	"product_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"sku" text NOT NULL,
	"option_values" text[] DEFAULT '{}'::text[] NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"price_cents" integer NOT NULL,
	"compare_at_price_cents" integer,
	"stock_quantity" integer DEFAULT 0 NOT NULL,
	"reserved_quantity" integer DEFAULT 0 NOT NULL,
	"weight_kg" double precision,
	"width_cm" double precision,
	"height_cm" double precision,
	"depth_cm" double precision,
	"image_url" text,
	"barcode" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_variants_price_positive" CHECK ("product_variants"."price_cents" > 0),
	CONSTRAINT "product_variants_compare_at_above_price" CHECK ("product_variants"."compare_at_price_cents" is null or "product_variants"."compare_at_price_cents" > "product_variants"."price_cents"),
	CONSTRAINT "product_variants_stock_non_negative" CHECK ("product_variants"."stock_quantity" >= 0),
	CONSTRAINT "product_variants_reserved_non_negative" CHECK ("product_variants"."reserved_quantity" >= 0),
	CONSTRAINT "product_variants_status_check" CHECK ("product_variants"."status" in ('active', 'inactive', 'deleted')),
	CONSTRAINT "product_variants_bounded" CHECK (length("product_variants"."sku") between 1 and 64 and cardinality("product_variants"."option_values") <= 3
        and coalesce(length("product_variants"."barcode"), 0) <= 14 and coalesce(length("product_variants"."image_url"), 0) <= 2048)
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "price_max_cents" integer;
--> statement-breakpoint
UPDATE "products" SET "price_max_cents" = "price_cents";
--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "price_max_cents" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_price_range" CHECK ("products"."price_max_cents" >= "products"."price_cents");
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "options" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
-- Every product gets its one variant, under the product's own id: carts, holds, orders and
-- platforms keep naming what they named. Its SKU is the record part of that id.
INSERT INTO "product_variants" ("id", "product_id", "seller_id", "sku", "position", "price_cents",
  "stock_quantity", "reserved_quantity", "weight_kg", "width_cm", "height_cm", "depth_cm", "status",
  "created_at", "updated_at")
SELECT "id", "id", "seller_id", left(split_part("id", ':', 2), 64), 0, "price_cents", "stock_quantity",
  "reserved_quantity", "weight_kg", "width_cm", "height_cm", "depth_cm", 'active', "created_at", "updated_at"
FROM "products";
--> statement-breakpoint
ALTER TABLE "product_variants" ADD CONSTRAINT "product_variants_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "product_variants_seller_sku" ON "product_variants" USING btree ("seller_id","sku") WHERE "product_variants"."status" <> 'deleted';
--> statement-breakpoint
CREATE INDEX "product_variants_product_idx" ON "product_variants" USING btree ("product_id","position");
--> statement-breakpoint
ALTER TABLE "products" DROP CONSTRAINT "products_reserved_non_negative";
--> statement-breakpoint
ALTER TABLE "products" DROP COLUMN "reserved_quantity";
--> statement-breakpoint
ALTER TABLE "products" DROP CONSTRAINT "products_stock_non_negative";
--> statement-breakpoint
ALTER TABLE "products" DROP COLUMN "stock_quantity";
--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "variant_id" text;
--> statement-breakpoint
UPDATE "reservations" SET "variant_id" = "product_id";
--> statement-breakpoint
ALTER TABLE "reservations" ALTER COLUMN "variant_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "reservations" DROP CONSTRAINT "reservations_checkout_id_product_id_pk";
--> statement-breakpoint
ALTER TABLE "reservations" DROP CONSTRAINT "reservations_product_id_products_id_fk";
--> statement-breakpoint
DROP INDEX "reservations_live_product_idx";
--> statement-breakpoint
ALTER TABLE "reservations" DROP COLUMN "product_id";
--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_checkout_id_variant_id_pk" PRIMARY KEY("checkout_id","variant_id");
--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_variant_id_product_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variants"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "reservations_live_variant_idx" ON "reservations" USING btree ("variant_id") WHERE "reservations"."released_at" is null and "reservations"."committed_at" is null;
--> statement-breakpoint
ALTER TABLE "cart_items" ADD COLUMN "variant_id" text;
--> statement-breakpoint
UPDATE "cart_items" SET "variant_id" = "product_id";
--> statement-breakpoint
ALTER TABLE "cart_items" ALTER COLUMN "variant_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "cart_items" DROP CONSTRAINT "cart_items_user_id_product_id_pk";
--> statement-breakpoint
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_user_id_variant_id_pk" PRIMARY KEY("user_id","variant_id");
--> statement-breakpoint
ALTER TABLE "cart_items" ADD CONSTRAINT "cart_items_variant_id_product_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variants"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "cart_items" DROP COLUMN "variant";
--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "variant_id" text;
--> statement-breakpoint
UPDATE "order_items" SET "variant_id" = "product_id";
--> statement-breakpoint
ALTER TABLE "order_items" ALTER COLUMN "variant_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "variant_title" text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "sku" text;
--> statement-breakpoint
ALTER TABLE "order_items" DROP CONSTRAINT "order_items_order_id_product_id_pk";
--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_order_id_variant_id_pk" PRIMARY KEY("order_id","variant_id");
--> statement-breakpoint
DROP FUNCTION "portage_sale_product"(text);
--> statement-breakpoint
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
    'weightKg', coalesce(v.weight_kg, p.weight_kg), 'sellerId', p.seller_id, 'sellerProvince', sp.province)
  FROM product_variants v
    JOIN products p ON p.id = v.product_id
    LEFT JOIN LATERAL portage_seller_province(p.seller_id) AS sp(province) ON true
  WHERE v.id = variant_id AND v.status = 'active' AND p.status = 'active'
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_variant_totals() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid text := CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
BEGIN
  UPDATE products p SET price_cents = t.lo, price_max_cents = t.hi
  FROM (SELECT min(v.price_cents) AS lo, max(v.price_cents) AS hi
        FROM product_variants v WHERE v.product_id = pid AND v.status = 'active') t
  WHERE p.id = pid AND t.lo IS NOT NULL
    AND (p.price_cents, p.price_max_cents) IS DISTINCT FROM (t.lo, t.hi);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER product_variants_totals AFTER INSERT OR DELETE OR UPDATE OF price_cents, status, product_id
  ON product_variants FOR EACH ROW EXECUTE FUNCTION portage_variant_totals();
