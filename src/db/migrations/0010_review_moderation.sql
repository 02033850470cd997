ALTER TABLE "reviews" ADD COLUMN "rejected_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "reviews_created_idx" ON "reviews" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "reviews_unpublished_idx" ON "reviews" USING btree ("created_at","id") WHERE not "reviews"."published";--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_rejected_unpublished" CHECK (not ("reviews"."published" and "reviews"."rejected_at" is not null));