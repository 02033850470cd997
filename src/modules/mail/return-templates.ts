// The return emails, one per decision (approved, rejected, refunded): pure functions from the
// return's data and the reader's locale to a subject, a text body and an HTML body
// (docs/api.md "Mail": amounts in dollars). Every word comes from the catalogues; every string a
// user wrote (product names, the seller's note) is escaped in the HTML and kept to one line
// where it is a name.
import { html } from 'ghtml';
import { BASE_LOCALE, type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import { emailText, multiline } from '../../views/email.ts';
import { wordsWith } from '../../views/words.ts';
import { greeting, itemsSummary, line, money, page, type RenderedMail } from './templates.ts';

export interface ReturnMailData {
  buyerName: string;
  returnId: string;
  /** The order's number, as the buyer reads it (`2026-000123`). */
  orderNumber: string;
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

/** "your return of Cedar box (the whole order)". */
function what(d: ReturnMailData, locale: Locale): string {
  return t(locale, 'mail.return.what', {
    items: itemsSummary(d.items, locale),
    scope: d.wholeOrder ? 'whole' : 'part',
  });
}

/** The reference lines a person quotes to support. */
const references = (d: ReturnMailData, locale: Locale) =>
  t(locale, 'mail.return.references', { returnId: line(d.returnId), orderId: line(d.orderNumber) });

/** Text and HTML of a message: paragraphs, then the returned items, then closing paragraphs. */
function render(
  locale: Locale,
  subject: string,
  d: ReturnMailData,
  before: string[],
  after: string[],
  note?: { key: MessageKey; text: string },
): RenderedMail {
  const noteText = note?.text.trim();
  const itemsReturned = t(locale, 'mail.return.itemsReturned');
  const text = emailText([
    greeting(d.buyerName, locale),
    '',
    ...before.flatMap((p) => [p, '']),
    ...(note && noteText ? [t(locale, note.key, { note: noteText }), ''] : []),
    itemsReturned,
    ...itemLines(d).map((l) => `  ${l}`),
    '',
    ...after.flatMap((p) => [p, '']),
  ]);
  const para = (p: string) => html`<p>${p}</p>`;
  const body = page(
    subject,
    [
      para(greeting(d.buyerName, locale)),
      ...before.map(para),
      ...(note && noteText
        ? [html`<p>!${wordsWith(locale, note.key, {}, { note: multiline(noteText) })}</p>`]
        : []),
      para(itemsReturned),
      html`<ul>!${itemLines(d).map((l) => html`<li>${l}</li>`)}</ul>`,
      ...after.map(para),
    ],
    locale,
  );
  return { subject, text, html: body };
}

export function returnApprovedEmail(d: ReturnApprovedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.returnApproved.subject', { items: itemsSummary(d.items, locale) });
  const refund =
    d.refundCents > 0
      ? t(locale, 'mail.returnApproved.refund', { amount: money(locale, d.refundCents) })
      : t(locale, 'mail.returnApproved.nothingLeft');
  return render(
    locale,
    subject,
    d,
    [t(locale, 'mail.returnApproved.approved', { what: what(d, locale) }), refund],
    [references(d, locale)],
    { key: 'mail.return.sellerNote', text: d.note ?? '' },
  );
}

export function returnRejectedEmail(d: ReturnRejectedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.returnRejected.subject', { items: itemsSummary(d.items, locale) });
  return render(
    locale,
    subject,
    d,
    [t(locale, 'mail.returnRejected.rejected', { what: what(d, locale) })],
    [t(locale, 'mail.returnRejected.after'), references(d, locale)],
    { key: 'mail.return.reasonGiven', text: d.note },
  );
}

export function returnRefundedEmail(d: ReturnRefundedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const amount = money(locale, d.refundCents);
  const subject = t(locale, 'mail.returnRefunded.subject', { amount, items: itemsSummary(d.items, locale) });
  return render(
    locale,
    subject,
    d,
    [
      t(locale, 'mail.returnRefunded.refunded', { amount, what: what(d, locale) }),
      t(locale, 'mail.refund.delay'),
    ],
    [references(d, locale)],
  );
}
