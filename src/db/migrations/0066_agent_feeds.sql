CREATE TABLE "platform_feeds" (
	"platform_id" text NOT NULL,
	"language" text NOT NULL,
	"remote_id" text,
	"full_cursor" text,
	"full_from" double precision,
	"full_due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_us" double precision DEFAULT 0 NOT NULL,
	"changed_id" text DEFAULT '' NOT NULL,
	"hidden" text[] DEFAULT '{}' NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"last_success_at" timestamp with time zone,
	"last_full_at" timestamp with time zone,
	"products_sent" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "platform_feeds_platform_id_language_pk" PRIMARY KEY("platform_id","language"),
	CONSTRAINT "platform_feeds_language_check" CHECK ("platform_feeds"."language" in ('en-CA', 'fr-CA'))
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "agent_channels" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "platforms" ADD COLUMN "feed_url" text;--> statement-breakpoint
ALTER TABLE "platforms" ADD COLUMN "feed_token" text;--> statement-breakpoint
ALTER TABLE "platform_feeds" ADD CONSTRAINT "platform_feeds_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."platforms"("id") ON DELETE cascade ON UPDATE no action;