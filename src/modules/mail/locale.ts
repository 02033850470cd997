// The language an email is written in: decided once, when the email is written to the outbox
// (emails are rendered when enqueued), by one rule for every email (issue 24):
//   1. the recipient's saved preference (users.locale, PATCH /me);
//   2. else, for an email about an order, French when the order ships to Quebec;
//   3. else the language of the request that caused the email, when it is the recipient's own
//      request (they are signed in, or it is their registration or forgotten password);
//   4. else the platform's default (DEFAULT_LOCALE, which every request's and job's ctx carries).
import { BASE_LOCALE, isLocale, type Locale } from '../../contract/i18n.ts';
import type { RequestContext } from '../context.ts';

export interface MailRecipient {
  /** The person's account id: a request signed in as them is their own. */
  id: string;
  /** Their saved preference (users.locale): null or absent when they chose none. */
  locale?: string | null;
}

export interface MailLocaleHints {
  /** Where the order the email is about ships to (order and return emails): QC reads French. */
  shippingProvince?: string | null;
  /** The request is the recipient's own though no one is signed in (registration, forgot password). */
  ownRequest?: boolean;
}

/** The locale of an email to `recipient`, written during `ctx` (see the rule above). */
export function mailLocale(
  ctx: RequestContext,
  recipient: MailRecipient,
  hints: MailLocaleHints = {},
): Locale {
  if (isLocale(recipient.locale)) return recipient.locale;
  if (hints.shippingProvince?.toUpperCase() === 'QC') return 'fr-CA';
  if (ctx.locale && (hints.ownRequest || (ctx.user !== undefined && ctx.user.id === recipient.id))) {
    return ctx.locale;
  }
  return ctx.defaultLocale ?? BASE_LOCALE;
}
