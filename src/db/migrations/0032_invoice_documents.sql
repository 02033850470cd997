CREATE TABLE "invoice_documents" (
	"order_id" text NOT NULL,
	"locale" text NOT NULL,
	"credit_notes" smallint NOT NULL,
	"parties" jsonb NOT NULL,
	"pdf" "bytea" NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "invoice_documents_order_id_locale_credit_notes_pk" PRIMARY KEY("order_id","locale","credit_notes")
);
--> statement-breakpoint
ALTER TABLE "invoice_documents" ADD CONSTRAINT "invoice_documents_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;