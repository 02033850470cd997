// The admin's desk's frame, and its pages for people and what they write: reviews to moderate,
// a user and their role, coupons. Markup only: each function takes values and draws them; the
// platform's own settings (tax profile, agent platforms, policies) are in platform-views.ts.
import { html } from 'ghtml';
import { PROVINCES, ROLES } from '../../contract/common.ts';
import { formatDate, formatNumber, t } from '../../contract/i18n.ts';
import type { UserRow } from '../../modules/auth/users.ts';
import type { findCoupon, listCoupons } from '../../modules/coupons/service.ts';
import type { listReviewsForModeration } from '../../modules/reviews/service.ts';
import type { View } from '../core.ts';
import { couponDiscountText, couponFields } from '../coupon-form.ts';
import {
  actionButton,
  badge,
  csrfField,
  dateText,
  type FormError,
  field,
  formAlert,
  moneyText,
  notice,
  page,
  provinceName,
  selectField,
  tabs,
} from '../layout.ts';
import { type Form, one } from './form.ts';

const deskTabs = (v: View) => {
  const l = v.p.locale;
  return tabs(v, t(l, 'web.desk.sections'), [
    { href: '/desk', label: t(l, 'web.desk.tab.analytics') },
    { href: '/desk/reviews', label: t(l, 'web.desk.tab.reviews') },
    { href: '/desk/orders', label: t(l, 'web.desk.tab.orders') },
    { href: '/desk/returns', label: t(l, 'web.desk.tab.returns') },
    { href: '/desk/users', label: t(l, 'web.desk.tab.users') },
    { href: '/desk/shops', label: t(l, 'web.desk.tab.shops') },
    { href: '/desk/coupons', label: t(l, 'web.desk.tab.coupons') },
    { href: '/desk/platforms', label: t(l, 'web.desk.tab.platforms') },
    { href: '/desk/policies', label: t(l, 'web.desk.tab.policies') },
    { href: '/desk/categories', label: t(l, 'web.desk.tab.categories') },
    { href: '/desk/tax', label: t(l, 'web.desk.tab.tax') },
    { href: '/desk/money', label: t(l, 'web.desk.tab.money') },
    { href: '/desk/audit', label: t(l, 'web.desk.tab.audit') },
  ]);
};

/** A desk page: its heading, the desk's tabs, then `body` (HTML). */
export const deskPage = (v: View, title: string, body: string) =>
  page(v, { title, body: html`<h1>${title}</h1>!${deskTabs(v)}!${body}` });

// ---- reviews -------------------------------------------------------------------------------

export const REVIEW_FILTERS = ['pending', 'published', 'rejected', 'all'] as const;
export type ReviewFilter = (typeof REVIEW_FILTERS)[number];
export const REVIEWS_PER_PAGE = 20;

type Review = Awaited<ReturnType<typeof listReviewsForModeration>>['reviews'][number];

/** /desk/reviews: the reviews in one state (pending first), each with publish or hide, a page of them. */
export function reviewsView(
  v: View,
  o: {
    filter: ReviewFilter;
    pageNo: number;
    reviews: readonly Review[];
    total: number;
    /** Each reviewed product's title, by id. */
    titles: ReadonlyMap<string, string>;
    done?: string;
    error?: FormError;
  },
) {
  const l = v.p.locale;
  const back = { filter: o.filter };
  const item = (r: Review) => {
    const id = encodeURIComponent(r.review_id);
    const product = o.titles.get(r.product_id) ?? r.product_id;
    const publish =
      r.status === 'published'
        ? ''
        : actionButton(v, {
            action: `/desk/reviews/${id}/publish`,
            label: t(l, 'web.desk.reviews.publish'),
            fields: back,
          });
    const hide =
      r.status === 'rejected'
        ? ''
        : actionButton(v, {
            action: `/desk/reviews/${id}/hide`,
            label: t(l, 'web.desk.reviews.hide'),
            kind: 'danger',
            fields: back,
          });
    const verified = r.verified_purchase ? html` !${badge(l, 'verified', 'web.desk.reviews.verified')}` : '';
    const link = r.has_link ? html` !${badge(l, 'link', 'web.desk.reviews.hasLink')}` : '';
    const by = t(l, 'web.desk.reviews.by', {
      author: r.author,
      date: formatDate(l, new Date(r.created_at * 1000), 'America/Toronto'),
    });
    return html`<article class="card review"><p>!${badge(l, r.status, 'web.desk.reviews.state', { status: r.status })}!${verified}!${link}</p>
<h2>${t(l, 'web.search.stars', { n: r.rating })}!${r.title ? html` · ${r.title}` : ''}</h2>
!${r.comment ? html`<p>${r.comment}</p>` : ''}
<p class="hint">${by} · <a href="/shop/products/${encodeURIComponent(r.product_id)}">${t(l, 'web.desk.reviews.about', { product })}</a> · <a href="/desk/users?user=${encodeURIComponent(r.buyer_id)}">${t(l, 'web.desk.reviews.buyer')}</a></p>
<div>!${publish} !${hide}</div></article>`;
  };
  const filterForm = html`<form method="get" action="/desk/reviews" class="row card">!${selectField({
    name: 'status',
    label: t(l, 'web.desk.reviews.statusFilter'),
    value: o.filter,
    options: REVIEW_FILTERS.map((f) => ({ value: f, label: t(l, 'web.desk.reviews.status', { status: f }) })),
  })}<button type="submit" class="secondary">${t(l, 'web.desk.show')}</button></form>`;
  const more = o.total > o.pageNo * REVIEWS_PER_PAGE;
  const link = (n: number, rel: 'prev' | 'next') =>
    html`<a href="/desk/reviews?status=${o.filter}&amp;page=${n}" rel="${rel}">${t(l, rel === 'prev' ? 'web.search.previous' : 'web.search.next')}</a>`;
  const pager =
    o.pageNo > 1 || more
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${o.pageNo > 1 ? link(o.pageNo - 1, 'prev') : ''}!${more ? link(o.pageNo + 1, 'next') : ''}</nav>`
      : '';
  const items = o.reviews.length
    ? o.reviews.map(item)
    : html`<div class="card"><p>${t(l, 'web.desk.reviews.none')}</p></div>`;
  return deskPage(
    v,
    t(l, 'web.desk.reviews.title'),
    html`!${notice(o.done)}!${formAlert(o.error)}!${filterForm}<p role="status">${t(l, 'web.desk.reviews.count', { n: o.total })}</p>!${items}!${pager}`,
  );
}

// ---- users ---------------------------------------------------------------------------------

/** A user found, with their shop: `hasShop` (a seller's profile), and its name. */
export interface FoundUser {
  user: UserRow;
  hasShop: boolean;
  shop?: string;
}

/** The form that opens one user's page by their exact email or ID (`/desk/users?user=`). */
export const findUserForm = (v: View, id?: string) =>
  html`<form method="get" action="/desk/users" class="row card">!${field({
    name: 'user',
    label: t(v.p.locale, 'web.desk.users.id'),
    value: id ?? '',
    required: true,
    hint: t(v.p.locale, 'web.desk.users.idHint'),
    autocomplete: 'off',
    attrs: ' maxlength="320"',
  })}<button type="submit" class="secondary">${t(v.p.locale, 'web.desk.find')}</button></form>`;

/**
 * /desk/users?user=<id or email> and /desk/users/<id>: find a user by id or email; the one found,
 * the forms that change their role and suspend them, and their history (user-list-routes.ts).
 */
export function usersView(
  v: View,
  o: { id?: string; found?: FoundUser; history?: string; done?: string; error?: FormError; form?: Form },
) {
  const l = v.p.locale;
  const findForm = findUserForm(v, o.id);
  const found = o.found
    ? html`!${userCard(v, o.found, o)}!${o.history ?? ''}`
    : o.id
      ? html`<div class="card"><p role="status">${t(l, 'web.desk.users.notFound', { id: o.id })}</p></div>`
      : '';
  return deskPage(
    v,
    t(l, 'web.desk.users.title'),
    html`<p><a href="/desk/users">${t(l, 'web.desk.users.all')}</a></p>!${notice(o.done)}!${findForm}!${found}`,
  );
}

/**
 * The user's card: their facts, the role form (with a shop's name and province when they have no
 * shop yet), and the suspend or reinstate button. Its forms post to /desk/users/<id>/<action>.
 */
function userCard(v: View, { user, hasShop, shop }: FoundUser, o: { error?: FormError; form?: Form }) {
  const l = v.p.locale;
  const f = o.form ?? {};
  const shopFields = hasShop
    ? ''
    : html`<fieldset><legend>${t(l, 'web.desk.users.shop')}</legend><p class="hint">${t(l, 'web.desk.users.shopHint')}</p>
!${field({ name: 'shopName', label: t(l, 'web.desk.users.shopName'), value: one(f.shopName) ?? '', error: o.error, autocomplete: 'off', attrs: ' maxlength="100"' })}
!${selectField({
        name: 'province',
        label: t(l, 'web.desk.users.province'),
        value: one(f.province) ?? '',
        error: o.error,
        options: [
          { value: '', label: t(l, 'web.checkout.chooseProvince') },
          ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
        ],
      })}</fieldset>`;
  const role = selectField({
    name: 'role',
    label: t(l, 'web.desk.users.newRole'),
    value: one(f.role) ?? user.role,
    required: true,
    error: o.error,
    options: ROLES.map((r) => ({ value: r, label: t(l, 'web.desk.users.roleName', { role: r }) })),
  });
  return html`<section class="card" aria-labelledby="user-h"><h2 id="user-h">${user.name}</h2><dl class="specs">
<dt>${t(l, 'web.desk.users.email')}</dt><dd>${user.email}</dd>
<dt>${t(l, 'web.desk.users.emailVerified')}</dt><dd>${t(l, user.emailVerified ? 'web.desk.yes' : 'web.desk.no')}</dd>
<dt>${t(l, 'web.desk.users.role')}</dt><dd>${t(l, 'web.desk.users.roleName', { role: user.role })}</dd>
<dt>${t(l, 'web.desk.users.shop')}</dt><dd>${shop === undefined ? t(l, 'web.desk.users.noShop') : shop}!${hasShop ? html` <a href="/desk/shops/${encodeURIComponent(user.id)}">${t(l, 'web.desk.users.shopState')}</a>` : ''}</dd>
</dl></section>
<form method="post" action="/desk/users/${encodeURIComponent(user.id)}/role" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.desk.users.changeRole')}</h2>!${formAlert(o.error)}
!${role}
!${shopFields}<p class="hint">${t(l, 'web.desk.users.roleHint')}</p>
<button type="submit">${t(l, 'web.desk.users.changeRole')}</button></form>
<div class="card">!${user.suspendedAt ? html`<p>${t(l, 'web.desk.users.suspended', { date: dateText(v, user.suspendedAt) })}</p>` : ''}!${actionButton(v, { action: `/desk/users/${encodeURIComponent(user.id)}/${user.suspendedAt ? 'reinstate' : 'suspend'}`, label: t(l, user.suspendedAt ? 'web.desk.users.reinstate' : 'web.desk.users.suspend'), kind: user.suspendedAt ? 'secondary' : 'danger' })}</div>`;
}

// ---- coupons -------------------------------------------------------------------------------

type Coupon = NonNullable<Awaited<ReturnType<typeof findCoupon>>>;
type RecentCoupon = Awaited<ReturnType<typeof listCoupons>>[number];

/** /desk/coupons: find one by code (what it gives, its limits, how often used), create one, the recent ones. */
export function couponsView(
  v: View,
  o: {
    lookup?: string;
    /** The coupon looked up and its redemptions; none when no coupon has that code. */
    found?: { coupon: Coupon; used: number };
    recent: readonly RecentCoupon[];
    done?: string;
    error?: FormError;
    form?: Form;
  },
) {
  const l = v.p.locale;
  const e = o.error;
  const findForm = html`<form method="get" action="/desk/coupons" class="row card">!${field({
    name: 'lookup',
    label: t(l, 'web.desk.coupons.find'),
    value: o.lookup ?? '',
    required: true,
    autocomplete: 'off',
    attrs: ' maxlength="40"',
  })}<button type="submit" class="secondary">${t(l, 'web.desk.find')}</button></form>`;
  const found = !o.lookup
    ? ''
    : o.found
      ? couponCard(v, o.found.coupon, o.found.used)
      : html`<div class="card"><p role="status">${t(l, 'web.desk.coupons.notFound', { code: o.lookup })}</p></div>`;
  const createForm = html`<form method="post" action="/desk/coupons" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.desk.coupons.create')}</h2>!${formAlert(e)}
!${couponFields(l, o.form, e)}
<button type="submit">${t(l, 'web.desk.coupons.submit')}</button></form>`;
  const row = (c: RecentCoupon) =>
    html`<tr><td><a href="/desk/coupons?lookup=${encodeURIComponent(c.code)}">${c.code}</a></td><td>${couponDiscountText(l, c)}</td><td>${c.expirationDate ? dateText(v, c.expirationDate) : t(l, 'web.desk.coupons.noEnd')}</td><td class="num">${formatNumber(l, c.redemptions)}</td></tr>`;
  const list = o.recent.length
    ? html`<h2>${t(l, 'web.desk.coupons.recent')}</h2><div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.desk.coupons.code')}</th><th scope="col">${t(l, 'web.desk.coupons.discount')}</th><th scope="col">${t(l, 'web.desk.coupons.expiresShort')}</th><th scope="col" class="num">${t(l, 'web.desk.coupons.redemptions')}</th></tr></thead><tbody>!${o.recent.map(row)}</tbody></table></div>`
    : '';
  return deskPage(
    v,
    t(l, 'web.desk.coupons.title'),
    html`!${notice(o.done)}!${findForm}!${found}!${createForm}!${list}`,
  );
}

/** A coupon's facts: what it gives, its floor, its end, its limits, its redemptions, its terms. */
function couponCard(v: View, c: Coupon, used: number) {
  const l = v.p.locale;
  const noLimit = t(l, 'web.desk.coupons.noLimit');
  const limits = t(l, 'web.desk.coupons.limitsValue', {
    total: c.maxRedemptions === null ? noLimit : formatNumber(l, c.maxRedemptions),
    each: c.maxRedemptionsPerCustomer === null ? noLimit : formatNumber(l, c.maxRedemptionsPerCustomer),
  });
  const terms = c.terms ? html`<dt>${t(l, 'web.desk.coupons.termsShort')}</dt><dd>${c.terms}</dd>` : '';
  return html`<section class="card" aria-labelledby="coupon-h"><h2 id="coupon-h">${c.code}</h2><dl class="specs">
<dt>${t(l, 'web.desk.coupons.discount')}</dt><dd>${couponDiscountText(l, c)}</dd>
<dt>${t(l, 'web.desk.coupons.minimumShort')}</dt><dd>${moneyText(v, c.minSubtotalCents)}</dd>
<dt>${t(l, 'web.desk.coupons.expiresShort')}</dt><dd>${c.expiresOn ? dateText(v, c.expiresOn) : t(l, 'web.desk.coupons.noEnd')}</dd>
<dt>${t(l, 'web.desk.coupons.limits')}</dt><dd>${limits}</dd>
<dt>${t(l, 'web.desk.coupons.redemptions')}</dt><dd>${formatNumber(l, used)}</dd>
!${terms}
</dl></section>`;
}
