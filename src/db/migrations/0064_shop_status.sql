ALTER TABLE "seller_profiles" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "seller_profiles_not_active_idx" ON "seller_profiles" USING btree ("status","created_at") WHERE "seller_profiles"."status" <> 'active';--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD CONSTRAINT "seller_profiles_status_check" CHECK ("seller_profiles"."status" in ('active', 'pending', 'suspended'));--> statement-breakpoint
ALTER TABLE "seller_profiles" ADD CONSTRAINT "seller_profiles_suspension_check" CHECK (("seller_profiles"."status" = 'suspended') = ("seller_profiles"."suspended_at" is not null)
      and ("seller_profiles"."status" = 'suspended') = ("seller_profiles"."status_reason" is not null)
      and ("seller_profiles"."status_reason" is null or char_length("seller_profiles"."status_reason") between 1 and 500));