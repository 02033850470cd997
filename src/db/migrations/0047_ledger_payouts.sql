CREATE TABLE "ledger_entries" (
	"transaction_key" text NOT NULL,
	"account" text NOT NULL,
	"seller_id" text NOT NULL,
	"order_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_entries_order_id_transaction_key_account_pk" PRIMARY KEY("order_id","transaction_key","account"),
	CONSTRAINT "ledger_entries_account_check" CHECK ("ledger_entries"."account" in ('provider_cash', 'seller_pending', 'seller_available', 'seller_in_transit', 'platform_commission', 'platform_tax_payable', 'platform_adjustments')),
	CONSTRAINT "ledger_entries_amount_nonzero" CHECK ("ledger_entries"."amount_cents" <> 0)
);
--> statement-breakpoint
CREATE TABLE "ledger_releases" (
	"order_id" text PRIMARY KEY NOT NULL,
	"seller_id" text NOT NULL,
	"delivered_at" timestamp with time zone NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_transactions" (
	"key" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"seller_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"memo" text,
	CONSTRAINT "ledger_transactions_kind_check" CHECK ("ledger_transactions"."kind" in ('sale', 'release', 'refund', 'dispute_opened', 'dispute_won', 'payout', 'transfer_paid', 'transfer_failed', 'reversal_requested', 'reversal_done', 'reversal_failed', 'adjustment'))
);
--> statement-breakpoint
CREATE TABLE "dispute_orders" (
	"dispute_id" text NOT NULL,
	"order_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"fee_cents" integer NOT NULL,
	"evidence_text" text,
	"evidence_file_id" text,
	"evidence_submitted_at" timestamp with time zone,
	CONSTRAINT "dispute_orders_dispute_id_order_id_pk" PRIMARY KEY("dispute_id","order_id")
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"payment_intent_id" text NOT NULL,
	"checkout_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"fee_cents" integer NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"outcome" text DEFAULT 'open' NOT NULL,
	"evidence_due_by" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "disputes_amount_positive" CHECK ("disputes"."amount_cents" > 0 and "disputes"."fee_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "payout_transfers" (
	"payout_id" text NOT NULL,
	"order_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"transfer_group" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"transfer_id" text,
	"reversed_cents" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"completed_at" timestamp with time zone,
	CONSTRAINT "payout_transfers_payout_id_order_id_pk" PRIMARY KEY("payout_id","order_id"),
	CONSTRAINT "payout_transfers_amount_positive" CHECK ("payout_transfers"."amount_cents" > 0),
	CONSTRAINT "payout_transfers_reversed" CHECK ("payout_transfers"."reversed_cents" between 0 and "payout_transfers"."amount_cents")
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"seller_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payouts_amount_positive" CHECK ("payouts"."amount_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE "seller_payout_accounts" (
	"seller_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"payouts_enabled" boolean DEFAULT false NOT NULL,
	"requirements" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"bank_last4" text,
	"schedule" text DEFAULT 'weekly' NOT NULL,
	"minimum_cents" integer DEFAULT 1000 NOT NULL,
	"next_payout_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "seller_payout_accounts_minimum" CHECK ("seller_payout_accounts"."minimum_cents" between 100 and 100000000)
);
--> statement-breakpoint
CREATE TABLE "transfer_reversals" (
	"id" text PRIMARY KEY NOT NULL,
	"payout_id" text NOT NULL,
	"order_id" text NOT NULL,
	"seller_id" text NOT NULL,
	"cause" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"provider_reversal_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "transfer_reversals_amount_positive" CHECK ("transfer_reversals"."amount_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "dispute_orders" ADD CONSTRAINT "dispute_orders_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."disputes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_transfers" ADD CONSTRAINT "payout_transfers_payout_id_payouts_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."payouts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seller_payout_accounts" ADD CONSTRAINT "seller_payout_accounts_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_seller_account_idx" ON "ledger_entries" USING btree ("seller_id","account","order_id");--> statement-breakpoint
CREATE INDEX "ledger_releases_due_idx" ON "ledger_releases" USING btree ("delivered_at") WHERE "ledger_releases"."released_at" is null;--> statement-breakpoint
CREATE INDEX "ledger_transactions_seller_created_idx" ON "ledger_transactions" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE INDEX "dispute_orders_seller_idx" ON "dispute_orders" USING btree ("seller_id");--> statement-breakpoint
CREATE INDEX "disputes_checkout_idx" ON "disputes" USING btree ("checkout_id");--> statement-breakpoint
CREATE INDEX "disputes_open_idx" ON "disputes" USING btree ("created_at") WHERE "disputes"."outcome" = 'open';--> statement-breakpoint
CREATE INDEX "payout_transfers_due_idx" ON "payout_transfers" USING btree ("next_attempt_at") WHERE "payout_transfers"."status" = 'requested';--> statement-breakpoint
CREATE INDEX "payout_transfers_order_idx" ON "payout_transfers" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "payouts_seller_created_idx" ON "payouts" USING btree ("seller_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "seller_payout_accounts_account_unique" ON "seller_payout_accounts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "seller_payout_accounts_due_idx" ON "seller_payout_accounts" USING btree ("next_payout_at") WHERE "seller_payout_accounts"."payouts_enabled";--> statement-breakpoint
CREATE UNIQUE INDEX "transfer_reversals_cause_transfer" ON "transfer_reversals" USING btree ("cause","payout_id","order_id");--> statement-breakpoint
CREATE INDEX "transfer_reversals_due_idx" ON "transfer_reversals" USING btree ("next_attempt_at") WHERE "transfer_reversals"."status" = 'requested';