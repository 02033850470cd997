CREATE TABLE "order_labels" (
	"order_id" text PRIMARY KEY NOT NULL,
	"seller_id" text NOT NULL,
	"state" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"sandbox" boolean NOT NULL,
	"service" text NOT NULL,
	"shipment_id" text,
	"tracking_pin" text,
	"label_url" text,
	"pdf" "bytea",
	"bought_at" timestamp with time zone,
	CONSTRAINT "order_labels_bought_check" CHECK ("order_labels"."state" = 'buying' or ("order_labels"."tracking_pin" is not null and "order_labels"."shipment_id" is not null and "order_labels"."bought_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "order_tracking" (
	"order_id" text PRIMARY KEY NOT NULL,
	"pin" text NOT NULL,
	"sandbox" boolean NOT NULL,
	"next_check_at" timestamp with time zone NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_checked_at" timestamp with time zone,
	"last_event" text,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "order_labels" ADD CONSTRAINT "order_labels_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_tracking" ADD CONSTRAINT "order_tracking_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_tracking_next_check_idx" ON "order_tracking" USING btree ("next_check_at");