// The return emails: the seller's when a buyer asks, the buyer's for each decision (approved,
// rejected, refunded): pure functions from the return's data and the reader's locale to a
// subject, a text body and an HTML body
// (docs/api.md "Mail": amounts in dollars). Every word comes from the catalogues; every string a
// user wrote (product names, the seller's note) is escaped in the HTML and kept to one line
// where it is a name.
import { html } from 'ghtml';
import { BASE_LOCALE, type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import type { ReturnReason } from '../../contract/returns.ts';
import { emailText, multiline } from '../../views/email.ts';
import { wordsWith } from '../../views/words.ts';
import { greeting, itemsSummary, line, money, page, type RenderedMail } from './templates.ts';

/** What every return email says of the return. */
interface ReturnFacts {
  returnId: string;
  /** The order's number, as the buyer reads it (`2026-000123`). */
  orderNumber: string;
  items: Array<{ name: string; quantity: number }>;
  wholeOrder: boolean;
}

/** A buyer's email about a decision on their return. */
export interface ReturnMailData extends ReturnFacts {
  buyerName: string;
}

export interface ReturnApprovedMailData extends ReturnMailData {
  /** What the approval refunds (sent back first: what the receipt will refund). */
  refundCents: number;
  note: string | null;
  /** Where and how to send the items back: the refund follows their receipt. */
  instructions?: string | null;
}

export interface ReturnRejectedMailData extends ReturnMailData {
  note: string;
}

export interface ReturnRefundedMailData extends ReturnMailData {
  refundCents: number;
}

/** The seller's email when a buyer asks for a return: greets the seller, never names the buyer. */
export interface ReturnRequestedMailData extends ReturnFacts {
  sellerName: string;
  reason: ReturnReason;
  description: string | null;
  estimatedRefundCents: number;
  /** The return's page in the console (PUBLIC_BASE_URL known). */
  url?: string;
}

function itemLines(d: ReturnFacts): string[] {
  return d.items.map((i) => `${i.quantity} × ${line(i.name)}`);
}

/** "your return of Cedar box (the whole order)". */
function what(d: ReturnFacts, locale: Locale): string {
  return t(locale, 'mail.return.what', {
    items: itemsSummary(d.items, locale),
    scope: d.wholeOrder ? 'whole' : 'part',
  });
}

/** The reference lines a person quotes to support. */
const references = (d: ReturnFacts, locale: Locale) =>
  t(locale, 'mail.return.references', { returnId: line(d.returnId), orderId: line(d.orderNumber) });

/**
 * Text and HTML of a message to `o.name`: paragraphs, then the items (under `o.itemsKey`), then
 * closing paragraphs and the link.
 */
function render(
  locale: Locale,
  subject: string,
  d: ReturnFacts,
  before: string[],
  after: string[],
  o: {
    name: string;
    note?: { key: MessageKey; text: string };
    itemsKey?: MessageKey;
    /** The link: `line` in the text (with the address), `label` on the HTML's anchor. */
    link?: { url: string; label: string; line: string };
  },
): RenderedMail {
  const { note, link } = o;
  const noteText = note?.text.trim();
  const itemsReturned = t(locale, o.itemsKey ?? 'mail.return.itemsReturned');
  const text = emailText([
    greeting(o.name, locale),
    '',
    ...before.flatMap((p) => [p, '']),
    ...(note && noteText ? [t(locale, note.key, { note: noteText }), ''] : []),
    itemsReturned,
    ...itemLines(d).map((l) => `  ${l}`),
    '',
    ...after.flatMap((p) => [p, '']),
    ...(link ? [link.line] : []),
  ]);
  const para = (p: string) => html`<p>${p}</p>`;
  const body = page(
    subject,
    [
      para(greeting(o.name, locale)),
      ...before.map(para),
      ...(note && noteText
        ? [html`<p>!${wordsWith(locale, note.key, {}, { note: multiline(noteText) })}</p>`]
        : []),
      para(itemsReturned),
      html`<ul>!${itemLines(d).map((l) => html`<li>${l}</li>`)}</ul>`,
      ...after.map(para),
      ...(link ? [html`<p><a href="${link.url}">${link.label}</a></p>`] : []),
    ],
    locale,
  );
  return { subject, text, html: body };
}

export function returnRequestedEmail(d: ReturnRequestedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const order = line(d.orderNumber);
  const subject = t(locale, 'mail.returnRequested.subject', { order, items: itemsSummary(d.items, locale) });
  return render(
    locale,
    subject,
    d,
    [
      t(locale, 'mail.returnRequested.asked', { order, scope: d.wholeOrder ? 'whole' : 'part' }),
      t(locale, 'mail.returnRequested.reason', {
        reason: t(locale, 'web.return.reasonName', { reason: d.reason }),
      }),
    ],
    [
      t(locale, 'mail.returnRequested.estimate', { amount: money(locale, d.estimatedRefundCents) }),
      t(locale, 'mail.returnRequested.decide'),
      references(d, locale),
    ],
    {
      name: d.sellerName,
      note: { key: 'mail.returnRequested.description', text: d.description ?? '' },
      itemsKey: 'mail.returnRequested.items',
      ...(d.url
        ? {
            link: {
              url: d.url,
              label: t(locale, 'mail.returnRequested.linkLabel'),
              line: t(locale, 'mail.returnRequested.link', { url: d.url }),
            },
          }
        : {}),
    },
  );
}

export function returnApprovedEmail(d: ReturnApprovedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.returnApproved.subject', { items: itemsSummary(d.items, locale) });
  const approved = t(locale, 'mail.returnApproved.approved', { what: what(d, locale) });
  if (d.instructions) {
    // Sent back first: the instructions in the note's place, the seller's note after.
    const note = d.note?.trim();
    return render(
      locale,
      subject,
      d,
      [approved, t(locale, 'mail.returnApproved.sendBack', { amount: money(locale, d.refundCents) })],
      [...(note ? [t(locale, 'mail.return.sellerNote', { note })] : []), references(d, locale)],
      { name: d.buyerName, note: { key: 'mail.return.instructions', text: d.instructions } },
    );
  }
  const refund =
    d.refundCents > 0
      ? t(locale, 'mail.returnApproved.refund', { amount: money(locale, d.refundCents) })
      : t(locale, 'mail.returnApproved.nothingLeft');
  return render(locale, subject, d, [approved, refund], [references(d, locale)], {
    name: d.buyerName,
    note: { key: 'mail.return.sellerNote', text: d.note ?? '' },
  });
}

export function returnRejectedEmail(d: ReturnRejectedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.returnRejected.subject', { items: itemsSummary(d.items, locale) });
  return render(
    locale,
    subject,
    d,
    [t(locale, 'mail.returnRejected.rejected', { what: what(d, locale) })],
    [t(locale, 'mail.returnRejected.after'), references(d, locale)],
    { name: d.buyerName, note: { key: 'mail.return.reasonGiven', text: d.note } },
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
    { name: d.buyerName },
  );
}
