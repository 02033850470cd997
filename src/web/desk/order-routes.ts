// The desk's orders (/desk/orders): searched by number or the beginning of a buyer's email,
// filtered by status, Toronto days, province and shop, newest first, 50 a page with "older" links
// that keep the filters (GET /admin/orders's service); and an order's page (/desk/orders/<id>)
// with its buyer, shop, items and history (GET /admin/orders/:id's service).
import type { FastifyInstance } from 'fastify';
import { html } from 'ghtml';
import { PROVINCES } from '../../contract/common.ts';
import {
  type AdminOrderAnswer,
  type AdminOrderRow,
  type AdminOrdersQuery,
  adminOrdersQuery,
  type HistoryEntry,
  ORDER_SEARCH_BUYERS,
} from '../../contract/desk.ts';
import { formatDate, formatNumber, type Locale, t } from '../../contract/i18n.ts';
import { ORDER_STATUSES } from '../../contract/orders.ts';
import { adminOrder, adminOrders } from '../../modules/admin-lists/service.ts';
import { empty, table, th } from '../console/views.ts';
import { signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import {
  badge,
  type FormError,
  field,
  formAlert,
  moneyText,
  provinceName,
  readForm,
  selectField,
  sendHtml,
} from '../layout.ts';
import { filled } from './form.ts';
import { deskPage } from './views.ts';

const ADMINS = ['admin'] as const;
const PAGE = 50;
/** The filters a page's links keep. */
const KEPT = ['q', 'status', 'province', 'shop', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof KEPT)[number], string>>;

export function deskOrderPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/desk/orders',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const v = viewOf(req, reply, s);
      const filters = Object.fromEntries(
        KEPT.flatMap((k) => {
          const value = filled(req.query[k])?.slice(0, 320);
          return value ? [[k, value]] : [];
        }),
      ) as Filters;
      const before = filled(req.query.before)?.slice(0, 100);
      try {
        const q = readForm(adminOrdersQuery, { ...filters, limit: PAGE, ...(before ? { before } : {}) });
        const page = await adminOrders(req.ctx, q);
        return sendHtml(reply, ordersView(v, { filters, q, ...page, later: Boolean(before) }));
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          ordersView(v, { filters, orders: [], nextBefore: null, broad: false, later: false, error }),
        );
      }
    },
  );

  app.get<{ Params: { orderId: string } }>('/desk/orders/:orderId', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    return sendHtml(reply, orderView(v, await adminOrder(req.ctx, req.params.orderId)));
  });
}

/** `/desk/orders` with these filters (and more), as a link. */
const ordersHref = (filters: Filters, more: Record<string, string> = {}) => {
  const p = new URLSearchParams(
    Object.entries({ ...filters, ...more }).filter((e): e is [string, string] => Boolean(e[1])),
  );
  return p.size ? `/desk/orders?${p}` : '/desk/orders';
};

/** The day (in Toronto, the marketplace's calendar) of a moment in Unix seconds. */
const dayText = (v: View, at: number) => formatDate(v.p.locale, new Date(at * 1000), 'America/Toronto');

const cell = (label: string, content: string, num = false) =>
  html`<td!${num ? html` class="num"` : ''} data-label="${label}">!${content}</td>`;

function ordersView(
  v: View,
  o: {
    filters: Filters;
    q?: AdminOrdersQuery;
    orders: AdminOrderRow[];
    nextBefore: string | null;
    broad: boolean;
    later: boolean;
    error?: FormError;
  },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.desk.orders.title');
  const f = o.filters;
  const shopName = o.orders.find((r) => r.sellerId === f.shop)?.shopName ?? f.shop;
  const form = html`<form method="get" action="/desk/orders" class="card filters" role="search">!${formAlert(o.error)}
!${field({ name: 'q', label: t(l, 'web.desk.orders.q'), value: f.q ?? '', hint: t(l, 'web.desk.orders.qHint'), type: 'search', autocomplete: 'off', error: o.error, attrs: ' maxlength="320"' })}
<div class="row">!${selectField({
    name: 'status',
    label: t(l, 'web.orders.status'),
    value: f.status ?? '',
    error: o.error,
    options: [
      { value: '', label: t(l, 'web.desk.orders.anyStatus') },
      ...ORDER_STATUSES.map((x) => ({ value: x, label: t(l, 'web.order.status', { status: x }) })),
    ],
  })}!${selectField({
    name: 'province',
    label: t(l, 'web.desk.orders.province'),
    value: f.province ?? '',
    error: o.error,
    options: [
      { value: '', label: t(l, 'web.desk.orders.anyProvince') },
      ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
    ],
  })}</div>
<div class="row">!${field({ name: 'from', label: t(l, 'web.desk.orders.from'), type: 'date', value: f.from ?? '', error: o.error })}!${field({ name: 'to', label: t(l, 'web.desk.orders.to'), type: 'date', value: f.to ?? '', error: o.error })}</div>
!${f.shop ? html`<input type="hidden" name="shop" value="${f.shop}"><p>${t(l, 'web.desk.orders.shopOnly', { shop: shopName ?? '' })} <a href="${ordersHref({ ...f, shop: undefined } as Filters)}">${t(l, 'web.desk.orders.allShops')}</a></p>` : ''}
<button type="submit" class="secondary">${t(l, 'web.desk.show')}</button></form>`;
  const rows = o.orders.map(
    (r) =>
      html`<tr>!${cell(t(l, 'web.orders.order'), html`<a href="/desk/orders/${encodeURIComponent(r.id)}">${r.number}</a>`)}!${cell(t(l, 'web.orders.date'), html`${dayText(v, r.createdAt)}`)}!${cell(t(l, 'web.desk.orders.buyer'), html`<a href="/desk/users/${encodeURIComponent(r.buyerId)}">${r.buyerEmail}</a>`)}!${cell(t(l, 'web.desk.orders.shop'), html`<a href="${ordersHref({ shop: r.sellerId })}">${r.shopName ?? r.sellerId}</a>`)}!${cell(t(l, 'web.desk.orders.province'), html`${r.province ? provinceName(l, r.province) : ''}`)}!${cell(t(l, 'web.orders.status'), badge(l, r.status, 'web.order.status', { status: r.status }))}!${cell(t(l, 'web.orders.total'), html`${moneyText(v, r.totalAmountCents)}`, true)}</tr>`,
  );
  const list = rows.length
    ? table(
        [
          th(t(l, 'web.orders.order')),
          th(t(l, 'web.orders.date')),
          th(t(l, 'web.desk.orders.buyer')),
          th(t(l, 'web.desk.orders.shop')),
          th(t(l, 'web.desk.orders.province')),
          th(t(l, 'web.orders.status')),
          th(t(l, 'web.orders.total'), true),
        ],
        rows,
        title,
        true,
      )
    : o.error
      ? ''
      : empty(l, 'web.desk.orders.none');
  const pager =
    o.later || o.nextBefore
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${o.later ? html`<a href="${ordersHref(f)}">${t(l, 'web.console.notices.newest')}</a>` : ''}!${o.nextBefore ? html`<a href="${ordersHref(f, { before: o.nextBefore })}" rel="next">${t(l, 'web.console.notices.older')}</a>` : ''}</nav>`
      : '';
  const broad = o.broad
    ? html`<p class="notice" role="status">${t(l, 'web.desk.orders.broad', { n: ORDER_SEARCH_BUYERS })}</p>`
    : '';
  return deskPage(
    v,
    title,
    html`<p class="hint">${t(l, 'web.desk.orders.intro')}</p>!${form}!${broad}!${list}!${pager}`,
  );
}

/** The formatters of momentText, one per language (building one costs more than using it). */
const MOMENTS = new Map<Locale, Intl.DateTimeFormat>();

/** A moment to the minute in Toronto, in the page's language. */
const momentText = (l: Locale, at: number) => {
  let f = MOMENTS.get(l);
  if (!f) {
    f = new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'America/Toronto' });
    MOMENTS.set(l, f);
  }
  return f.format(new Date(at * 1000));
};

/** What an entry of the history says besides its name: amounts in dollars, the rest as recorded. */
const detailOf = (v: View, h: HistoryEntry) => {
  if (h.detail === null) return '';
  const money = h.event.startsWith('refund.') || h.event === 'return.refunded';
  return money && /^\d+$/.test(h.detail) ? moneyText(v, Number(h.detail)) : h.detail;
};

/** An event's name as a select keyword of web.desk.order.event (`order.placed` → `orderPlaced`). */
const eventWord = (e: string) => e.replace(/\.([a-z])/, (_m, c: string) => c.toUpperCase());

function orderView(v: View, a: AdminOrderAnswer): string {
  const l = v.p.locale;
  const o = a.order;
  const title = t(l, 'web.desk.order.title', { number: o.number });
  const address = o.shippingAddress as Record<string, string | undefined>;
  const summary = html`<section class="card" aria-labelledby="summary-h"><h2 id="summary-h">${t(l, 'web.desk.order.summary')}</h2><dl class="specs">
<dt>${t(l, 'web.orders.status')}</dt><dd>!${badge(l, o.status, 'web.order.status', { status: o.status })}</dd>
<dt>${t(l, 'web.desk.order.placed')}</dt><dd>${momentText(l, o.createdAt)}</dd>
<dt>${t(l, 'web.desk.orders.buyer')}</dt><dd><a href="/desk/users/${encodeURIComponent(a.buyer.id)}">${a.buyer.name || a.buyer.email}</a> (${a.buyer.email})</dd>
<dt>${t(l, 'web.desk.orders.shop')}</dt><dd><a href="${ordersHref({ shop: a.shop.id })}">${a.shop.name ?? a.shop.id}</a> · <a href="/desk/users/${encodeURIComponent(a.shop.id)}">${t(l, 'web.desk.order.seller')}</a></dd>
<dt>${t(l, 'web.desk.order.shipTo')}</dt><dd>${[address.recipientName, address.street, address.line2, address.city, address.province ? provinceName(l, address.province) : undefined, address.postalCode].filter(Boolean).join(', ')}</dd>
<dt>${t(l, 'web.orders.total')}</dt><dd>${moneyText(v, o.totalAmountCents)}</dd>
<dt>${t(l, 'web.desk.order.refunded')}</dt><dd>${moneyText(v, o.refundedCents)}</dd>
</dl></section>`;
  const items = table(
    [
      th(t(l, 'web.desk.order.item')),
      th(t(l, 'web.desk.order.quantity'), true),
      th(t(l, 'web.desk.order.price'), true),
    ],
    o.items.map(
      (i) =>
        html`<tr>!${cell(t(l, 'web.desk.order.item'), html`${i.name}`)}!${cell(t(l, 'web.desk.order.quantity'), html`${formatNumber(l, i.quantity)}`, true)}!${cell(t(l, 'web.desk.order.price'), html`${moneyText(v, i.unitPriceCents)}`, true)}</tr>`,
    ),
    t(l, 'web.desk.order.items'),
    true,
  );
  const history = html`<section class="card" aria-labelledby="history-h"><h2 id="history-h">${t(l, 'web.desk.order.history')}</h2><ol class="timeline">!${a.history.map(
    (h) =>
      html`<li><time datetime="${new Date(h.at * 1000).toISOString()}">${momentText(l, h.at)}</time> <strong>${t(l, 'web.desk.order.event', { event: eventWord(h.event) })}</strong>!${h.detail === null ? '' : html` · ${detailOf(v, h)}`}</li>`,
  )}</ol></section>`;
  return deskPage(
    v,
    title,
    html`<p><a href="/desk/orders">${t(l, 'web.desk.order.back')}</a></p>!${summary}<h2>${t(l, 'web.desk.order.items')}</h2>!${items}!${history}`,
  );
}
