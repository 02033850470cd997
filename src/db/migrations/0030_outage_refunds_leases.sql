ALTER TABLE "checkout_sessions" ADD COLUMN "canceled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "lease_token" text;--> statement-breakpoint
-- A payment refunded whole more than once before this index (the bug it closes) keeps every
-- refund row: the later ones are renamed so that the index can hold from now on.
UPDATE "refunds" r SET "reason" = r."reason" || '_again'
  WHERE r."reason" in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch')
    AND EXISTS (SELECT 1 FROM "refunds" o WHERE o."payment_intent_id" = r."payment_intent_id"
      AND o."reason" in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch')
      AND (o."created_at", o."id") < (r."created_at", r."id"));--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_one_per_unused_payment" ON "refunds" USING btree ("payment_intent_id") WHERE reason in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch');