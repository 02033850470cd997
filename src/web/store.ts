// The storefront: search with facets (`/`), a product's page, the cart with its estimate for a
// province, and the checkout's address form, which opens the payment page (the sandbox's or
// Stripe's) exactly as POST /checkout does.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { addToCartBody, applyCouponBody } from '../contract/cart.ts';
import { SORTS, searchQuery } from '../contract/catalog.ts';
import { PROVINCES, type Province } from '../contract/common.ts';
import { AppError } from '../contract/errors.ts';
import { escapeHtml } from '../contract/format.ts';
import { formatDollars, type Locale, t, text } from '../contract/i18n.ts';
import * as addresses from '../modules/addresses/service.ts';
import { shopNames } from '../modules/auth/sellers.ts';
import * as carts from '../modules/cart/service.ts';
import { getProduct, listCategories } from '../modules/catalog/service.ts';
import { createCheckout } from '../modules/checkout/service.ts';
import { lastShippingProvince } from '../modules/orders/service.ts';
import { type AddressForm, readAddress, typedAddress } from './addresses/form.ts';
import { addressBlock, addressFields } from './addresses/views.ts';
import type { WebDeps } from './core.ts';
import { seeOther, signedIn, type View, viewOf } from './core.ts';
import {
  amountRows,
  productCard,
  productImages,
  reviewList,
  specifications,
  stars,
  stockLine,
} from './fragments.ts';
import {
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  formErrorOf,
  money,
  moneyText,
  notice,
  page,
  provinceName,
  readForm,
  say,
  selectField,
  sendHtml,
  shownRefusal,
} from './layout.ts';
import { acceptTermsLine } from './policies.ts';

const PAGE_SIZE = 24;
const ID = /^[A-Za-z0-9_.:-]{1,100}$/;
const BUYERS = ['buyer'] as const;

/** The search page's query, as a person's form sends it (every field optional, lists repeated). */
const list = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).filter((x) => ID.test(x)).slice(0, 50),
  );
const dollars = z
  .string()
  .optional()
  .transform((v) => {
    const n = v === undefined || v.trim() === '' ? Number.NaN : Number(v.replace(',', '.'));
    return Number.isFinite(n) && n >= 0 && n <= 1_000_000 ? Math.round(n * 100) : undefined;
  });
export const storeQuery = z.object({
  q: z.string().max(200).optional().default(''),
  category: list,
  seller: list,
  min: dollars,
  max: dollars,
  rating: z.enum(['1', '2', '3', '4']).optional().catch(undefined),
  digital: z.enum(['yes', 'no']).optional().catch(undefined),
  sort: searchQuery.shape.sort.catch(undefined),
  page: z.coerce.number().int().min(1).max(400).optional().catch(undefined),
  lang: z.string().optional(),
});
type StoreQuery = z.infer<typeof storeQuery>;

/** The search engine's filter clauses for the page's choices (docs/api.md "Search"). */
/** A price facet's bucket ("0-25", "250+": dollars) as the locale writes amounts. */
function priceBand(l: Locale, range: string): string {
  const [from, to] = range.replace('+', '').split('-').map(Number);
  return to === undefined
    ? t(l, 'web.search.priceFrom', { from: formatDollars(l, from!) })
    : t(l, 'web.search.priceBand', { from: formatDollars(l, from!), to: formatDollars(l, to) });
}

function filtersOf(q: StoreQuery): string | undefined {
  const clauses = [
    ...(q.category.length ? [`categoryId:${q.category.join('|')}`] : []),
    ...(q.seller.length ? [`sellerId:${q.seller.join('|')}`] : []),
    ...(q.min !== undefined || q.max !== undefined
      ? [`priceCents:${q.min ?? 0}..${q.max ?? 100_000_000}`]
      : []),
    ...(q.rating ? [`rating:${q.rating}`] : []),
    ...(q.digital ? [`isDigital:${q.digital === 'yes'}`] : []),
  ];
  return clauses.length ? clauses.join(',') : undefined;
}

/** The page's own address with `change` applied (a page link, a removed filter). */
function hrefWith(q: StoreQuery, change: Partial<Record<string, string | string[] | undefined>>): string {
  const params = new URLSearchParams();
  const base: Record<string, string | string[] | undefined> = {
    q: q.q || undefined,
    category: q.category,
    seller: q.seller,
    min: q.min === undefined ? undefined : String(q.min / 100),
    max: q.max === undefined ? undefined : String(q.max / 100),
    rating: q.rating,
    digital: q.digital,
    sort: q.sort,
    page: q.page && q.page > 1 ? String(q.page) : undefined,
  };
  for (const [k, v] of Object.entries({ ...base, ...change })) {
    for (const one of v === undefined ? [] : Array.isArray(v) ? v : [v]) params.append(k, one);
  }
  const s = params.toString();
  return s ? `/?${s}` : '/';
}

export function storePages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;

  app.get('/', { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } }, async (req, reply) => {
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const parsed = storeQuery.safeParse(req.query);
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', 400, text('web.error.badRequest'));
    const q = parsed.data;
    const offset = ((q.page ?? 1) - 1) * PAGE_SIZE;
    const found = await deps.search.search(req.ctx, {
      q: q.q,
      filters: filtersOf(q),
      sort: q.sort,
      limit: PAGE_SIZE,
      offset,
    });
    const [{ categories }, shops] = await Promise.all([
      listCategories(req.ctx),
      shopNames(req.ctx, Object.keys(found.facets.sellerId)),
    ]);
    const categoryName = new Map(categories.map((c) => [c.id, c.name]));
    const facetBoxes = (
      name: 'category' | 'seller',
      counts: Record<string, number>,
      nameOf: (id: string) => string,
      chosen: string[],
    ) => {
      // A product without a category is counted under `none` by the engine: not a category.
      const ids = [...new Set([...chosen, ...Object.keys(counts)])]
        .filter((id) => id !== 'none')
        .slice(0, 30);
      if (!ids.length) return '';
      return `<fieldset><legend>${say(l, name === 'category' ? 'web.search.categories' : 'web.search.sellers')}</legend>${ids
        .map(
          (id) =>
            `<label class="check"><input type="checkbox" name="${name}" value="${escapeHtml(id)}"${chosen.includes(id) ? ' checked' : ''}><span>${escapeHtml(nameOf(id))} <span class="count">(${counts[id] ?? 0})</span></span></label>`,
        )
        .join('')}</fieldset>`;
    };
    const buckets = Object.entries(found.facets.priceRange)
      .filter(([, n]) => n > 0)
      .map(([range, n]) => `${escapeHtml(priceBand(l, range))} (${n})`)
      .join(', ');
    // Before the results; on a phone folded under its summary, on a wide screen always open (style.ts).
    const facets = `<details class="facets card"><summary>${say(l, 'web.search.filters')}</summary><form method="get" action="/" aria-labelledby="filters-h">
  <h2 id="filters-h">${say(l, 'web.search.filters')}</h2>
  <input type="hidden" name="q" value="${escapeHtml(q.q)}">${q.sort ? `<input type="hidden" name="sort" value="${escapeHtml(q.sort)}">` : ''}
  ${facetBoxes('category', found.facets.categoryId, (id) => categoryName.get(id) ?? id, q.category)}
  ${facetBoxes('seller', found.facets.sellerId, (id) => shops.get(id) ?? id, q.seller)}
  <fieldset><legend>${say(l, 'web.search.price')}</legend>
    <div class="row">${field({ name: 'min', label: t(l, 'web.search.min'), type: 'number', value: q.min === undefined ? '' : q.min / 100, attrs: ' min="0" step="0.01" inputmode="decimal"' })}${field({ name: 'max', label: t(l, 'web.search.max'), type: 'number', value: q.max === undefined ? '' : q.max / 100, attrs: ' min="0" step="0.01" inputmode="decimal"' })}</div>
    ${buckets ? `<p class="hint">${buckets}</p>` : ''}
  </fieldset>
  ${selectField({ name: 'rating', label: t(l, 'web.search.rating'), value: q.rating ?? '', options: [{ value: '', label: t(l, 'web.search.any') }, ...['4', '3', '2', '1'].map((r) => ({ value: r, label: t(l, 'web.search.ratingAtLeast', { n: Number(r) }) }))] })}
  ${selectField({
    name: 'digital',
    label: t(l, 'web.search.kind'),
    value: q.digital ?? '',
    options: [
      { value: '', label: t(l, 'web.search.any') },
      { value: 'no', label: t(l, 'web.search.physical', { n: found.facets.isDigital.false ?? 0 }) },
      { value: 'yes', label: t(l, 'web.search.digital', { n: found.facets.isDigital.true ?? 0 }) },
    ],
  })}
  <button type="submit">${say(l, 'web.search.apply')}</button>
  <p><a href="${escapeHtml(hrefWith({ ...q, category: [], seller: [], min: undefined, max: undefined, rating: undefined, digital: undefined, page: undefined }, {}))}">${say(l, 'web.search.clear')}</a></p>
</form></details>`;
    const sortForm = `<form method="get" action="/">${hiddenInputs(q, ['sort', 'page'])}<label for="sort">${say(l, 'web.search.sort')}</label><select id="sort" name="sort">${SORTS.map(
      (x) =>
        `<option value="${x}"${q.sort === x ? ' selected' : ''}>${say(l, 'web.search.sortBy', { by: x })}</option>`,
    ).join(
      '',
    )}</select><button type="submit" class="small secondary">${say(l, 'web.search.apply')}</button></form>`;
    const results = found.results.length
      ? `<ul class="grid">${found.results
          .map((r) => productCard(l, r, { href: `/shop/products/${r.id}` }))
          .join('')}</ul>`
      : `<div class="card"><p>${say(l, 'web.search.none')}</p></div>`;
    const pageNo = q.page ?? 1;
    const pages = Math.ceil(Math.min(found.total, 10_000) / PAGE_SIZE);
    const pager =
      pages > 1
        ? `<nav class="pager" aria-label="${say(l, 'web.search.pages')}">${pageNo > 1 ? `<a href="${escapeHtml(hrefWith(q, { page: String(pageNo - 1) }))}" rel="prev">${say(l, 'web.search.previous')}</a>` : ''}<span>${say(l, 'web.search.pageOf', { page: pageNo, pages })}</span>${pageNo < pages ? `<a href="${escapeHtml(hrefWith(q, { page: String(pageNo + 1) }))}" rel="next">${say(l, 'web.search.next')}</a>` : ''}</nav>`
        : '';
    const title = q.q ? t(l, 'web.search.titleFor', { q: q.q }) : t(l, 'web.search.title');
    return sendHtml(
      reply,
      page(v, {
        title,
        index: true,
        body: `<h1>${escapeHtml(title)}</h1><div class="layout">${facets}<section aria-labelledby="results-h"><div class="toolbar"><h2 id="results-h" class="visually-hidden">${say(l, 'web.search.results')}</h2><p role="status">${say(l, 'web.search.count', { n: found.total })}</p>${sortForm}</div>${results}${pager}</section></div>`,
      }),
    );
  });

  app.get<{ Params: { productId: string } }>(
    '/shop/products/:productId',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const v = viewOf(req, reply, s);
      const added = (req.query as { added?: string }).added;
      return sendHtml(reply, await productPage(req, v, req.params.productId, undefined, added));
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/shop/cart/items',
    { config: { auth: 'public', limit: 'cart' }, schema: { hide: true } },
    async (req, reply) => {
      const v = viewOf(req, reply, s);
      // Signed out: sign in first, then the line is added and the person is back on the product.
      if (!v.user) {
        const wanted = addToCartBody.safeParse({
          product_id: req.body.product_id,
          quantity: Number(req.body.quantity),
        });
        if (wanted.success) return seeOther(reply, signInToAdd(wanted.data.product_id, wanted.data.quantity));
      }
      signedIn(req, BUYERS);
      let input: z.infer<typeof addToCartBody>;
      try {
        input = readForm(addToCartBody, {
          product_id: req.body.product_id,
          quantity: Number(req.body.quantity),
        });
        await carts.addToCart(req.ctx, input);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const id = String(req.body.product_id ?? '');
        if (!ID.test(id)) throw err;
        return sendHtml(reply, await productPage(req, v, id, formErrorOf(v.p.locale, err)), err.statusCode);
      }
      return seeOther(reply, '/shop/cart?added=1');
    },
  );

  app.get<{ Querystring: { province?: string; added?: string } }>(
    '/shop/cart',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      return sendHtml(reply, await cartPage(req, v));
    },
  );

  app.post<{ Params: { productId: string }; Body: Record<string, string> }>(
    '/shop/cart/items/:productId',
    { config: { auth: 'public', limit: 'cart' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      const id = req.params.productId;
      try {
        const wanted = readForm(
          z.object({ quantity: z.coerce.number().int().min(0).max(99) }),
          req.body,
        ).quantity;
        await carts.setCartQuantity(req.ctx, id, wanted);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        return sendHtml(
          reply,
          await cartPage(req, v, { error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
      return seeOther(reply, '/shop/cart');
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/shop/cart/coupon',
    { config: { auth: 'public', limit: 'cart' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      try {
        if (req.body.remove) await carts.removeCoupon(req.ctx);
        else await carts.applyCoupon(req.ctx, readForm(applyCouponBody, { code: req.body.code }).code);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        return sendHtml(
          reply,
          await cartPage(req, v, { couponError: formErrorOf(v.p.locale, err), code: req.body.code }),
          err.statusCode,
        );
      }
      return seeOther(reply, '/shop/cart');
    },
  );

  app.get<{ Querystring: { address?: string } }>(
    '/shop/checkout',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const user = signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      const saved = await addresses.listAddresses(req.ctx, user.id);
      const wanted = req.query.address;
      // The address asked for (a "Use this address" link), else the default one.
      const chosen = wanted
        ? await addresses.getAddress(req.ctx, user.id, String(wanted))
        : saved.find((a) => a.isDefault);
      const typed: CheckoutForm = chosen
        ? {
            recipientName: chosen.recipientName,
            street: chosen.street,
            line2: chosen.line2 ?? '',
            city: chosen.city,
            province: chosen.province,
            postalCode: chosen.postalCode,
            phone: chosen.phone,
            addressId: chosen.id,
          }
        : { province: (await lastShippingProvince(req.ctx, user.id)) ?? '', save: saved.length === 0 };
      return reply.type('text/html; charset=utf-8').send(await checkoutPage(req, v, typed, saved));
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/shop/checkout',
    { config: { auth: 'public', limit: 'checkout' }, schema: { hide: true } },
    async (req, reply) => {
      const user = signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      // What the person typed, in the API's canonical form: shown back as such if refused.
      const body = req.body ?? {};
      const typed: CheckoutForm = { ...typedAddress(body), save: body.save === 'on' };
      try {
        const form = readAddress(typed, typed.recipientName || user.name.slice(0, 100));
        const { session } = await createCheckout(req.ctx, deps.commerce, {
          shipping_address: form.shipping_address,
          recipient: { name: form.recipientName, ...(form.line2 ? { line2: form.line2 } : {}) },
        });
        if (typed.save) {
          // Saving is a convenience: a full address book does not stop the purchase.
          await addresses
            .saveAddress(req.ctx, user.id, {
              recipientName: form.recipientName,
              line2: form.line2,
              address: form.shipping_address,
            })
            .catch((err) => {
              if (!(err instanceof AppError && err.statusCode === 409)) throw err;
            });
        }
        // Our own payment page by its path (the person's browser may know us by another name).
        const to = new URL(session.sessionUrl);
        const ours = to.origin === new URL(deps.commerce.publicBaseUrl).origin;
        return seeOther(reply, ours ? to.pathname + to.search : session.sessionUrl);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const saved = await addresses.listAddresses(req.ctx, user.id);
        return sendHtml(
          reply,
          await checkoutPage(req, v, typed, saved, formErrorOf(v.p.locale, err)),
          err.statusCode,
        );
      }
    },
  );
}

type CheckoutForm = AddressForm & { addressId?: string; save?: boolean };

function hiddenInputs(q: StoreQuery, leave: string[]): string {
  const url = new URL(hrefWith(q, {}), 'http://page.invalid');
  return [...url.searchParams]
    .filter(([k]) => !leave.includes(k))
    .map(([k, val]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(val)}">`)
    .join('');
}

/** The sign-in page that, once the person is signed in, adds the line and comes back to its product. */
export const signInToAdd = (productId: string, quantity: number) =>
  `/account/sign-in?${new URLSearchParams({
    next: `/shop/products/${productId}`,
    add: productId,
    quantity: String(quantity),
  })}`;

async function productPage(
  req: FastifyRequest,
  v: View,
  id: string,
  error?: FormError,
  /** `1`: the line was added at sign-in; `0`: it could not be. */
  added?: string,
): Promise<string> {
  const l = v.p.locale;
  const p = await getProduct(req.ctx, id);
  const canBuy = v.user?.role !== 'seller';
  const buy =
    p.stockQuantity > 0 && p.status === 'active' && canBuy
      ? `<form method="post" action="/shop/cart/items" class="card">${csrfField(v)}<input type="hidden" name="product_id" value="${escapeHtml(p.id)}">${formAlert(error)}${field({ name: 'quantity', label: t(l, 'web.product.quantity'), type: 'number', value: 1, required: true, error, attrs: ` min="1" max="${Math.min(99, p.stockQuantity)}" inputmode="numeric"` })}<button type="submit">${say(l, 'web.product.addToCart')}</button></form>`
      : '';
  return page(v, {
    title: p.title,
    index: true,
    body: `<div class="sheet"><div class="gallery">${productImages(l, p)}</div>
<div><h1>${escapeHtml(p.title)}</h1><p class="price">${money(v, p.priceCents)}</p><p>${stars(l, p.rating, p.reviewCount)}</p>
<p>${say(l, 'web.product.soldBy', { shop: p.seller.name })} · ${stars(l, p.seller.rating, p.seller.reviewCount)}</p>
${stockLine(l, p.stockQuantity)}${p.isPerishable ? `<p class="hint">${say(l, 'web.product.perishable')}</p>` : ''}${p.isDigital ? `<p class="hint">${say(l, 'web.product.digital')}</p>` : ''}
${added === '1' ? notice(t(l, 'web.product.addedAtSignIn')) : added === '0' ? formAlert({ message: t(l, 'web.product.notAddedAtSignIn'), fields: {} }) : ''}${buy}
<h2>${say(l, 'web.product.description')}</h2><p>${escapeHtml(p.description)}</p>
${specifications(l, p.specifications)}
</div></div>
<section aria-labelledby="reviews-h"><h2 id="reviews-h">${say(l, 'web.product.reviews')}</h2>${reviewList(l, p.reviews)}</section>`,
  });
}

const provinceOptions = (l: Locale, blank: boolean) => [
  ...(blank ? [{ value: '', label: t(l, 'web.checkout.chooseProvince') }] : []),
  ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
];

async function cartPage(
  req: FastifyRequest,
  v: View,
  o: { error?: FormError; couponError?: FormError; code?: string } = {},
): Promise<string> {
  const l = v.p.locale;
  const q = req.query as { province?: string; added?: string };
  const province = (PROVINCES as readonly string[]).includes(q.province ?? '')
    ? (q.province as Province)
    : undefined;
  const cart = await carts.getCart(req.ctx, { province });
  const title = t(l, 'web.cart.title');
  if (!cart.items.length) {
    return page(v, {
      title,
      body: `<h1>${escapeHtml(title)}</h1>${formAlert(o.error)}<div class="card"><p>${say(l, 'web.cart.empty')}</p><p><a href="/">${say(l, 'web.cart.browse')}</a></p></div>`,
    });
  }
  const rows = cart.items
    .map(
      (
        i,
      ) => `<tr><td><a href="/shop/products/${escapeHtml(i.product_id)}">${escapeHtml(i.title)}</a></td><td class="num">${money(v, i.unit_price_cents)}</td>
<td><form method="post" action="/shop/cart/items/${escapeHtml(i.product_id)}" class="row">${csrfField(v)}<div><label for="qty-${escapeHtml(i.product_id)}" class="visually-hidden">${say(l, 'web.cart.quantityOf', { title: i.title })}</label><input id="qty-${escapeHtml(i.product_id)}" name="quantity" type="number" min="0" max="99" value="${i.quantity}" inputmode="numeric"></div><button type="submit" class="small secondary">${say(l, 'web.cart.update')}</button></form>
<form method="post" action="/shop/cart/items/${escapeHtml(i.product_id)}">${csrfField(v)}<input type="hidden" name="quantity" value="0"><button type="submit" class="small secondary">${say(l, 'web.cart.remove')}<span class="visually-hidden"> ${escapeHtml(i.title)}</span></button></form></td>
<td class="num">${money(v, i.line_total_cents)}</td></tr>`,
    )
    .join('');
  const coupon = cart.coupon_applied
    ? `<p>${say(l, 'web.cart.couponApplied', { code: cart.coupon_applied })}</p>${cart.coupon_problem ? `<p class="alert">${escapeHtml(cart.coupon_problem)}</p>` : ''}<form method="post" action="/shop/cart/coupon">${csrfField(v)}<input type="hidden" name="remove" value="1"><button type="submit" class="small secondary">${say(l, 'web.cart.removeCoupon')}</button></form>`
    : `<form method="post" action="/shop/cart/coupon" class="row">${csrfField(v)}${formAlert(o.couponError)}${field({ name: 'code', label: t(l, 'web.cart.coupon'), value: o.code ?? '', error: o.couponError, autocomplete: 'off', attrs: ' maxlength="40"' })}<button type="submit" class="secondary">${say(l, 'web.cart.applyCoupon')}</button></form>`;
  return page(v, {
    title,
    body: `<h1>${escapeHtml(title)}</h1>${q.added ? notice(t(l, 'web.cart.added')) : ''}${formAlert(o.error)}
<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">${say(l, 'web.cart.title')}</caption><thead><tr><th scope="col">${say(l, 'web.cart.product')}</th><th scope="col" class="num">${say(l, 'web.cart.price')}</th><th scope="col">${say(l, 'web.cart.quantity')}</th><th scope="col" class="num">${say(l, 'web.cart.lineTotal')}</th></tr></thead><tbody>${rows}</tbody></table></div>
<div class="card">${coupon}</div>
<div class="card"><form method="get" action="/shop/cart" class="row">${selectField({ name: 'province', label: t(l, 'web.cart.estimateFor'), value: cart.taxProvince, options: provinceOptions(l, false) })}<button type="submit" class="secondary">${say(l, 'web.cart.estimate')}</button></form>
${cart.shipping_problem ? `<p class="alert">${escapeHtml(cart.shipping_problem)}</p>` : ''}
<div class="totals">${amountRows(l, { ...cart, discountCents: cart.discount_cents, totalCents: cart.totalAmountCents })}</div>
<p class="hint">${say(l, 'web.cart.estimateNote', { province: provinceName(l, cart.taxProvince) })}</p>
<a class="button" href="/shop/checkout">${say(l, 'web.cart.checkout')}</a></div>`,
  });
}

async function checkoutPage(
  req: FastifyRequest,
  v: View,
  a: CheckoutForm,
  saved: readonly addresses.SavedAddress[],
  error?: FormError,
): Promise<string> {
  const l = v.p.locale;
  const cart = await carts.getCart(req.ctx);
  const title = t(l, 'web.checkout.title');
  const book = saved.length
    ? `<div class="card"><h2>${say(l, 'web.checkout.savedAddresses')}</h2><ul class="addresses">${saved
        .map(
          (x) =>
            `<li>${addressBlock(l, x)}${
              x.id === a.addressId
                ? `<p class="muted">${say(l, 'web.checkout.usingAddress')}</p>`
                : `<p><a href="/shop/checkout?address=${encodeURIComponent(x.id)}">${say(l, 'web.checkout.useAddress')}<span class="visually-hidden"> ${escapeHtml(x.street)}</span></a></p>`
            }</li>`,
        )
        .join(
          '',
        )}</ul><p><a href="/account/addresses">${say(l, 'web.checkout.manageAddresses')}</a></p></div>`
    : '';
  const canSave = saved.length < addresses.MAX_ADDRESSES;
  return page(v, {
    title,
    narrow: true,
    body: `<h1>${escapeHtml(title)}</h1>
<div class="card"><p>${say(l, 'web.checkout.summary', { n: cart.itemCount, total: moneyText(v, cart.totalAmountCents) })}</p><p><a href="/shop/cart">${say(l, 'web.checkout.backToCart')}</a></p></div>
${book}<form method="post" action="/shop/checkout" class="card" novalidate>${csrfField(v)}${formAlert(error)}
<h2>${say(l, 'web.checkout.address')}</h2>
${addressFields(l, a, error, { recipientOptional: true })}
<p class="hint">${say(l, 'web.checkout.country')}</p>
${canSave ? checkbox({ name: 'save', label: t(l, 'web.checkout.saveAddress'), checked: a.save ?? false }) : ''}
${acceptTermsLine(l)}<button type="submit">${say(l, 'web.checkout.pay')}</button></form>`,
  });
}
