CREATE TABLE "platforms" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"webhook_url" text NOT NULL,
	"key_hash" text NOT NULL,
	"webhook_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"key_rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "platforms_key_hash_unique" UNIQUE("key_hash")
);
