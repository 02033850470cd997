CREATE TABLE "acp_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"platform_id" text,
	"agent_user_id" text,
	"buyer_id" text,
	"status" text NOT NULL,
	"request" jsonb NOT NULL,
	"checkout_id" text,
	"messages" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "acp_sessions_status_check" CHECK ("acp_sessions"."status" in ('not_ready_for_payment', 'ready_for_payment', 'complete_in_progress', 'completed', 'canceled', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "acp_vault_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"outcome" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"max_amount" integer NOT NULL,
	"currency" text NOT NULL,
	"checkout_session_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "acp_webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"platform_id" text NOT NULL,
	"acp_session_id" text NOT NULL,
	"body" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	"abandoned_at" timestamp with time zone,
	CONSTRAINT "acp_webhook_deliveries_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "adapter_session_id" text;--> statement-breakpoint
ALTER TABLE "acp_sessions" ADD CONSTRAINT "acp_sessions_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acp_sessions" ADD CONSTRAINT "acp_sessions_agent_user_id_users_id_fk" FOREIGN KEY ("agent_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acp_sessions" ADD CONSTRAINT "acp_sessions_buyer_id_users_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acp_webhook_deliveries" ADD CONSTRAINT "acp_webhook_deliveries_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acp_webhook_deliveries" ADD CONSTRAINT "acp_webhook_deliveries_acp_session_id_acp_sessions_id_fk" FOREIGN KEY ("acp_session_id") REFERENCES "public"."acp_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "acp_sessions_checkout_idx" ON "acp_sessions" USING btree ("checkout_id");--> statement-breakpoint
CREATE INDEX "acp_webhook_deliveries_pending_idx" ON "acp_webhook_deliveries" USING btree ("acp_session_id","id") WHERE "acp_webhook_deliveries"."delivered_at" is null and "acp_webhook_deliveries"."abandoned_at" is null;