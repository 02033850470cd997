// The account emails: verifying an address and resetting a password. Pure functions from the
// account's name, the link and the reader's locale to a subject, a text body and an HTML body.
// The link carries a secret token: it appears in the body only, never in the subject (subjects
// end up in logs).
import { html } from 'ghtml';
import { BASE_LOCALE, type Locale, t } from '../../contract/i18n.ts';
import { emailText } from '../../views/email.ts';
import { greeting, page, type RenderedMail } from './templates.ts';

export interface AccountLinkMailData {
  name: string;
  /** The whole link, token included. */
  url: string;
  /** How long the link works, in seconds (written "48 hours", "30 minutes", "48 heures"). */
  validForSeconds: number;
}

/** A link's life in words: whole hours as hours, anything else as minutes. */
function duration(locale: Locale, seconds: number): string {
  return seconds % 3600 === 0
    ? t(locale, 'mail.account.duration', { unit: 'hours', n: seconds / 3600 })
    : t(locale, 'mail.account.duration', { unit: 'minutes', n: Math.round(seconds / 60) });
}

function button(locale: Locale, url: string, label: string): string {
  return [
    html`<p><a href="${url}" style="display:inline-block;background:#1d3b2a;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${label}</a></p>`,
    html`<p style="font-size:13px;color:#555">${t(locale, 'mail.account.pasteLink')}<br><a href="${url}">${url}</a></p>`,
  ].join('\n');
}

/** A paragraph of plain text. */
const para = (text: string) => html`<p>${text}</p>`;

export function verifyEmailEmail(d: AccountLinkMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.verifyEmail.subject');
  const intro = t(locale, 'mail.verifyEmail.intro');
  const expiry = t(locale, 'mail.verifyEmail.expiry', { duration: duration(locale, d.validForSeconds) });
  const text = emailText([greeting(d.name, locale), '', intro, '', d.url, '', expiry, '']);
  return {
    subject,
    text,
    html: page(
      subject,
      [
        para(greeting(d.name, locale)),
        para(intro),
        button(locale, d.url, t(locale, 'mail.verifyEmail.button')),
        para(expiry),
      ],
      locale,
    ),
  };
}

export function passwordResetEmail(d: AccountLinkMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.passwordReset.subject');
  const intro = t(locale, 'mail.passwordReset.intro');
  const how = t(locale, 'mail.passwordReset.how');
  const expiry = t(locale, 'mail.passwordReset.expiry', { duration: duration(locale, d.validForSeconds) });
  const text = emailText([greeting(d.name, locale), '', intro, how, '', d.url, '', expiry, '']);
  return {
    subject,
    text,
    html: page(
      subject,
      [
        para(greeting(d.name, locale)),
        html`<p>${intro} ${how}</p>`,
        button(locale, d.url, t(locale, 'mail.passwordReset.button')),
        para(expiry),
      ],
      locale,
    ),
  };
}

/** To an address not yet verified that asked for a password reset: verify first. */
export function verifyBeforeResetEmail(d: AccountLinkMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const subject = t(locale, 'mail.verifyBeforeReset.subject');
  const intro = t(locale, 'mail.verifyBeforeReset.intro');
  const how = t(locale, 'mail.verifyBeforeReset.how');
  const expiry = t(locale, 'mail.verifyBeforeReset.expiry', {
    duration: duration(locale, d.validForSeconds),
  });
  const text = emailText([greeting(d.name, locale), '', intro, how, '', d.url, '', expiry, '']);
  return {
    subject,
    text,
    html: page(
      subject,
      [
        para(greeting(d.name, locale)),
        para(intro),
        para(how),
        button(locale, d.url, t(locale, 'mail.verifyEmail.button')),
        para(expiry),
      ],
      locale,
    ),
  };
}
