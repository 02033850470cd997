// The seller's console: the shop's products (create, edit, publish, unpublish, delete), its orders
// (confirm one waiting for stock, ship with a tracking number, mark delivered; the detail and the
// invoice), the returns to decide, the shop's identity on invoices, and the sales with charts.
// Each handler is a thin adapter over the services the API's routes call (src/modules/*/routes.ts),
// with the API's own schemas, so that a refusal says what the API's 400 would.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { analyticsQuery } from '../contract/analytics.ts';
import { sellerInvoiceBody } from '../contract/auth.ts';
import { createProductBody, listProductsQuery, updateProductBody } from '../contract/catalog.ts';
import { AppError, notFound } from '../contract/errors.ts';
import { escapeHtml } from '../contract/format.ts';
import { formatDate, type Locale, t, text } from '../contract/i18n.ts';
import { listOrdersQuery, ORDER_STATUSES, orderStatus, shipOrderBody } from '../contract/orders.ts';
import { rejectReturnBody, returnStatus } from '../contract/returns.ts';
import { parcelRecipient } from '../modules/addresses/service.ts';
import { sellerDashboard } from '../modules/analytics/service.ts';
import { shopNames, updateInvoiceIdentity, withProfile } from '../modules/auth/sellers.ts';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listCategories,
  listProducts,
  updateProduct,
} from '../modules/catalog/service.ts';
import { shipFromOf } from '../modules/checkout/service.ts';
import { sendInvoice } from '../modules/invoices/routes.ts';
import { invoiceOf } from '../modules/invoices/service.ts';
import * as orders from '../modules/orders/service.ts';
import * as returns from '../modules/returns/service.ts';
import { addressBlock, type ShownAddress } from './addresses/views.ts';
import type { WebDeps } from './core.ts';
import { seeOther, signedIn, type View, viewOf } from './core.ts';
import { dashboardBody, PERIODS } from './dashboard.ts';
import { amountRows } from './fragments.ts';
import {
  actionButton,
  badge,
  checkbox,
  csrfField,
  date,
  type FormError,
  field,
  formAlert,
  formErrorOf,
  money,
  notice,
  page,
  provinceName,
  readForm,
  say,
  selectField,
  sendHtml,
  shownRefusal,
  tabs,
  textArea,
} from './layout.ts';

const SELLERS = ['seller'] as const;
const PAGE_SIZE = 20;
const orderBadge = (l: Locale, status: string) => badge(l, status, 'web.order.status', { status });
/** The most rows of a section that waits for the seller (orders to ship, returns to decide). */
const WAITING = 50;

type Body = Record<string, string | string[] | undefined>;
type Detail = Awaited<ReturnType<typeof getProduct>>;
type Order = Awaited<ReturnType<typeof orders.getOrder>>;
type OrderRow = Awaited<ReturnType<typeof orders.listOrders>>['orders'][number];
type ReturnRow = Awaited<ReturnType<typeof returns.listReturns>>['returns'][number];

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';
const pageNoOf = (v: unknown) => Math.max(1, Math.min(1000, Number.parseInt(String(v ?? '1'), 10) || 1));
/** `?done=` names what the last form did; only the known ones are said. */
const doneOf = <D extends string>(known: readonly D[], v: unknown): D | undefined =>
  known.find((d) => d === v);

const productPath = (id: string) => `/console/products/${encodeURIComponent(id)}`;
const orderPath = (id: string) => `/console/orders/${encodeURIComponent(id)}`;
const returnPath = (id: string) => `/console/returns/${encodeURIComponent(id)}`;

const consoleTabs = (v: View) =>
  tabs(v, t(v.p.locale, 'web.console.sections'), [
    { href: '/console', label: t(v.p.locale, 'web.console.overview') },
    { href: '/console/products', label: t(v.p.locale, 'web.console.products') },
    { href: '/console/orders', label: t(v.p.locale, 'web.console.orders') },
    { href: '/console/returns', label: t(v.p.locale, 'web.console.returns') },
    { href: '/console/shop', label: t(v.p.locale, 'web.console.shop') },
    { href: '/console/analytics', label: t(v.p.locale, 'web.console.analytics') },
  ]);

/** A console page: its title as the heading, the sections' tabs, what the last form did, the body. */
const consolePage = (v: View, title: string, body: string, done?: string) =>
  page(v, {
    title,
    body: `<h1>${escapeHtml(title)}</h1>${consoleTabs(v)}${notice(done)}${body}`,
  });

function pager(
  l: Locale,
  path: string,
  params: Record<string, string | undefined>,
  at: number,
  more: boolean,
) {
  if (at <= 1 && !more) return '';
  const to = (n: number) => {
    const q = new URLSearchParams(
      Object.entries({ ...params, page: String(n) }).filter((e): e is [string, string] => Boolean(e[1])),
    );
    return escapeHtml(`${path}?${q}`);
  };
  return `<nav class="pager" aria-label="${say(l, 'web.search.pages')}">${at > 1 ? `<a href="${to(at - 1)}" rel="prev">${say(l, 'web.search.previous')}</a>` : ''}${more ? `<a href="${to(at + 1)}" rel="next">${say(l, 'web.search.next')}</a>` : ''}</nav>`;
}

/** A table in its own scrolling box; `stack`: on a phone each row is a card, each cell under its `data-label`. */
const table = (head: string[], rows: string[], caption?: string, stack = false) =>
  `<div class="table-wrap" tabindex="0"><table${stack ? ' class="stack"' : ''}>${caption ? `<caption class="visually-hidden">${escapeHtml(caption)}</caption>` : ''}<thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
const th = (label: string, num = false) =>
  `<th scope="col"${num ? ' class="num"' : ''}>${escapeHtml(label)}</th>`;
const empty = (l: Locale, key: Parameters<typeof say>[1]) => `<div class="card"><p>${say(l, key)}</p></div>`;

/** A field's problem, for inputs the form helpers do not draw (checkboxes, a row's own input). */
const problemOf = (error: FormError | undefined, name: string, id: string) => {
  const problem = error?.fields[name];
  return problem ? `<p class="field-error" id="${id}-error">${escapeHtml(problem)}</p>` : '';
};

/** An input of one row of a table (its id unique on the page), labelled for a screen reader with the row's name. */
function rowInput(o: {
  id: string;
  name: string;
  label: string;
  of: string;
  maxlength: number;
  error?: FormError;
}): string {
  const problem = problemOf(o.error, o.name, o.id);
  return `<div><label for="${o.id}">${escapeHtml(o.label)}<span class="visually-hidden"> (${escapeHtml(o.of)})</span></label><input id="${o.id}" name="${o.name}" type="text" required maxlength="${o.maxlength}" autocomplete="off"${problem ? ` aria-invalid="true" aria-describedby="${o.id}-error"` : ''}>${problem}</div>`;
}

// ---- the products' form ------------------------------------------------------------------------

/** The product form's fields as typed (the price in dollars), to show again after a refusal. */
interface ProductForm {
  title: string;
  description: string;
  price: string;
  stockQuantity: string;
  weight: string;
  categoryId: string;
  isDigital: boolean;
  isPerishable: boolean;
  imageUrl: string;
  status: string;
}

const formOfBody = (b: Body): ProductForm => ({
  title: one(b.title),
  description: one(b.description),
  price: one(b.price).trim(),
  stockQuantity: one(b.stockQuantity).trim(),
  weight: one(b.weight).trim(),
  categoryId: one(b.categoryId),
  isDigital: b.isDigital !== undefined,
  isPerishable: b.isPerishable !== undefined,
  imageUrl: one(b.imageUrl).trim(),
  status: one(b.status),
});

/** A decimal as the locale writes it (89,99 in French). */
const decimal = (l: Locale, n: number) => (l === 'fr-CA' ? String(n).replace('.', ',') : String(n));

const formOfProduct = (l: Locale, p: Detail): ProductForm => ({
  title: p.title,
  description: p.description,
  price: decimal(l, Number((p.priceCents / 100).toFixed(2))),
  stockQuantity: String(p.stockQuantity),
  weight: p.weight === null ? '' : decimal(l, p.weight),
  categoryId: p.categoryId ?? '',
  isDigital: p.isDigital,
  isPerishable: p.isPerishable,
  imageUrl: p.imageUrl ?? '',
  status: p.status,
});

/**
 * A number as a person types it (a comma for the decimal point in French): the number, nothing
 * for an empty field, or what was typed, which the API's schema then refuses in its own words.
 */
function numberOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : typed;
}

/** Dollars as typed ("89.99", "89,99 $") in cents; anything else as typed, for the schema to refuse. */
function centsOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0$]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^\d+(\.\d{1,2})?$/.test(s) ? Math.round(Number(s) * 100) : typed;
}

/**
 * The API's body for the form: POST /products's when creating, PATCH /products/:id's (every
 * field) when changing `current`. An emptied weight or image clears it.
 */
function productBody(f: ProductForm, current?: Detail) {
  const weight = numberOf(f.weight);
  return {
    title: f.title,
    description: f.description,
    priceCents: centsOf(f.price),
    stockQuantity: numberOf(f.stockQuantity),
    weight: weight === undefined && current ? null : weight,
    categoryId: f.categoryId || null,
    isDigital: f.isDigital,
    isPerishable: f.isPerishable,
    ...(f.imageUrl
      ? { imageUrl: f.imageUrl }
      : current?.imageUrl
        ? { imageUrls: current.imageUrls.slice(1) }
        : {}),
    ...(f.status ? { status: f.status } : {}),
  };
}

/**
 * The pages' CSP (layout.ts WEB_CSP: img-src 'self' https: data:) would block an image over plain
 * http from another host, so the product page would show none: the form says so before saving.
 * The API keeps accepting any http(s) URL (agents show images outside these pages).
 */
function refuseBlockedImage(f: ProductForm, publicBaseUrl: string) {
  if (!f.imageUrl || !URL.canParse(f.imageUrl)) return;
  const url = new URL(f.imageUrl);
  const origin = new URL(publicBaseUrl).origin;
  if (url.protocol === 'https:' || url.origin === origin || url.protocol !== 'http:') return;
  throw new AppError('VALIDATION_ERROR', 400, text('web.form.fix'), [
    { field: 'imageUrl', message: text('web.console.product.imageBlocked', { origin }) },
  ]);
}

const PRODUCT_DONE = ['created', 'saved', 'published', 'unpublished', 'deleted'] as const;
const ORDER_DONE = ['shipped', 'delivered', 'confirmed'] as const;
const RETURN_DONE = ['approved', 'rejected'] as const;
const SHOP_FIELDS = ['legalName', 'street', 'city', 'postalCode', 'gstHstNumber', 'qstNumber'] as const;

export function consolePages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = (limit: 'productWrites' | 'orders' | 'returns') =>
    ({ config: { auth: 'public', limit }, schema: { hide: true } }) as const;
  const returnsDeps = { ...deps.commerce, returnWindowDays: deps.returnWindowDays };

  /** The caller's product (any, for an admin); another seller's is not there for them (404). */
  const ownProduct = async (req: FastifyRequest, id: string) => {
    const me = signedIn(req, SELLERS);
    const product = await getProduct(req.ctx, id);
    if (product.sellerId !== me.id && me.role !== 'admin') {
      throw notFound('error.catalog.productNotFound', { id });
    }
    return product;
  };

  /** An order of the caller's shop (any, for an admin); one they bought, or another shop's, is 404 here. */
  const shopOrder = async (req: FastifyRequest, id: string) => {
    const me = signedIn(req, SELLERS);
    const order = await orders.getOrder(req.ctx, id);
    if (order.sellerId !== me.id && me.role !== 'admin') throw notFound('error.orders.notFound', { id });
    return order;
  };

  // ---- overview ----------------------------------------------------------------------------

  app.get('/console', pageRoute, async (req, reply) => {
    const me = signedIn(req, SELLERS);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const countOrders = async (status: 'pending' | 'confirmed') =>
      (await orders.listOrders(req.ctx, listOrdersQuery.parse({ status, limit: 1 }), 'seller')).total;
    const toShip = await countOrders('confirmed');
    const toConfirm = await countOrders('pending');
    const toDecide = (
      await returns.listReturns(req.ctx, { status: 'pending', limit: 1, offset: 0 }, 'seller')
    ).total;
    const products = (await listProducts(req.ctx, listProductsQuery.parse({ sellerId: me.id, limit: 1 })))
      .total;
    const shop = (await shopNames(req.ctx, [me.id])).get(me.id) ?? me.name;
    const tile = (sentence: string, href: string, link: string) =>
      `<div class="stat"><p>${sentence}</p><a href="${href}">${link}</a></div>`;
    return sendHtml(
      reply,
      consolePage(
        v,
        t(l, 'web.console.title'),
        `<p>${say(l, 'web.console.welcome', { shop })}</p><div class="stats">
${tile(say(l, 'web.console.toShip', { n: toShip }), '/console/orders', say(l, 'web.console.seeOrders'))}
${toConfirm ? tile(say(l, 'web.console.toConfirm', { n: toConfirm }), '/console/orders?status=pending', say(l, 'web.console.seeOrders')) : ''}
${tile(say(l, 'web.console.toDecide', { n: toDecide }), '/console/returns', say(l, 'web.console.seeReturns'))}
${tile(say(l, 'web.console.productCount', { n: products }), '/console/products', say(l, 'web.console.seeProducts'))}
</div><p><a class="button" href="/console/products/new">${say(l, 'web.console.product.add')}</a> <a class="button secondary" href="/console/analytics">${say(l, 'web.console.seeAnalytics')}</a></p>`,
      ),
    );
  });

  // ---- products ----------------------------------------------------------------------------

  const productsPage = async (req: FastifyRequest, v: View, o: { error?: FormError; done?: string } = {}) => {
    const me = signedIn(req, SELLERS);
    const l = v.p.locale;
    const pageNo = pageNoOf((req.query as { page?: string }).page);
    const list = await listProducts(
      req.ctx,
      listProductsQuery.parse({ sellerId: me.id, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
    );
    const rows = list.products.map((p) => {
      const path = productPath(p.id);
      const publish =
        p.status === 'active'
          ? actionButton(v, {
              action: `${path}/status`,
              label: t(l, 'web.console.product.unpublish'),
              kind: 'secondary',
              fields: { status: 'inactive' },
            })
          : actionButton(v, {
              action: `${path}/status`,
              label: t(l, 'web.console.product.publish'),
              fields: { status: 'active' },
            });
      return `<tr><td><a href="${escapeHtml(path)}">${escapeHtml(p.title)}</a>${p.status === 'active' ? `<br><a class="hint" href="${escapeHtml(`/shop/products/${encodeURIComponent(p.id)}`)}">${say(l, 'web.console.product.view')}</a>` : ''}</td><td>${badge(l, p.status, 'web.console.product.statusName', { status: p.status })}</td><td class="num">${p.stockQuantity}</td><td class="num">${money(v, p.priceCents)}</td>
<td><a href="${escapeHtml(path)}">${say(l, 'web.console.product.editLink')}<span class="visually-hidden"> ${escapeHtml(p.title)}</span></a> ${publish} ${actionButton(v, { action: `${path}/delete`, label: t(l, 'web.console.product.delete'), kind: 'danger' })}</td></tr>`;
    });
    return consolePage(
      v,
      t(l, 'web.console.products'),
      `${formAlert(o.error)}<p><a class="button" href="/console/products/new">${say(l, 'web.console.product.add')}</a></p>${
        list.products.length
          ? table(
              [
                th(t(l, 'web.cart.product')),
                th(t(l, 'web.console.product.status')),
                th(t(l, 'web.console.product.stock'), true),
                th(t(l, 'web.cart.price'), true),
                th(t(l, 'web.console.actions')),
              ],
              rows,
              t(l, 'web.console.products'),
            )
          : empty(l, 'web.console.product.none')
      }${pager(l, '/console/products', {}, pageNo, list.total > pageNo * PAGE_SIZE)}`,
      o.done,
    );
  };

  const productFormPage = async (
    req: FastifyRequest,
    v: View,
    o: { product?: Detail; values: ProductForm; error?: FormError; done?: string },
  ) => {
    const l = v.p.locale;
    const f = o.values;
    const error = o.error;
    const { categories } = await listCategories(req.ctx);
    const creating = !o.product;
    const statuses = creating ? (['active', 'draft'] as const) : (['active', 'inactive', 'draft'] as const);
    const title = o.product
      ? t(l, 'web.console.product.edit', { title: o.product.title })
      : t(l, 'web.console.product.new');
    const form = `<form method="post" action="${escapeHtml(o.product ? productPath(o.product.id) : '/console/products/new')}" class="card" novalidate>${csrfField(v)}${formAlert(error)}
${field({ name: 'title', label: t(l, 'web.console.product.title'), value: f.title, required: true, error, attrs: ' maxlength="200"' })}
${textArea({ name: 'description', label: t(l, 'web.console.product.description'), value: f.description, error, attrs: ' maxlength="10000"' })}
<div class="row">${field({ name: 'price', problemField: 'priceCents', label: t(l, 'web.console.product.price'), hint: t(l, 'web.console.product.priceHint'), value: f.price, required: true, error, attrs: ' inputmode="decimal" maxlength="20"' })}
${field({ name: 'stockQuantity', type: 'number', label: t(l, 'web.console.product.stock'), value: f.stockQuantity, error, attrs: ' min="0" step="1" inputmode="numeric"' })}
${field({ name: 'weight', label: t(l, 'web.console.product.weight'), hint: t(l, 'web.console.product.weightHint'), value: f.weight, error, attrs: ' inputmode="decimal" maxlength="20"' })}</div>
${selectField({ name: 'categoryId', label: t(l, 'web.console.product.category'), value: f.categoryId, error, options: [{ value: '', label: t(l, 'web.console.product.noCategory') }, ...categories.map((c) => ({ value: c.id, label: c.name }))] })}
<fieldset><legend>${say(l, 'web.console.product.kind')}</legend>
${checkbox({ name: 'isDigital', label: t(l, 'web.console.product.isDigital'), checked: f.isDigital })}${problemOf(error, 'isDigital', 'f-isDigital')}
${checkbox({ name: 'isPerishable', label: t(l, 'web.console.product.isPerishable'), checked: f.isPerishable })}${problemOf(error, 'isPerishable', 'f-isPerishable')}</fieldset>
${field({ name: 'imageUrl', type: 'url', label: t(l, 'web.console.product.imageUrl'), hint: t(l, 'web.console.product.imageHint'), value: f.imageUrl, error, attrs: ' maxlength="2048"' })}
${selectField({ name: 'status', label: t(l, 'web.console.product.status'), value: f.status, error, options: statuses.map((x) => ({ value: x, label: t(l, 'web.console.product.statusName', { status: x }) })) })}
<button type="submit">${say(l, creating ? 'web.console.product.create' : 'web.console.product.save')}</button></form>
<p><a href="/console/products">${say(l, 'web.console.product.back')}</a></p>`;
    return consolePage(v, title, form, o.done);
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/products',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(PRODUCT_DONE, req.query.done);
      return sendHtml(
        reply,
        await productsPage(req, v, {
          done: done && t(v.p.locale, 'web.console.product.done', { done }),
        }),
      );
    },
  );

  app.get('/console/products/new', pageRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const v = viewOf(req, reply, s);
    const values = { ...formOfBody({}), stockQuantity: '0', status: 'active' };
    return sendHtml(reply, await productFormPage(req, v, { values }));
  });

  app.post<{ Body: Body }>('/console/products/new', postRoute('productWrites'), async (req, reply) => {
    signedIn(req, SELLERS);
    const values = formOfBody(req.body);
    try {
      refuseBlockedImage(values, deps.commerce.publicBaseUrl);
      await createProduct(req.ctx, readForm(createProductBody, productBody(values)));
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await productFormPage(req, v, { values, error: formErrorOf(v.p.locale, err) }),
        err.statusCode,
      );
    }
    return seeOther(reply, '/console/products?done=created');
  });

  app.get<{ Params: { productId: string }; Querystring: Record<string, string | undefined> }>(
    '/console/products/:productId',
    pageRoute,
    async (req, reply) => {
      const product = await ownProduct(req, req.params.productId);
      const v = viewOf(req, reply, s);
      const done = doneOf(PRODUCT_DONE, req.query.done);
      return sendHtml(
        reply,
        await productFormPage(req, v, {
          product,
          values: formOfProduct(v.p.locale, product),
          done: done && t(v.p.locale, 'web.console.product.done', { done }),
        }),
      );
    },
  );

  app.post<{ Params: { productId: string }; Body: Body }>(
    '/console/products/:productId',
    postRoute('productWrites'),
    async (req, reply) => {
      const id = req.params.productId;
      const product = await ownProduct(req, id);
      const values = formOfBody(req.body);
      try {
        refuseBlockedImage(values, deps.commerce.publicBaseUrl);
        await updateProduct(req.ctx, id, readForm(updateProductBody, productBody(values, product)));
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          await productFormPage(req, v, { product, values, error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
      return seeOther(reply, `${productPath(id)}?done=saved`);
    },
  );

  /** A one-button change of a product from the list (publish, unpublish, delete); a refusal shows on the list. */
  const productAction = (
    path: string,
    act: (req: FastifyRequest<{ Params: { productId: string }; Body: Body }>) => Promise<string>,
  ) =>
    app.post<{ Params: { productId: string }; Body: Body }>(
      `/console/products/:productId/${path}`,
      postRoute('productWrites'),
      async (req, reply) => {
        await ownProduct(req, req.params.productId);
        let done: string;
        try {
          done = await act(req);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          return sendHtml(
            reply,
            await productsPage(req, v, { error: formErrorOf(v.p.locale, err) }),
            err.statusCode,
          );
        }
        return seeOther(reply, `/console/products?done=${done}`);
      },
    );

  productAction('status', async (req) => {
    const change = readForm(updateProductBody, { status: one(req.body.status) });
    await updateProduct(req.ctx, req.params.productId, change);
    return change.status === 'active' ? 'published' : 'unpublished';
  });
  productAction('delete', async (req) => {
    await deleteProduct(req.ctx, req.params.productId);
    return 'deleted';
  });

  // ---- orders ------------------------------------------------------------------------------

  /** What the seller can do next with an order: confirm it, ship it (carrier and tracking), mark it delivered. */
  const orderActions = (
    v: View,
    o: { id: string; number: string; status: string },
    rowId?: string,
    form: { error?: FormError; typed?: Body } = {},
  ) => {
    const error = form.error;
    const l = v.p.locale;
    const path = orderPath(o.id);
    const from = rowId ? { from: 'list' } : undefined;
    if (o.status === 'pending') {
      return `${rowId ? '' : `<p class="hint">${say(l, 'web.console.order.confirmHint')}</p>`}${actionButton(v, { action: `${path}/confirm`, label: t(l, 'web.console.order.confirm'), fields: from })}`;
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
      return `<form method="post" action="${escapeHtml(`${path}/ship`)}" class="row">${csrfField(v)}<input type="hidden" name="from" value="list">
${rowInput({ id: `${rowId}-carrier`, name: 'carrier', label: t(l, 'web.console.order.carrier'), of: o.number, maxlength: 64 })}
${rowInput({ id: `${rowId}-tracking`, name: 'trackingNumber', label: t(l, 'web.console.order.trackingNumber'), of: o.number, maxlength: 64 })}
<button type="submit" class="small">${say(l, 'web.console.order.ship')}</button></form>`;
    }
    return `<form method="post" action="${escapeHtml(`${path}/ship`)}" class="card" novalidate>${csrfField(v)}<h2>${say(l, 'web.console.order.shipTitle')}</h2>${formAlert(error)}
<div class="row">${field({ name: 'carrier', label: t(l, 'web.console.order.carrier'), value: one(form.typed?.carrier), required: true, error, attrs: ' maxlength="64"' })}
${field({ name: 'trackingNumber', label: t(l, 'web.console.order.trackingNumber'), value: one(form.typed?.trackingNumber), required: true, error, attrs: ' maxlength="64"' })}</div>
<button type="submit">${say(l, 'web.console.order.ship')}</button></form>`;
  };

  /** Orders as rows with their next step; `section` names the rows' inputs, none: a confirmed order links to its page. */
  const orderTable = (v: View, list: OrderRow[], section?: string) => {
    const l = v.p.locale;
    const next = (o: OrderRow, i: number) =>
      section || o.status !== 'confirmed'
        ? orderActions(v, o, `${section ?? 'row'}-${i}`)
        : `<a href="${escapeHtml(orderPath(o.id))}">${say(l, 'web.console.order.shipTitle')}</a>`;
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
          `<tr><td><a class="order-number" href="${escapeHtml(orderPath(o.id))}">${escapeHtml(o.number)}</a></td><td>${date(v, o.createdAt)}</td><td>${orderBadge(l, o.status)}</td><td class="num">${o.itemCount}</td><td class="num">${money(v, o.totalAmountCents)}</td><td>${next(o, i)}</td></tr>`,
      ),
    );
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/orders',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      const status = orderStatus.safeParse(req.query.status).data;
      const pageNo = pageNoOf(req.query.page);
      const list = await orders.listOrders(
        req.ctx,
        listOrdersQuery.parse({ status, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
        'seller',
      );
      const toShip = status
        ? undefined
        : await orders.listOrders(
            req.ctx,
            listOrdersQuery.parse({ status: 'confirmed', limit: WAITING, sort: 'oldest' }),
            'seller',
          );
      const filter = `<form method="get" action="/console/orders" class="row">${selectField({
        name: 'status',
        label: t(l, 'web.console.order.filter'),
        value: status ?? '',
        options: [
          { value: '', label: t(l, 'web.console.order.all') },
          ...ORDER_STATUSES.map((x) => ({ value: x, label: t(l, 'web.order.status', { status: x }) })),
        ],
      })}<button type="submit" class="secondary">${say(l, 'web.search.apply')}</button></form>`;
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        consolePage(
          v,
          t(l, 'web.console.orders'),
          `${
            toShip
              ? `<section aria-labelledby="to-ship-h"><h2 id="to-ship-h">${say(l, 'web.console.order.toShip')}</h2>${
                  toShip.orders.length
                    ? orderTable(v, toShip.orders, 'ship')
                    : empty(l, 'web.console.order.noneToShip')
                }</section>`
              : ''
          }<section aria-labelledby="recent-h"><h2 id="recent-h">${say(l, status ? 'web.console.orders' : 'web.console.order.recent')}</h2>${filter}${
            list.orders.length
              ? orderTable(v, list.orders, toShip ? undefined : 'all')
              : empty(l, 'web.console.order.none')
          }${pager(l, '/console/orders', { status }, pageNo, list.total > pageNo * PAGE_SIZE)}</section>`,
          done && t(l, 'web.console.order.done', { done }),
        ),
      );
    },
  );

  const orderPage = (
    v: View,
    order: Order,
    recipient: ShownAddress,
    o: { error?: FormError; typed?: Body; done?: string } = {},
  ) => {
    const l = v.p.locale;
    const items = order.items.map(
      (i) =>
        `<tr><td>${escapeHtml(i.name)}</td><td class="num">${i.quantity}</td><td class="num">${money(v, i.unitPriceCents)}</td><td class="num">${money(v, i.unitPriceCents * i.quantity)}</td></tr>`,
    );
    const totals = amountRows(l, { ...order, totalCents: order.totalAmountCents }, [
      ...(order.refundedCents ? [{ label: t(l, 'web.order.refunded'), cents: order.refundedCents }] : []),
      { label: t(l, 'web.console.order.fee'), cents: order.platformFeeCents },
    ]);
    const actions = orderActions(v, order, undefined, { error: o.error, typed: o.typed });
    return consolePage(
      v,
      t(l, 'web.order.title', { id: order.number }),
      `${order.status === 'confirmed' ? '' : formAlert(o.error)}
<div class="card"><p>${orderBadge(l, order.status)} · ${say(l, 'web.order.placed', { date: formatDate(l, new Date(order.createdAt * 1000)) })}</p>
${order.status === 'cancelled' ? '' : `<p>${say(l, 'web.order.estimated', { date: formatDate(l, order.estimatedDelivery) })}</p>`}
${order.trackingNumber ? `<p>${say(l, 'web.order.tracking', { carrier: order.carrier ?? '', number: order.trackingNumber })}</p>` : ''}
<section aria-labelledby="ship-to-h"><h2 id="ship-to-h">${say(l, 'web.console.order.shipTo')}</h2>${addressBlock(l, recipient)}</section>
<p><a href="${escapeHtml(`${orderPath(order.id)}/invoice`)}">${say(l, 'web.order.invoice')}</a></p>
${order.status === 'confirmed' ? '' : actions}</div>
${table([th(t(l, 'web.cart.product')), th(t(l, 'web.cart.quantity'), true), th(t(l, 'web.cart.price'), true), th(t(l, 'web.cart.lineTotal'), true)], items)}
<div class="card totals">${totals}</div>
${order.status === 'confirmed' ? actions : ''}
<p><a href="/console/orders">${say(l, 'web.console.order.back')}</a></p>`,
      o.done,
    );
  };

  app.get<{ Params: { orderId: string }; Querystring: Record<string, string | undefined> }>(
    '/console/orders/:orderId',
    pageRoute,
    async (req, reply) => {
      const order = await shopOrder(req, req.params.orderId);
      const recipient = await parcelRecipient(req.ctx, order.id, order.sellerId);
      const v = viewOf(req, reply, s);
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        orderPage(v, order, recipient, {
          done: done && t(v.p.locale, 'web.console.order.done', { done }),
        }),
      );
    },
  );

  app.get<{ Params: { orderId: string } }>(
    '/console/orders/:orderId/invoice',
    pageRoute,
    async (req, reply) => {
      await shopOrder(req, req.params.orderId);
      const l = viewOf(req, reply, s).p.locale;
      reply.header('content-security-policy', "default-src 'none'");
      return sendInvoice(reply, await invoiceOf(req.ctx, deps.invoices, req.params.orderId, l));
    },
  );

  /** A step of an order (POST /orders/:id/ship, /deliver, /confirm); a refusal shows on the order's page. */
  const orderAction = (
    path: string,
    act: (req: FastifyRequest<{ Params: { orderId: string }; Body: Body }>) => Promise<unknown>,
    done: (typeof ORDER_DONE)[number],
  ) =>
    app.post<{ Params: { orderId: string }; Body: Body }>(
      `/console/orders/:orderId/${path}`,
      postRoute('orders'),
      async (req, reply) => {
        const id = req.params.orderId;
        await shopOrder(req, id);
        try {
          await act(req);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          const order = await shopOrder(req, id);
          const recipient = await parcelRecipient(req.ctx, order.id, order.sellerId);
          return sendHtml(
            reply,
            orderPage(v, order, recipient, { error: formErrorOf(v.p.locale, err), typed: req.body }),
            err.statusCode,
          );
        }
        const back = one(req.body?.from) === 'list' ? '/console/orders' : orderPath(id);
        return seeOther(reply, `${back}?done=${done}`);
      },
    );

  orderAction(
    'ship',
    (req) =>
      orders.shipOrder(
        req.ctx,
        deps.commerce,
        req.params.orderId,
        readForm(shipOrderBody, {
          carrier: one(req.body.carrier),
          trackingNumber: one(req.body.trackingNumber),
        }),
      ),
    'shipped',
  );
  orderAction('deliver', (req) => orders.deliverOrder(req.ctx, req.params.orderId), 'delivered');
  orderAction(
    'confirm',
    (req) => orders.confirmPendingOrder(req.ctx, req.params.orderId, shipFromOf),
    'confirmed',
  );

  // ---- returns -----------------------------------------------------------------------------

  const returnsPage = async (
    req: FastifyRequest,
    v: View,
    o: { error?: FormError; refused?: string; done?: string } = {},
  ) => {
    const l = v.p.locale;
    const query = req.query as Record<string, string | undefined>;
    const status = returnStatus.safeParse(query.status).data;
    const pageNo = pageNoOf(query.page);
    const waiting = await returns.listReturns(
      req.ctx,
      { status: 'pending', limit: WAITING, offset: 0 },
      'seller',
    );
    const list = await returns.listReturns(
      req.ctx,
      { status, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE },
      'seller',
    );
    const what = (r: ReturnRow) =>
      r.whole_order
        ? say(l, 'web.console.return.whole')
        : say(l, 'web.console.return.items', { n: r.items.length });
    const cell = (key: Parameters<typeof say>[1], content: string, num = false) =>
      `<td${num ? ' class="num"' : ''} data-label="${say(l, key)}">${content}</td>`;
    const cells = (r: ReturnRow) =>
      `${cell('web.orders.order', `<a href="${escapeHtml(orderPath(r.order_id))}">${escapeHtml(r.order_id)}</a>`)}${cell('web.orders.date', date(v, r.created_at))}${cell('web.return.reason', `${say(l, 'web.return.reasonName', { reason: r.reason })}${r.description ? `<p class="hint">${say(l, 'web.console.return.said', { description: r.description })}</p>` : ''}`)}${cell('web.console.return.what', what(r))}`;
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
      return `${actionButton(v, { action: `${path}/approve`, label: t(l, 'web.console.return.approve') })}
<form method="post" action="${escapeHtml(`${path}/reject`)}" class="row">${csrfField(v)}${rowInput({ id: `reject-${i}-note`, name: 'note', label: t(l, 'web.console.return.note'), of: r.order_id, maxlength: 1000, error })}<button type="submit" class="small danger">${say(l, 'web.console.return.reject')}</button></form>`;
    };
    const toDecide = waiting.returns.length
      ? table(
          [...head, th(t(l, 'web.console.actions'))],
          waiting.returns.map(
            (r, i) =>
              `<tr>${cells(r)}${cell('web.return.refund', money(v, r.estimated_refund_amount_cents), true)}${cell('web.console.actions', decide(r, i))}</tr>`,
          ),
          undefined,
          true,
        )
      : empty(l, 'web.console.return.noneToDecide');
    const all = list.returns.length
      ? table(
          [...head, th(t(l, 'web.orders.status'))],
          list.returns.map(
            (r) =>
              `<tr>${cells(r)}${cell('web.return.refund', money(v, r.refund_amount_cents ?? r.estimated_refund_amount_cents), true)}${cell('web.orders.status', badge(l, r.status, 'web.return.status', { status: r.status }))}</tr>`,
          ),
          undefined,
          true,
        )
      : empty(l, 'web.console.return.none');
    return consolePage(
      v,
      t(l, 'web.console.returns'),
      `${formAlert(o.error)}<section aria-labelledby="decide-h"><h2 id="decide-h">${say(l, 'web.console.return.toDecide')}</h2>${toDecide}</section>
<section aria-labelledby="all-h"><h2 id="all-h">${say(l, 'web.console.return.all')}</h2>${all}${pager(l, '/console/returns', { status }, pageNo, list.total > pageNo * PAGE_SIZE)}</section>`,
      o.done,
    );
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/returns',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(RETURN_DONE, req.query.done);
      return sendHtml(
        reply,
        await returnsPage(req, v, { done: done && t(v.p.locale, 'web.console.return.done', { done }) }),
      );
    },
  );

  /** A decision on a return (POST /returns/:id/approve, /reject); a refusal shows on the returns' page. */
  const decision = (
    path: 'approve' | 'reject',
    act: (req: FastifyRequest<{ Params: { returnId: string }; Body: Body }>) => Promise<unknown>,
    done: (typeof RETURN_DONE)[number],
  ) =>
    app.post<{ Params: { returnId: string }; Body: Body }>(
      `/console/returns/:returnId/${path}`,
      postRoute('returns'),
      async (req, reply) => {
        signedIn(req, SELLERS);
        try {
          await act(req);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          return sendHtml(
            reply,
            await returnsPage(req, v, { error: formErrorOf(v.p.locale, err), refused: req.params.returnId }),
            err.statusCode,
          );
        }
        return seeOther(reply, `/console/returns?done=${done}`);
      },
    );

  decision(
    'approve',
    (req) => returns.approveReturn(req.ctx, returnsDeps, req.params.returnId, undefined),
    'approved',
  );
  decision(
    'reject',
    (req) =>
      returns.rejectReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        readForm(rejectReturnBody, { note: one(req.body.note) }).note,
      ),
    'rejected',
  );

  // ---- the shop ----------------------------------------------------------------------------

  type ShopForm = Record<(typeof SHOP_FIELDS)[number], string>;

  const shopPage = async (
    req: FastifyRequest,
    v: View,
    o: { values?: ShopForm; error?: FormError; done?: string } = {},
  ) => {
    const l = v.p.locale;
    const me = await withProfile(req.ctx, await deps.auth.me(req.ctx));
    const shop = me.seller;
    if (!shop) return consolePage(v, t(l, 'web.console.shop.title'), empty(l, 'web.console.shop.noShop'));
    const values = o.values ?? (Object.fromEntries(SHOP_FIELDS.map((k) => [k, shop[k] ?? ''])) as ShopForm);
    const f = (name: keyof ShopForm, extra: { autocomplete?: string; hint?: string; max: number }) =>
      field({
        name,
        label: t(l, `web.console.shop.${name}`),
        value: values[name],
        error: o.error,
        ...(extra.autocomplete ? { autocomplete: extra.autocomplete } : {}),
        ...(extra.hint ? { hint: extra.hint } : {}),
        attrs: ` maxlength="${extra.max}"`,
      });
    return consolePage(
      v,
      t(l, 'web.console.shop.title'),
      `<div class="card"><dl class="specs"><dt>${say(l, 'web.console.shop.name')}</dt><dd>${escapeHtml(shop.shopName)}</dd><dt>${say(l, 'web.checkout.province')}</dt><dd>${escapeHtml(provinceName(l, shop.province))}</dd></dl></div>
<form method="post" action="/console/shop" class="card" novalidate>${csrfField(v)}<h2>${say(l, 'web.console.shop.invoices')}</h2><p class="hint">${say(l, 'web.console.shop.intro')}</p>${formAlert(o.error)}
${f('legalName', { autocomplete: 'organization', max: 200 })}${f('street', { autocomplete: 'street-address', max: 200 })}
<div class="row">${f('city', { autocomplete: 'address-level2', max: 100 })}${f('postalCode', { autocomplete: 'postal-code', max: 10 })}</div>
${f('gstHstNumber', { hint: t(l, 'web.console.shop.gstHstHint'), max: 40 })}${f('qstNumber', { hint: t(l, 'web.console.shop.qstHint'), max: 40 })}
<button type="submit">${say(l, 'web.settings.save')}</button></form>`,
      o.done,
    );
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/shop',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await shopPage(req, v, {
          done: req.query.done === 'saved' ? t(v.p.locale, 'web.console.shop.saved') : undefined,
        }),
      );
    },
  );

  app.post<{ Body: Body }>('/console/shop', postRoute('orders'), async (req, reply) => {
    signedIn(req, SELLERS);
    const values = Object.fromEntries(SHOP_FIELDS.map((k) => [k, one(req.body[k]).trim()])) as ShopForm;
    try {
      // PATCH /me/seller with every field: an emptied one is cleared (null).
      const input = Object.fromEntries(SHOP_FIELDS.map((k) => [k, values[k] || null]));
      await updateInvoiceIdentity(req.ctx, readForm(sellerInvoiceBody, input));
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await shopPage(req, v, { values, error: formErrorOf(v.p.locale, err) }),
        err.statusCode,
      );
    }
    return seeOther(reply, '/console/shop?done=saved');
  });

  // ---- analytics ---------------------------------------------------------------------------

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/analytics',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      const period = z.enum(PERIODS).catch('month').parse(req.query.period);
      const dashboard = await sellerDashboard(req.ctx, analyticsQuery.parse({ period }));
      return sendHtml(
        reply,
        consolePage(
          v,
          t(l, 'web.console.analytics.title'),
          dashboardBody(v, dashboard, { action: '/console/analytics', period, platform: false }),
        ),
      );
    },
  );
}
