// A seller's monthly statements (docs/api.md "Statements"): the months, on the marketplace's
// calendar (America/Toronto), in which money of theirs moved, and each month's statement as CSV
// (one row per ledger transaction) or PDF: the opening balance, each transaction (its date, kind,
// orders and amounts: gross, the platform's commission, the GST/HST on it, net to the seller),
// the month's totals, the platform's invoice of its commission, and the closing balance.
//
// A balance here is what the seller is owed: their pending, available and in-transit money
// together (negative: what they owe). A transaction's net is what it changed of it; its gross is
// the net plus the commission and its tax, so that every line reads gross - commission - tax = net.

import { stringify } from 'csv-stringify/sync';
import { invalid, notFound, problem } from '../../contract/errors.ts';
import {
  BASE_LOCALE,
  BOOKS_TIME_ZONE,
  formatDate,
  formatMoney,
  type Locale,
  type MessageKey,
  type MessageValues,
  t,
} from '../../contract/i18n.ts';
import { type InvoiceParty, invoiceParties } from '../auth/sellers.ts';
import type { RequestContext } from '../context.ts';
import { letterDocument, pdfBytes } from '../invoices/pdf.ts';
import { fonts } from '../invoices/pen.ts';
import { sellerEntriesBetween, sellerOwedBefore, transactionMonths } from '../ledger/ledger.ts';
import type { LedgerAccount, LedgerKind } from '../ledger/tables.ts';
import { moneyOfOrders } from '../orders/service.ts';
import { torontoInstant, torontoWall } from '../pricing/dates.ts';

/** The calendar statements are cut by: the books'. */
export const STATEMENT_TIME_ZONE = BOOKS_TIME_ZONE;

/** The accounts that hold a seller's money (negative while owed to them). */
const SELLER_ACCOUNTS: LedgerAccount[] = ['seller_pending', 'seller_available', 'seller_in_transit'];

export type StatementFormat = 'csv' | 'pdf';

// ---- the calendar ------------------------------------------------------------------------------

const wallOf = torontoWall;
const instantOf = (wall: number) => new Date(torontoInstant(wall));

/** YYYY-MM, as statements name months. */
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A month's first and last days (YYYY-MM-DD) and its bounds [from, to) as instants. */
export interface MonthSpan {
  month: string;
  firstDay: string;
  lastDay: string;
  from: Date;
  to: Date;
}

/** The span of `month` (YYYY-MM), or undefined when it is not one. */
export function monthSpan(month: string): MonthSpan | undefined {
  const m = MONTH.exec(month);
  if (!m) return undefined;
  const year = Number(m[1]);
  const index = Number(m[2]) - 1;
  if (year < 2000) return undefined;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return {
    month,
    firstDay: day(Date.UTC(year, index, 1)),
    lastDay: day(Date.UTC(year, index + 1, 0)),
    from: instantOf(Date.UTC(year, index, 1)),
    to: instantOf(Date.UTC(year, index + 1, 1)),
  };
}

/** The month (YYYY-MM) `at` falls in, in Toronto. */
export const monthOf = (at: Date) => new Date(wallOf(at.getTime())).toISOString().slice(0, 7);
/** The day (YYYY-MM-DD) `at` falls on, in Toronto. */
const dayOf = (at: Date) => new Date(wallOf(at.getTime())).toISOString().slice(0, 10);

const monthNames = new Map(
  (['en-CA', 'fr-CA'] as const).map(
    (l) => [l, new Intl.DateTimeFormat(l, { month: 'long', year: 'numeric', timeZone: 'UTC' })] as const,
  ),
);
/** "November 2026", "novembre 2026". */
export const monthName = (locale: Locale, month: string) =>
  (monthNames.get(locale) as Intl.DateTimeFormat).format(new Date(`${month}-01T00:00:00Z`));

// ---- what a statement holds --------------------------------------------------------------------

export interface StatementLine {
  /** The ledger transaction's key (`sale:<orderId>`, `payout:<payoutId>`…): the line's reference. */
  key: string;
  kind: LedgerKind;
  at: Date;
  orderNumbers: string[];
  grossCents: number;
  commissionCents: number;
  commissionTaxCents: number;
  netCents: number;
  /** The balance after this line. */
  balanceCents: number;
}

export interface StatementTotals {
  salesCents: number;
  refundsCents: number;
  /** Disputes opened (the amount and its fee, taken) and won (given back). */
  disputesCents: number;
  commissionCents: number;
  commissionTaxCents: number;
  /** Paid to the seller's bank account, less what reversals took back (negative). */
  payoutsCents: number;
  /** Anything else (an operator's adjustment): what makes the totals add up to the closing balance. */
  otherCents: number;
}

export interface Statement {
  span: MonthSpan;
  seller: InvoiceParty;
  /** The platform as its tax profile names it; null when not set. */
  platform: { name: string; gstHstNumber: string | null } | null;
  openingCents: number;
  lines: StatementLine[];
  totals: StatementTotals;
  closingCents: number;
}

/** The order of transactions of one instant: the order money moves in. */
const KIND_ORDER: Record<LedgerKind, number> = {
  sale: 0,
  release: 1,
  payout: 2,
  transfer_paid: 3,
  transfer_failed: 4,
  refund: 5,
  reversal_requested: 6,
  reversal_done: 7,
  reversal_failed: 8,
  dispute_opened: 9,
  dispute_won: 10,
  adjustment: 11,
};

/** 0 for -0: a sum negated never prints "-$0.00". */
const neg = (n: number) => (n === 0 ? 0 : -n);

/** The months (YYYY-MM, Toronto) in which a seller has ledger transactions, newest first. */
export const statementMonths = (ctx: RequestContext, sellerId: string) =>
  transactionMonths(ctx, sellerId, STATEMENT_TIME_ZONE);

/** What the seller was owed before `at` (negative: what they owed). */
const balanceBefore = (ctx: RequestContext, sellerId: string, at: Date) =>
  sellerOwedBefore(ctx, sellerId, at);

/**
 * A seller's statement of `month` (YYYY-MM): 400 when it is not a month, 404 when it has not
 * begun or when no money of theirs moved in it (another seller's month is not theirs).
 */
export async function statementOf(ctx: RequestContext, sellerId: string, month: string): Promise<Statement> {
  const span = monthSpan(month);
  if (!span) {
    throw invalid('error.payouts.statementMonth', undefined, [problem('month', 'validation.statementMonth')]);
  }
  if (span.from > ctx.now()) throw notFound('error.payouts.monthNotBegun', { month });
  const entries = await sellerEntriesBetween(ctx, sellerId, span.from, span.to);
  if (entries.length === 0) throw notFound('error.payouts.noStatement', { month });
  const [openingCents, parties] = await Promise.all([
    balanceBefore(ctx, sellerId, span.from),
    invoiceParties(ctx, sellerId),
  ]);
  const numbers = new Map(
    (await moneyOfOrders(ctx, { orderIds: [...new Set(entries.map((e) => e.orderId))] })).map((o) => [
      o.id,
      o.number,
    ]),
  );

  // The entries come oldest first, a transaction's together: one line each. Transactions of one
  // instant (a job's pass) read in the order money moves: sold, released, paid out, taken back.
  const lines: StatementLine[] = [];
  for (let i = 0; i < entries.length; ) {
    const first = entries[i]!;
    let seller = 0;
    let commission = 0;
    let tax = 0;
    const orderIds: string[] = [];
    for (; i < entries.length && entries[i]!.key === first.key; i++) {
      const e = entries[i]!;
      if (SELLER_ACCOUNTS.includes(e.account)) seller += e.amountCents;
      if (e.account === 'platform_commission') commission += e.amountCents;
      if (e.account === 'platform_tax_payable') tax += e.amountCents;
      if (!orderIds.includes(e.orderId)) orderIds.push(e.orderId);
    }
    const net = neg(seller);
    lines.push({
      key: first.key,
      kind: first.kind,
      at: first.createdAt,
      orderNumbers: orderIds.map((id) => numbers.get(id) ?? id),
      grossCents: net + neg(commission) + neg(tax),
      commissionCents: neg(commission),
      commissionTaxCents: neg(tax),
      netCents: net,
      balanceCents: 0,
    });
  }
  lines.sort((x, y) => x.at.getTime() - y.at.getTime() || KIND_ORDER[x.kind] - KIND_ORDER[y.kind]);
  let balance = openingCents;
  for (const l of lines) {
    balance += l.netCents;
    l.balanceCents = balance;
  }

  const sum = (kinds: LedgerKind[], of: (l: StatementLine) => number) =>
    lines.filter((l) => kinds.includes(l.kind)).reduce((s, l) => s + of(l), 0);
  const totals: StatementTotals = {
    salesCents: sum(['sale'], (l) => l.grossCents),
    refundsCents: sum(['refund'], (l) => l.grossCents),
    disputesCents: sum(['dispute_opened', 'dispute_won'], (l) => l.grossCents),
    commissionCents: lines.reduce((s, l) => s + l.commissionCents, 0),
    commissionTaxCents: lines.reduce((s, l) => s + l.commissionTaxCents, 0),
    payoutsCents: sum(['transfer_paid', 'reversal_done'], (l) => l.netCents),
    otherCents: 0,
  };
  totals.otherCents =
    balance -
    openingCents -
    (totals.salesCents +
      totals.refundsCents +
      totals.disputesCents -
      totals.commissionCents -
      totals.commissionTaxCents +
      totals.payoutsCents);
  return {
    span,
    seller: parties.seller,
    platform: parties.platform
      ? { name: parties.platform.name, gstHstNumber: parties.platform.gstHstNumber }
      : null,
    openingCents,
    lines,
    totals,
    closingCents: balance,
  };
}

// ---- the CSV -----------------------------------------------------------------------------------

/** Cents as decimal dollars with a dot, whatever the language: -1500 -> "-15.00". */
export function decimalDollars(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const CSV_COLUMNS: MessageKey[] = [
  'statement.col.date',
  'statement.col.reference',
  'statement.col.type',
  'statement.col.orders',
  'statement.col.gross',
  'statement.col.commission',
  'statement.col.tax',
  'statement.col.net',
  'statement.col.balance',
];

/** The statement as CSV: a header row in `locale`, then one row per ledger transaction (UTF-8, no BOM). */
export function statementCsv(s: Statement, locale: Locale): string {
  return stringify([
    CSV_COLUMNS.map((key) => t(locale, key)),
    ...s.lines.map((l) => [
      dayOf(l.at),
      l.key,
      t(locale, 'statement.kind', { kind: l.kind }),
      l.orderNumbers.join(' '),
      decimalDollars(l.grossCents),
      decimalDollars(l.commissionCents),
      decimalDollars(l.commissionTaxCents),
      decimalDollars(l.netCents),
      decimalDollars(l.balanceCents),
    ]),
  ]);
}

// ---- the PDF -----------------------------------------------------------------------------------

const INK = '#1f2328';
const MUTED = '#59636e';
const RULE = '#d1d9e0';
const ACCENT = '#0b5394';
const PAGE = { width: 612, height: 792, margin: 54 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
/** Lowest y a line may start at: below it, the footer. */
const BOTTOM = PAGE.height - PAGE.margin - 30;
/** The lines' columns: date, what (kind and orders), gross, commission, its tax, net. */
const COLUMNS = [64, 162, 70, 70, 66, 72] as const;

/** The statement as a PDF in `locale`, drawn with pdfkit and the invoices' embedded font. */
export function renderStatementPdf(s: Statement, locale: Locale, now: Date): Promise<Buffer> {
  const words = (key: MessageKey, values?: MessageValues) => t(locale, key, values);
  const money = (cents: number) => formatMoney(locale, cents);
  const month = monthName(locale, s.span.month);
  const { regular, bold } = fonts();
  const doc = letterDocument(locale, {
    title: words('statement.documentTitle', { month }),
    author: s.platform?.name ?? 'Portage',
    now,
  });
  const done = pdfBytes(doc);
  const left = PAGE.margin;

  const room = (height: number, onNewPage?: () => void) => {
    if (doc.y + height > BOTTOM) {
      doc.addPage();
      doc.y = PAGE.margin;
      onNewPage?.();
    }
  };
  const rule = () => {
    doc
      .moveTo(left, doc.y)
      .lineTo(left + CONTENT, doc.y)
      .lineWidth(0.75)
      .strokeColor(RULE)
      .stroke();
    doc.y += 5;
  };
  const label = (text: string) =>
    doc.font(bold).fontSize(8.5).fillColor(MUTED).text(text, left, doc.y, { width: CONTENT });
  const line = (text: string, o: { strong?: boolean; muted?: boolean; size?: number } = {}) =>
    doc
      .font(o.strong ? bold : regular)
      .fontSize(o.size ?? 10)
      .fillColor(o.muted ? MUTED : INK)
      .text(text, left, doc.y, { width: CONTENT });
  /** A label on the left, its amount on the right. */
  const amountRow = (text: string, cents: number, strong = false) => {
    room(16);
    const y = doc.y;
    doc
      .font(strong ? bold : regular)
      .fontSize(10)
      .fillColor(INK);
    const h = doc.heightOfString(text, { width: CONTENT - 130 });
    doc.text(text, left, y, { width: CONTENT - 130 });
    doc.text(money(cents), left + CONTENT - 120, y, { width: 120, align: 'right' });
    doc.y = y + Math.max(h, 12) + 4;
  };
  const row = (cells: string[], o: { head?: boolean; under?: string } = {}) => {
    doc
      .font(o.head ? bold : regular)
      .fontSize(8.5)
      .fillColor(o.head ? MUTED : INK);
    const heights = cells.map((c, i) => doc.heightOfString(c, { width: COLUMNS[i]! - 6 }));
    doc.font(regular).fontSize(8);
    const under = o.under ? doc.heightOfString(o.under, { width: COLUMNS[1] - 6 }) : 0;
    const h = Math.max(...heights, heights[1]! + under);
    room(h + 10, o.head ? undefined : header);
    const top = doc.y;
    let x = left;
    cells.forEach((c, i) => {
      doc
        .font(o.head ? bold : regular)
        .fontSize(8.5)
        .fillColor(o.head ? MUTED : INK)
        .text(c, x, top, { width: COLUMNS[i]! - 6, align: i >= 2 ? 'right' : 'left' });
      x += COLUMNS[i]!;
    });
    if (o.under) {
      doc
        .font(regular)
        .fontSize(8)
        .fillColor(MUTED)
        .text(o.under, left + COLUMNS[0], top + heights[1]!, { width: COLUMNS[1] - 6 });
    }
    doc.y = top + h + 4;
    rule();
  };
  const header = () =>
    row(
      [
        words('statement.col.date'),
        words('statement.col.type'),
        words('statement.col.gross'),
        words('statement.col.commission'),
        words('statement.col.tax'),
        words('statement.col.net'),
      ],
      { head: true },
    );

  // The title, the period, the seller.
  doc.font(bold).fontSize(20).fillColor(ACCENT).text(words('statement.title'), left, PAGE.margin, {
    width: CONTENT,
  });
  doc.font(bold).fontSize(13).fillColor(INK).text(month, left, doc.y, { width: CONTENT });
  line(
    words('statement.period', {
      from: formatDate(locale, s.span.firstDay),
      to: formatDate(locale, s.span.lastDay),
    }),
    { muted: true },
  );
  doc.moveDown(0.8);
  label(words('statement.seller'));
  line(s.seller.name, { strong: true });
  if (s.seller.gstHstNumber) line(words('invoice.gstHstNumber', { number: s.seller.gstHstNumber }));
  doc.moveDown(0.8);
  amountRow(words('statement.opening', { date: formatDate(locale, s.span.firstDay) }), s.openingCents, true);
  doc.moveDown(0.4);

  // The transactions.
  header();
  for (const l of s.lines) {
    row(
      [
        dayOf(l.at),
        words('statement.kind', { kind: l.kind }),
        money(l.grossCents),
        money(l.commissionCents),
        money(l.commissionTaxCents),
        money(l.netCents),
      ],
      l.orderNumbers.length ? { under: l.orderNumbers.join(', ') } : {},
    );
  }
  doc.moveDown(0.6);

  // The totals, adding up from the opening balance to the closing one.
  room(150);
  label(words('statement.totals'));
  doc.moveDown(0.2);
  amountRow(words('statement.sales'), s.totals.salesCents);
  amountRow(words('statement.refunds'), s.totals.refundsCents);
  amountRow(words('statement.disputes'), s.totals.disputesCents);
  amountRow(words('statement.commission'), neg(s.totals.commissionCents));
  amountRow(words('statement.commissionTax'), neg(s.totals.commissionTaxCents));
  amountRow(words('statement.payouts'), s.totals.payoutsCents);
  if (s.totals.otherCents !== 0) amountRow(words('statement.other'), s.totals.otherCents);
  rule();
  amountRow(words('statement.closing', { date: formatDate(locale, s.span.lastDay) }), s.closingCents, true);
  doc.moveDown(1);

  // The platform's invoice of its commission.
  room(170);
  const notSet = words('statement.notSet');
  doc.font(bold).fontSize(13).fillColor(ACCENT).text(words('statement.invoice.title'), left, doc.y, {
    width: CONTENT,
  });
  doc.moveDown(0.3);
  label(words('statement.invoice.supplier'));
  line(s.platform?.name ?? notSet, { strong: true });
  line(words('invoice.gstHstNumber', { number: s.platform?.gstHstNumber ?? notSet }));
  doc.moveDown(0.4);
  label(words('statement.invoice.to'));
  line(s.seller.name, { strong: true });
  doc.moveDown(0.4);
  amountRow(words('statement.invoice.commission', { month }), s.totals.commissionCents);
  amountRow(words('statement.commissionTax'), s.totals.commissionTaxCents);
  amountRow(words('statement.invoice.total'), s.totals.commissionCents + s.totals.commissionTaxCents, true);
  line(words('statement.invoice.note'), { muted: true, size: 8.5 });
  doc.moveDown(0.8);
  line(words('statement.currency'), { muted: true, size: 8.5 });

  // Footers, now that the number of pages is known.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc
      .font(regular)
      .fontSize(8)
      .fillColor(MUTED)
      .text(
        words('statement.footer', {
          seller: s.seller.name,
          month,
          page: i - range.start + 1,
          pages: range.count,
        }),
        left,
        PAGE.height - PAGE.margin - 12,
        { width: CONTENT, align: 'center', lineBreak: false },
      );
  }
  doc.end();
  return done;
}

// ---- what the routes answer --------------------------------------------------------------------

/** A statement as a file: its bytes, name, type and language. */
export interface StatementFile {
  body: Buffer | string;
  fileName: string;
  contentType: string;
  locale: Locale;
}

/**
 * The caller's statement of `month` as `format`, in `requested` when given, else the request's
 * language (the seller's saved one, else Accept-Language).
 */
export async function statementFile(
  ctx: RequestContext,
  sellerId: string,
  month: string,
  format: StatementFormat,
  requested?: Locale,
): Promise<StatementFile> {
  const statement = await statementOf(ctx, sellerId, month);
  const locale = requested ?? ctx.locale ?? BASE_LOCALE;
  const fileName = t(locale, 'statement.fileName', { month, ext: format });
  if (format === 'csv') {
    return {
      body: statementCsv(statement, locale),
      fileName,
      contentType: 'text/csv; charset=utf-8',
      locale,
    };
  }
  return {
    body: await renderStatementPdf(statement, locale, ctx.now()),
    fileName,
    contentType: 'application/pdf',
    locale,
  };
}

/** The caller's months with a statement, newest first, each with its two files' addresses. */
export async function statementList(ctx: RequestContext, sellerId: string, publicBaseUrl: string) {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    statements: (await statementMonths(ctx, sellerId)).map((month) => ({
      month,
      csvUrl: `${base}/sellers/me/statements/${month}.csv`,
      pdfUrl: `${base}/sellers/me/statements/${month}.pdf`,
    })),
  };
}
