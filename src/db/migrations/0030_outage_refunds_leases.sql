ALTER TABLE "checkout_sessions" ADD COLUMN "canceled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "lease_token" text;--> statement-breakpoint
-- A payment refunded whole more than once before this index (the bug it closes) keeps every
-- refund row: the later ones are renamed so that the index can hold from now on, and one not sent
-- yet is failed for an operator instead of sent (it would be the second refund).
UPDATE "refunds" r SET "reason" = r."reason" || '_again',
    "status" = CASE WHEN r."status" = 'requested' THEN 'failed' ELSE r."status" END,
    "last_error" = CASE WHEN r."status" = 'requested'
      THEN 'not sent: the payment was refunded whole already (migration 0030)' ELSE r."last_error" END
  WHERE r."reason" in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch')
    AND EXISTS (SELECT 1 FROM "refunds" o WHERE o."payment_intent_id" = r."payment_intent_id"
      AND o."reason" in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch')
      AND (o."created_at", o."id") < (r."created_at", r."id"));--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_one_per_unused_payment" ON "refunds" USING btree ("payment_intent_id") WHERE reason in ('duplicate_payment', 'checkout_closed', 'coupon_used_up', 'amount_mismatch');