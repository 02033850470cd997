// The storefront's pages as markup: search with its facets, a product, the cart with its
// estimate, and the checkout's address form. Pure: data in, HTML out.
import { html } from 'ghtml';
import type { z } from 'zod';
import { type productDetail, SORTS, type searchAnswer } from '../../contract/catalog.ts';
import { PROVINCES } from '../../contract/common.ts';
import { formatDollars, formatMoney, type Locale, t } from '../../contract/i18n.ts';
import type { SavedAddress } from '../../modules/addresses/service.ts';
import type { getCart } from '../../modules/cart/service.ts';
import { foldOption } from '../../modules/search/filters.ts';
import { shopPathOf } from '../../modules/shops/service.ts';
import {
  amountRows,
  discountRows,
  productCard,
  productImages,
  reviewList,
  specifications,
  stars,
  stockLine,
} from '../../views/fragments.ts';
import { wordsWith } from '../../views/words.ts';
import type { AddressForm } from '../addresses/form.ts';
import { addressBlock, addressFields } from '../addresses/views.ts';
import type { View } from '../core.ts';
import {
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  moneyText,
  notice,
  page,
  provinceName,
  selectField,
} from '../layout.ts';
import { acceptTermsLine } from '../policies/views.ts';
import {
  hrefWith,
  MAX_OPTION_FILTERS,
  type OptionChoice,
  paramsOf,
  type StoreQuery,
  sayable,
} from './search-query.ts';
import {
  refusedChoice,
  shownChoice,
  type VariantChoice,
  variantPicker,
  variantPrice,
  variantStock,
  variantTable,
} from './variants.ts';

type Cart = Awaited<ReturnType<typeof getCart>>;

// ---- search ----------------------------------------------------------------------------------

/** A price facet's bucket ("0-25", "250+": dollars) as the locale writes amounts. */
function priceBand(l: Locale, range: string): string {
  const [from, to] = range.replace('+', '').split('-').map(Number);
  return to === undefined
    ? t(l, 'web.search.priceFrom', { from: formatDollars(l, from!) })
    : t(l, 'web.search.priceBand', { from: formatDollars(l, from!), to: formatDollars(l, to) });
}

const hiddenInputs = (q: StoreQuery, leave: string[]) =>
  paramsOf(q, leave).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`);

/** A checkbox with its label and count, as every facet's. */
const facetBox = (name: string, value: string, label: string, count: number, checked: boolean) =>
  html`<label class="check"><input type="checkbox" name="${name}" value="${value}"${checked ? ' checked' : ''}><span>${label} <span class="count">(${count})</span></span></label>`;

/** A facet's checkboxes: the ids chosen and those the results count, each with its count. */
function facetBoxes(
  l: Locale,
  name: 'category' | 'seller',
  counts: Record<string, number>,
  nameOf: (id: string) => string,
  chosen: string[],
): string {
  // A product without a category is counted under `none` by the engine: not a category.
  const ids = [...new Set([...chosen, ...Object.keys(counts)])].filter((id) => id !== 'none').slice(0, 30);
  if (!ids.length) return '';
  const boxes = ids.map((id) => facetBox(name, id, nameOf(id), counts[id] ?? 0, chosen.includes(id)));
  return html`<fieldset><legend>${t(l, name === 'category' ? 'web.search.categories' : 'web.search.sellers')}</legend>!${boxes}</fieldset>`;
}

/**
 * The options the results have (`option.<Name>` facets, names and values as sellers wrote them)
 * and those chosen, each as checkboxes: the chosen first, at most MAX_OPTION_FILTERS options.
 * A value the search's filters cannot say (a `,` or `|` in it) is not offered.
 */
function optionFacets(facets: Record<string, Record<string, number>>, chosen: OptionChoice[]): string {
  const counted = Object.entries(facets)
    .filter(([key]) => key.startsWith('option.'))
    .map(([key, counts]) => ({ name: key.slice('option.'.length), counts }));
  const shown: Array<{ name: string; counts: Record<string, number>; values: string[] }> = [];
  for (const c of chosen) {
    const found = counted.find((x) => foldOption(x.name) === foldOption(c.name));
    shown.push({ name: found?.name ?? c.name, counts: found?.counts ?? {}, values: c.values });
  }
  for (const x of counted) {
    if (!shown.some((y) => foldOption(y.name) === foldOption(x.name))) shown.push({ ...x, values: [] });
  }
  return shown
    .filter((o) => sayable(o.name, true))
    .slice(0, MAX_OPTION_FILTERS)
    .map((o) => {
      const countOf = (value: string) =>
        Object.entries(o.counts).find(([k]) => foldOption(k) === foldOption(value))?.[1] ?? 0;
      const isChosen = (value: string) => o.values.some((x) => foldOption(x) === foldOption(value));
      const values = [...o.values, ...Object.keys(o.counts).filter((k) => !isChosen(k))]
        .filter((value) => sayable(value))
        .slice(0, 30);
      const boxes = values.map((value) =>
        facetBox(`option.${o.name}`, value, value, countOf(value), isChosen(value)),
      );
      return html`<fieldset><legend>${o.name}</legend>!${boxes}</fieldset>`;
    })
    .join('');
}

/** The choices made, each a link to the same search without it. */
function chosenFilters(l: Locale, d: SearchPageData): string {
  const { q } = d;
  const chips: Array<[string, Parameters<typeof hrefWith>[1]]> = [
    ...q.category.map((id): [string, Parameters<typeof hrefWith>[1]] => [
      d.categoryName.get(id) ?? id,
      { category: q.category.filter((x) => x !== id) },
    ]),
    ...q.seller.map((id): [string, Parameters<typeof hrefWith>[1]] => [
      d.shopName.get(id) ?? id,
      { seller: q.seller.filter((x) => x !== id) },
    ]),
    ...q.options.flatMap((o) =>
      o.values.map((value): [string, Parameters<typeof hrefWith>[1]] => [
        t(l, 'web.search.optionValue', { name: o.name, value }),
        { [`option.${o.name}`]: o.values.filter((x) => x !== value) },
      ]),
    ),
  ];
  if (q.inStock) chips.push([t(l, 'web.search.inStockOnly'), { inStock: undefined }]);
  if (q.min !== undefined || q.max !== undefined) {
    const label =
      q.max === undefined
        ? t(l, 'web.search.priceFrom', { from: formatMoney(l, q.min ?? 0) })
        : q.min === undefined
          ? t(l, 'web.search.priceUpTo', { to: formatMoney(l, q.max) })
          : t(l, 'web.search.priceBand', { from: formatMoney(l, q.min), to: formatMoney(l, q.max) });
    chips.push([label, { min: undefined, max: undefined }]);
  }
  if (q.rating)
    chips.push([t(l, 'web.search.ratingAtLeast', { n: Number(q.rating) }), { rating: undefined }]);
  if (q.digital) {
    chips.push([
      t(l, q.digital === 'yes' ? 'web.search.kindDigital' : 'web.search.kindPhysical'),
      { digital: undefined },
    ]);
  }
  if (!chips.length) return '';
  // A choice removed starts the results again from their first page.
  const items = chips.map(
    ([label, change]) =>
      html`<li><a href="${hrefWith(q, { ...change, page: undefined })}"><span class="visually-hidden">${t(l, 'web.search.remove')} </span>${label}<span aria-hidden="true"> ×</span></a></li>`,
  );
  return html`<div class="chosen"><p id="chosen-h" class="hint">${t(l, 'web.search.chosen')}</p><ul aria-labelledby="chosen-h">!${items}</ul></div>`;
}

export interface SearchPageData {
  q: StoreQuery;
  found: z.output<typeof searchAnswer>;
  categoryName: ReadonlyMap<string, string>;
  shopName: ReadonlyMap<string, string>;
  pageSize: number;
}

export function searchPage(v: View, d: SearchPageData): string {
  const l = v.p.locale;
  const { q, found } = d;
  const buckets = Object.entries(found.facets.priceRange)
    .filter(([, n]) => n > 0)
    .map(([range, n]) => `${priceBand(l, range)} (${n})`)
    .join(', ');
  const cleared = hrefWith(
    {
      ...q,
      category: [],
      seller: [],
      min: undefined,
      max: undefined,
      rating: undefined,
      digital: undefined,
      inStock: undefined,
      options: [],
      page: undefined,
    },
    {},
  );
  // Before the results; on a phone folded under its summary, on a wide screen always open (style.ts).
  const facets = html`<details class="facets card"><summary>${t(l, 'web.search.filters')}</summary><form method="get" action="/" aria-labelledby="filters-h">
  <h2 id="filters-h">${t(l, 'web.search.filters')}</h2>
  <input type="hidden" name="q" value="${q.q}">!${q.sort ? html`<input type="hidden" name="sort" value="${q.sort}">` : ''}
  !${facetBoxes(l, 'category', found.facets.categoryId, (id) => d.categoryName.get(id) ?? id, q.category)}
  !${facetBoxes(l, 'seller', found.facets.sellerId, (id) => d.shopName.get(id) ?? id, q.seller)}
  !${optionFacets(found.facets, q.options)}
  <fieldset><legend>${t(l, 'web.search.availability')}</legend>!${facetBox('inStock', 'yes', t(l, 'web.search.inStockOnly'), found.facets.inStock.true ?? 0, q.inStock === 'yes')}</fieldset>
  <fieldset><legend>${t(l, 'web.search.price')}</legend>
    <div class="row">!${field({ name: 'min', label: t(l, 'web.search.min'), type: 'number', value: q.min === undefined ? '' : q.min / 100, attrs: ' min="0" step="0.01" inputmode="decimal"' })}!${field({ name: 'max', label: t(l, 'web.search.max'), type: 'number', value: q.max === undefined ? '' : q.max / 100, attrs: ' min="0" step="0.01" inputmode="decimal"' })}</div>
    !${buckets ? html`<p class="hint">${buckets}</p>` : ''}
  </fieldset>
  !${selectField({ name: 'rating', label: t(l, 'web.search.rating'), value: q.rating ?? '', options: [{ value: '', label: t(l, 'web.search.any') }, ...['4', '3', '2', '1'].map((r) => ({ value: r, label: t(l, 'web.search.ratingAtLeast', { n: Number(r) }) }))] })}
  !${selectField({
    name: 'digital',
    label: t(l, 'web.search.kind'),
    value: q.digital ?? '',
    options: [
      { value: '', label: t(l, 'web.search.any') },
      { value: 'no', label: t(l, 'web.search.physical', { n: found.facets.isDigital.false ?? 0 }) },
      { value: 'yes', label: t(l, 'web.search.digital', { n: found.facets.isDigital.true ?? 0 }) },
    ],
  })}
  <button type="submit">${t(l, 'web.search.apply')}</button>
  <p><a href="${cleared}">${t(l, 'web.search.clear')}</a></p>
</form></details>`;
  const sortOptions = SORTS.map(
    (x) =>
      html`<option value="${x}"${q.sort === x ? ' selected' : ''}>${t(l, 'web.search.sortBy', { by: x })}</option>`,
  );
  const sortForm = html`<form method="get" action="/">!${hiddenInputs(q, ['sort', 'page'])}<label for="sort">${t(l, 'web.search.sort')}</label><select id="sort" name="sort">!${sortOptions}</select><button type="submit" class="small secondary">${t(l, 'web.search.apply')}</button></form>`;
  const results = found.results.length
    ? html`<ul class="grid">!${found.results.map((r) => productCard(l, r, { href: `/shop/products/${r.id}` }))}</ul>`
    : html`<div class="card"><p>${t(l, 'web.search.none')}</p></div>`;
  const pageNo = q.page ?? 1;
  const pages = Math.ceil(Math.min(found.total, 10_000) / d.pageSize);
  const pager =
    pages > 1
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${pageNo > 1 ? html`<a href="${hrefWith(q, { page: String(pageNo - 1) })}" rel="prev">${t(l, 'web.search.previous')}</a>` : ''}<span>${t(l, 'web.search.pageOf', { page: pageNo, pages })}</span>!${pageNo < pages ? html`<a href="${hrefWith(q, { page: String(pageNo + 1) })}" rel="next">${t(l, 'web.search.next')}</a>` : ''}</nav>`
      : '';
  const title = q.q ? t(l, 'web.search.titleFor', { q: q.q }) : t(l, 'web.search.title');
  return page(v, {
    title,
    index: true,
    body: html`<h1>${title}</h1><div class="layout">!${facets}<section aria-labelledby="results-h"><div class="toolbar"><h2 id="results-h" class="visually-hidden">${t(l, 'web.search.results')}</h2><p role="status">${t(l, 'web.search.count', { n: found.total })}</p>!${sortForm}</div>!${chosenFilters(l, d)}!${results}!${pager}</section></div>`,
  });
}

// ---- a product -------------------------------------------------------------------------------

export interface ProductPageOptions {
  /** Whether this person may put it in a cart (a seller may not). */
  canBuy: boolean;
  error?: FormError;
  /** `1`: the line was added at sign-in; `0`: it could not be. */
  added?: string;
  /** A product with options: the values chosen and their variant. */
  choice?: VariantChoice;
}

/** A product with options: the picker, the chosen variant's price and stock, and its add-to-cart form. */
function variantBuy(
  v: View,
  p: z.output<typeof productDetail>,
  o: ProductPageOptions,
  c: VariantChoice,
): string {
  const l = v.p.locale;
  const x = c.variant;
  const refused = refusedChoice(v, c);
  const chosen = x
    ? html`<p class="price">!${variantPrice(v, x)}</p>!${variantStock(v, x)}`
    : html`<p class="stock-out">${refused}</p>`;
  const max = x ? Math.max(1, Math.min(99, x.stockQuantity)) : 1;
  const button = refused
    ? html`<button type="submit" disabled aria-describedby="buy-refused">${t(l, 'web.product.addToCart')}</button><p class="hint" id="buy-refused">${refused}</p>`
    : html`<button type="submit">${t(l, 'web.product.addToCart')}</button>`;
  const buy =
    p.status === 'active' && o.canBuy
      ? html`<form method="post" action="/shop/cart/items" class="card">!${csrfField(v)}<input type="hidden" name="product_id" value="${p.id}"><input type="hidden" name="variant" value="${x?.id ?? ''}">!${formAlert(o.error)}!${field({ name: 'quantity', label: t(l, 'web.product.quantity'), type: 'number', value: 1, required: true, error: o.error, attrs: ` min="1" max="${max}" inputmode="numeric"` })}!${button}</form>`
      : '';
  return html`!${variantPicker(v, p, c)}<section aria-labelledby="choice-h"><h2 id="choice-h">${t(l, 'web.product.variant.chosen', { title: shownChoice(p, c) })}</h2>!${chosen}</section>!${buy}`;
}

export function productPage(v: View, p: z.output<typeof productDetail>, o: ProductPageOptions): string {
  const l = v.p.locale;
  const buy =
    p.stockQuantity > 0 && p.status === 'active' && o.canBuy
      ? html`<form method="post" action="/shop/cart/items" class="card">!${csrfField(v)}<input type="hidden" name="product_id" value="${p.id}">!${formAlert(o.error)}!${field({ name: 'quantity', label: t(l, 'web.product.quantity'), type: 'number', value: 1, required: true, error: o.error, attrs: ` min="1" max="${Math.min(99, p.stockQuantity)}" inputmode="numeric"` })}<button type="submit">${t(l, 'web.product.addToCart')}</button></form>`
      : '';
  const c = o.choice;
  const added =
    o.added === '1'
      ? notice(t(l, 'web.product.addedAtSignIn'))
      : o.added === '0'
        ? formAlert({ message: t(l, 'web.product.notAddedAtSignIn'), fields: {} })
        : '';
  // Text not in the page's language (not translated) is marked for screen readers, and said.
  const titleLang = p.language !== l ? html` lang="${p.language}"` : '';
  const descriptionLang = p.descriptionLanguage !== l ? html` lang="${p.descriptionLanguage}"` : '';
  const onlyIn =
    p.descriptionLanguage !== l && p.description !== ''
      ? html`<p class="hint">${t(l, p.descriptionLanguage === 'fr-CA' ? 'web.product.onlyInFrench' : 'web.product.onlyInEnglish')}</p>`
      : '';
  return page(v, {
    title: p.title,
    index: true,
    body: html`<div class="sheet"><div class="gallery">!${productImages(l, p)}</div>
<div><h1!${titleLang}>${p.title}</h1>!${c ? '' : html`<p class="price">${moneyText(v, p.priceCents)}</p>`}<p>!${stars(l, p.rating, p.reviewCount)}</p>
<p>!${wordsWith(l, 'web.product.soldBy', {}, { shop: html`<a href="${shopPathOf(p.sellerId)}">${p.seller.name}</a>` })} · !${stars(l, p.seller.rating, p.seller.reviewCount)}</p>
!${c ? '' : stockLine(l, p.stockQuantity)}!${p.isPerishable ? html`<p class="hint">${t(l, 'web.product.perishable')}</p>` : ''}!${p.isDigital ? html`<p class="hint">${t(l, 'web.product.digital')}</p>` : ''}
!${added}!${c ? variantBuy(v, p, o, c) : buy}
<h2>${t(l, 'web.product.description')}</h2>!${onlyIn}<p!${descriptionLang}>${p.description}</p>
!${specifications(l, p.specifications)}!${c ? variantTable(v, p, c) : ''}
</div></div>
<section aria-labelledby="reviews-h"><h2 id="reviews-h">${t(l, 'web.product.reviews')}</h2>!${reviewList(l, p.reviews)}</section>`,
  });
}

// ---- the cart --------------------------------------------------------------------------------

export const provinceOptions = (l: Locale, blank: boolean) => [
  ...(blank ? [{ value: '', label: t(l, 'web.checkout.chooseProvince') }] : []),
  ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
];

export interface CartPageOptions {
  /** The line was just added. */
  added?: boolean;
  error?: FormError;
  couponError?: FormError;
  /** The coupon code typed, shown back with its refusal. */
  code?: string;
}

function cartLine(v: View, i: Cart['items'][number]): string {
  const l = v.p.locale;
  // A line is a variant: its buttons name the variant, two variants of one product being two lines.
  const action = `/shop/cart/items/${i.variant_id}`;
  const href = `/shop/products/${i.product_id}${i.variant_id === i.product_id ? '' : `?variant=${encodeURIComponent(i.variant_id)}`}`;
  // data-label: a phone stacks each line's cells, each under its column's name (table.stack).
  return html`<tr><td><a href="${href}">${i.title}</a></td><td class="num" data-label="${t(l, 'web.cart.price')}">${moneyText(v, i.unit_price_cents)}</td>
<td data-label="${t(l, 'web.cart.quantity')}"><form method="post" action="${action}" class="row">!${csrfField(v)}<div><label for="qty-${i.variant_id}" class="visually-hidden">${t(l, 'web.cart.quantityOf', { title: i.title })}</label><input id="qty-${i.variant_id}" name="quantity" type="number" min="0" max="99" value="${i.quantity}" inputmode="numeric"></div><button type="submit" class="small secondary">${t(l, 'web.cart.update')}</button></form>
<form method="post" action="${action}">!${csrfField(v)}<input type="hidden" name="quantity" value="0"><button type="submit" class="small secondary">${t(l, 'web.cart.remove')}<span class="visually-hidden"> ${i.title}</span></button></form></td>
<td class="num" data-label="${t(l, 'web.cart.lineTotal')}">${moneyText(v, i.line_total_cents)}</td></tr>`;
}

export function cartPage(v: View, cart: Cart, o: CartPageOptions = {}): string {
  const l = v.p.locale;
  const title = t(l, 'web.cart.title');
  if (!cart.items.length) {
    return page(v, {
      title,
      body: html`<h1>${title}</h1>!${formAlert(o.error)}<div class="card"><p>${t(l, 'web.cart.empty')}</p><p><a href="/">${t(l, 'web.cart.browse')}</a></p></div>`,
    });
  }
  const coupon = cart.coupon_applied
    ? html`<p>${t(l, 'web.cart.couponApplied', { code: cart.coupon_applied })}</p>!${cart.coupon_problem ? html`<p class="alert">${cart.coupon_problem}</p>` : ''}<form method="post" action="/shop/cart/coupon">!${csrfField(v)}<input type="hidden" name="remove" value="1"><button type="submit" class="small secondary">${t(l, 'web.cart.removeCoupon')}</button></form>`
    : html`<form method="post" action="/shop/cart/coupon" class="row">!${csrfField(v)}!${formAlert(o.couponError)}!${field({ name: 'code', label: t(l, 'web.cart.coupon'), value: o.code ?? '', error: o.couponError, autocomplete: 'off', attrs: ' maxlength="40"' })}<button type="submit" class="secondary">${t(l, 'web.cart.applyCoupon')}</button></form>`;
  return page(v, {
    title,
    body: html`<h1>${title}</h1>!${o.added ? notice(t(l, 'web.cart.added')) : ''}!${formAlert(o.error)}
<div class="table-wrap" tabindex="0"><table class="stack"><caption class="visually-hidden">${t(l, 'web.cart.title')}</caption><thead><tr><th scope="col">${t(l, 'web.cart.product')}</th><th scope="col" class="num">${t(l, 'web.cart.price')}</th><th scope="col">${t(l, 'web.cart.quantity')}</th><th scope="col" class="num">${t(l, 'web.cart.lineTotal')}</th></tr></thead><tbody>!${cart.items.map((i) => cartLine(v, i))}</tbody></table></div>
<div class="card">!${coupon}</div>
<div class="card"><form method="get" action="/shop/cart" class="row">!${selectField({ name: 'province', label: t(l, 'web.cart.estimateFor'), value: cart.taxProvince, options: provinceOptions(l, false) })}<button type="submit" class="secondary">${t(l, 'web.cart.estimate')}</button></form>
!${cart.shipping_problem ? html`<p class="alert">${cart.shipping_problem}</p>` : ''}
<div class="totals">!${amountRows(l, { ...cart, discountCents: cart.discount_cents, discounts: discountRows(l, cart.discounts), totalCents: cart.totalAmountCents })}</div>
!${cart.discounts.length ? html`<p class="hint">${t(l, 'web.cart.discountRule')}</p>` : ''}
<p class="hint">${t(l, 'web.cart.estimateNote', { province: provinceName(l, cart.taxProvince) })}</p>
<a class="button" href="/shop/checkout">${t(l, 'web.cart.checkout')}</a></div>`,
  });
}

// ---- the checkout ----------------------------------------------------------------------------

/** What the checkout's form holds: an address, the saved one it came from, and "Save this address". */
export type CheckoutForm = AddressForm & { addressId?: string; save?: boolean };

export interface CheckoutPageData {
  cart: Cart;
  /** The form as typed, or filled from a saved address. */
  typed: CheckoutForm;
  saved: readonly SavedAddress[];
  /** Whether the address book has room for one more. */
  canSave: boolean;
  error?: FormError;
}

function addressBook(l: Locale, saved: readonly SavedAddress[], chosenId: string | undefined): string {
  if (!saved.length) return '';
  const items = saved.map(
    (x) =>
      html`<li>!${addressBlock(l, x)}!${
        x.id === chosenId
          ? html`<p class="muted">${t(l, 'web.checkout.usingAddress')}</p>`
          : html`<p><a href="/shop/checkout?address=${encodeURIComponent(x.id)}">${t(l, 'web.checkout.useAddress')}<span class="visually-hidden"> ${x.street}</span></a></p>`
      }</li>`,
  );
  return html`<div class="card"><h2>${t(l, 'web.checkout.savedAddresses')}</h2><ul class="addresses">!${items}</ul><p><a href="/account/addresses">${t(l, 'web.checkout.manageAddresses')}</a></p></div>`;
}

export function checkoutPage(v: View, d: CheckoutPageData): string {
  const l = v.p.locale;
  const title = t(l, 'web.checkout.title');
  const a = d.typed;
  return page(v, {
    title,
    narrow: true,
    body: html`<h1>${title}</h1>
<div class="card"><p>${t(l, 'web.checkout.summary', { n: d.cart.itemCount, total: moneyText(v, d.cart.totalAmountCents) })}</p><p><a href="/shop/cart">${t(l, 'web.checkout.backToCart')}</a></p></div>
!${addressBook(l, d.saved, a.addressId)}<form method="post" action="/shop/checkout" class="card" novalidate>!${csrfField(v)}!${formAlert(d.error)}
<h2>${t(l, 'web.checkout.address')}</h2>
!${addressFields(l, a, d.error, { recipientOptional: true })}
<p class="hint">${t(l, 'web.checkout.country')}</p>
!${d.canSave ? checkbox({ name: 'save', label: t(l, 'web.checkout.saveAddress'), checked: a.save ?? false }) : ''}
!${acceptTermsLine(l)}<button type="submit">${t(l, 'web.checkout.pay')}</button></form>`,
  });
}
