CREATE TABLE "feed_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"written_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"files" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"products" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "feed_snapshots_one_writing" ON "feed_snapshots" USING btree ((true)) WHERE "feed_snapshots"."written_at" is null;