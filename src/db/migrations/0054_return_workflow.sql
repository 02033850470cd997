ALTER TABLE "returns" DROP CONSTRAINT "returns_status_check";--> statement-breakpoint
DROP INDEX "returns_one_open_per_order";--> statement-breakpoint
ALTER TABLE "returns" ADD COLUMN "instructions" text;--> statement-breakpoint
ALTER TABLE "returns" ADD COLUMN "restocked" jsonb;--> statement-breakpoint
ALTER TABLE "returns" ADD COLUMN "received_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "returns" ADD COLUMN "escalated_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "returns_pending_created_idx" ON "returns" USING btree ("created_at") WHERE "returns"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "returns_one_open_per_order" ON "returns" USING btree ("order_id") WHERE "returns"."status" in ('pending', 'awaiting_parcel', 'received', 'approved');--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_instructions_bounded" CHECK (coalesce(length("returns"."instructions"), 0) <= 2000);--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_status_check" CHECK ("returns"."status" in ('pending', 'awaiting_parcel', 'received', 'approved', 'rejected', 'refunded'));