import { customType, jsonb, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import type { InvoiceParty } from '../auth/sellers.ts';
import { orders } from '../orders/tables.ts';
import type { Invoice } from './pdf.ts';

/** PostgreSQL's bytea as a Buffer (PGlite answers a Uint8Array, pg a Buffer). */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
});

/** Who an order's documents name, as fixed at payment (invoiceParties). */
export interface StoredParties {
  seller: InvoiceParty;
  platform: InvoiceParty | null;
  buyerName: string;
}

/**
 * An order's invoice as issued when the order was paid, in the payment's transaction: its number
 * and whom it names (the seller's legal name, address and numbers, the platform's as marketplace
 * operator, the buyer's name). Every document of the order is drawn from this row, whatever was
 * changed since (docs/invoices.md "Issued once").
 */
export const issuedInvoices = pgTable('issued_invoices', {
  orderId: text('order_id')
    .primaryKey()
    .references(() => orders.id),
  number: text('number').notNull(),
  parties: jsonb('parties').$type<StoredParties>().notNull(),
  issuedAt: timestamp('issued_at', { withTimezone: true }).notNull(),
});

/**
 * Each document of an order as drawn once and then served (docs/invoices.md "Drawing and storing"):
 * the invoice with its first `credit_notes` credit notes, in one language. A refund makes the next
 * edition; the one before it is deleted then. Every row of an order names the same parties.
 */
export const invoiceDocuments = pgTable(
  'invoice_documents',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    locale: text('locale').$type<Invoice['locale']>().notNull(),
    creditNotes: smallint('credit_notes').notNull(),
    parties: jsonb('parties').$type<StoredParties>().notNull(),
    pdf: bytea('pdf').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.locale, t.creditNotes] })],
);
