// The pen an invoice is drawn with: the page's geometry and colours, the embedded fonts, and
// the drawing of each part (title, parties, table, totals, notes, footer) with page breaks. It knows
// no words and no money: pdf.ts decides what the invoice says.
import { createRequire } from 'node:module';

/** The embedded fonts, found in node_modules from the sources or from a build in dist/. */
const require = createRequire(import.meta.url);
let fontFiles: { regular: string; bold: string } | undefined;
export const fonts = () =>
  (fontFiles ??= {
    regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
    bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
  });

export const PAGE = { width: 612, height: 792, margin: 54 };
const CONTENT = PAGE.width - 2 * PAGE.margin;
/** Lowest y a line of the body may start at: below it, the footer. */
const BODY_BOTTOM = PAGE.height - PAGE.margin - 36;
const INK = '#1f2328';
const MUTED = '#59636e';
const RULE = '#d1d9e0';
const ACCENT = '#0b5394';
const WARN = '#a40e26';

/** Columns of the lines' table: description, quantity, unit price, amount. */
const COLUMNS = { description: 250, quantity: 50, unitPrice: 102, amount: 102 };

export type Doc = PDFKit.PDFDocument;

export interface Line {
  text: string;
  strong?: boolean;
  muted?: boolean;
}

/** Draws the invoice's parts top to bottom, keeping the cursor and breaking pages where needed. */
export class Pen {
  private y = PAGE.margin;

  constructor(
    private readonly doc: Doc,
    private readonly font: { regular: string; bold: string },
  ) {
    doc.on('pageAdded', () => {
      this.y = PAGE.margin;
    });
  }

  private room(height: number, onNewPage?: () => void) {
    if (this.y + height > BODY_BOTTOM) {
      this.doc.addPage();
      onNewPage?.();
    }
  }

  /** The document's title on the left, its numbers and dates on the right. */
  title(title: string, facts: Array<[string, string]>) {
    const { doc } = this;
    doc.font(this.font.bold).fontSize(22).fillColor(ACCENT).text(title, PAGE.margin, this.y, { width: 190 });
    let y = this.y + 2;
    const x = PAGE.margin + 200;
    const width = CONTENT - 200;
    for (const [label, value] of facts) {
      doc.font(this.font.regular).fontSize(8.5).fillColor(MUTED).text(label, x, y, { width: 120 });
      doc.font(this.font.bold).fontSize(8.5).fillColor(INK);
      const h = doc.heightOfString(value, { width: width - 120 });
      doc.text(value, x + 120, y, { width: width - 120, align: 'right' });
      y += Math.max(h, 11) + 3;
    }
    this.y = Math.max(y, this.y + 30) + 14;
    this.rule();
  }

  private rule(color = RULE) {
    this.doc
      .moveTo(PAGE.margin, this.y)
      .lineTo(PAGE.margin + CONTENT, this.y)
      .lineWidth(0.75)
      .strokeColor(color)
      .stroke();
    this.y += 12;
  }

  /** One block of lines in a column: its label, then each line. Answers its height. */
  private block(x: number, y: number, width: number, label: string, lines: Line[], measure = false) {
    const { doc } = this;
    let at = y;
    doc.font(this.font.bold).fontSize(8.5).fillColor(ACCENT);
    if (!measure) doc.text(label, x, at, { width });
    at += doc.heightOfString(label, { width }) + 4;
    for (const line of lines) {
      doc
        .font(line.strong ? this.font.bold : this.font.regular)
        .fontSize(line.muted ? 8 : 9.5)
        .fillColor(line.muted ? MUTED : INK);
      const h = doc.heightOfString(line.text, { width });
      if (!measure) doc.text(line.text, x, at, { width });
      at += h + 2;
    }
    return at - y;
  }

  /** The supplier and the customer side by side. */
  parties(left: { label: string; lines: Line[] }, right: { label: string; lines: Line[] }) {
    const gap = 24;
    const width = (CONTENT - gap) / 2;
    const height = Math.max(
      this.block(PAGE.margin, this.y, width, left.label, left.lines, true),
      this.block(PAGE.margin, this.y, width, right.label, right.lines, true),
    );
    this.room(height);
    this.block(PAGE.margin, this.y, width, left.label, left.lines);
    this.block(PAGE.margin + width + gap, this.y, width, right.label, right.lines);
    this.y += height + 12;
  }

  /** The marketplace operator's block, framed: who collects the tax the supplier cannot. */
  operator(label: string, lines: Line[]) {
    const pad = 8;
    const width = CONTENT - 2 * pad;
    const height = this.block(PAGE.margin + pad, this.y + pad, width, label, lines, true) + 2 * pad;
    this.room(height);
    this.doc.roundedRect(PAGE.margin, this.y, CONTENT, height, 4).fillColor('#f6f8fa').fill();
    this.block(PAGE.margin + pad, this.y + pad, width, label, lines);
    this.y += height + 14;
  }

  private cells(cells: string[], bold: boolean, color: string, measure = false) {
    const { doc } = this;
    const widths = [COLUMNS.description, COLUMNS.quantity, COLUMNS.unitPrice, COLUMNS.amount];
    doc
      .font(bold ? this.font.bold : this.font.regular)
      .fontSize(bold ? 8.5 : 9.5)
      .fillColor(color);
    let x = PAGE.margin;
    let height = 0;
    cells.forEach((cell, i) => {
      const width = widths[i] as number;
      const pad = i === 0 ? 0 : 6;
      const options = { width: width - pad, align: i === 0 ? ('left' as const) : ('right' as const) };
      height = Math.max(height, doc.heightOfString(cell, options));
      if (!measure) doc.text(cell, x + pad, this.y, options);
      x += width;
    });
    return height;
  }

  tableHeader(cells: string[]) {
    this.room(40);
    const h = this.cells(cells, true, MUTED);
    this.y += h + 5;
    this.rule(INK);
    this.y -= 6;
  }

  /** A line of the table; on a new page the header is drawn again first. */
  tableRow(cells: string[], header: () => void) {
    const h = this.cells(cells, false, INK, true);
    this.room(h + 8, header);
    this.cells(cells, false, INK);
    this.y += h + 5;
    this.rule();
    this.y -= 6;
  }

  /** Label and amount pairs, right-aligned under the table; 'strong' for the total. */
  totals(rows: Array<[string, string] | [string, string, 'strong']>) {
    const { doc } = this;
    const labelX = PAGE.margin + COLUMNS.description + COLUMNS.quantity - 40;
    const labelWidth = COLUMNS.unitPrice + 40 + 6;
    const amountX = PAGE.margin + CONTENT - COLUMNS.amount;
    this.y += 6;
    const heightOf = ([label, , strong]: (typeof rows)[number]) => {
      doc.font(strong ? this.font.bold : this.font.regular).fontSize(strong ? 11 : 9.5);
      return Math.max(doc.heightOfString(label, { width: labelWidth }), 12) + (strong ? 10 : 4);
    };
    // The totals stay together on one page.
    this.room(rows.reduce((sum, row) => sum + heightOf(row), 0));
    for (const row of rows) {
      const [label, amount, strong] = row;
      const h = heightOf(row) - (strong ? 10 : 4);
      if (strong) {
        doc
          .moveTo(labelX, this.y)
          .lineTo(PAGE.margin + CONTENT, this.y)
          .lineWidth(0.75)
          .strokeColor(INK)
          .stroke();
        this.y += 6;
      }
      doc.fillColor(INK).text(label, labelX, this.y, { width: labelWidth });
      doc.text(amount, amountX, this.y, { width: COLUMNS.amount, align: 'right' });
      this.y += h + 4;
    }
    this.y += 10;
  }

  /** A paragraph across the page, in the muted colour, and `space` below it. */
  note(text: string, space = 6) {
    const { doc } = this;
    doc.font(this.font.regular).fontSize(8.5).fillColor(MUTED);
    const h = doc.heightOfString(text, { width: CONTENT });
    this.room(h);
    doc.text(text, PAGE.margin, this.y, { width: CONTENT });
    this.y += h + space;
  }

  /** A boxed warning across the page, in bold: what a reader must not miss. */
  warning(text: string) {
    const { doc } = this;
    doc.font(this.font.bold).fontSize(10);
    const h = doc.heightOfString(text, { width: CONTENT - 16 });
    this.room(h + 16);
    doc
      .rect(PAGE.margin, this.y, CONTENT, h + 12)
      .lineWidth(1.5)
      .strokeColor(WARN)
      .stroke();
    doc.fillColor(WARN).text(text, PAGE.margin + 8, this.y + 6, { width: CONTENT - 16 });
    this.y += h + 24;
  }

  /** The page's footer: the supplier and "Page 1 of 2". */
  footer(text: string) {
    const { doc } = this;
    const y = PAGE.height - PAGE.margin - 12;
    doc
      .moveTo(PAGE.margin, y - 8)
      .lineTo(PAGE.margin + CONTENT, y - 8)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    // Below the bottom margin: lineBreak off, so pdfkit does not start a page for it.
    doc.font(this.font.regular).fontSize(7.5).fillColor(MUTED).text(text, PAGE.margin, y, {
      width: CONTENT,
      align: 'center',
      lineBreak: false,
    });
  }
}
