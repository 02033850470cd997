CREATE TABLE "admin_actions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_actions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_id" text NOT NULL,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"subject" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "admin_actions_bounded" CHECK (length("admin_actions"."action") <= 60 and length("admin_actions"."subject") <= 200 and length("admin_actions"."actor_email") <= 320 and coalesce(pg_column_size("admin_actions"."before"), 0) <= 16384 and coalesce(pg_column_size("admin_actions"."after"), 0) <= 16384)
);
--> statement-breakpoint
CREATE INDEX "admin_actions_created_idx" ON "admin_actions" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "admin_actions_subject_idx" ON "admin_actions" USING btree ("subject","created_at");