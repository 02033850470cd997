// A buyer's orders as markup: the list, a purchase's orders, an order's page (tracking, refunds,
// cancel, the returns asked and a return of what is left, a review of each item) and the
// returns. Pure: data in, HTML out.
import { html } from 'ghtml';
import type { z } from 'zod';
import { type Locale, t } from '../../contract/i18n.ts';
import type { orderDetail, orderListItem } from '../../contract/orders.ts';
import { RETURN_REASONS, type ReturnRequest } from '../../contract/returns.ts';
import type { ReturnOffer } from '../../modules/returns/service.ts';
import { multiline } from '../../views/email.ts';
import { amountRows } from '../../views/fragments.ts';
import { wordsWith } from '../../views/words.ts';
import { type ConversationMessage, conversationSection } from '../conversation-views.ts';
import type { View } from '../core.ts';
import {
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
  textArea,
} from '../layout.ts';
import { accountTabs } from './tabs.ts';

export type OrderRow = Pick<
  z.output<typeof orderListItem>,
  'id' | 'number' | 'createdAt' | 'status' | 'itemCount' | 'totalAmountCents'
>;
/** An order line as sold: the page returns and names each variant's line on its own. */
type Item = z.output<typeof orderDetail>['items'][number] & { variantId: string };
type Order = Omit<z.output<typeof orderDetail>, 'items'> & { items: Item[] };

export const orderStatus = (l: Locale, status: string) => badge(l, status, 'web.order.status', { status });

/** Orders as a table, each named by its number and linked to its page; or that there are none. */
export function orderTable(v: View, list: readonly OrderRow[]): string {
  const l = v.p.locale;
  if (!list.length)
    return html`<div class="card"><p>${t(l, 'web.orders.none')}</p><p><a href="/">${t(l, 'web.cart.browse')}</a></p></div>`;
  const rows = list.map(
    (o) =>
      html`<tr><td><a class="order-number" href="/account/orders/${encodeURIComponent(o.id)}">${o.number}</a></td><td>${dateText(v, o.createdAt)}</td><td>!${orderStatus(l, o.status)}</td><td class="num">${o.itemCount}</td><td class="num">${moneyText(v, o.totalAmountCents)}</td></tr>`,
  );
  return html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.orders.order')}</th><th scope="col">${t(l, 'web.orders.date')}</th><th scope="col">${t(l, 'web.orders.status')}</th><th scope="col" class="num">${t(l, 'web.orders.items')}</th><th scope="col" class="num">${t(l, 'web.orders.total')}</th></tr></thead><tbody>!${rows}</tbody></table></div>`;
}

/** A page of the buyer's orders, with links to the pages before and after. */
export function ordersPage(v: View, list: readonly OrderRow[], pageNo: number, more: boolean): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.account.orders'),
    body: html`<h1>${t(l, 'web.account.orders')}</h1>!${accountTabs(v)}!${orderTable(v, list)}<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${pageNo > 1 ? html`<a href="/account/orders?page=${pageNo - 1}">${t(l, 'web.search.previous')}</a>` : ''}!${more ? html`<a href="/account/orders?page=${pageNo + 1}">${t(l, 'web.search.next')}</a>` : ''}</nav>`,
  });
}

/** A purchase of several shops: its orders, one per shop. */
export function purchasePage(v: View, bought: readonly OrderRow[]): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.account.purchase'),
    body: html`<h1>${t(l, 'web.account.purchase')}</h1>!${accountTabs(v)}<p>${t(l, 'web.account.purchaseSellers', { n: bought.length })}</p>!${orderTable(v, bought)}`,
  });
}

// ---- an order --------------------------------------------------------------------------------

/** Which form of the order page a refusal belongs to: it is shown in that form only. */
export type OrderForm = 'cancel' | 'return' | 'message' | `review:${string}`;

/** A review the buyer gave of one of the order's items. */
export interface OwnReview {
  product_id: string;
  rating: number;
  title: string | null;
  comment: string | null;
  status: string;
}

export interface OrderPageData {
  order: Order;
  /** The carrier's tracking page, when the carrier is one we know. */
  trackUrl?: string;
  /** Whether the buyer may still cancel it. */
  canCancel: boolean;
  /** The returns asked of it (a delivered order's). */
  asked: readonly ReturnRequest[];
  offer: ReturnOffer<Item>;
  /** The buyer's reviews of its items (a delivered order's), by product. */
  reviews: ReadonlyMap<string, OwnReview>;
  /** The messages with the seller, oldest first. */
  messages: readonly ConversationMessage[];
  /** The message as typed, after a refusal. */
  typed?: string;
  done?: string;
  error?: FormError;
  form?: OrderForm;
}

function reviewCard(v: View, oid: string, i: Item, d: OrderPageData): string {
  const l = v.p.locale;
  const mine = d.reviews.get(i.productId);
  if (mine) {
    return html`<div class="card"><h2>${t(l, 'web.review.yours', { name: i.name })}</h2><p>${t(l, 'web.review.stars', { rating: mine.rating })}!${mine.title ? html` · <strong>${mine.title}</strong>` : ''}</p>!${mine.comment ? html`<p>${mine.comment}</p>` : ''}<p>!${badge(l, mine.status, 'web.review.state', { status: mine.status })}</p></div>`;
  }
  const form: OrderForm = `review:${i.productId}`;
  const error = d.form === form ? d.error : undefined;
  return html`<form method="post" action="/account/orders/${oid}/review" class="card">!${csrfField(v)}<input type="hidden" name="product_id" value="${i.productId}"><h2>${t(l, 'web.review.title', { name: i.name })}</h2>!${formAlert(error)}
!${selectField({ name: 'rating', label: t(l, 'web.review.rating'), required: true, error, options: [5, 4, 3, 2, 1].map((n) => ({ value: String(n), label: t(l, 'web.search.stars', { n }) })) })}
!${field({ name: 'title', label: t(l, 'web.review.heading'), attrs: ' maxlength="120"', error })}!${textArea({ name: 'comment', label: t(l, 'web.review.comment'), attrs: ' maxlength="5000"', error })}
<button type="submit" class="secondary">${t(l, 'web.review.submit')}</button></form>`;
}

function returnSection(v: View, oid: string, d: OrderPageData): string {
  const l = v.p.locale;
  const offer = d.offer;
  // The form only while a return can still be asked; once the window closed, when it did.
  if (offer.kind === 'none') return '';
  if (offer.kind === 'closed') {
    const closed = dateText(v, Math.floor(offer.closesAt.getTime() / 1000));
    return html`<p class="muted">${t(l, 'web.return.windowClosed', { date: closed })}</p>`;
  }
  const error = d.form === 'return' ? d.error : undefined;
  // Fewer units than are left of a line: a number under it (all of them unless changed).
  const units = (i: (typeof offer.items)[number]) =>
    i.left > 1
      ? field({
          name: `quantity.${i.variantId}`,
          problemField: `quantities.${i.variantId}`,
          type: 'number',
          label: t(l, 'web.return.units', { name: i.name }),
          value: i.left,
          error,
          attrs: html` min="1" max="${i.left}" step="1" inputmode="numeric"`,
        })
      : '';
  const items =
    offer.items.length > 1
      ? html`<fieldset><legend>${t(l, 'web.return.items')}</legend>!${offer.items.map((i) => html`<label class="check"><input type="checkbox" name="items" value="${i.variantId}">${i.name}</label>!${units(i)}`)}<p class="hint">${t(l, 'web.return.itemsHint')}</p></fieldset>`
      : html`<input type="hidden" name="line" value="${offer.items[0]!.variantId}">!${d.order.items.length > 1 ? html`<p>${t(l, 'web.return.itemLeft', { name: offer.items[0]!.name })}</p>` : ''}!${units(offer.items[0]!)}`;
  return html`<form method="post" action="/account/orders/${oid}/return" class="card">!${csrfField(v)}<h2>${t(l, 'web.return.title')}</h2>!${formAlert(error)}
!${selectField({ name: 'reason', label: t(l, 'web.return.reason'), required: true, error, options: RETURN_REASONS.map((r) => ({ value: r, label: t(l, 'web.return.reasonName', { reason: r }) })) })}
!${items}
!${textArea({ name: 'description', label: t(l, 'web.return.description'), error, attrs: ' maxlength="2000"' })}
<button type="submit">${t(l, 'web.return.submit')}</button></form>`;
}

export function orderPage(v: View, d: OrderPageData): string {
  const l = v.p.locale;
  const { order } = d;
  const oid = encodeURIComponent(order.id);
  const delivered = order.status === 'delivered';
  const tracking = order.trackingNumber
    ? html`<p>${t(l, 'web.order.tracking', { carrier: order.carrier ?? '', number: order.trackingNumber })}!${d.trackUrl ? html` · <a href="${d.trackUrl}" rel="noreferrer">${t(l, 'web.order.track')}</a>` : ''}</p>`
    : '';
  const items = order.items.map(
    (i) =>
      html`<tr><td><a href="/shop/products/${i.productId}">${i.name}</a></td><td class="num">${i.quantity}</td><td class="num">${moneyText(v, i.unitPriceCents)}</td><td class="num">${moneyText(v, i.unitPriceCents * i.quantity)}</td></tr>`,
  );
  const cancelError = d.form === 'cancel' ? d.error : undefined;
  const cancel = d.canCancel
    ? html`<form method="post" action="/account/orders/${oid}/cancel" class="card">!${csrfField(v)}<h2>${t(l, 'web.order.cancelTitle')}</h2>!${formAlert(cancelError)}!${field({ name: 'reason', label: t(l, 'web.order.cancelReason'), attrs: ' maxlength="500"', error: cancelError })}<button type="submit" class="danger">${t(l, 'web.order.cancel')}</button></form>`
    : '';
  // A cancelled order is refunded in full by its cancellation: its status says so already.
  const refundState =
    order.status === 'cancelled' || order.refundedCents === 0
      ? ''
      : order.refundedCents >= order.totalAmountCents
        ? html` !${orderStatus(l, 'refunded')}`
        : html` · ${t(l, 'web.order.partlyRefunded', { amount: moneyText(v, order.refundedCents) })}`;
  const returnList = d.asked.length
    ? html`<div class="card"><h2>${t(l, 'web.return.yours')}</h2><ul>!${d.asked.map(
        (r) =>
          html`<li>${t(l, 'web.return.asked', { date: dateText(v, r.created_at), status: t(l, 'web.return.status', { status: r.status }) })}!${r.refund_amount_cents ? html` · ${t(l, 'web.return.refunded', { amount: moneyText(v, r.refund_amount_cents) })}` : ''}!${r.status === 'awaiting_parcel' && r.instructions ? html`<p>!${wordsWith(l, 'mail.return.instructions', {}, { note: multiline(r.instructions) })}</p>` : ''}</li>`,
      )}</ul></div>`
    : '';
  // Reviews are of products: one card per product, whichever of its variants were bought.
  const reviewed = order.items.filter(
    (i, n) => order.items.findIndex((o) => o.productId === i.productId) === n,
  );
  const reviewForms = delivered ? reviewed.map((i) => reviewCard(v, oid, i, d)) : [];
  // A refusal of a form no longer shown (the return asked in another tab, say) is said at the top.
  const form = d.form;
  const formOnPage =
    form === 'cancel'
      ? d.canCancel
      : form === 'return'
        ? d.offer.kind === 'open'
        : delivered &&
          order.items.some((i) => form === `review:${i.productId}` && !d.reviews.has(i.productId));
  const topAlert = d.error && !formOnPage ? formAlert(d.error) : '';
  const a = order.shippingAddress;
  return page(v, {
    title: t(l, 'web.order.title', { id: order.number }),
    body: html`<h1>${t(l, 'web.order.title', { id: order.number })}</h1>!${accountTabs(v)}!${notice(d.done)}!${topAlert}
<div class="card"><p>!${orderStatus(l, order.status)}!${refundState} · ${t(l, 'web.order.placed', { date: dateText(v, order.createdAt) })}</p>
!${order.status === 'cancelled' ? '' : html`<p>${t(l, 'web.order.estimated', { date: dateText(v, order.estimatedDelivery) })}</p>`}!${tracking}
<p>${t(l, 'web.order.shipTo', { street: a.street, city: a.city, province: provinceName(l, a.province), postalCode: a.postalCode })}</p>
<p><a href="/account/orders/${oid}/invoice">${t(l, 'web.order.invoice')}</a></p></div>
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.cart.product')}</th><th scope="col" class="num">${t(l, 'web.cart.quantity')}</th><th scope="col" class="num">${t(l, 'web.cart.price')}</th><th scope="col" class="num">${t(l, 'web.cart.lineTotal')}</th></tr></thead><tbody>!${items}</tbody></table></div>
<div class="card totals">!${amountRows(l, { ...order, totalCents: order.totalAmountCents }, order.refundedCents ? [{ label: t(l, 'web.order.refunded'), cents: order.refundedCents }] : [])}</div>
!${cancel}!${returnList}!${returnSection(v, oid, d)}!${reviewForms}
!${conversationSection(v, { messages: d.messages, action: `/account/orders/${oid}/messages`, other: 'seller', ...(d.form === 'message' && d.error ? { error: d.error } : {}), ...(d.typed ? { typed: d.typed } : {}) })}`,
  });
}

// ---- returns ---------------------------------------------------------------------------------

/** The buyer's returns and their decisions (cards on a phone: each cell says what it is). */
export function returnsPage(v: View, list: readonly ReturnRequest[]): string {
  const l = v.p.locale;
  const rows = list.map(
    (r) =>
      html`<tr><td data-label="${t(l, 'web.orders.order')}"><a href="/account/orders/${encodeURIComponent(r.order_id)}">${r.order_id}</a></td><td data-label="${t(l, 'web.orders.date')}">${dateText(v, r.created_at)}</td><td data-label="${t(l, 'web.return.reason')}">${t(l, 'web.return.reasonName', { reason: r.reason })}</td><td data-label="${t(l, 'web.orders.status')}">!${badge(l, r.status, 'web.return.status', { status: r.status })}</td><td class="num" data-label="${t(l, 'web.return.refund')}">${moneyText(v, r.refund_amount_cents ?? r.estimated_refund_amount_cents)}</td></tr>`,
  );
  const table = list.length
    ? html`<div class="table-wrap" tabindex="0"><table class="stack"><thead><tr><th scope="col">${t(l, 'web.orders.order')}</th><th scope="col">${t(l, 'web.orders.date')}</th><th scope="col">${t(l, 'web.return.reason')}</th><th scope="col">${t(l, 'web.orders.status')}</th><th scope="col" class="num">${t(l, 'web.return.refund')}</th></tr></thead><tbody>!${rows}</tbody></table></div>`
    : html`<div class="card"><p>${t(l, 'web.return.none')}</p></div>`;
  return page(v, {
    title: t(l, 'web.account.returns'),
    body: html`<h1>${t(l, 'web.account.returns')}</h1>!${accountTabs(v)}!${table}`,
  });
}
