// The desk's list of users (/desk/users without `?user=`): searched by an email (with its @) or
// a name's beginning, filtered by role and suspension, 50 a page (GET /admin/users's service);
// and a user's history under their card (GET /admin/users/:id's service): their shop, orders,
// returns, reviews and the admins' actions on them. The card itself (role, suspension) is
// views.ts's userCard, drawn by routes.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { isRecordId, ROLES } from '../../contract/common.ts';
import {
  type AdminOrderRow,
  type AdminUserAnswer,
  type AdminUserRow,
  adminUsersQuery,
} from '../../contract/desk.ts';
import { formatDate, t } from '../../contract/i18n.ts';
import { adminUsers } from '../../modules/admin-lists/service.ts';
import { empty, table, th } from '../console/views.ts';
import { seeOther, type View, viewOf, type WebSettings } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import {
  badge,
  type FormError,
  field,
  formAlert,
  moneyText,
  readForm,
  selectField,
  sendHtml,
} from '../layout.ts';
import { filled } from './form.ts';
import { deskPage, findUserForm } from './views.ts';

const PAGE = 50;
const KEPT = ['q', 'role', 'suspended'] as const;
type Filters = Partial<Record<(typeof KEPT)[number], string>>;

const usersHref = (filters: Filters, more: Record<string, string> = {}) => {
  const p = new URLSearchParams(
    Object.entries({ ...filters, ...more }).filter((e): e is [string, string] => Boolean(e[1])),
  );
  return p.size ? `/desk/users?${p}` : '/desk/users';
};

/** The day (in Toronto, the marketplace's calendar) of a moment in Unix seconds. */
const dayText = (v: View, at: number) => formatDate(v.p.locale, new Date(at * 1000), 'America/Toronto');

const cell = (label: string, content: string, num = false) =>
  html`<td!${num ? html` class="num"` : ''} data-label="${label}">!${content}</td>`;

/** GET /desk/users without `user`: the list; a user's ID typed in the search opens their page. */
export async function usersListPage(req: FastifyRequest, reply: FastifyReply, s: WebSettings) {
  const query = req.query as Record<string, unknown>;
  const v = viewOf(req, reply, s);
  const filters = Object.fromEntries(
    KEPT.flatMap((k) => {
      const value = filled(query[k])?.slice(0, 320);
      return value ? [[k, value]] : [];
    }),
  ) as Filters;
  if (filters.q && isRecordId('users', filters.q)) {
    return seeOther(reply, `/desk/users/${encodeURIComponent(filters.q)}`);
  }
  const before = filled(query.before)?.slice(0, 100);
  try {
    const q = readForm(adminUsersQuery, { ...filters, limit: PAGE, ...(before ? { before } : {}) });
    const page = await adminUsers(req.ctx, q);
    return sendHtml(reply, usersListView(v, { filters, ...page, later: Boolean(before) }));
  } catch (err) {
    return answerRefusal(req, reply, s, err, (v, error) =>
      usersListView(v, { filters, users: [], nextBefore: null, later: false, error }),
    );
  }
}

function usersListView(
  v: View,
  o: {
    filters: Filters;
    users: AdminUserRow[];
    nextBefore: string | null;
    later: boolean;
    error?: FormError;
  },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.desk.users.title');
  const f = o.filters;
  const form = html`<form method="get" action="/desk/users" class="card filters" role="search">!${formAlert(o.error)}
!${field({ name: 'q', label: t(l, 'web.desk.users.q'), value: f.q ?? '', hint: t(l, 'web.desk.users.qHint'), type: 'search', autocomplete: 'off', error: o.error, attrs: ' maxlength="320"' })}
<div class="row">!${selectField({
    name: 'role',
    label: t(l, 'web.desk.users.role'),
    value: f.role ?? '',
    error: o.error,
    options: [
      { value: '', label: t(l, 'web.desk.users.anyRole') },
      ...ROLES.map((r) => ({ value: r, label: t(l, 'web.desk.users.roleName', { role: r }) })),
    ],
  })}!${selectField({
    name: 'suspended',
    label: t(l, 'web.desk.users.account'),
    value: f.suspended ?? '',
    error: o.error,
    options: [
      { value: '', label: t(l, 'web.desk.users.anyState') },
      { value: 'true', label: t(l, 'web.desk.users.onlySuspended') },
      { value: 'false', label: t(l, 'web.desk.users.onlyActive') },
    ],
  })}</div>
<button type="submit" class="secondary">${t(l, 'web.desk.show')}</button></form>`;
  const rows = o.users.map(
    (u) =>
      html`<tr>!${cell(t(l, 'web.desk.users.name'), html`<a href="/desk/users/${encodeURIComponent(u.id)}">${u.name}</a>`)}!${cell(t(l, 'web.desk.users.email'), html`${u.email}`)}!${cell(t(l, 'web.desk.users.role'), html`${t(l, 'web.desk.users.roleName', { role: u.role })}`)}!${cell(t(l, 'web.desk.users.joined'), html`${dayText(v, u.createdAt)}`)}!${cell(t(l, 'web.desk.users.account'), u.suspendedAt ? badge(l, 'cancelled', 'web.desk.users.suspendedBadge') : html`${t(l, 'web.desk.users.onlyActive')}`)}</tr>`,
  );
  const list = rows.length
    ? table(
        ['name', 'email', 'role', 'joined', 'account'].map((k) => th(t(l, `web.desk.users.${k as 'name'}`))),
        rows,
        title,
        true,
      )
    : o.error
      ? ''
      : empty(l, 'web.desk.users.none');
  const pager =
    o.later || o.nextBefore
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${o.later ? html`<a href="${usersHref(f)}">${t(l, 'web.desk.users.first')}</a>` : ''}!${o.nextBefore ? html`<a href="${usersHref(f, { before: o.nextBefore })}" rel="next">${t(l, 'web.search.next')}</a>` : ''}</nav>`
      : '';
  return deskPage(
    v,
    title,
    html`!${findUserForm(v)}<p class="hint">${t(l, 'web.desk.users.intro')}</p>!${form}!${list}!${pager}`,
  );
}

/** A list of orders on a user's page: number, date, the other side, status, total. */
function ordersTable(v: View, rows: AdminOrderRow[], caption: string, other: 'buyer' | 'shop') {
  const l = v.p.locale;
  const who = t(l, other === 'buyer' ? 'web.desk.orders.buyer' : 'web.desk.orders.shop');
  return table(
    [
      th(t(l, 'web.orders.order')),
      th(t(l, 'web.orders.date')),
      th(who),
      th(t(l, 'web.orders.status')),
      th(t(l, 'web.orders.total'), true),
    ],
    rows.map(
      (r) =>
        html`<tr>!${cell(t(l, 'web.orders.order'), html`<a href="/desk/orders/${encodeURIComponent(r.id)}">${r.number}</a>`)}!${cell(t(l, 'web.orders.date'), html`${dayText(v, r.createdAt)}`)}!${cell(who, other === 'buyer' ? html`<a href="/desk/users/${encodeURIComponent(r.buyerId)}">${r.buyerEmail}</a>` : html`${r.shopName ?? r.sellerId}`)}!${cell(t(l, 'web.orders.status'), badge(l, r.status, 'web.order.status', { status: r.status }))}!${cell(t(l, 'web.orders.total'), html`${moneyText(v, r.totalAmountCents)}`, true)}</tr>`,
    ),
    caption,
    true,
  );
}

/** A user's history, under their card: shop, orders bought and sold, returns, reviews, the admins' actions. */
export function userHistory(v: View, a: AdminUserAnswer): string {
  const l = v.p.locale;
  const none = html`<p>${t(l, 'web.desk.user.none')}</p>`;
  const heading = (
    id: string,
    key: 'orders' | 'sales' | 'returns' | 'reviews',
    c: { count: number; more: boolean },
  ) => html`<h2 id="${id}">${t(l, `web.desk.user.${key}`, { n: c.count, more: c.more ? 'yes' : 'no' })}</h2>`;
  const bought = html`<section class="card" aria-labelledby="bought-h">!${heading('bought-h', 'orders', a.orders)}!${a.orders.recent.length ? html`!${ordersTable(v, a.orders.recent, t(l, 'web.desk.user.ordersCaption'), 'shop')}<p><a href="/desk/orders?q=${encodeURIComponent(a.user.email)}">${t(l, 'web.desk.user.allOrders')}</a></p>` : none}</section>`;
  const sold = a.sales
    ? html`<section class="card" aria-labelledby="sold-h">!${heading('sold-h', 'sales', a.sales)}!${a.sales.recent.length ? ordersTable(v, a.sales.recent, t(l, 'web.desk.user.salesCaption'), 'buyer') : none}<p><a href="/desk/orders?shop=${encodeURIComponent(a.user.id)}">${t(l, 'web.desk.user.allSales')}</a>!${a.shop ? html` · <a href="/shops/${encodeURIComponent(a.shop.slug)}">${t(l, 'web.desk.user.shopPage')}</a>` : ''}</p></section>`
    : '';
  const returns = html`<section class="card" aria-labelledby="returns-h">!${heading('returns-h', 'returns', a.returns)}!${a.returns.recent.length ? html`<ul>!${a.returns.recent.map((r) => html`<li>${dayText(v, r.createdAt)} · <a href="/desk/orders/${encodeURIComponent(r.orderId)}">${t(l, 'web.desk.user.returnOf')}</a> · ${t(l, 'web.return.reasonName', { reason: r.reason })} · ${t(l, 'web.return.status', { status: r.status })}</li>`)}</ul>` : none}</section>`;
  const reviews = html`<section class="card" aria-labelledby="reviews-h">!${heading('reviews-h', 'reviews', a.reviews)}!${a.reviews.recent.length ? html`<ul>!${a.reviews.recent.map((r) => html`<li>${dayText(v, r.createdAt)} · <a href="/shop/products/${encodeURIComponent(r.productId)}">${t(l, 'web.search.stars', { n: r.rating })}!${r.title ? html` · ${r.title}` : ''}</a> · ${t(l, 'web.desk.reviews.status', { status: r.status })}</li>`)}</ul>` : none}</section>`;
  const actions = html`<section class="card" aria-labelledby="actions-h"><h2 id="actions-h">${t(l, 'web.desk.user.actions')}</h2>!${a.adminActions.length ? html`<ul>!${a.adminActions.map((x) => html`<li>${dayText(v, x.createdAt)} · <a href="/desk/audit?action=${encodeURIComponent(x.action)}">${x.action}</a> · ${x.actorEmail}</li>`)}</ul>` : none}</section>`;
  return html`!${sold}!${bought}!${returns}!${reviews}!${actions}`;
}
