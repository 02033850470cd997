// The language of a page in its markup: the type every frame takes, the hidden field that carries
// an asked language through a form, and the switch to the page in the other language.
import { html } from 'ghtml';
import { LOCALES, type Locale, t } from '../contract/i18n.ts';

/** The language a page is written in, and what its links and forms carry on. */
export interface PageLang {
  locale: Locale;
  /** The language the URL or the form asked for (`lang`): the page's forms carry it on. */
  asked?: Locale;
  /** The page's own address (a GET), for the language switch; none where it cannot be opened again. */
  here?: string;
}

/** The hidden field that carries the asked language through a form's POST. */
export const langField = (p: PageLang): string =>
  p.asked ? html`<input type="hidden" name="lang" value="${p.asked}">` : '';

/** `href` (a path with its query) with `lang` set. */
export function withLang(href: string, locale: Locale): string {
  const url = new URL(href, 'http://page.invalid');
  url.searchParams.set('lang', locale);
  return url.pathname + url.search;
}

/** The link to the page in each other language, named in that language ("English", "Français"). */
export function languageSwitch(p: PageLang): string {
  if (!p.here) return '';
  const here = p.here;
  const links = LOCALES.filter((l) => l !== p.locale).map(
    (l) =>
      html`<a href="${withLang(here, l)}" lang="${l}" hreflang="${l}">${t(p.locale, `page.language.${l}`)}</a>`,
  );
  return html`<nav aria-label="${t(p.locale, 'page.language.label')}">!${links.join(' ')}</nav>`;
}
