// Pieces of HTML that both the pages (./store.ts) and the agent hosts' views (src/mcp/views.ts)
// show: a product's card, stars, stock and images, written the same way in both. Pure: they
// take values and a language, import only the contract (and `say`, a message escaped), and
// escape everything they put in.
import type { z } from 'zod';
import type { reviewSummary, searchResult } from '../contract/catalog.ts';
import { escapeHtml } from '../contract/format.ts';
import { formatDate, formatMoney, type Locale, t, taxLineLabel } from '../contract/i18n.ts';
import { say } from '../modules/page-layout.ts';

export { say };

export function stars(l: Locale, rating: number, count: number): string {
  if (!count) return `<span class="muted">${say(l, 'web.product.noReviews')}</span>`;
  const full = Math.round(rating);
  // A number, to one decimal, written by the locale (4.5, 4,5).
  return `${starIcons(full)} <span>${say(l, 'web.product.rating', { rating: Math.round(rating * 10) / 10, n: count })}</span>`;
}

const starIcons = (full: number) =>
  `<span class="stars" aria-hidden="true">${'★'.repeat(full)}${'☆'.repeat(5 - full)}</span>`;

export function stockLine(l: Locale, stock: number): string {
  if (stock <= 0) return `<p class="stock-out">${say(l, 'web.product.outOfStock')}</p>`;
  return `<p>${say(l, stock <= 5 ? 'web.product.fewLeft' : 'web.product.inStock', { n: stock })}</p>`;
}

export const productImage = (url: string | null | undefined, alt: string, lazy = true) =>
  url
    ? `<img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}" width="400" height="300"${lazy ? ' loading="lazy"' : ''} decoding="async">`
    : '';

/** A product's images, the first one named by its title. */
export function productImages(
  l: Locale,
  p: { title: string; imageUrl: string | null; imageUrls: string[] },
): string {
  const images = p.imageUrls.length ? p.imageUrls : p.imageUrl ? [p.imageUrl] : [];
  return images
    .map((u, i) =>
      productImage(u, i === 0 ? p.title : t(l, 'web.product.imageN', { title: p.title, n: i + 1 }), i > 0),
    )
    .join('');
}

/**
 * A product in a grid of results; its title links to `href` when given; its stock is said when
 * it is out, or always with `stock`.
 */
export function productCard(
  l: Locale,
  r: z.output<typeof searchResult>,
  o: { href?: string; stock?: boolean } = {},
): string {
  const title = o.href ? `<a href="${escapeHtml(o.href)}">${escapeHtml(r.title)}</a>` : escapeHtml(r.title);
  const stock = o.stock || r.stockQuantity <= 0 ? stockLine(l, r.stockQuantity) : '';
  return `<li class="product">${productImage(r.imageUrl, r.title)}<div class="body"><h2>${title}</h2><p class="price">${escapeHtml(formatMoney(l, r.priceCents))}</p><p>${stars(l, r.rating, r.reviewCount)}</p>${stock}</div></li>`;
}

export function reviewArticle(l: Locale, r: z.output<typeof reviewSummary>): string {
  return `<article class="review"><p>${starIcons(r.rating)} <span>${say(l, 'web.review.stars', { rating: r.rating })}</span></p>${r.title ? `<p class="review-title"><strong>${escapeHtml(r.title)}</strong></p>` : ''}${r.comment ? `<p>${escapeHtml(r.comment)}</p>` : ''}<p class="muted">${escapeHtml(r.author)} · ${escapeHtml(formatDate(l, new Date(r.dateCreated * 1000)))}</p></article>`;
}

/** A product's specifications, under their heading; nothing when it has none. */
export function specifications(l: Locale, specs: Record<string, string>): string {
  const rows = Object.entries(specs);
  if (!rows.length) return '';
  return `<h2>${say(l, 'web.product.specifications')}</h2><dl class="specs">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

/** A product's newest reviews, or that it has none yet. */
export const reviewList = (l: Locale, reviews: readonly z.output<typeof reviewSummary>[]) =>
  reviews.length
    ? reviews.map((r) => reviewArticle(l, r)).join('')
    : `<p class="muted">${say(l, 'web.product.noReviews')}</p>`;

/** What an amount is made of, as a cart, a checkout or an order carries it (integer cents). */
export interface Amounts {
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxLines: readonly { name: string; ratePercent: number; amountCents: number }[];
  totalCents: number;
}

/**
 * The rows of a `.totals` block: subtotal, discount (when there is one), shipping, each tax
 * line, the total; then `after` (a refund, a fee).
 */
export function amountRows(
  l: Locale,
  a: Amounts,
  after: readonly { label: string; cents: number }[] = [],
): string {
  const row = (label: string, amount: string, cls = '') =>
    `<div${cls ? ` class="${cls}"` : ''}><span>${escapeHtml(label)}</span><span>${amount}</span></div>`;
  const money = (cents: number) => escapeHtml(formatMoney(l, cents));
  return [
    row(t(l, 'web.cart.subtotal'), money(a.subtotalCents)),
    a.discountCents ? row(t(l, 'web.cart.discount'), `−${money(a.discountCents)}`) : '',
    row(t(l, 'web.cart.shipping'), money(a.shippingCostCents)),
    ...a.taxLines.map((x) => row(taxLineLabel(l, x.name, x.ratePercent), money(x.amountCents))),
    row(t(l, 'web.cart.total'), money(a.totalCents), 'grand'),
    ...after.map((x) => row(x.label, money(x.cents))),
  ].join('');
}
