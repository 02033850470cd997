// The order emails: pure functions from order data to a subject, a text body and an HTML body
// (docs/api.md "Mail": amounts in dollars with the tax lines). Amounts are
// formatted from integer cents with integer arithmetic; every string a user wrote (product and
// seller names, the address, a reason) is escaped in the HTML.
import { escapeHtml, formatCents } from '../../contract/format.ts';

export { escapeHtml, formatCents };

export type OrderMailOrder = {
  id: string;
  sellerName: string;
  items: Array<{ name: string; quantity: number; unitPriceCents: number }>;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
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

/** "Hello Ann," (the name on one line), or "Hello," without one. */
export function greeting(buyerName: string): string {
  const name = line(buyerName);
  return name ? `Hello ${name},` : 'Hello,';
}

function rate(percent: number): string {
  // 13 -> "13", 9.975 -> "9.975" (at most three decimals, as the tax tables give them)
  return String(Math.round(percent * 1000) / 1000);
}

function addressLines(a: OrderMailOrder['shippingAddress']): string[] {
  return [line(a.street), `${line(a.city)} ${line(a.province)} ${line(a.postalCode)}`, line(a.country)];
}

/** "Birch canoe paddle", "Birch canoe paddle and 2 more items": what a person recognises an order by. */
export function itemsSummary(items: ReadonlyArray<{ name: string }>): string {
  const first = line(items[0]?.name ?? '') || 'your items';
  const more = items.length - 1;
  return more > 0 ? `${first} and ${more} more item${more === 1 ? '' : 's'}` : first;
}

/** "Birch canoe paddle from Maple Goods": an order named by its first item and its shop. */
const orderName = (o: OrderMailOrder) => `${itemsSummary(o.items)} from ${line(o.sellerName)}`;

/** The carriers whose tracking pages we know, by the name a seller types (any case, spacing). */
const TRACKING: Array<[RegExp, (n: string) => string]> = [
  [
    /^(canada ?post|postes? ?canada|cpc)$/,
    (n) => `https://www.canadapost-postescanada.ca/track-reperage/en#/details/${n}`,
  ],
  [/^purolator$/, (n) => `https://www.purolator.com/en/shipping/tracker?pin=${n}`],
  [/^ups$/, (n) => `https://www.ups.com/track?tracknum=${n}`],
  [/^fed ?ex$/, (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`],
];

/** The carrier's tracking page for this number, when the carrier is one we know. */
export function trackingUrl(carrier: string | null, trackingNumber: string | null): string | undefined {
  const name = line(carrier ?? '')
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .trim();
  const number = line(trackingNumber ?? '');
  if (!name || !number) return undefined;
  const known = TRACKING.find(([pattern]) => pattern.test(name));
  return known?.[1](encodeURIComponent(number));
}

/** The lines of one order's summary (text form; the HTML form is built from the same rows). */
function orderRows(o: OrderMailOrder): { items: [string, string][]; totals: [string, string][] } {
  const items = o.items.map((i): [string, string] => [
    `${i.quantity} × ${line(i.name)} @ ${formatCents(i.unitPriceCents)}`,
    formatCents(i.quantity * i.unitPriceCents),
  ]);
  const totals: [string, string][] = [['Subtotal', formatCents(o.subtotalCents)]];
  if (o.discountCents !== 0) totals.push(['Discount', formatCents(-Math.abs(o.discountCents))]);
  totals.push(['Shipping', o.shippingCostCents === 0 ? 'Free' : formatCents(o.shippingCostCents)]);
  for (const t of o.taxLines)
    totals.push([`${line(t.name)} ${rate(t.ratePercent)}%`, formatCents(t.amountCents)]);
  if (o.taxLines.length === 0) totals.push(['Tax', formatCents(o.taxAmountCents)]);
  totals.push(['Total', formatCents(o.totalAmountCents)]);
  return { items, totals };
}

function orderText(o: OrderMailOrder): string[] {
  const { items, totals } = orderRows(o);
  return [
    `From ${line(o.sellerName)} (order number ${line(o.id)})`,
    ...items.map(([label, amount]) => `  ${label}: ${amount}`),
    ...totals.map(([label, amount]) => `  ${label}: ${amount}`),
    `  Estimated delivery: ${line(o.estimatedDelivery)}`,
    `  Ships to: ${addressLines(o.shippingAddress).join(', ')}`,
  ];
}

const STYLE_TABLE = 'border-collapse:collapse;margin:8px 0 16px 0';
const STYLE_CELL = 'padding:2px 12px 2px 0';
const STYLE_AMOUNT = 'padding:2px 0;text-align:right';

function orderHtml(o: OrderMailOrder): string {
  const { items, totals } = orderRows(o);
  const row = ([label, amount]: [string, string], strong = false) => {
    const l = strong ? `<strong>${escapeHtml(label)}</strong>` : escapeHtml(label);
    const a = strong ? `<strong>${escapeHtml(amount)}</strong>` : escapeHtml(amount);
    return `<tr><td style="${STYLE_CELL}">${l}</td><td style="${STYLE_AMOUNT}">${a}</td></tr>`;
  };
  return [
    `<h3>From ${escapeHtml(line(o.sellerName))} <small>(order number ${escapeHtml(line(o.id))})</small></h3>`,
    `<table style="${STYLE_TABLE}">`,
    ...items.map((r) => row(r)),
    ...totals.map((r) => row(r, r[0] === 'Total')),
    '</table>',
    `<p>Estimated delivery: ${escapeHtml(line(o.estimatedDelivery))}<br>`,
    `Ships to: ${addressLines(o.shippingAddress).map(escapeHtml).join('<br>')}</p>`,
  ].join('\n');
}

/** An email's HTML document: the title and the body's lines (already escaped). */
export function page(title: string, body: string[]): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.4">',
    ...body,
    '</body></html>',
  ].join('\n');
}

function link(url: string): string {
  const u = escapeHtml(url);
  return `<a href="${u}">${u}</a>`;
}

/** One email per paid checkout, listing each order (one per seller). */
export function orderPaidEmail(d: OrderPaidMailData): RenderedMail {
  const count = d.orders.length;
  const subject = `Your Portage order is confirmed: ${formatCents(d.totalCents)}`;
  const intro =
    count === 1
      ? `Thank you for your order. We received your payment of ${formatCents(d.totalCents)}.`
      : `Thank you for your order. We received your payment of ${formatCents(d.totalCents)} for ${count} orders (one per seller).`;
  const follow = 'Tracking details will follow when it ships.';
  const text = [
    greeting(d.buyerName),
    '',
    intro,
    '',
    ...d.orders.flatMap((o) => [...orderText(o), '']),
    `Total paid: ${formatCents(d.totalCents)}`,
    '',
    follow,
    '',
  ].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    ...d.orders.map(orderHtml),
    `<p><strong>Total paid: ${escapeHtml(formatCents(d.totalCents))}</strong></p>`,
    `<p>${escapeHtml(follow)}</p>`,
  ]);
  return { subject, text, html };
}

export function orderShippedEmail(d: OrderShippedMailData): RenderedMail {
  const o = d.order;
  const subject = `Your ${orderName(o)} has shipped`;
  const track = trackingUrl(o.carrier, o.trackingNumber);
  const tracking = [
    `Carrier: ${line(o.carrier ?? '') || 'not given'}`,
    `Tracking number: ${line(o.trackingNumber ?? '') || 'not given'}`,
  ];
  const intro = `Your order of ${itemsSummary(o.items)} from ${line(o.sellerName)} is on its way.`;
  const text = [
    greeting(d.buyerName),
    '',
    intro,
    '',
    ...tracking,
    ...(track ? [`Track it: ${track}`] : []),
    `Estimated delivery: ${line(o.estimatedDelivery)}`,
    `Ships to: ${addressLines(o.shippingAddress).join(', ')}`,
    `Order number: ${line(o.id)}`,
    '',
  ].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    `<p>${tracking.map(escapeHtml).join('<br>')}<br>`,
    ...(track ? [`Track it: ${link(track)}<br>`] : []),
    `Estimated delivery: ${escapeHtml(line(o.estimatedDelivery))}</p>`,
    `<p>Ships to: ${addressLines(o.shippingAddress).map(escapeHtml).join('<br>')}</p>`,
    `<p>Order number: ${escapeHtml(line(o.id))}</p>`,
  ]);
  return { subject, text, html };
}

function refundSentence(refundCents: number): string {
  return refundCents > 0
    ? `A refund of ${formatCents(refundCents)} goes back to your original payment method; it can take 5 to 10 business days to appear.`
    : 'Nothing was charged for this order, so there is nothing to refund.';
}

export function orderCancelledEmail(d: OrderCancelledMailData): RenderedMail {
  const o = d.order;
  const subject = `Your order of ${orderName(o)} was cancelled`;
  const intro = `Your order of ${orderName(o)} was cancelled.`;
  const reason = d.reason.trim();
  const text = [
    greeting(d.buyerName),
    '',
    intro,
    ...(reason ? [`Reason: ${reason}`] : []),
    '',
    refundSentence(d.refundCents),
    '',
    ...orderText(o),
    '',
  ].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    ...(reason ? [`<p>Reason: ${escapeHtml(reason).replace(/\r?\n/g, '<br>')}</p>`] : []),
    `<p>${escapeHtml(refundSentence(d.refundCents))}</p>`,
    orderHtml(o),
  ]);
  return { subject, text, html };
}

export function orderRefundedEmail(d: OrderRefundedMailData): RenderedMail {
  const o = d.order;
  const subject = `Refund of ${formatCents(d.refundCents)} for your ${orderName(o)}`;
  const intro = `We refunded ${formatCents(d.refundCents)} for your order of ${orderName(o)}.`;
  const after = 'It goes back to your original payment method and can take 5 to 10 business days to appear.';
  const text = [greeting(d.buyerName), '', intro, after, '', ...orderText(o), ''].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    `<p>${escapeHtml(intro)} ${escapeHtml(after)}</p>`,
    orderHtml(o),
  ]);
  return { subject, text, html };
}

export interface PaymentRefundedMailData {
  buyerName: string;
  amountCents: number;
  /** Why the payment made no order. */
  reason: 'checkout_closed' | 'coupon_used_up';
}

/** A payment that made no order, refunded whole. */
export function paymentRefundedEmail(d: PaymentRefundedMailData): RenderedMail {
  const amount = formatCents(d.amountCents);
  const subject = `Your payment of ${amount} is being refunded`;
  const why =
    d.reason === 'checkout_closed'
      ? `Your payment of ${amount} arrived for a checkout that had already ended (a newer checkout of your cart replaced it, or it expired), so it made no order.`
      : `Your payment of ${amount} arrived after its coupon had reached its limit of uses, so it made no order.`;
  const after = `We are refunding the full ${amount} to your original payment method; it can take 5 to 10 business days to appear. Nothing else is charged.`;
  const text = [greeting(d.buyerName), '', why, '', after, ''].join('\n');
  const html = page(subject, [
    `<p>${escapeHtml(greeting(d.buyerName))}</p>`,
    `<p>${escapeHtml(why)}</p>`,
    `<p>${escapeHtml(after)}</p>`,
  ]);
  return { subject, text, html };
}
