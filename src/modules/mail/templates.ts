// The order emails: pure functions from order data and the reader's locale to a subject, a text
// body and an HTML body (docs/api.md "Mail": amounts in dollars with the tax lines). Every word
// comes from the catalogues (src/contract/messages); amounts are formatted from integer cents by
// formatMoney, tax names translated at render time (GST reads TPS in French). Every string a
// user wrote (product and seller names, the address, a reason) is escaped in the HTML, which
// html`...` writes in the email frame (src/views/email.ts).
import { html } from 'ghtml';
import { formatCents } from '../../contract/format.ts';
import { BASE_LOCALE, formatDate, formatMoney, type Locale, t, taxLineLabel } from '../../contract/i18n.ts';
import { emailDocument, emailText, multiline, plainLink } from '../../views/email.ts';
import { wordsWith } from '../../views/words.ts';

export { formatCents };

export type OrderMailOrder = {
  id: string;
  /** What the buyer reads: `2026-000123` (the id stays in links). */
  number: string;
  /** The shop's name; empty when unknown (the email then says "Portage seller"). */
  sellerName: string;
  items: Array<{ name: string; quantity: number; unitPriceCents: number }>;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  /** As stored: `name` is GST, HST, PST or QST (translated when written). */
  taxLines: Array<{ name: string; ratePercent: number; amountCents: number }>;
  taxAmountCents: number;
  totalAmountCents: number;
  /** YYYY-MM-DD */
  estimatedDelivery: string;
  trackingNumber: string | null;
  carrier: string | null;
  shippingAddress: {
    street: string;
    city: string;
    province: string;
    postalCode: string;
    country: string;
  };
  /** The order's invoice (GET /orders/:id/invoice): the paid email links to it when given. */
  invoiceUrl?: string;
  /** The order's page in the buyer's account (/account/orders/:id), when given. */
  pageUrl?: string;
};

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface OrderPaidMailData {
  buyerName: string;
  /** One order per seller, all from one checkout. */
  orders: OrderMailOrder[];
  /** What the buyer paid for the whole checkout. */
  totalCents: number;
}

export interface OrderShippedMailData {
  buyerName: string;
  order: OrderMailOrder;
}

export interface OrderCancelledMailData {
  buyerName: string;
  order: OrderMailOrder;
  /** Already in the reader's words (a person's reason as written, or the service's translated). */
  reason: string;
  refundCents: number;
}

export interface OrderRefundedMailData {
  buyerName: string;
  order: OrderMailOrder;
  refundCents: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]+/g;

/** A user's one-line string: no control characters or line breaks to forge lines with. */
export function line(s: string): string {
  return s.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
}

/** "Hello Ann," (the name on one line), or "Hello," without one; "Bonjour Ann," in French. */
export function greeting(buyerName: string, locale: Locale = BASE_LOCALE): string {
  const name = line(buyerName);
  return name ? t(locale, 'mail.greeting.named', { name }) : t(locale, 'mail.greeting.anonymous');
}

/** Dollars as the reader writes them: "$91.52", "91,52 $". */
export const money = (locale: Locale, cents: number): string => formatMoney(locale, cents);

/** A delivery date (YYYY-MM-DD) as a person reads it: "November 24, 2026", "24 novembre 2026". */
export function deliveryDate(locale: Locale, iso: string): string {
  return formatDate(locale, line(iso));
}

function addressLines(a: OrderMailOrder['shippingAddress']): string[] {
  return [line(a.street), `${line(a.city)} ${line(a.province)} ${line(a.postalCode)}`, line(a.country)];
}

/** "Birch canoe paddle", "Birch canoe paddle and 2 more items": what a person recognises an order by. */
export function itemsSummary(items: ReadonlyArray<{ name: string }>, locale: Locale = BASE_LOCALE): string {
  const first = line(items[0]?.name ?? '') || t(locale, 'mail.order.yourItems');
  return t(locale, 'mail.order.itemsSummary', { first, more: Math.max(0, items.length - 1) });
}

const sellerOf = (o: OrderMailOrder, locale: Locale) =>
  line(o.sellerName) || t(locale, 'mail.order.sellerFallback');

/** The values naming an order in a sentence: its items and its shop. */
const named = (o: OrderMailOrder, locale: Locale) => ({
  items: itemsSummary(o.items, locale),
  seller: sellerOf(o, locale),
});

/** The carriers whose tracking pages we know, by the name a seller types (any case, spacing). */
const TRACKING: Array<[RegExp, (n: string, locale: Locale) => string]> = [
  [
    /^(canada ?post|postes? ?canada|cpc)$/,
    (n, locale) =>
      `https://www.canadapost-postescanada.ca/track-reperage/${locale === 'fr-CA' ? 'fr' : 'en'}#/details/${n}`,
  ],
  [/^purolator$/, (n) => `https://www.purolator.com/en/shipping/tracker?pin=${n}`],
  [/^ups$/, (n) => `https://www.ups.com/track?tracknum=${n}`],
  [/^fed ?ex$/, (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`],
];

/** The carrier's tracking page for this number, when the carrier is one we know (in the reader's language where it has one). */
export function trackingUrl(
  carrier: string | null,
  trackingNumber: string | null,
  locale: Locale = BASE_LOCALE,
): string | undefined {
  const name = line(carrier ?? '')
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .trim();
  const number = line(trackingNumber ?? '');
  if (!name || !number) return undefined;
  const known = TRACKING.find(([pattern]) => pattern.test(name));
  return known?.[1](encodeURIComponent(number), locale);
}

type Row = { label: string; amount: string; strong?: boolean };

/** The lines of one order's summary (text form; the HTML form is built from the same rows). */
function orderRows(o: OrderMailOrder, locale: Locale): { items: Row[]; totals: Row[] } {
  const items = o.items.map(
    (i): Row => ({
      label: t(locale, 'mail.order.itemLine', {
        quantity: i.quantity,
        name: line(i.name),
        price: money(locale, i.unitPriceCents),
      }),
      amount: money(locale, i.quantity * i.unitPriceCents),
    }),
  );
  const totals: Row[] = [{ label: t(locale, 'mail.order.subtotal'), amount: money(locale, o.subtotalCents) }];
  if (o.discountCents !== 0) {
    totals.push({
      label: t(locale, 'mail.order.discount'),
      amount: money(locale, -Math.abs(o.discountCents)),
    });
  }
  totals.push({
    label: t(locale, 'mail.order.shipping'),
    amount:
      o.shippingCostCents === 0 ? t(locale, 'mail.order.freeShipping') : money(locale, o.shippingCostCents),
  });
  for (const x of o.taxLines) {
    totals.push({
      label: taxLineLabel(locale, x.name, x.ratePercent),
      amount: money(locale, x.amountCents),
    });
  }
  if (o.taxLines.length === 0) {
    totals.push({ label: t(locale, 'mail.order.tax'), amount: money(locale, o.taxAmountCents) });
  }
  totals.push({
    label: t(locale, 'mail.order.total'),
    amount: money(locale, o.totalAmountCents),
    strong: true,
  });
  return { items, totals };
}

/** Whether the summary says when the order arrives: not once it is cancelled or refunded. */
type Arriving = { arriving?: boolean };

function orderText(o: OrderMailOrder, locale: Locale, { arriving = true }: Arriving = {}): string[] {
  const { items, totals } = orderRows(o, locale);
  return [
    `${t(locale, 'mail.order.fromSeller', { seller: sellerOf(o, locale) })} ${t(locale, 'mail.order.numberInParens', { id: line(o.number) })}`,
    ...[...items, ...totals].map(
      (r) => `  ${t(locale, 'mail.order.row', { label: r.label, amount: r.amount })}`,
    ),
    ...(arriving
      ? [
          `  ${t(locale, 'mail.order.estimatedDelivery', { date: deliveryDate(locale, o.estimatedDelivery) })}`,
        ]
      : []),
    `  ${t(locale, 'mail.order.shipsTo', { address: addressLines(o.shippingAddress).join(', ') })}`,
    ...(o.pageUrl ? [`  ${t(locale, 'mail.order.pageText', { url: o.pageUrl })}`] : []),
    ...(o.invoiceUrl ? [`  ${t(locale, 'mail.order.invoiceText', { url: o.invoiceUrl })}`] : []),
  ];
}

const STYLE_TABLE = 'border-collapse:collapse;margin:8px 0 16px 0';
const STYLE_CELL = 'padding:2px 12px 2px 0';
const STYLE_AMOUNT = 'padding:2px 0;text-align:right';

function orderHtml(o: OrderMailOrder, locale: Locale, { arriving = true }: Arriving = {}): string {
  const { items, totals } = orderRows(o, locale);
  const row = ({ label, amount, strong }: Row) =>
    strong
      ? html`<tr><td style="${STYLE_CELL}"><strong>${label}</strong></td><td style="${STYLE_AMOUNT}"><strong>${amount}</strong></td></tr>`
      : html`<tr><td style="${STYLE_CELL}">${label}</td><td style="${STYLE_AMOUNT}">${amount}</td></tr>`;
  const address = addressLines(o.shippingAddress)
    .map((x) => html`${x}`)
    .join('<br>');
  const delivery = arriving
    ? html`${t(locale, 'mail.order.estimatedDelivery', { date: deliveryDate(locale, o.estimatedDelivery) })}<br>`
    : '';
  return [
    html`<h3>${t(locale, 'mail.order.fromSeller', { seller: sellerOf(o, locale) })} <small>${t(locale, 'mail.order.numberInParens', { id: line(o.number) })}</small></h3>`,
    html`<table style="${STYLE_TABLE}">`,
    ...items.map(row),
    ...totals.map(row),
    '</table>',
    html`<p>!${delivery}`,
    html`!${wordsWith(locale, 'mail.order.shipsTo', {}, { address })}</p>`,
    ...(o.pageUrl ? [html`<p><a href="${o.pageUrl}">${t(locale, 'mail.order.pageLink')}</a></p>`] : []),
    ...(o.invoiceUrl
      ? [html`<p><a href="${o.invoiceUrl}">${t(locale, 'mail.order.invoiceLink')}</a></p>`]
      : []),
  ].join('\n');
}

/** An email's HTML document in `locale` (its lang): the title and the body's blocks (fragments of html`...`). */
export const page = (title: string, body: string[], locale: Locale = BASE_LOCALE): string =>
  emailDocument(locale, title, body);

/** A paragraph of plain text. */
const para = (text: string) => html`<p>${text}</p>`;

/** One email per paid checkout, listing each order (one per seller), each with its invoice's link. */
export function orderPaidEmail(d: OrderPaidMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const total = money(locale, d.totalCents);
  const subject = t(locale, 'mail.orderPaid.subject', { total });
  const intro = t(locale, 'mail.orderPaid.intro', { count: d.orders.length, total });
  const follow = t(locale, 'mail.orderPaid.follow');
  const text = emailText([
    greeting(d.buyerName, locale),
    '',
    intro,
    '',
    ...d.orders.flatMap((o) => [...orderText(o, locale), '']),
    t(locale, 'mail.orderPaid.totalPaid', { total }),
    '',
    follow,
    '',
  ]);
  const body = page(
    subject,
    [
      para(greeting(d.buyerName, locale)),
      para(intro),
      ...d.orders.map((o) => orderHtml(o, locale)),
      html`<p><strong>${t(locale, 'mail.orderPaid.totalPaid', { total })}</strong></p>`,
      para(follow),
    ],
    locale,
  );
  return { subject, text, html: body };
}

export function orderShippedEmail(d: OrderShippedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const o = d.order;
  const subject = t(locale, 'mail.orderShipped.subject', named(o, locale));
  const track = trackingUrl(o.carrier, o.trackingNumber, locale);
  const notGiven = t(locale, 'mail.orderShipped.notGiven');
  const tracking = [
    t(locale, 'mail.orderShipped.carrier', { carrier: line(o.carrier ?? '') || notGiven }),
    t(locale, 'mail.orderShipped.trackingNumber', { number: line(o.trackingNumber ?? '') || notGiven }),
  ];
  const intro = t(locale, 'mail.orderShipped.intro', named(o, locale));
  const date = deliveryDate(locale, o.estimatedDelivery);
  const address = addressLines(o.shippingAddress);
  const text = emailText([
    greeting(d.buyerName, locale),
    '',
    intro,
    '',
    ...tracking,
    ...(track ? [t(locale, 'mail.orderShipped.trackIt', { url: track })] : []),
    t(locale, 'mail.order.estimatedDelivery', { date }),
    t(locale, 'mail.order.shipsTo', { address: address.join(', ') }),
    t(locale, 'mail.order.number', { id: line(o.number) }),
    '',
  ]);
  const body = page(
    subject,
    [
      para(greeting(d.buyerName, locale)),
      para(intro),
      html`<p>!${tracking.map((x) => html`${x}<br>`)}`,
      ...(track
        ? [html`!${wordsWith(locale, 'mail.orderShipped.trackIt', {}, { url: plainLink(track) })}<br>`]
        : []),
      html`${t(locale, 'mail.order.estimatedDelivery', { date })}</p>`,
      html`<p>!${wordsWith(locale, 'mail.order.shipsTo', {}, { address: address.map((x) => html`${x}`).join('<br>') })}</p>`,
      html`<p>${t(locale, 'mail.order.number', { id: line(o.number) })}</p>`,
    ],
    locale,
  );
  return { subject, text, html: body };
}

function refundSentence(locale: Locale, refundCents: number): string {
  return refundCents > 0
    ? t(locale, 'mail.orderCancelled.refund', { amount: money(locale, refundCents) })
    : t(locale, 'mail.orderCancelled.nothingCharged');
}

export function orderCancelledEmail(d: OrderCancelledMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const o = d.order;
  const subject = t(locale, 'mail.orderCancelled.subject', named(o, locale));
  const intro = t(locale, 'mail.orderCancelled.intro', named(o, locale));
  const reason = d.reason.trim();
  const refund = refundSentence(locale, d.refundCents);
  const text = emailText([
    greeting(d.buyerName, locale),
    '',
    intro,
    ...(reason ? [t(locale, 'mail.orderCancelled.reason', { reason })] : []),
    '',
    refund,
    '',
    ...orderText(o, locale, { arriving: false }),
    '',
  ]);
  const body = page(
    subject,
    [
      para(greeting(d.buyerName, locale)),
      para(intro),
      ...(reason
        ? [
            html`<p>!${wordsWith(locale, 'mail.orderCancelled.reason', {}, { reason: multiline(reason) })}</p>`,
          ]
        : []),
      para(refund),
      orderHtml(o, locale, { arriving: false }),
    ],
    locale,
  );
  return { subject, text, html: body };
}

export function orderRefundedEmail(d: OrderRefundedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const o = d.order;
  const amount = money(locale, d.refundCents);
  const subject = t(locale, 'mail.orderRefunded.subject', { amount, ...named(o, locale) });
  const intro = t(locale, 'mail.orderRefunded.intro', { amount, ...named(o, locale) });
  const after = t(locale, 'mail.refund.delay');
  const text = emailText([
    greeting(d.buyerName, locale),
    '',
    intro,
    after,
    '',
    ...orderText(o, locale, { arriving: false }),
    '',
  ]);
  const body = page(
    subject,
    [
      para(greeting(d.buyerName, locale)),
      html`<p>${intro} ${after}</p>`,
      orderHtml(o, locale, { arriving: false }),
    ],
    locale,
  );
  return { subject, text, html: body };
}

export interface PaymentRefundedMailData {
  buyerName: string;
  amountCents: number;
  /** Why the payment made no order. */
  reason: 'checkout_closed' | 'coupon_used_up';
}

/** A payment that made no order, refunded whole. */
export function paymentRefundedEmail(d: PaymentRefundedMailData, locale: Locale = BASE_LOCALE): RenderedMail {
  const amount = money(locale, d.amountCents);
  const subject = t(locale, 'mail.paymentRefunded.subject', { amount });
  const why =
    d.reason === 'checkout_closed'
      ? t(locale, 'mail.paymentRefunded.checkoutClosed', { amount })
      : t(locale, 'mail.paymentRefunded.couponUsedUp', { amount });
  const after = t(locale, 'mail.paymentRefunded.after', { amount });
  const text = emailText([greeting(d.buyerName, locale), '', why, '', after, '']);
  const body = page(subject, [para(greeting(d.buyerName, locale)), para(why), para(after)], locale);
  return { subject, text, html: body };
}
