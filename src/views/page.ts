// The page frame of the site's pages (src/web): the document with the stylesheet, the skip link,
// the header (brand, search, the person's links, the language switch), the main column and the
// footer with the policies' links. Every word is the catalogues', in the page's language.
import { html } from 'ghtml';
import type { Role } from '../contract/common.ts';
import type { Locale, MessageKey } from '../contract/i18n.ts';
import { POLICY_KINDS } from '../contract/policies.ts';
import { documentFrame } from './document.ts';
import { csrfField } from './forms.ts';
import { languageSwitch, type PageLang } from './language.ts';
import { STYLESHEET_PATH } from './stylesheet.ts';
import { words } from './words.ts';

/** What the frame knows of its request: language, person, form token, address. */
export interface PageView {
  p: PageLang;
  user?: { role: Role; cartUnits?: number; unreadNotices?: number };
  csrf: string;
  /** The request's path and query: where the sign-in sends the person back. */
  here: string;
}

export interface PageOptions {
  title: string;
  /** The page's content, a fragment html`...` made. */
  body: string;
  /** A form-sized column (sign-in, settings). */
  narrow?: boolean;
  /** Whether search engines may index it (the storefront's pages); account pages are never indexed. */
  index?: boolean;
}

/** The links of the header, by who is signed in. */
function personLinks(v: PageView): string[] {
  const l = v.p.locale;
  const user = v.user;
  // The cart is a buyer's: a seller or an admin is never linked to a page that refuses them.
  const cart = !user || user.role === 'buyer' ? [cartLink(l, user?.cartUnits ?? 0)] : [];
  if (!user) {
    return [
      ...cart,
      html`<a href="/account/sign-in?next=${encodeURIComponent(v.here)}">${words(l, 'web.nav.signIn')}</a>`,
      html`<a href="/account/register">${words(l, 'web.nav.register')}</a>`,
    ];
  }
  return [
    ...cart,
    html`<a href="/account">${words(l, 'web.nav.account')}</a>`,
    ...(user.role === 'seller' || user.role === 'admin'
      ? [
          countedLink(
            l,
            '/console',
            'web.nav.console',
            user.role === 'seller' ? (user.unreadNotices ?? 0) : 0,
            'web.nav.unreadNotices',
          ),
        ]
      : []),
    ...(user.role === 'admin' ? [html`<a href="/desk">${words(l, 'web.nav.desk')}</a>`] : []),
    html`<form method="post" action="/account/sign-out">!${csrfField(v)}<button type="submit">${words(l, 'web.nav.signOut')}</button></form>`,
  ];
}

/** A count as a badge shows it: 99+ past 99 (the header's width on a phone). */
export const shownCount = (n: number) => (n > 99 ? '99+' : String(n));

/**
 * A header link with a count beside it (the units in the cart, a seller's unread notifications):
 * the number shown (99+ past 99, the header's width on a phone), and said in full to a screen
 * reader ("Cart, 3 items").
 */
function countedLink(l: Locale, href: string, label: MessageKey, n: number, said: MessageKey): string {
  if (n <= 0) return html`<a href="${href}">${words(l, label)}</a>`;
  const shown = shownCount(n);
  return html`<a href="${href}">${words(l, label)} <span class="count" aria-hidden="true">${shown}</span><span class="visually-hidden">${words(l, said, { n })}</span></a>`;
}

const cartLink = (l: Locale, units: number) =>
  countedLink(l, '/shop/cart', 'web.nav.cart', units, 'web.nav.cartUnits');

/** The footer's links to the platform's policies (src/web/policies/). */
const policyLinks = (l: Locale) =>
  html`<nav aria-label="${words(l, 'web.footer.policies')}" class="policies">!${POLICY_KINDS.map(
    (kind) => html`<a href="/policies/${kind}">${words(l, 'web.policies.title', { kind })}</a>`,
  )}</nav>`;

export function sitePage(v: PageView, o: PageOptions): string {
  const l = v.p.locale;
  const q = new URL(v.here, 'http://page.invalid').searchParams.get('q') ?? '';
  const body = html`<a class="skip" href="#main">${words(l, 'web.skip')}</a>
<header class="top"><a class="brand" href="/">Portage</a>
<form class="search" role="search" method="get" action="/"><label for="site-q" class="visually-hidden">${words(l, 'web.search.label')}</label><input id="site-q" name="q" type="search" value="${q}" maxlength="200" placeholder="${words(l, 'web.search.placeholder')}"><button type="submit">${words(l, 'web.search.submit')}</button></form>
<nav aria-label="${words(l, 'web.nav.label')}">!${personLinks(v)}!${languageSwitch(v.p)}</nav></header>
<main id="main"!${o.narrow ? ' class="narrow"' : ''}>
!${o.body}
</main>
<footer>${words(l, 'web.footer')}!${policyLinks(l)}</footer>`;
  return documentFrame({
    lang: l,
    title: `${o.title} · Portage`,
    head: html`<link rel="stylesheet" href="${STYLESHEET_PATH}">`,
    body,
    noindex: !o.index,
    referrer: 'same-origin',
  });
}
