// The pages a person reaches from an account email: plain HTML and CSS (no script: the CSP
// forbids any), a form that posts to the API's own route. Opening a page never uses the link
// (mail scanners open links); only posting the form does. The token in the form is the
// secret: a cross-site page cannot post a form it does not know. In the small-page frame
// (src/views), written with html`...`: every value is escaped; every word is the catalogues' (`page.verify.*`, `page.reset.*`, `page.link.*`) in the page's language.
import { html } from 'ghtml';
import { type AppError, tooManyWords, wordsOf } from '../../contract/errors.ts';
import { type MessageKey, type Text, t } from '../../contract/i18n.ts';
import { langField, type PageLang } from '../../views/language.ts';
import { smallPage } from '../../views/small-page.ts';
import { words } from '../../views/words.ts';

export const ACCOUNT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
  .ok { color: #175; }
`;

const tokenField = (token: string) => html`<input type="hidden" name="token" value="${token}">`;
const errorLine = (error?: string) =>
  error ? html`<p class="error" role="alert" id="form-error">${error}</p>` : '';

export function verifyEmailPage(p: PageLang, token: string): string {
  const l = p.locale;
  return smallPage(
    p,
    t(l, 'page.verify.title'),
    html`<h1>${words(l, 'page.verify.title')}</h1>
      <p>${words(l, 'page.verify.intro')}</p>
      <form method="post" action="/auth/email/verify">!${tokenField(token)}!${langField(p)}
        <button type="submit">${words(l, 'page.verify.submit')}</button>
      </form>`,
    STYLE,
  );
}

/** The new password form; `error` is the problem already in the page's language. */
export function resetPasswordPage(p: PageLang, token: string, error?: string): string {
  const l = p.locale;
  const invalid = error
    ? ' aria-invalid="true" aria-describedby="form-error password-hint"'
    : ' aria-describedby="password-hint"';
  return smallPage(
    p,
    t(l, 'page.reset.title'),
    html`<h1>${words(l, 'page.reset.title')}</h1>!${errorLine(error)}
      <form method="post" action="/auth/password/reset">!${tokenField(token)}!${langField(p)}
        <label for="password">${words(l, 'page.reset.password')}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256"!${invalid}>
        <p class="hint" id="password-hint">${words(l, 'page.reset.passwordHint')}</p>
        <label for="confirmPassword">${words(l, 'page.reset.confirmPassword')}</label>
        <input id="confirmPassword" name="confirmPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="256">
        <button type="submit">${words(l, 'page.reset.submit')}</button>
      </form>
      <p class="hint">${words(l, 'page.reset.signOutNote')}</p>`,
    STYLE,
  );
}

export function donePage(p: PageLang, title: MessageKey, message: MessageKey): string {
  const heading = t(p.locale, title);
  return smallPage(p, heading, html`<h1 class="ok">${heading}</h1><p>${words(p.locale, message)}</p>`, STYLE);
}

export function linkErrorPage(p: PageLang, message: MessageKey): string {
  const heading = t(p.locale, 'page.link.badTitle');
  return smallPage(
    p,
    heading,
    html`<h1>${heading}</h1><p class="error" role="alert">${words(p.locale, message)}</p>`,
    STYLE,
  );
}

/** A page that asks the person to come back later, and why. */
function waitPage(p: PageLang, title: MessageKey, why: Text): string {
  const heading = t(p.locale, title);
  return smallPage(
    p,
    heading,
    html`<h1>${heading}</h1><p class="error" role="alert">${wordsOf(p.locale, why)}</p>`,
    STYLE,
  );
}

/** A rate limit met on a page: when to try again (the Retry-After the limiter gave), never a refusal of the link. */
export const tooManyPage = (p: PageLang, err: AppError) =>
  waitPage(p, 'page.tooMany.title', tooManyWords(err));

/** The service briefly unable to do its work (the database away): try again later, the link still works. */
export const unavailablePage = (p: PageLang, err: AppError) =>
  waitPage(p, 'page.unavailable.title', err.text);
