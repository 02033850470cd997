CREATE TABLE "shop_pages" (
	"seller_id" text PRIMARY KEY NOT NULL,
	"logo_url" text,
	"texts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "shop_pages_bounded" CHECK (coalesce(length("shop_pages"."logo_url"), 0) <= 2048 and pg_column_size("shop_pages"."texts") <= 65536)
);
--> statement-breakpoint
-- Nullable until migration 0053 gives every shop its slug.
ALTER TABLE "seller_profiles" ADD COLUMN "slug" text;--> statement-breakpoint
ALTER TABLE "shop_pages" ADD CONSTRAINT "shop_pages_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD CONSTRAINT "seller_profiles_slug" UNIQUE("slug");