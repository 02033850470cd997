ALTER TABLE "product_variants" ADD CONSTRAINT "product_variants_id_product" UNIQUE("id","product_id");--> statement-breakpoint
-- An image naming no variant of its own product (unknown, or another product's) shows the product.
UPDATE "product_images" SET "variant_id" = NULL
  WHERE "variant_id" IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM "product_variants" v
    WHERE v."id" = "product_images"."variant_id" AND v."product_id" = "product_images"."product_id"
  );--> statement-breakpoint
ALTER TABLE "product_images" ADD CONSTRAINT "product_images_variant_fk" FOREIGN KEY ("variant_id","product_id") REFERENCES "public"."product_variants"("id","product_id") ON DELETE no action ON UPDATE no action;
