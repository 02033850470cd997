CREATE INDEX "users_created_idx" ON "users" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "users_role_created_idx" ON "users" USING btree ("role","created_at","id");--> statement-breakpoint
CREATE INDEX "users_suspended_created_idx" ON "users" USING btree ("created_at","id") WHERE "users"."suspended_at" is not null;--> statement-breakpoint
CREATE INDEX "users_email_c_idx" ON "users" USING btree (("email" collate "C"),"id");--> statement-breakpoint
CREATE INDEX "users_name_c_idx" ON "users" USING btree ((lower("name") collate "C"),"id");--> statement-breakpoint
CREATE INDEX "orders_created_idx" ON "orders" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "orders_status_created_idx" ON "orders" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_province_created_idx" ON "orders" USING btree (("shipping_address"->>'province'),"created_at","id");--> statement-breakpoint
CREATE INDEX "orders_province_status_created_idx" ON "orders" USING btree (("shipping_address"->>'province'),"status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_seller_status_created_idx" ON "orders" USING btree ("seller_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_seller_province_created_idx" ON "orders" USING btree ("seller_id",("shipping_address"->>'province'),"created_at","id");--> statement-breakpoint
CREATE INDEX "payment_events_intent_idx" ON "payment_events" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE INDEX "reviews_buyer_created_idx" ON "reviews" USING btree ("buyer_id","created_at","id");