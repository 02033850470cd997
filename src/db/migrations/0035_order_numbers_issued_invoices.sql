CREATE TABLE "issued_invoices" (
	"order_id" text PRIMARY KEY NOT NULL,
	"number" text NOT NULL,
	"parties" jsonb NOT NULL,
	"issued_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_number_years" (
	"year" integer PRIMARY KEY NOT NULL,
	"last" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "number" text;--> statement-breakpoint
-- Existing orders are numbered in creation order within each year (Eastern Time), as new ones are.
WITH numbered AS (
	SELECT "id",
		extract(year FROM "created_at" AT TIME ZONE 'America/Toronto')::integer AS "year",
		row_number() OVER (
			PARTITION BY extract(year FROM "created_at" AT TIME ZONE 'America/Toronto')
			ORDER BY "created_at", "id"
		) AS "n"
	FROM "orders"
)
UPDATE "orders" SET "number" = numbered."year"::text || '-' || lpad(numbered."n"::text, greatest(6, length(numbered."n"::text)), '0')
FROM numbered WHERE numbered."id" = "orders"."id";--> statement-breakpoint
INSERT INTO "order_number_years" ("year", "last")
SELECT extract(year FROM "created_at" AT TIME ZONE 'America/Toronto')::integer, count(*)
FROM "orders" GROUP BY 1;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "number" SET NOT NULL;--> statement-breakpoint
-- Orders paid before invoices were issued at payment keep the invoice number they were given (the
-- key of the order's id) and name what their first stored document named, else what the seller,
-- the platform and the buyer are now (docs/invoices.md "Issued once").
INSERT INTO "issued_invoices" ("order_id", "number", "parties", "issued_at")
SELECT DISTINCT ON ("order_id") "order_id", substr("order_id", strpos("order_id", ':') + 1), "parties", "created_at"
FROM "invoice_documents" ORDER BY "order_id", "created_at";--> statement-breakpoint
INSERT INTO "issued_invoices" ("order_id", "number", "parties", "issued_at")
SELECT o."id",
	substr(o."id", strpos(o."id", ':') + 1),
	jsonb_build_object(
		'seller', jsonb_build_object(
			'name', coalesce(sp."legal_name", sp."shop_name", s."name", ''),
			'street', sp."street",
			'city', sp."city",
			'province', sp."province",
			'postalCode', sp."postal_code",
			'gstHstNumber', sp."gst_hst_number",
			'qstNumber', sp."qst_number"
		),
		'platform', (
			SELECT jsonb_build_object(
				'name', p."legal_name",
				'street', p."street",
				'city', p."city",
				'province', p."province",
				'postalCode', p."postal_code",
				'gstHstNumber', p."gst_hst_number",
				'qstNumber', p."qst_number"
			) FROM "platform_tax_profile" p WHERE p."id" = 1
		),
		'buyerName', coalesce(b."name", '')
	),
	coalesce(o."confirmed_at", o."created_at")
FROM "orders" o
LEFT JOIN "users" s ON s."id" = o."seller_id"
LEFT JOIN "seller_profiles" sp ON sp."user_id" = o."seller_id"
LEFT JOIN "users" b ON b."id" = o."buyer_id"
WHERE NOT EXISTS (SELECT 1 FROM "issued_invoices" ii WHERE ii."order_id" = o."id");--> statement-breakpoint
ALTER TABLE "issued_invoices" ADD CONSTRAINT "issued_invoices_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_number_unique" UNIQUE("number");
