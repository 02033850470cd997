// The email that carries a message of an order's conversation to the other side: who wrote (the
// buyer, the seller: never a name or an address), the words as written (escaped, line breaks
// kept), and the order's page to answer on.
import { html } from 'ghtml';
import { type Locale, t } from '../../contract/i18n.ts';
import { emailText, multiline } from '../../views/email.ts';
import { greeting, line, page, type RenderedMail } from '../mail/templates.ts';

export function orderMessageEmail(
  d: { name: string; from: 'buyer' | 'seller'; orderNumber: string; body: string; url: string },
  locale: Locale,
): RenderedMail {
  const values = { from: d.from, order: line(d.orderNumber) };
  const subject = t(locale, 'mail.orderMessage.subject', values);
  const wrote = t(locale, 'mail.orderMessage.wrote', values);
  return {
    subject,
    text: emailText([
      greeting(d.name, locale),
      '',
      wrote,
      '',
      ...d.body.split(/\r?\n/).map((l) => `> ${l}`),
      '',
      t(locale, 'mail.orderMessage.answer', { url: d.url }),
      '',
      t(locale, 'mail.orderMessage.private'),
    ]),
    html: page(
      subject,
      [
        html`<p>${greeting(d.name, locale)}</p>`,
        html`<p>${wrote}</p>`,
        html`<blockquote>!${multiline(d.body)}</blockquote>`,
        html`<p><a href="${d.url}">${t(locale, 'mail.orderMessage.answerLabel')}</a></p>`,
        html`<p><small>${t(locale, 'mail.orderMessage.private')}</small></p>`,
      ],
      locale,
    ),
  };
}
