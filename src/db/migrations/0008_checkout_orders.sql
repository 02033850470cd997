CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"buyer_id" text NOT NULL,
	"status" text DEFAULT 'ready_for_payment' NOT NULL,
	"fingerprint" text NOT NULL,
	"address" jsonb NOT NULL,
	"coupon_code" text,
	"parcels" jsonb NOT NULL,
	"tax_lines" jsonb NOT NULL,
	"subtotal_cents" integer NOT NULL,
	"discount_cents" integer NOT NULL,
	"shipping_cost_cents" integer NOT NULL,
	"tax_amount_cents" integer NOT NULL,
	"total_cents" integer NOT NULL,
	"provider" text NOT NULL,
	"provider_session_id" text,
	"session_url" text,
	"client_secret" text,
	"payment_intent_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	CONSTRAINT "checkout_sessions_provider_session_id_unique" UNIQUE("provider_session_id"),
	CONSTRAINT "checkout_sessions_payment_intent_id_unique" UNIQUE("payment_intent_id"),
	CONSTRAINT "checkout_sessions_status_check" CHECK ("checkout_sessions"."status" in ('ready_for_payment', 'complete', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"checkout_id" text NOT NULL,
	"product_id" text NOT NULL,
	"quantity" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"released_at" timestamp with time zone,
	"committed_at" timestamp with time zone,
	CONSTRAINT "reservations_checkout_id_product_id_pk" PRIMARY KEY("checkout_id","product_id"),
	CONSTRAINT "reservations_quantity_positive" CHECK ("reservations"."quantity" > 0),
	CONSTRAINT "reservations_one_end" CHECK ("reservations"."released_at" is null or "reservations"."committed_at" is null)
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"dedupe_key" text NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "mail_outbox_dedupe_key_unique" UNIQUE("dedupe_key"),
	CONSTRAINT "mail_outbox_status_check" CHECK ("mail_outbox"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "order_items" (
	"order_id" text NOT NULL,
	"product_id" text NOT NULL,
	"name" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_price_cents" integer NOT NULL,
	"image_url" text,
	"position" integer NOT NULL,
	CONSTRAINT "order_items_order_id_product_id_pk" PRIMARY KEY("order_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"checkout_id" text NOT NULL,
	"buyer_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"status" text NOT NULL,
	"subtotal_cents" integer NOT NULL,
	"discount_cents" integer NOT NULL,
	"shipping_cost_cents" integer NOT NULL,
	"tax_amount_cents" integer NOT NULL,
	"tax_lines" jsonb NOT NULL,
	"platform_fee_cents" integer NOT NULL,
	"total_amount_cents" integer NOT NULL,
	"shipping_address" jsonb NOT NULL,
	"payment_intent_id" text NOT NULL,
	"stock_committed" boolean NOT NULL,
	"item_count" integer NOT NULL,
	"estimated_delivery" date NOT NULL,
	"tracking_number" text,
	"carrier" text,
	"refund_requested" boolean DEFAULT false NOT NULL,
	"refunded_cents" integer DEFAULT 0 NOT NULL,
	"cancel_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone,
	"shipped_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	CONSTRAINT "orders_one_per_checkout_seller" UNIQUE("checkout_id","seller_id"),
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('pending', 'confirmed', 'shipped', 'delivered', 'cancelled')),
	CONSTRAINT "orders_refund_within_total" CHECK ("orders"."refunded_cents" between 0 and "orders"."total_amount_cents")
);
--> statement-breakpoint
CREATE TABLE "payment_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"payment_intent_id" text,
	"checkout_id" text,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payment_events_provider_event_id_pk" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"payment_intent_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"provider_refund_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "refunds_amount_positive" CHECK ("refunds"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "reserved_quantity" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_buyer_id_users_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_buyer_id_users_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_sessions_buyer_open_idx" ON "checkout_sessions" USING btree ("buyer_id") WHERE "checkout_sessions"."status" = 'ready_for_payment';--> statement-breakpoint
CREATE INDEX "checkout_sessions_open_expiry_idx" ON "checkout_sessions" USING btree ("expires_at") WHERE "checkout_sessions"."status" = 'ready_for_payment';--> statement-breakpoint
CREATE INDEX "reservations_live_expiry_idx" ON "reservations" USING btree ("expires_at") WHERE "reservations"."released_at" is null and "reservations"."committed_at" is null;--> statement-breakpoint
CREATE INDEX "reservations_live_product_idx" ON "reservations" USING btree ("product_id") WHERE "reservations"."released_at" is null and "reservations"."committed_at" is null;--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("next_attempt_at") WHERE "mail_outbox"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "order_items_product_idx" ON "order_items" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "orders_buyer_created_idx" ON "orders" USING btree ("buyer_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_seller_created_idx" ON "orders" USING btree ("seller_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_payment_intent_idx" ON "orders" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE INDEX "orders_pending_created_idx" ON "orders" USING btree ("created_at") WHERE "orders"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "refunds_order_idx" ON "refunds" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "refunds_due_idx" ON "refunds" USING btree ("next_attempt_at") WHERE "refunds"."status" = 'requested';--> statement-breakpoint
CREATE INDEX "idempotency_keys_expiry_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_reserved_non_negative" CHECK ("products"."reserved_quantity" >= 0);--> statement-breakpoint
-- A reservation changes only reserved_quantity: not a change search indexes need to read again.
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.reserved_quantity IS DISTINCT FROM OLD.reserved_quantity
     AND (to_jsonb(NEW) - 'reserved_quantity') = (to_jsonb(OLD) - 'reserved_quantity') THEN
    RETURN NEW;
  END IF;
  NEW.changed_at := clock_timestamp();
  RETURN NEW;
END $$;
