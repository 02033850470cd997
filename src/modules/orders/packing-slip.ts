// An order's packing slip, the sheet that goes in the parcel (docs/shipping.md "Packing slip"): the
// order's number and date, the shop, where it goes, and each line (the product and variant as
// sold, its SKU, the quantity), every heading in English and French. Drawn with pdfkit and the
// invoices' embedded font, in the request (a page of text: milliseconds); no price is printed.
import PDFDocument from 'pdfkit';
import { formatDate, type MessageKey, type MessageValues, t } from '../../contract/i18n.ts';
import { pdfBytes } from '../invoices/pdf.ts';
import { fonts } from '../invoices/pen.ts';

export interface PackingSlip {
  orderNumber: string;
  orderedAt: Date;
  shop: string;
  shipTo: {
    name: string;
    street: string;
    line2: string | null;
    city: string;
    province: string;
    postalCode: string;
  };
  lines: Array<{ name: string; sku: string | null; quantity: number }>;
  /** The parcel's tracking number, once it has one. */
  tracking: string | null;
}

/** English, then French. */
const both = (key: MessageKey, values?: MessageValues) =>
  `${t('en-CA', key, values)} / ${t('fr-CA', key, values)}`;

const INK = '#1f2328';
const MUTED = '#59636e';
const RULE = '#d1d9e0';

export function renderPackingSlip(slip: PackingSlip, now: Date): Promise<Buffer> {
  const { regular, bold } = fonts();
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: 54,
    font: regular,
    info: {
      Title: both('packingSlip.documentTitle', { number: slip.orderNumber }),
      Creator: 'Portage',
      Producer: 'Portage',
      CreationDate: now,
    },
  });
  const done = pdfBytes(doc);

  const left = 54;
  const width = 612 - 2 * left;
  const label = (words: string, x = left, w = width) =>
    doc.font(bold).fontSize(8.5).fillColor(MUTED).text(words, x, doc.y, { width: w });
  const line = (words: string, strong = false, x = left, w = width) =>
    doc
      .font(strong ? bold : regular)
      .fontSize(10)
      .fillColor(INK)
      .text(words, x, doc.y, { width: w });

  doc.font(bold).fontSize(20).fillColor('#0b5394').text(both('packingSlip.title'), left, 54, { width });
  doc.moveDown(0.5);
  const en = formatDate('en-CA', slip.orderedAt, 'America/Toronto');
  const fr = formatDate('fr-CA', slip.orderedAt, 'America/Toronto');
  label(both('packingSlip.order'));
  line(slip.orderNumber, true);
  line(`${en} / ${fr}`);
  doc.moveDown(0.6);
  label(both('packingSlip.from'));
  line(slip.shop, true);
  doc.moveDown(0.6);
  label(both('packingSlip.shipTo'));
  const a = slip.shipTo;
  line(a.name, true);
  for (const l of [a.street, ...(a.line2 ? [a.line2] : []), `${a.city} ${a.province}  ${a.postalCode}`])
    line(l);
  if (slip.tracking) {
    doc.moveDown(0.6);
    label(both('packingSlip.tracking'));
    line(slip.tracking, true);
  }
  doc.moveDown(1.2);

  // The lines: what, SKU, quantity.
  const cols = { name: 330, sku: 120, quantity: width - 450 };
  const row = (cells: [string, string, string], strong: boolean, color: string) => {
    doc
      .font(strong ? bold : regular)
      .fontSize(strong ? 8.5 : 10)
      .fillColor(color);
    const y = doc.y;
    const h = Math.max(
      doc.heightOfString(cells[0], { width: cols.name - 6 }),
      doc.heightOfString(cells[1], { width: cols.sku - 6 }),
    );
    if (y + h > 792 - 72) doc.addPage();
    const top = doc.y;
    doc.text(cells[0], left, top, { width: cols.name - 6 });
    doc.text(cells[1], left + cols.name, top, { width: cols.sku - 6 });
    doc.text(cells[2], left + cols.name + cols.sku, top, { width: cols.quantity, align: 'right' });
    doc.y = top + h + 4;
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .lineWidth(0.75)
      .strokeColor(RULE)
      .stroke();
    doc.y += 5;
  };
  row([both('packingSlip.item'), both('packingSlip.sku'), both('packingSlip.quantity')], true, MUTED);
  for (const l of slip.lines) row([l.name, l.sku ?? '', String(l.quantity)], false, INK);
  doc.moveDown(0.8);
  const units = slip.lines.reduce((sum, l) => sum + l.quantity, 0);
  line(both('packingSlip.units', { n: units }), true);
  doc.end();
  return done;
}
