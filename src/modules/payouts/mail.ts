// The seller's notification and email when a buyer disputes a payment of theirs (docs/payouts.md
// "Disputes"): queued with the dispute's opening, once per dispute and order; told by the notices
// job in the seller's language, as the seller chose (notifications/service.ts).
import { html } from 'ghtml';
import { toUnix } from '../../contract/common.ts';
import { t } from '../../contract/i18n.ts';
import { emailText } from '../../views/email.ts';
import type { RequestContext } from '../context.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { deliveryDate, greeting, line, money, page } from '../mail/templates.ts';
import { type NoticeMail, noticeLink, notifySellers } from '../notifications/service.ts';

/** The Toronto calendar date of an instant (YYYY-MM-DD). */
const torontoDay = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(d);

/** The seller's notification of a dispute of their order's payment (its email: disputeOpenedMail). */
export function notifyDisputeOpened(
  ctx: RequestContext,
  d: {
    disputeId: string;
    sellerId: string;
    orderId: string;
    orderNumber: string;
    amountCents: number;
    feeCents: number;
    evidenceDueBy: Date | null;
  },
): Promise<void> {
  return notifySellers(ctx, [
    {
      sellerId: d.sellerId,
      kind: 'dispute_opened',
      subjectId: `${d.disputeId}:${d.orderId}`,
      facts: {
        disputeId: d.disputeId,
        orderId: d.orderId,
        orderNumber: d.orderNumber,
        amountCents: d.amountCents,
        feeCents: d.feeCents,
        evidenceDueBy: d.evidenceDueBy ? toUnix(d.evidenceDueBy) : null,
      },
    },
  ]);
}

/** The dispute's own email (the notices job), from the notice's facts. */
export const disputeOpenedMail: NoticeMail = async (ctx, seller, notice, locale, publicBaseUrl) => {
  const d = notice.facts;
  const due = typeof d.evidenceDueBy === 'number' ? new Date(d.evidenceDueBy * 1000) : null;
  const values = {
    order: line(String(d.orderNumber)),
    amount: money(locale, Number(d.amountCents)),
    fee: money(locale, Number(d.feeCents)),
  };
  const subject = t(locale, 'mail.disputeOpened.subject', values);
  const paragraphs = [
    t(locale, 'mail.disputeOpened.withdrawn', values),
    due
      ? t(locale, 'mail.disputeOpened.deadline', { date: deliveryDate(locale, torontoDay(due)) })
      : t(locale, 'mail.disputeOpened.noDeadline'),
  ];
  const url = `${publicBaseUrl}${noticeLink('dispute_opened', notice.subjectId, d)}`;
  const text = emailText([
    greeting(seller.name, locale),
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    t(locale, 'mail.disputeOpened.link', { url }),
  ]);
  const body = page(
    subject,
    [
      html`<p>${greeting(seller.name, locale)}</p>`,
      ...paragraphs.map((p) => html`<p>${p}</p>`),
      html`<p><a href="${url}">${t(locale, 'mail.disputeOpened.linkLabel')}</a></p>`,
    ],
    locale,
  );
  await enqueueMail(ctx, {
    dedupeKey: `dispute-opened:${notice.subjectId}`,
    kind: 'dispute_opened',
    to: seller.email,
    subject,
    text,
    html: body,
  });
};
