// The seller's console: the shop's products (create, edit, publish, unpublish, delete), its orders
// (confirm one waiting for stock, ship with a tracking number, mark delivered; the detail and the
// invoice), the returns to decide, the shop's identity on invoices, and the sales with charts.
// Each handler reads its form, calls the services the API's routes call (src/modules/*/routes.ts)
// with the API's own schemas, so that a refusal says what the API's 400 would, and chooses the
// answer; the markup is in the views.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { analyticsQuery } from '../../contract/analytics.ts';
import { sellerInvoiceBody } from '../../contract/auth.ts';
import { createProductBody, listProductsQuery, updateProductBody } from '../../contract/catalog.ts';
import { t } from '../../contract/i18n.ts';
import { listOrdersQuery, orderStatus, shipOrderBody } from '../../contract/orders.ts';
import { rejectReturnBody, returnStatus } from '../../contract/returns.ts';
import { parcelRecipient } from '../../modules/addresses/service.ts';
import { sellerDashboard } from '../../modules/analytics/service.ts';
import { shopNames, updateInvoiceIdentity, withProfile } from '../../modules/auth/sellers.ts';
import {
  createProduct,
  deleteProduct,
  getOwnProduct,
  listCategories,
  listProducts,
  updateProduct,
} from '../../modules/catalog/service.ts';
import { shipFromOf } from '../../modules/checkout/service.ts';
import { sendInvoice } from '../../modules/invoices/routes.ts';
import { invoiceOf } from '../../modules/invoices/service.ts';
import * as orders from '../../modules/orders/service.ts';
import * as returns from '../../modules/returns/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { dashboardBody, PERIODS } from '../dashboard.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { ordersView, orderView, returnsView } from './order-views.ts';
import {
  type Body,
  formOfBody,
  formOfProduct,
  one,
  type ProductForm,
  productBody,
  refuseBlockedImage,
} from './product-form.ts';
import { productFormView, productsView } from './product-views.ts';
import {
  consolePage,
  orderPath,
  overviewView,
  productPath,
  SHOP_FIELDS,
  type ShopForm,
  shopView,
} from './views.ts';

const SELLERS = ['seller'] as const;
const PAGE_SIZE = 20;
/** The most rows of a section that waits for the seller (orders to ship, returns to decide). */
const WAITING = 50;

type Detail = Awaited<ReturnType<typeof getOwnProduct>>;

const pageNoOf = (v: unknown) => Math.max(1, Math.min(1000, Number.parseInt(String(v ?? '1'), 10) || 1));
/** `?done=` names what the last form did; only the known ones are said. */
const doneOf = <D extends string>(known: readonly D[], v: unknown): D | undefined =>
  known.find((d) => d === v);

const PRODUCT_DONE = ['created', 'saved', 'published', 'unpublished', 'deleted'] as const;
const ORDER_DONE = ['shipped', 'delivered', 'confirmed'] as const;
const RETURN_DONE = ['approved', 'rejected'] as const;

export function consolePages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = (limit: 'productWrites' | 'orders' | 'returns') =>
    ({ config: { auth: 'public', limit }, schema: { hide: true } }) as const;
  const returnsDeps = { ...deps.commerce, returnWindowDays: deps.returnWindowDays };

  /** The caller's product (any, for an admin); another seller's is not there for them (404). */
  const ownProduct = (req: FastifyRequest, id: string) => {
    signedIn(req, SELLERS);
    return getOwnProduct(req.ctx, id);
  };

  /** An order of the caller's shop (any, for an admin); one they bought, or another shop's, is 404 here. */
  const shopOrder = (req: FastifyRequest, id: string) => {
    signedIn(req, SELLERS);
    return orders.getShopOrder(req.ctx, id);
  };

  // ---- overview ----------------------------------------------------------------------------

  app.get('/console', pageRoute, async (req, reply) => {
    const me = signedIn(req, SELLERS);
    const v = viewOf(req, reply, s);
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
    return sendHtml(reply, overviewView(v, { shop, toShip, toConfirm, toDecide, products }));
  });

  // ---- products ----------------------------------------------------------------------------

  const productsPage = async (req: FastifyRequest, v: View, o: { error?: FormError; done?: string } = {}) => {
    const me = signedIn(req, SELLERS);
    const pageNo = pageNoOf((req.query as { page?: string }).page);
    const list = await listProducts(
      req.ctx,
      listProductsQuery.parse({ sellerId: me.id, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
    );
    return productsView(v, { ...o, products: list.products, pageNo, more: list.total > pageNo * PAGE_SIZE });
  };

  const productFormPage = async (
    req: FastifyRequest,
    v: View,
    o: { product?: Detail; values: ProductForm; error?: FormError; done?: string },
  ) => productFormView(v, { ...o, categories: (await listCategories(req.ctx)).categories });

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
      return answerRefusal(req, reply, s, err, (v, error) => productFormPage(req, v, { values, error }));
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
        return answerRefusal(req, reply, s, err, (v, error) =>
          productFormPage(req, v, { product, values, error }),
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
          return answerRefusal(req, reply, s, err, (v, error) => productsPage(req, v, { error }));
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

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/orders',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
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
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        ordersView(v, {
          status,
          toShip: toShip?.orders,
          orders: list.orders,
          pageNo,
          more: list.total > pageNo * PAGE_SIZE,
          done: done && t(v.p.locale, 'web.console.order.done', { done }),
        }),
      );
    },
  );

  /** An order's page, with the parcel's recipient (the order's address, as the seller ships it). */
  const orderPage = async (
    req: FastifyRequest,
    v: View,
    id: string,
    o: { error?: FormError; typed?: Body; done?: string } = {},
  ) => {
    const order = await shopOrder(req, id);
    return orderView(v, order, await parcelRecipient(req.ctx, order.id, order.sellerId), o);
  };

  app.get<{ Params: { orderId: string }; Querystring: Record<string, string | undefined> }>(
    '/console/orders/:orderId',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        await orderPage(req, v, req.params.orderId, {
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
          return answerRefusal(req, reply, s, err, (v, error) =>
            orderPage(req, v, id, { error, typed: req.body }),
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
    return returnsView(v, {
      ...o,
      waiting: waiting.returns,
      returns: list.returns,
      status,
      pageNo,
      more: list.total > pageNo * PAGE_SIZE,
    });
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
          return answerRefusal(req, reply, s, err, (v, error) =>
            returnsPage(req, v, { error, refused: req.params.returnId }),
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

  const shopPage = async (
    req: FastifyRequest,
    v: View,
    o: { values?: ShopForm; error?: FormError; done?: string } = {},
  ) => {
    const shop = (await withProfile(req.ctx, await deps.auth.me(req.ctx))).seller;
    const values = o.values ?? (Object.fromEntries(SHOP_FIELDS.map((k) => [k, shop?.[k] ?? ''])) as ShopForm);
    return shopView(v, { ...o, shop, values });
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
      return answerRefusal(req, reply, s, err, (v, error) => shopPage(req, v, { values, error }));
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
