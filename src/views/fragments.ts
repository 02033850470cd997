// Pieces of HTML that both the pages (src/web/store/) and the agent hosts' views
// (src/mcp/views.ts) show: a product's card, stars, stock and images, amounts, written the same
// way in both. Pure: they take values and a language and answer fragments of html`...`.
import { html } from 'ghtml';
import type { z } from 'zod';
import type { reviewSummary, searchResult } from '../contract/catalog.ts';
import { formatDate, formatMoney, type Locale, t, taxLineLabel } from '../contract/i18n.ts';
import { words } from './words.ts';

const starIcons = (full: number) =>
  html`<span class="stars" aria-hidden="true">${'★'.repeat(full)}${'☆'.repeat(5 - full)}</span>`;

export function stars(l: Locale, rating: number, count: number): string {
  if (!count) return html`<span class="muted">${words(l, 'web.product.noReviews')}</span>`;
  const full = Math.round(rating);
  // A number, to one decimal, written by the locale (4.5, 4,5).
  return html`!${starIcons(full)} <span>${words(l, 'web.product.rating', { rating: Math.round(rating * 10) / 10, n: count })}</span>`;
}

export function stockLine(l: Locale, stock: number): string {
  if (stock <= 0) return html`<p class="stock-out">${words(l, 'web.product.outOfStock')}</p>`;
  return html`<p>${words(l, stock <= 5 ? 'web.product.fewLeft' : 'web.product.inStock', { n: stock })}</p>`;
}

export const productImage = (url: string | null | undefined, alt: string, lazy = true): string =>
  url
    ? html`<img src="${url}" alt="${alt}" width="400" height="300"!${lazy ? ' loading="lazy"' : ''} decoding="async">`
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
  const title = o.href ? html`<a href="${o.href}">${r.title}</a>` : html`${r.title}`;
  const stock = o.stock || r.stockQuantity <= 0 ? stockLine(l, r.stockQuantity) : '';
  // A title not in the page's language (not translated) is marked, for screen readers.
  const lang = r.language && r.language !== l ? html` lang="${r.language}"` : '';
  return html`<li class="product">!${productImage(r.imageUrl, r.title)}<div class="body"><h2!${lang}>!${title}</h2><p class="price">${formatMoney(l, r.priceCents)}</p><p>!${stars(l, r.rating, r.reviewCount)}</p>!${stock}</div></li>`;
}

export function reviewArticle(l: Locale, r: z.output<typeof reviewSummary>): string {
  const title = r.title ? html`<p class="review-title"><strong>${r.title}</strong></p>` : '';
  const comment = r.comment ? html`<p>${r.comment}</p>` : '';
  return html`<article class="review"><p>!${starIcons(r.rating)} <span>${words(l, 'web.review.stars', { rating: r.rating })}</span></p>!${title}!${comment}<p class="muted">${r.author} · ${formatDate(l, new Date(r.dateCreated * 1000))}</p></article>`;
}

/** A product's specifications, under their heading; nothing when it has none. */
export function specifications(l: Locale, specs: Record<string, string>): string {
  const rows = Object.entries(specs);
  if (!rows.length) return '';
  return html`<h2>${words(l, 'web.product.specifications')}</h2><dl class="specs">!${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** A product's newest reviews, or that it has none yet. */
export const reviewList = (l: Locale, reviews: readonly z.output<typeof reviewSummary>[]): string =>
  reviews.length
    ? reviews.map((r) => reviewArticle(l, r)).join('')
    : html`<p class="muted">${words(l, 'web.product.noReviews')}</p>`;

/** What an amount is made of, as a cart, a checkout or an order carries it (integer cents). */
export interface Amounts {
  subtotalCents: number;
  discountCents: number;
  /** What the discount is made of, each named (a shop's automatic discount, the coupon); absent: one row. */
  discounts?: readonly { label: string; cents: number }[];
  /** An order's: of the discount, the shop's part (the rest the marketplace's coupon); both shown when both gave. */
  sellerDiscountCents?: number;
  shippingCostCents: number;
  taxLines: readonly { name: string; ratePercent: number; amountCents: number }[];
  totalCents: number;
}

/** A discount as a cart answers it (contract/cart.ts cartDiscount). */
interface NamedDiscount {
  kind: 'automatic' | 'coupon';
  code: string | null;
  shopName: string | null;
  amountCents: number;
}

/** A cart's discounts as totals rows: "Shop discount: Maple & Co", "Coupon SPRING10 (Maple & Co)". */
export function discountRows(l: Locale, discounts: readonly NamedDiscount[]) {
  return discounts.map((d) => ({
    label:
      d.kind === 'automatic'
        ? t(l, 'web.cart.shopDiscount', { shop: d.shopName ?? '' })
        : d.shopName
          ? t(l, 'web.cart.shopCoupon', { code: d.code ?? '', shop: d.shopName })
          : t(l, 'web.cart.couponDiscount', { code: d.code ?? '' }),
    cents: d.amountCents,
  }));
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
    html`<div!${cls ? html` class="${cls}"` : ''}><span>${label}</span><span>${amount}</span></div>`;
  const money = (cents: number) => formatMoney(l, cents);
  return [
    row(t(l, 'web.cart.subtotal'), money(a.subtotalCents)),
    ...(a.discounts?.length
      ? a.discounts.map((d) => row(d.label, `−${money(d.cents)}`))
      : a.sellerDiscountCents && a.sellerDiscountCents < a.discountCents
        ? [
            row(t(l, 'invoice.discountShop'), `−${money(a.sellerDiscountCents)}`),
            row(t(l, 'invoice.discountPlatform'), `−${money(a.discountCents - a.sellerDiscountCents)}`),
          ]
        : [a.discountCents ? row(t(l, 'web.cart.discount'), `−${money(a.discountCents)}`) : '']),
    row(t(l, 'web.cart.shipping'), money(a.shippingCostCents)),
    ...a.taxLines.map((x) => row(taxLineLabel(l, x.name, x.ratePercent), money(x.amountCents))),
    row(t(l, 'web.cart.total'), money(a.totalCents), 'grand'),
    ...after.map((x) => row(x.label, money(x.cents))),
  ].join('');
}
