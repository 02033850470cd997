// The return emails, one per decision (approved, rejected, refunded): pure functions from the
// return's data to a subject, a text body and an HTML body (docs/api.md "Mail":
// amounts in dollars). Every string a user wrote (product names, the seller's note) is
// escaped in the HTML and kept to one line where it is a name.
import {
  escapeHtml,
  formatCents,
  greeting,
  itemsSummary,
  line,
  page,
  type RenderedMail,
} from './templates.ts';

export interface ReturnMailData {
  buyerName: string;
  returnId: string;
  orderId: string;
  items: Array<{ name: string; quantity: number }>;
  wholeOrder: boolean;
}

export interface ReturnApprovedMailData extends ReturnMailData {
  /** What the approval refunds. */
  refundCents: number;
  note: string | null;
}

export interface ReturnRejectedMailData extends ReturnMailData {
  note: string;
}

export interface ReturnRefundedMailData extends ReturnMailData {
  refundCents: number;
}

function itemLines(d: ReturnMailData): string[] {
  return d.items.map((i) => `${i.quantity} × ${line(i.name)}`);
}

function what(d: ReturnMailData): string {
  return d.wholeOrder
    ? `your return of ${itemsSummary(d.items)} (the whole order)`
    : `your return of ${itemsSummary(d.items)} (part of an order)`;
}

/** The reference lines a person quotes to support. */
const references = (d: ReturnMailData) =>
  `Return number ${line(d.returnId)}, order number ${line(d.orderId)}.`;

/** Text and HTML of a message: paragraphs, then the returned items, then closing paragraphs. */
function render(
  subject: string,
  d: ReturnMailData,
  before: string[],
  after: string[],
  note?: { label: string; text: string },
): RenderedMail {
  const noteText = note?.text.trim();
  const text = [
    greeting(d.buyerName),
    '',
    ...before.flatMap((p) => [p, '']),
    ...(noteText ? [`${note!.label}: ${noteText}`, ''] : []),
    'Items returned:',
    ...itemLines(d).map((l) => `  ${l}`),
    '',
    ...after.flatMap((p) => [p, '']),
  ].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    ...before.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(noteText
      ? [`<p>${escapeHtml(note!.label)}: ${escapeHtml(noteText).replace(/\r?\n/g, '<br>')}</p>`]
      : []),
    '<p>Items returned:</p>',
    `<ul>${itemLines(d)
      .map((l) => `<li>${escapeHtml(l)}</li>`)
      .join('')}</ul>`,
    ...after.map((p) => `<p>${escapeHtml(p)}</p>`),
  ]);
  return { subject, text, html };
}

export function returnApprovedEmail(d: ReturnApprovedMailData): RenderedMail {
  const subject = `Your return of ${itemsSummary(d.items)} is approved`;
  const money =
    d.refundCents > 0
      ? `A refund of ${formatCents(d.refundCents)} is on its way to your original payment method; we will write again when it is made.`
      : 'Everything paid for this order has already been refunded, so there is nothing more to refund.';
  return render(subject, d, [`The seller approved ${what(d)}.`, money], [references(d)], {
    label: 'Note from the seller',
    text: d.note ?? '',
  });
}

export function returnRejectedEmail(d: ReturnRejectedMailData): RenderedMail {
  const subject = `Your return of ${itemsSummary(d.items)} was not accepted`;
  return render(
    subject,
    d,
    [`The seller did not accept ${what(d)}.`],
    [
      'Nothing was refunded. You may request a new return of this order while its return window is open.',
      references(d),
    ],
    { label: 'Reason given', text: d.note },
  );
}

export function returnRefundedEmail(d: ReturnRefundedMailData): RenderedMail {
  const subject = `Refund of ${formatCents(d.refundCents)} for your return of ${itemsSummary(d.items)}`;
  return render(
    subject,
    d,
    [
      `We refunded ${formatCents(d.refundCents)} for ${what(d)}.`,
      'It goes back to your original payment method and can take 5 to 10 business days to appear.',
    ],
    [references(d)],
  );
}
