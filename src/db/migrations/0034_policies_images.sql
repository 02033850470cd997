CREATE TABLE "images" (
	"name" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "images_name_check" CHECK ("images"."name" ~ '^[a-z0-9-]{1,100}[.]svg$'),
	CONSTRAINT "images_content_type_check" CHECK ("images"."content_type" = 'image/svg+xml'),
	CONSTRAINT "images_body_length" CHECK (octet_length("images"."body") <= 65536)
);
--> statement-breakpoint
CREATE TABLE "site_policies" (
	"kind" text NOT NULL,
	"locale" text NOT NULL,
	"body" text NOT NULL,
	"updated_by" text,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "site_policies_kind_locale_pk" PRIMARY KEY("kind","locale"),
	CONSTRAINT "site_policies_kind_check" CHECK ("site_policies"."kind" in ('terms', 'privacy', 'returns')),
	CONSTRAINT "site_policies_locale_check" CHECK ("site_policies"."locale" in ('en-CA', 'fr-CA')),
	CONSTRAINT "site_policies_body_length" CHECK (char_length("site_policies"."body") between 1 and 20000)
);
--> statement-breakpoint
ALTER TABLE "site_policies" ADD CONSTRAINT "site_policies_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;