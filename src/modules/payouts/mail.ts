// The seller's email when a buyer disputes a payment of theirs (docs/payouts.md "Disputes"):
// written with the dispute's opening, once per dispute and order, in the seller's language.
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { emailText } from '../../views/email.ts';
import { findUser } from '../auth/users.ts';
import type { RequestContext } from '../context.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { deliveryDate, greeting, line, money, page } from '../mail/templates.ts';

/** The Toronto calendar date of an instant (YYYY-MM-DD). */
const torontoDay = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto' }).format(d);

export async function mailDisputeOpened(
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
  publicBaseUrl: string | undefined,
): Promise<void> {
  const seller = await findUser(ctx, d.sellerId);
  if (!seller) return;
  const locale = mailLocale(ctx, seller);
  const values = {
    order: line(d.orderNumber),
    amount: money(locale, d.amountCents),
    fee: money(locale, d.feeCents),
  };
  const subject = t(locale, 'mail.disputeOpened.subject', values);
  const paragraphs = [
    t(locale, 'mail.disputeOpened.withdrawn', values),
    d.evidenceDueBy
      ? t(locale, 'mail.disputeOpened.deadline', { date: deliveryDate(locale, torontoDay(d.evidenceDueBy)) })
      : t(locale, 'mail.disputeOpened.noDeadline'),
  ];
  const url = publicBaseUrl ? `${publicBaseUrl}/console/payouts` : undefined;
  const text = emailText([
    greeting(seller.name, locale),
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...(url ? [t(locale, 'mail.disputeOpened.link', { url })] : []),
  ]);
  const body = page(
    subject,
    [
      html`<p>${greeting(seller.name, locale)}</p>`,
      ...paragraphs.map((p) => html`<p>${p}</p>`),
      ...(url ? [html`<p><a href="${url}">${t(locale, 'mail.disputeOpened.linkLabel')}</a></p>`] : []),
    ],
    locale,
  );
  await enqueueMail(ctx, {
    dedupeKey: `dispute-opened:${d.disputeId}:${d.orderId}`,
    kind: 'dispute_opened',
    to: seller.email,
    subject,
    text,
    html: body,
  });
}
