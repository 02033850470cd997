// The seller's console's frame and the pieces its pages share (the tabs, a table, a pager, a
// row's own input), with the overview, the shop's page and the sales. Markup only: each function
// takes values and draws them; the other pages are in product-views.ts and order-views.ts.
import { html } from 'ghtml';
import { type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import { shownCount } from '../../views/page.ts';
import type { View } from '../core.ts';
import { csrfField, type FormError, field, formAlert, notice, page, provinceName, tabs } from '../layout.ts';
import type { ShopForm } from './form.ts';

export const productPath = (id: string) => `/console/products/${encodeURIComponent(id)}`;
export const orderPath = (id: string) => `/console/orders/${encodeURIComponent(id)}`;
export const returnPath = (id: string) => `/console/returns/${encodeURIComponent(id)}`;

const consoleTabs = (v: View) =>
  tabs(v, t(v.p.locale, 'web.console.sections'), [
    { href: '/console', label: t(v.p.locale, 'web.console.overview') },
    { href: '/console/products', label: t(v.p.locale, 'web.console.products') },
    { href: '/console/orders', label: t(v.p.locale, 'web.console.orders') },
    { href: '/console/returns', label: t(v.p.locale, 'web.console.returns') },
    { href: '/console/shop', label: t(v.p.locale, 'web.console.shop') },
    { href: '/console/shipping', label: t(v.p.locale, 'web.console.shipping') },
    { href: '/console/discounts', label: t(v.p.locale, 'web.console.discounts') },
    { href: '/console/payouts', label: t(v.p.locale, 'web.console.payouts') },
    { href: '/console/analytics', label: t(v.p.locale, 'web.console.analytics') },
    {
      href: '/console/notifications',
      label: v.user?.unreadNotices
        ? t(v.p.locale, 'web.console.notificationsUnread', {
            unread: shownCount(v.user.unreadNotices),
          })
        : t(v.p.locale, 'web.console.notifications'),
    },
  ]);

/** A console page: its title as the heading, the sections' tabs, what the last form did, the body (HTML). */
export const consolePage = (v: View, title: string, body: string, done?: string) =>
  page(v, {
    title,
    body: html`<h1>${title}</h1>!${consoleTabs(v)}!${shopState(v)}!${notice(done)}!${body}`,
  });

/** The seller's shop when it is not open: said on every console page, with the admin's reason. */
function shopState(v: View): string {
  const closed = v.user?.shopClosed;
  if (!closed) return '';
  const l = v.p.locale;
  const said =
    closed.status === 'pending'
      ? t(l, 'web.console.shopState.pending')
      : t(l, 'web.console.shopState.suspended', { reason: closed.reason ?? '' });
  const kind = closed.status === 'suspended' ? 'alert' : 'notice';
  return html`<p class="${kind}" role="status" data-shop-state="${closed.status}">${said}</p>`;
}

/** Links to the previous and next pages of a list, keeping its `params`; nothing when it has one page. */
export function pager(
  l: Locale,
  path: string,
  params: Record<string, string | undefined>,
  at: number,
  more: boolean,
) {
  if (at <= 1 && !more) return '';
  const to = (n: number) => {
    const q = new URLSearchParams(
      Object.entries({ ...params, page: String(n) }).filter((e): e is [string, string] => Boolean(e[1])),
    );
    return `${path}?${q}`;
  };
  const previous = at > 1 ? html`<a href="${to(at - 1)}" rel="prev">${t(l, 'web.search.previous')}</a>` : '';
  const next = more ? html`<a href="${to(at + 1)}" rel="next">${t(l, 'web.search.next')}</a>` : '';
  return html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${previous}!${next}</nav>`;
}

/** A table in its own scrolling box; `stack`: on a phone each row is a card, each cell under its `data-label`. */
export const table = (head: string[], rows: string[], caption?: string, stack = false) =>
  html`<div class="table-wrap" tabindex="0"><table!${stack ? html` class="stack"` : ''}>!${caption ? html`<caption class="visually-hidden">${caption}</caption>` : ''}<thead><tr>!${head}</tr></thead><tbody>!${rows}</tbody></table></div>`;
export const th = (label: string, num = false) =>
  html`<th scope="col"!${num ? html` class="num"` : ''}>${label}</th>`;
export const empty = (l: Locale, key: MessageKey) => html`<div class="card"><p>${t(l, key)}</p></div>`;

/** A field's problem, for inputs the form helpers do not draw (checkboxes, a row's own input). */
export const problemOf = (error: FormError | undefined, name: string, id: string) => {
  const problem = error?.fields[name];
  return problem ? html`<p class="field-error" id="${id}-error">${problem}</p>` : '';
};

/** An input of one row of a table (its id unique on the page), labelled for a screen reader with the row's name. */
export function rowInput(o: {
  id: string;
  name: string;
  label: string;
  of: string;
  maxlength: number;
  error?: FormError;
}): string {
  const problem = problemOf(o.error, o.name, o.id);
  const invalid = problem ? html` aria-invalid="true" aria-describedby="${o.id}-error"` : '';
  return html`<div><label for="${o.id}">${o.label}<span class="visually-hidden"> (${o.of})</span></label><input id="${o.id}" name="${o.name}" type="text" required maxlength="${o.maxlength}" autocomplete="off"!${invalid}>!${problem}</div>`;
}

/** What waits for the seller, counted. */
export interface Waiting {
  shop: string;
  toShip: number;
  toConfirm: number;
  toDecide: number;
  products: number;
}

/** /console: what waits (orders to ship or confirm, returns to decide), the catalogue's size, links on. */
export function overviewView(v: View, w: Waiting) {
  const l = v.p.locale;
  const tile = (sentence: string, href: string, link: string) =>
    html`<div class="stat"><p>${sentence}</p><a href="${href}">${link}</a></div>`;
  const seeOrders = t(l, 'web.console.seeOrders');
  const toConfirm = w.toConfirm
    ? tile(t(l, 'web.console.toConfirm', { n: w.toConfirm }), '/console/orders?status=pending', seeOrders)
    : '';
  return consolePage(
    v,
    t(l, 'web.console.title'),
    html`<p>${t(l, 'web.console.welcome', { shop: w.shop })}</p><div class="stats">
!${tile(t(l, 'web.console.toShip', { n: w.toShip }), '/console/orders', seeOrders)}
!${toConfirm}
!${tile(t(l, 'web.console.toDecide', { n: w.toDecide }), '/console/returns', t(l, 'web.console.seeReturns'))}
!${tile(t(l, 'web.console.productCount', { n: w.products }), '/console/products', t(l, 'web.console.seeProducts'))}
</div><p><a class="button" href="/console/products/new">${t(l, 'web.console.product.add')}</a> <a class="button secondary" href="/console/analytics">${t(l, 'web.console.seeAnalytics')}</a></p>`,
  );
}

/** /console/shop: the shop's name and province, and the form of what its invoices name it by. */
export function shopView(
  v: View,
  o: {
    shop: { shopName: string; province: string } | null;
    values: ShopForm;
    error?: FormError;
    done?: string;
    /** The shop page's form (shop-page-form.ts), under the invoices' one. */
    pageForm?: string | undefined;
  },
) {
  const l = v.p.locale;
  const title = t(l, 'web.console.shop.title');
  if (!o.shop) return consolePage(v, title, empty(l, 'web.console.shop.noShop'));
  const f = (name: keyof ShopForm, extra: { autocomplete?: string; hint?: string; max: number }) =>
    field({
      name,
      label: t(l, `web.console.shop.${name}`),
      value: o.values[name],
      error: o.error,
      ...(extra.autocomplete ? { autocomplete: extra.autocomplete } : {}),
      ...(extra.hint ? { hint: extra.hint } : {}),
      attrs: html` maxlength="${extra.max}"`,
    });
  return consolePage(
    v,
    title,
    html`<div class="card"><dl class="specs"><dt>${t(l, 'web.console.shop.name')}</dt><dd>${o.shop.shopName}</dd><dt>${t(l, 'web.checkout.province')}</dt><dd>${provinceName(l, o.shop.province)}</dd></dl></div>
<form method="post" action="/console/shop" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.console.shop.invoices')}</h2><p class="hint">${t(l, 'web.console.shop.intro')}</p>!${formAlert(o.error)}
!${f('legalName', { autocomplete: 'organization', max: 200 })}!${f('street', { autocomplete: 'street-address', max: 200 })}
<div class="row">!${f('city', { autocomplete: 'address-level2', max: 100 })}!${f('postalCode', { autocomplete: 'postal-code', max: 10 })}</div>
!${f('gstHstNumber', { hint: t(l, 'web.console.shop.gstHstHint'), max: 40 })}!${f('qstNumber', { hint: t(l, 'web.console.shop.qstHint'), max: 40 })}
<button type="submit">${t(l, 'web.settings.save')}</button></form>!${o.pageForm ?? ''}`,
    o.done,
  );
}
