CREATE TABLE "returns" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"buyer_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text NOT NULL,
	"description" text,
	"items" jsonb NOT NULL,
	"whole_order" boolean NOT NULL,
	"estimated_refund_cents" integer NOT NULL,
	"refund_amount_cents" integer,
	"refund_id" text,
	"note" text,
	"decided_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"window_closes_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	CONSTRAINT "returns_status_check" CHECK ("returns"."status" in ('pending', 'approved', 'rejected', 'refunded')),
	CONSTRAINT "returns_reason_check" CHECK ("returns"."reason" in ('damaged', 'wrong_item', 'not_as_described', 'other')),
	CONSTRAINT "returns_estimate_not_negative" CHECK ("returns"."estimated_refund_cents" >= 0),
	CONSTRAINT "returns_refund_not_negative" CHECK ("returns"."refund_amount_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "return_id" text;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_buyer_id_users_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "returns_one_open_per_order" ON "returns" USING btree ("order_id") WHERE "returns"."status" in ('pending', 'approved');--> statement-breakpoint
CREATE INDEX "returns_buyer_created_idx" ON "returns" USING btree ("buyer_id","created_at","id");--> statement-breakpoint
CREATE INDEX "returns_seller_created_idx" ON "returns" USING btree ("seller_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_one_per_return" ON "refunds" USING btree ("return_id") WHERE "refunds"."return_id" is not null;