CREATE TABLE "low_stock_thresholds" (
	"product_id" text PRIMARY KEY NOT NULL,
	"seller_id" text NOT NULL,
	"threshold" integer NOT NULL,
	CONSTRAINT "low_stock_thresholds_range" CHECK ("low_stock_thresholds"."threshold" between 0 and 1000000)
);
--> statement-breakpoint
CREATE TABLE "notice_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notice_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"seller_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"facts" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"seller_id" text NOT NULL,
	"kind" text NOT NULL,
	"email" boolean NOT NULL,
	"inbox" boolean NOT NULL,
	CONSTRAINT "notification_settings_seller_id_kind_pk" PRIMARY KEY("seller_id","kind"),
	CONSTRAINT "notification_settings_kind" CHECK (length("notification_settings"."kind") <= 40)
);
--> statement-breakpoint
CREATE TABLE "seller_notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"seller_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"facts" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"read_at" timestamp with time zone,
	CONSTRAINT "seller_notifications_bounded" CHECK (length("seller_notifications"."kind") <= 40 and length("seller_notifications"."subject_id") <= 200 and pg_column_size("seller_notifications"."facts") <= 2048)
);
--> statement-breakpoint
ALTER TABLE "low_stock_thresholds" ADD CONSTRAINT "low_stock_thresholds_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "low_stock_thresholds" ADD CONSTRAINT "low_stock_thresholds_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "seller_notifications" ADD CONSTRAINT "seller_notifications_seller_id_users_id_fk" FOREIGN KEY ("seller_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "low_stock_thresholds_seller" ON "low_stock_thresholds" USING btree ("seller_id");--> statement-breakpoint
CREATE UNIQUE INDEX "seller_notifications_subject" ON "seller_notifications" USING btree ("seller_id","kind","subject_id");--> statement-breakpoint
CREATE INDEX "seller_notifications_inbox" ON "seller_notifications" USING btree ("seller_id","created_at","id");--> statement-breakpoint
CREATE INDEX "seller_notifications_unread" ON "seller_notifications" USING btree ("seller_id") WHERE "seller_notifications"."read_at" is null;--> statement-breakpoint
CREATE INDEX "seller_notifications_created" ON "seller_notifications" USING btree ("created_at");