// Pieces of HTML that both the pages (./store.ts) and the agent hosts' views (src/mcp/views.ts)
// show: a product's card, stars, stock and images, written the same way in both. Pure: they
// take values and a language, import only the contract, and escape everything they put in.
import type { z } from 'zod';
import type { reviewSummary, searchResult } from '../contract/catalog.ts';
import { escapeHtml } from '../contract/format.ts';
import {
  formatDate,
  formatMoney,
  type Locale,
  type MessageKey,
  type MessageValues,
  t,
} from '../contract/i18n.ts';

/** A catalogue message, escaped for HTML. */
export const sayHtml = (l: Locale, key: MessageKey, values?: MessageValues) => escapeHtml(t(l, key, values));

export function stars(l: Locale, rating: number, count: number): string {
  if (!count) return `<span class="muted">${sayHtml(l, 'web.product.noReviews')}</span>`;
  const full = Math.round(rating);
  return `<span class="stars" aria-hidden="true">${'★'.repeat(full)}${'☆'.repeat(5 - full)}</span> <span>${sayHtml(l, 'web.product.rating', { rating: rating.toFixed(1), n: count })}</span>`;
}

export function stockLine(l: Locale, stock: number): string {
  if (stock <= 0) return `<p class="stock-out">${sayHtml(l, 'web.product.outOfStock')}</p>`;
  return `<p>${sayHtml(l, stock <= 5 ? 'web.product.fewLeft' : 'web.product.inStock', { n: stock })}</p>`;
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
  return `<article class="review"><p>${stars(l, r.rating, 1)}</p>${r.comment ? `<p>${escapeHtml(r.comment)}</p>` : ''}<p class="muted">${escapeHtml(r.author)} · ${escapeHtml(formatDate(l, new Date(r.dateCreated * 1000)))}</p></article>`;
}
