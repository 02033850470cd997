// The seller's orders and returns as pages: the orders to ship and the recent ones, an order's
// page (its parcel's address, items, totals and next step), and the returns to decide. Markup only.
import { html } from 'ghtml';
import { formatDate, type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import { ORDER_STATUSES } from '../../contract/orders.ts';
import type { labelStateOf } from '../../modules/orders/labels.ts';
import type { getShopOrder, listOrders } from '../../modules/orders/service.ts';
import type { listReturns } from '../../modules/returns/service.ts';
import { amountRows } from '../../views/fragments.ts';
import { addressBlock, type ShownAddress } from '../addresses/views.ts';
import { type ConversationMessage, conversationSection } from '../conversation-views.ts';
import type { View } from '../core.ts';
import {
  actionButton,
  badge,
  csrfField,
  dateText,
  type FormError,
  field,
  formAlert,
  moneyText,
  selectField,
} from '../layout.ts';
import { type Body, one } from './form.ts';
import { consolePage, empty, orderPath, pager, returnPath, rowInput, table, th } from './views.ts';

type Order = Awaited<ReturnType<typeof getShopOrder>>;
type LabelState = Awaited<ReturnType<typeof labelStateOf>>;
type OrderRow = Awaited<ReturnType<typeof listOrders>>['orders'][number];
type ReturnRow = Awaited<ReturnType<typeof listReturns>>['returns'][number];

const orderBadge = (l: Locale, status: string) => badge(l, status, 'web.order.status', { status });

/** What the seller can do next with an order: confirm it, ship it (carrier and tracking), mark it delivered. */
function orderActions(
  v: View,
  o: { id: string; number: string; status: string },
  rowId?: string,
  form: { error?: FormError; typed?: Body } = {},
) {
  const error = form.error;
  const l = v.p.locale;
  const path = orderPath(o.id);
  const from = rowId ? { from: 'list' } : undefined;
  if (o.status === 'pending') {
    const hint = rowId ? '' : html`<p class="hint">${t(l, 'web.console.order.confirmHint')}</p>`;
    return html`!${hint}!${actionButton(v, { action: `${path}/confirm`, label: t(l, 'web.console.order.confirm'), fields: from })}`;
  }
  if (o.status === 'shipped') {
    return actionButton(v, {
      action: `${path}/deliver`,
      label: t(l, 'web.console.order.deliver'),
      fields: from,
    });
  }
  if (o.status !== 'confirmed') return '';
  if (rowId) {
    return html`<form method="post" action="${path}/ship" class="row">!${csrfField(v)}<input type="hidden" name="from" value="list">
!${rowInput({ id: `${rowId}-carrier`, name: 'carrier', label: t(l, 'web.console.order.carrier'), of: o.number, maxlength: 64 })}
!${rowInput({ id: `${rowId}-tracking`, name: 'trackingNumber', label: t(l, 'web.console.order.trackingNumber'), of: o.number, maxlength: 64 })}
<button type="submit" class="small">${t(l, 'web.console.order.ship')}</button></form>`;
  }
  return html`<form method="post" action="${path}/ship" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.console.order.shipTitle')}</h2>!${formAlert(error)}
<p class="hint">${t(l, 'web.console.order.orByHand')}</p>
<div class="row">!${field({ name: 'carrier', label: t(l, 'web.console.order.carrier'), value: one(form.typed?.carrier), required: true, error, attrs: ' maxlength="64"' })}
!${field({ name: 'trackingNumber', label: t(l, 'web.console.order.trackingNumber'), value: one(form.typed?.trackingNumber), required: true, error, attrs: ' maxlength="64"' })}</div>
<button type="submit">${t(l, 'web.console.order.ship')}</button></form>`;
}

/** Orders as rows with their next step; `section` names the rows' inputs, none: a confirmed order links to its page. */
function orderTable(v: View, list: readonly OrderRow[], section?: string) {
  const l = v.p.locale;
  const next = (o: OrderRow, i: number) =>
    section || o.status !== 'confirmed'
      ? orderActions(v, o, `${section ?? 'row'}-${i}`)
      : html`<a href="${orderPath(o.id)}">${t(l, 'web.console.order.shipTitle')}</a>`;
  return table(
    [
      th(t(l, 'web.orders.order')),
      th(t(l, 'web.orders.date')),
      th(t(l, 'web.orders.status')),
      th(t(l, 'web.orders.items'), true),
      th(t(l, 'web.orders.total'), true),
      th(t(l, 'web.console.actions')),
    ],
    list.map(
      (o, i) =>
        html`<tr><td><a class="order-number" href="${orderPath(o.id)}">${o.number}</a></td><td>${dateText(v, o.createdAt)}</td><td>!${orderBadge(l, o.status)}</td><td class="num">${o.itemCount}</td><td class="num">${moneyText(v, o.totalAmountCents)}</td><td>!${next(o, i)}</td></tr>`,
    ),
  );
}

/**
 * /console/orders: without a filter, the orders to ship (oldest first) above the recent ones;
 * with one, the orders in that status.
 */
export function ordersView(
  v: View,
  o: {
    status?: string;
    toShip?: readonly OrderRow[];
    orders: readonly OrderRow[];
    pageNo: number;
    more: boolean;
    done?: string;
  },
) {
  const l = v.p.locale;
  const filter = html`<form method="get" action="/console/orders" class="row">!${selectField({
    name: 'status',
    label: t(l, 'web.console.order.filter'),
    value: o.status ?? '',
    options: [
      { value: '', label: t(l, 'web.console.order.all') },
      ...ORDER_STATUSES.map((x) => ({ value: x, label: t(l, 'web.order.status', { status: x }) })),
    ],
  })}<button type="submit" class="secondary">${t(l, 'web.search.apply')}</button></form>`;
  const toShip = o.toShip
    ? html`<section aria-labelledby="to-ship-h"><h2 id="to-ship-h">${t(l, 'web.console.order.toShip')}</h2>!${
        o.toShip.length ? orderTable(v, o.toShip, 'ship') : empty(l, 'web.console.order.noneToShip')
      }</section>`
    : '';
  const list = o.orders.length
    ? orderTable(v, o.orders, o.toShip ? undefined : 'all')
    : empty(l, 'web.console.order.none');
  return consolePage(
    v,
    t(l, 'web.console.orders'),
    html`!${toShip}<section aria-labelledby="recent-h"><h2 id="recent-h">${t(l, o.status ? 'web.console.orders' : 'web.console.order.recent')}</h2>!${filter}!${list}!${pager(l, '/console/orders', { status: o.status }, o.pageNo, o.more)}</section>`,
    o.done,
  );
}

/** An order's page: its state, where the parcel goes, the invoice, the items and totals, the next step. */
/**
 * The order's Canada Post label: a confirmed order's button that buys it (and ships the order by
 * it); once bought, the link that prints it. Nothing for an order without one past confirmation.
 */
function labelCard(v: View, order: Order, label: LabelState) {
  const l = v.p.locale;
  const path = orderPath(order.id);
  const sandbox = label.sandbox ? html`<p class="hint">${t(l, 'web.console.label.sandbox')}</p>` : '';
  if (label.label) {
    return html`<div class="card"><h2>${t(l, 'web.console.label.title')}</h2>!${sandbox}
<p><a href="${path}/label">${t(l, 'web.console.label.download')}</a></p></div>`;
  }
  if (order.status !== 'confirmed') return '';
  const service = t(l, 'shipping.service', { service: label.service.replace('.', '_') });
  // A purchase whose answer was lost: the button checks with Canada Post before buying anything.
  const pending =
    label.pending === 'uncertain'
      ? html`<p class="alert" role="status">${t(l, 'web.console.label.uncertain')}</p>`
      : label.pending === 'buying'
        ? html`<p class="notice" role="status">${t(l, 'web.console.label.buying')}</p>`
        : '';
  return html`<div class="card"><h2>${t(l, 'web.console.label.title')}</h2>!${pending}
<p class="hint">${t(l, 'web.console.label.hint', { service })}</p>!${sandbox}
!${actionButton(v, { action: `${path}/label`, label: t(l, label.pending === 'uncertain' ? 'web.console.label.check' : 'web.console.label.buy') })}</div>`;
}

export function orderView(
  v: View,
  order: Order,
  recipient: ShownAddress,
  label: LabelState,
  o: {
    error?: FormError;
    typed?: Body;
    done?: string;
    /** The messages with the buyer, oldest first; a message refused, as typed. */
    messages?: readonly ConversationMessage[];
    message?: { error: FormError; typed: string };
  } = {},
) {
  const l = v.p.locale;
  const items = order.items.map(
    (i) =>
      html`<tr><td>${i.name}</td><td class="num">${i.quantity}</td><td class="num">${moneyText(v, i.unitPriceCents)}</td><td class="num">${moneyText(v, i.unitPriceCents * i.quantity)}</td></tr>`,
  );
  const totals = amountRows(l, { ...order, totalCents: order.totalAmountCents }, [
    ...(order.refundedCents ? [{ label: t(l, 'web.order.refunded'), cents: order.refundedCents }] : []),
    { label: t(l, 'web.console.order.fee'), cents: order.platformFeeCents },
  ]);
  // A confirmed order's next step is a form: it goes under the items, with its own refusal.
  const confirmed = order.status === 'confirmed';
  const actions = orderActions(v, order, undefined, { error: o.error, typed: o.typed });
  const estimated =
    order.status === 'cancelled'
      ? ''
      : html`<p>${t(l, 'web.order.estimated', { date: formatDate(l, order.estimatedDelivery) })}</p>`;
  const tracking = order.trackingNumber
    ? html`<p>${t(l, 'web.order.tracking', { carrier: order.carrier ?? '', number: order.trackingNumber })}</p>`
    : '';
  return consolePage(
    v,
    t(l, 'web.order.title', { id: order.number }),
    html`!${confirmed ? '' : formAlert(o.error)}
<div class="card"><p>!${orderBadge(l, order.status)} · ${t(l, 'web.order.placed', { date: formatDate(l, new Date(order.createdAt * 1000)) })}</p>
!${estimated}
!${tracking}
<section aria-labelledby="ship-to-h"><h2 id="ship-to-h">${t(l, 'web.console.order.shipTo')}</h2>!${addressBlock(l, recipient)}</section>
<p><a href="${orderPath(order.id)}/invoice">${t(l, 'web.order.invoice')}</a></p>
!${order.status === 'cancelled' ? '' : html`<p><a href="${orderPath(order.id)}/packing-slip">${t(l, 'web.console.order.packingSlip')}</a></p>`}
!${confirmed ? '' : actions}</div>
!${labelCard(v, order, label)}
!${table([th(t(l, 'web.cart.product')), th(t(l, 'web.cart.quantity'), true), th(t(l, 'web.cart.price'), true), th(t(l, 'web.cart.lineTotal'), true)], items)}
<div class="card totals">!${totals}</div>
!${confirmed ? actions : ''}
!${conversationSection(v, { messages: o.messages ?? [], action: `${orderPath(order.id)}/messages`, other: 'buyer', ...(o.message ? { error: o.message.error, typed: o.message.typed } : {}) })}
<p><a href="/console/orders">${t(l, 'web.console.order.back')}</a></p>`,
    o.done,
  );
}

/** /console/returns: the returns to decide (approve, or reject with a note), then every return, a page of them. */
export function returnsView(
  v: View,
  o: {
    waiting: readonly ReturnRow[];
    /** Returns approved with instructions, waiting for their parcel. */
    awaiting: readonly ReturnRow[];
    returns: readonly ReturnRow[];
    status?: string;
    pageNo: number;
    more: boolean;
    error?: FormError;
    /** The return whose decision was refused: its note shows the problem. */
    refused?: string;
    done?: string;
  },
) {
  const l = v.p.locale;
  const what = (r: ReturnRow) =>
    r.whole_order
      ? t(l, 'web.console.return.whole')
      : t(l, 'web.console.return.items', { n: r.items.length });
  const cell = (key: MessageKey, content: string, num = false) =>
    html`<td!${num ? html` class="num"` : ''} data-label="${t(l, key)}">!${content}</td>`;
  const reason = (r: ReturnRow) =>
    html`${t(l, 'web.return.reasonName', { reason: r.reason })}!${r.description ? html`<p class="hint">${t(l, 'web.console.return.said', { description: r.description })}</p>` : ''}`;
  const cells = (r: ReturnRow) =>
    html`!${cell('web.orders.order', html`<a href="${orderPath(r.order_id)}">${r.order_id}</a>`)}!${cell('web.orders.date', html`${dateText(v, r.created_at)}`)}!${cell('web.return.reason', reason(r))}!${cell('web.console.return.what', html`${what(r)}`)}`;
  const head = [
    th(t(l, 'web.orders.order')),
    th(t(l, 'web.orders.date')),
    th(t(l, 'web.return.reason')),
    th(t(l, 'web.console.return.what')),
    th(t(l, 'web.return.refund'), true),
  ];
  const decide = (r: ReturnRow, i: number) => {
    const path = returnPath(r.return_id);
    const error = o.refused === r.return_id ? o.error : undefined;
    return html`!${actionButton(v, { action: `${path}/approve`, label: t(l, 'web.console.return.approve') })}
<form method="post" action="${path}/ask">!${csrfField(v)}!${rowInput({ id: `ask-${i}-instructions`, name: 'instructions', label: t(l, 'web.console.return.instructions'), of: r.order_id, maxlength: 2000, error })}<button type="submit" class="small secondary">${t(l, 'web.console.return.ask')}</button></form>
<form method="post" action="${path}/reject" class="row">!${csrfField(v)}!${rowInput({ id: `reject-${i}-note`, name: 'note', label: t(l, 'web.console.return.note'), of: r.order_id, maxlength: 1000, error })}<button type="submit" class="small danger">${t(l, 'web.console.return.reject')}</button></form>`;
  };
  const toDecide = o.waiting.length
    ? table(
        [...head, th(t(l, 'web.console.actions'))],
        o.waiting.map(
          (r, i) =>
            html`<tr>!${cells(r)}!${cell('web.return.refund', html`${moneyText(v, r.estimated_refund_amount_cents)}`, true)}!${cell('web.console.actions', decide(r, i))}</tr>`,
        ),
        undefined,
        true,
      )
    : empty(l, 'web.console.return.noneToDecide');
  // A return's parcel came back: how many units of each line go back on sale (all, unless changed).
  const receive = (r: ReturnRow, i: number) => {
    const error = o.refused === r.return_id ? o.error : undefined;
    const lines = r.lines.map((line) =>
      field({
        // The return's row in the name too: one variant may wait in two returns (ids stay unique).
        name: `restock.${i}.${line.id}`,
        problemField: `restock.${line.id}`,
        type: 'number',
        label: t(l, 'web.console.return.restock', { name: line.name }),
        value: line.quantity,
        error,
        attrs: html` min="0" max="${line.quantity}" step="1" inputmode="numeric"`,
      }),
    );
    return html`<p class="hint">${t(l, 'web.console.return.sentBackHow', { instructions: r.instructions ?? '' })}</p><form method="post" action="${returnPath(r.return_id)}/receive">!${csrfField(v)}!${lines}<button type="submit" class="small">${t(l, 'web.console.return.receive')}</button></form>`;
  };
  const awaiting = o.awaiting.length
    ? table(
        [...head, th(t(l, 'web.console.actions'))],
        o.awaiting.map(
          (r, i) =>
            html`<tr>!${cells(r)}!${cell('web.return.refund', html`${moneyText(v, r.estimated_refund_amount_cents)}`, true)}!${cell('web.console.actions', receive(r, i))}</tr>`,
        ),
        undefined,
        true,
      )
    : empty(l, 'web.console.return.noneAwaiting');
  const all = o.returns.length
    ? table(
        [...head, th(t(l, 'web.orders.status'))],
        o.returns.map(
          (r) =>
            html`<tr>!${cells(r)}!${cell('web.return.refund', html`${moneyText(v, r.refund_amount_cents ?? r.estimated_refund_amount_cents)}`, true)}!${cell('web.orders.status', badge(l, r.status, 'web.return.status', { status: r.status }))}</tr>`,
        ),
        undefined,
        true,
      )
    : empty(l, 'web.console.return.none');
  return consolePage(
    v,
    t(l, 'web.console.returns'),
    html`!${formAlert(o.error)}<section aria-labelledby="decide-h"><h2 id="decide-h">${t(l, 'web.console.return.toDecide')}</h2>!${toDecide}</section>
<section aria-labelledby="awaiting-h"><h2 id="awaiting-h">${t(l, 'web.console.return.awaiting')}</h2>!${awaiting}</section>
<section aria-labelledby="all-h"><h2 id="all-h">${t(l, 'web.console.return.all')}</h2>!${all}!${pager(l, '/console/returns', { status: o.status }, o.pageNo, o.more)}</section>`,
    o.done,
  );
}
