// An order's invoice drawn as a PDF (docs/invoices.md): the supplier (the seller, and the platform
// as marketplace operator for a tax the seller is not registered for), the buyer, each line, the
// subtotal, discount, shipping, each tax line with its rate, the total, and a credit note page per
// refund. Every word comes from the catalogues (`invoice.*`), money from formatMoney, dates from
// formatDate; pen.ts draws it. pdfkit writes it with DejaVu Sans embedded (subset): every accent of
// French prints as itself. Runs in the renderer's worker threads (render-worker.ts): it reads
// nothing but its input.
import PDFDocument from 'pdfkit';
import {
  BOOKS_TIME_ZONE,
  formatDate,
  formatMoney,
  type Locale,
  type MessageKey,
  type MessageValues,
  t,
  taxLineLabel,
} from '../../contract/i18n.ts';
import type { InvoiceParty } from '../auth/sellers.ts';
import { type Doc, fonts, type Line, PAGE, Pen } from './pen.ts';

export type TaxName = 'GST' | 'HST' | 'PST' | 'QST';
export interface TaxLine {
  name: TaxName;
  ratePercent: number;
  amountCents: number;
}

/** Which tax the marketplace operator collects for a supplier not registered for it. */
export type Collected = 'gstHst' | 'qst' | 'both';

export interface CreditNote {
  number: string;
  date: Date;
  reason: string;
  amountCents: number;
  /** The tax lines refunded, when the refund is the whole order (its own lines); null otherwise. */
  taxLines: TaxLine[] | null;
}

export interface Invoice {
  locale: Locale;
  /** The invoice number, fixed at payment: the order's number (docs/invoices.md "Numbering"). */
  number: string;
  /** The order's number as people read it (`2026-000123`). */
  orderNumber: string;
  /** Drawn without the platform's tax profile (development): says plainly it is a sample. */
  sample: boolean;
  date: Date;
  supplier: InvoiceParty;
  /** The taxes the supplier charges without a registration number we can print. */
  supplierUnregistered: Array<'gstHst' | 'qst'>;
  operator: { party: InvoiceParty; collects: Collected } | null;
  buyer: { name: string; street: string; city: string; province: string; postalCode: string };
  lines: Array<{ name: string; quantity: number; unitPriceCents: number; amountCents: number }>;
  subtotalCents: number;
  discountCents: number;
  /** Of the discount, the shop's (its automatic discount, its coupon); the rest is the marketplace's coupon. */
  sellerDiscountCents: number;
  shippingCostCents: number;
  taxLines: TaxLine[];
  totalCents: number;
  creditNotes: CreditNote[];
}

/** The invoice, then one page per credit note, as PDF bytes. */
/** The document's bytes once it ends (collected as PDFKit writes them): call before `doc.end()`. */
export function pdfBytes(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/** A Letter page document of ours: margins, the regular font, the language and its metadata. */
export function letterDocument(
  locale: string,
  d: { title: string; author: string; now: Date },
): PDFKit.PDFDocument {
  return new PDFDocument({
    size: 'LETTER',
    margin: PAGE.margin,
    font: fonts().regular,
    bufferPages: true,
    lang: locale,
    displayTitle: true,
    info: { Title: d.title, Author: d.author, Creator: 'Portage', Producer: 'Portage', CreationDate: d.now },
  });
}

export function renderInvoice(invoice: Invoice, now: Date): Promise<Buffer> {
  const { locale } = invoice;
  const words = (key: MessageKey, values?: MessageValues) => t(locale, key, values);
  const { regular, bold } = fonts();
  const doc: Doc = letterDocument(locale, {
    title: words('invoice.documentTitle', { number: invoice.number }),
    author: invoice.supplier.name,
    now,
  });
  const done = pdfBytes(doc);
  const font = { regular, bold };
  const pen = new Pen(doc, font);

  // Page 1: the invoice.
  pen.title(words('invoice.title'), [
    [words('invoice.number'), invoice.number],
    [words('invoice.date'), formatDate(locale, invoice.date, BOOKS_TIME_ZONE)],
    [words('invoice.order'), invoice.orderNumber],
  ]);
  if (invoice.sample) pen.warning(words('invoice.sample'));
  pen.parties(
    { label: words('invoice.supplier'), lines: supplierLines(invoice, words) },
    { label: words('invoice.customer'), lines: buyerLines(invoice) },
  );
  if (invoice.operator) pen.operator(words('invoice.operator.title'), operatorLines(invoice, words));

  pen.tableHeader([
    words('invoice.col.description'),
    words('invoice.col.quantity'),
    words('invoice.col.unitPrice'),
    words('invoice.col.amount'),
  ]);
  for (const line of invoice.lines) {
    pen.tableRow(
      [
        line.name,
        new Intl.NumberFormat(locale).format(line.quantity),
        formatMoney(locale, line.unitPriceCents),
        formatMoney(locale, line.amountCents),
      ],
      () =>
        pen.tableHeader([
          words('invoice.col.description'),
          words('invoice.col.quantity'),
          words('invoice.col.unitPrice'),
          words('invoice.col.amount'),
        ]),
    );
  }
  pen.totals([
    [words('invoice.subtotal'), formatMoney(locale, invoice.subtotalCents)],
    // A discount reads as an amount taken off (never "-$0.00": Intl writes a minus zero); the
    // shop's and the marketplace's on their own rows when both gave one.
    ...(invoice.sellerDiscountCents > 0 && invoice.sellerDiscountCents < invoice.discountCents
      ? ([
          [words('invoice.discountShop'), formatMoney(locale, -invoice.sellerDiscountCents)],
          [
            words('invoice.discountPlatform'),
            formatMoney(locale, -(invoice.discountCents - invoice.sellerDiscountCents)),
          ],
        ] as Array<[string, string]>)
      : ([
          [
            words('invoice.discount'),
            formatMoney(locale, invoice.discountCents ? -invoice.discountCents : 0),
          ],
        ] as Array<[string, string]>)),
    [words('invoice.shipping'), formatMoney(locale, invoice.shippingCostCents)],
    ...invoice.taxLines.map((l): [string, string] => [
      taxLabel(locale, l),
      formatMoney(locale, l.amountCents),
    ]),
    [words('invoice.total'), formatMoney(locale, invoice.totalCents), 'strong'],
  ]);
  pen.note(words('invoice.paid', { date: formatDate(locale, invoice.date, BOOKS_TIME_ZONE) }));
  pen.note(words('invoice.currency'));

  // A page per credit note.
  for (const note of invoice.creditNotes) {
    doc.addPage();
    pen.title(words('invoice.creditNote.title'), [
      [words('invoice.creditNote.number'), note.number],
      [words('invoice.creditNote.date'), formatDate(locale, note.date, BOOKS_TIME_ZONE)],
      [words('invoice.order'), invoice.orderNumber],
    ]);
    if (invoice.sample) pen.warning(words('invoice.sample'));
    pen.note(
      words('invoice.creditNote.refersTo', {
        number: invoice.number,
        date: formatDate(locale, invoice.date, BOOKS_TIME_ZONE),
      }),
      16,
    );
    pen.parties(
      { label: words('invoice.supplier'), lines: supplierLines(invoice, words) },
      { label: words('invoice.customer'), lines: buyerLines(invoice) },
    );
    if (invoice.operator) pen.operator(words('invoice.operator.title'), operatorLines(invoice, words));
    pen.note(words('invoice.creditNote.reason', { reason: note.reason }));
    pen.totals([
      ...(note.taxLines ?? []).map((l): [string, string] => [
        words('invoice.creditNote.taxRefunded', { tax: taxLabel(locale, l) }),
        formatMoney(locale, -l.amountCents),
      ]),
      [
        words(note.taxLines ? 'invoice.creditNote.total' : 'invoice.creditNote.amount'),
        formatMoney(locale, -note.amountCents),
        'strong',
      ],
    ]);
  }

  // Footers, now that the number of pages is known.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    pen.footer(
      words('invoice.footer', {
        supplier: invoice.supplier.name,
        page: i - range.start + 1,
        pages: range.count,
      }),
    );
  }
  doc.end();
  return done;
}

const taxLabel = (locale: Locale, line: TaxLine) => taxLineLabel(locale, line.name, line.ratePercent);

const addressLines = (p: {
  street: string | null;
  city: string | null;
  province: string | null;
  postalCode: string | null;
}) =>
  [
    ...(p.street ? [p.street] : []),
    [p.city, p.province].filter(Boolean).join(' ') + (p.postalCode ? `  ${p.postalCode}` : ''),
  ].filter((l) => l.trim() !== '');

type Words = (key: MessageKey, values?: MessageValues) => string;

function supplierLines(invoice: Invoice, words: Words): Line[] {
  const s = invoice.supplier;
  return [
    { text: s.name, strong: true },
    ...addressLines(s).map((text) => ({ text })),
    ...(s.gstHstNumber ? [{ text: words('invoice.gstHstNumber', { number: s.gstHstNumber }) }] : []),
    ...(s.qstNumber ? [{ text: words('invoice.qstNumber', { number: s.qstNumber }) }] : []),
    ...invoice.supplierUnregistered.map((tax) => ({
      text: words('invoice.notRegistered', { tax }),
      muted: true,
    })),
  ];
}

function buyerLines(invoice: Invoice): Line[] {
  const b = invoice.buyer;
  return [{ text: b.name, strong: true }, ...addressLines(b).map((text) => ({ text }))];
}

function operatorLines(invoice: Invoice, words: Words): Line[] {
  const op = invoice.operator;
  if (!op) return [];
  const p = op.party;
  const gstHst = op.collects !== 'qst' && p.gstHstNumber;
  const qst = op.collects !== 'gstHst' && p.qstNumber;
  return [
    { text: p.name, strong: true },
    ...addressLines(p).map((text) => ({ text })),
    ...(gstHst ? [{ text: words('invoice.gstHstNumber', { number: gstHst }) }] : []),
    ...(qst ? [{ text: words('invoice.qstNumber', { number: qst }) }] : []),
    { text: words('invoice.operator.note', { which: op.collects }), muted: true },
  ];
}
