CREATE TABLE "platform_tax_profile" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"legal_name" text NOT NULL,
	"street" text NOT NULL,
	"city" text NOT NULL,
	"province" text NOT NULL,
	"postal_code" text NOT NULL,
	"gst_hst_number" text,
	"qst_number" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_tax_profile_one_row" CHECK ("platform_tax_profile"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "legal_name" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "street" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "city" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "postal_code" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "gst_hst_number" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "qst_number" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_locale_check" CHECK ("users"."locale" is null or "users"."locale" in ('en-CA', 'fr-CA'));