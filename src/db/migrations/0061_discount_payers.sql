CREATE TABLE "shop_discounts" (
	"seller_id" text PRIMARY KEY NOT NULL,
	"percent" integer NOT NULL,
	"min_subtotal_cents" integer NOT NULL,
	"starts_on" date,
	"ends_on" date,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shop_discounts_percent_range" CHECK ("shop_discounts"."percent" between 1 and 90),
	CONSTRAINT "shop_discounts_min_range" CHECK ("shop_discounts"."min_subtotal_cents" between 0 and 100000000),
	CONSTRAINT "shop_discounts_dates" CHECK ("shop_discounts"."starts_on" is null or "shop_discounts"."ends_on" is null or "shop_discounts"."starts_on" <= "shop_discounts"."ends_on")
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_account_check";--> statement-breakpoint
ALTER TABLE "coupons" ADD COLUMN "seller_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "seller_discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "platform_discount_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "shop_discounts" ADD CONSTRAINT "shop_discounts_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coupons_seller_created_idx" ON "coupons" USING btree ("seller_id","created_at") WHERE "coupons"."seller_id" is not null;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_check" CHECK ("ledger_entries"."account" in ('provider_cash', 'seller_pending', 'seller_available', 'seller_in_transit', 'platform_commission', 'platform_tax_payable', 'platform_adjustments', 'platform_promotions'));--> statement-breakpoint
-- Orders made before: their coupon's discount was the seller's (the ledger paid them the total less it).
UPDATE "orders" SET "seller_discount_cents" = "discount_cents" WHERE "discount_cents" <> 0;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_discount_payers" CHECK ("orders"."seller_discount_cents" >= 0 and "orders"."platform_discount_cents" >= 0 and "orders"."seller_discount_cents" + "orders"."platform_discount_cents" = "orders"."discount_cents");