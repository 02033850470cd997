// The label carrier without Canada Post's credentials (the embedded default): a shipment is "bought"
// here, its tracking number made up (SANDBOX and nine digits, never a real PIN), and its label drawn
// as a 4 × 6 in PDF marked SANDBOX in both languages, with pdfkit as invoices are. Its parcels
// are "delivered" a configured time after their label, so a whole order runs end to end locally
// (docs/shipping.md "Labels").
import { randomInt } from 'node:crypto';
import PDFDocument from 'pdfkit';
import { type MessageKey, type MessageValues, t } from '../../contract/i18n.ts';
import { pdfBytes } from '../invoices/pdf.ts';
import { fonts } from '../invoices/pen.ts';
import type { LabelCarrier, ShipmentSpec } from './labels.ts';

/** Where the sandbox keeps the labels it drew until the buyer of the label fetches them. */
const SANDBOX_URL = 'sandbox:label/';

/** Both languages' words, English first, as a bilingual label prints them. */
const both = (key: MessageKey, values?: MessageValues) =>
  `${t('en-CA', key, values)} / ${t('fr-CA', key, values)}`;

/** A 4 × 6 in label saying plainly that it is no postage. */
export function drawSandboxLabel(spec: ShipmentSpec, pin: string, now: Date): Promise<Buffer> {
  const { regular, bold } = fonts();
  const doc = new PDFDocument({
    size: [288, 432],
    margin: 14,
    font: regular,
    info: { Title: both('label.sandbox.title'), Creator: 'Portage', Producer: 'Portage', CreationDate: now },
  });
  const done = pdfBytes(doc);

  const width = 260;
  doc.rect(10, 10, 268, 412).lineWidth(2).strokeColor('#a40e26').stroke();
  doc
    .font(bold)
    .fontSize(22)
    .fillColor('#a40e26')
    .text(both('label.sandbox.mark'), 14, 18, { width, align: 'center' });
  doc
    .font(bold)
    .fontSize(8)
    .text(both('label.sandbox.notPostage'), 14, doc.y + 2, { width, align: 'center' });
  doc.moveDown(0.8);
  const block = (label: string, lines: string[]) => {
    doc
      .font(bold)
      .fontSize(7)
      .fillColor('#59636e')
      .text(label, 18, doc.y, { width: width - 8 });
    doc.font(regular).fontSize(9).fillColor('#1f2328');
    for (const line of lines) doc.text(line, 18, doc.y, { width: width - 8 });
    doc.moveDown(0.6);
  };
  const address = (a: ShipmentSpec['destination']) => [
    a.name,
    a.street,
    ...(a.line2 ? [a.line2] : []),
    `${a.city} ${a.province}  ${a.postalCode}`,
  ];
  block(both('label.sandbox.from'), [spec.sender.company, ...address(spec.sender).slice(1)]);
  doc
    .font(bold)
    .fontSize(7)
    .fillColor('#59636e')
    .text(both('label.sandbox.to'), 18, doc.y, { width: width - 8 });
  doc.font(bold).fontSize(12).fillColor('#1f2328');
  for (const line of address(spec.destination)) doc.text(line, 18, doc.y, { width: width - 8 });
  doc.moveDown(0.8);
  block(both('label.sandbox.service'), [spec.service]);
  block(both('label.sandbox.reference'), [spec.reference]);
  block(both('label.sandbox.weight'), [`${(spec.weightGrams / 1000).toFixed(3)} kg`]);
  doc
    .font(bold)
    .fontSize(7)
    .fillColor('#59636e')
    .text(both('label.sandbox.tracking'), 18, doc.y, { width: width - 8 });
  doc
    .font(bold)
    .fontSize(15)
    .fillColor('#1f2328')
    .text(pin, 18, doc.y, { width: width - 8, characterSpacing: 1 });
  doc.end();
  return done;
}

/** The sandbox carrier: labels drawn here, parcels delivered `deliveryMs` after their label. */
export function sandboxLabels(opts: { deliveryMs: number }): LabelCarrier {
  /** Labels drawn and not yet fetched: a sandbox label is fetched once, just after it is bought. */
  const drawn = new Map<string, Promise<Buffer>>();
  return {
    sandbox: true,
    async createShipment(spec) {
      const pin = `SANDBOX${String(randomInt(0, 1e9)).padStart(9, '0')}`;
      const shipmentId = `sandbox${pin.slice(7)}`;
      const pdf = drawSandboxLabel(spec, pin, new Date());
      // Drawn now, kept until fetched; a label never fetched is not kept for long.
      drawn.set(shipmentId, pdf);
      setTimeout(() => drawn.delete(shipmentId), 60_000).unref();
      return { shipmentId, trackingPin: pin, labelUrl: `${SANDBOX_URL}${shipmentId}` };
    },
    async findShipment() {
      // Its purchases never lose their answer, and a lapsed one cost nothing: buy again.
      return null;
    },
    async label(labelUrl) {
      const id = labelUrl.slice(SANDBOX_URL.length);
      const pdf = drawn.get(id);
      drawn.delete(id);
      if (!pdf) throw new Error(`The sandbox has no label ${labelUrl}`);
      return pdf;
    },
    async trackingSummary(_pin, { shippedAt, now }) {
      const delivered = now.getTime() - shippedAt.getTime() >= opts.deliveryMs;
      return delivered
        ? { deliveredOn: now.toISOString().slice(0, 10), event: 'Delivered (sandbox)' }
        : { deliveredOn: null, event: 'In transit (sandbox)' };
    },
  };
}
