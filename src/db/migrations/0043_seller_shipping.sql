CREATE TABLE "seller_shipping" (
	"seller_id" text PRIMARY KEY NOT NULL,
	"origin_postal_code" text NOT NULL,
	"origin_province" text NOT NULL,
	"handling_days" integer NOT NULL,
	"rates" text NOT NULL,
	"services" text[] NOT NULL,
	"flat_cents" integer,
	"free_over_cents" integer,
	"parcel_length_cm" numeric(4, 1) NOT NULL,
	"parcel_width_cm" numeric(4, 1) NOT NULL,
	"parcel_height_cm" numeric(4, 1) NOT NULL,
	"parcel_weight_kg" numeric(5, 3) NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "seller_shipping_handling_check" CHECK ("seller_shipping"."handling_days" between 0 and 10),
	CONSTRAINT "seller_shipping_services_check" CHECK (cardinality("seller_shipping"."services") <= 4),
	CONSTRAINT "seller_shipping_rates_check" CHECK (("seller_shipping"."rates" = 'flat' and "seller_shipping"."flat_cents" is not null) or ("seller_shipping"."rates" = 'carrier' and cardinality("seller_shipping"."services") > 0))
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "shipping_option" text;--> statement-breakpoint
ALTER TABLE "seller_shipping" ADD CONSTRAINT "seller_shipping_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;