// The seller's console: the overview, the shop's products (create, edit, publish, unpublish,
// delete), the shop's identity on invoices, and the sales with charts; its orders and returns are
// registered from order-routes.ts. Each handler reads its form, calls the services the API's
// routes call (src/modules/*/routes.ts) with the API's own schemas, so that a refusal says what
// the API's 400 would, and chooses the answer; the markup is in the views.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { analyticsQuery } from '../../contract/analytics.ts';
import { sellerInvoiceBody } from '../../contract/auth.ts';
import {
  createProductBody,
  listProductsQuery,
  PRODUCT_STATUSES,
  updateProductBody,
} from '../../contract/catalog.ts';
import { t } from '../../contract/i18n.ts';
import { lowStockBody } from '../../contract/notifications.ts';
import { listOrdersQuery } from '../../contract/orders.ts';
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
import { listImages } from '../../modules/images/service.ts';
import { myThresholds, setMyThreshold } from '../../modules/notifications/service.ts';
import * as orders from '../../modules/orders/service.ts';
import * as returns from '../../modules/returns/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { dashboardBody, PERIODS } from '../dashboard/views.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { consoleDiscountPages } from './discount-routes.ts';
import {
  type Body,
  doneOf,
  formOfBody,
  formOfProduct,
  one,
  onProductForm,
  PAGE_SIZE,
  type ProductForm,
  pageNoOf,
  productBody,
  refuseBlockedImage,
  SHOP_FIELDS,
  type ShopForm,
} from './form.ts';
import { consoleImagePages, IMAGE_DONE } from './image-routes.ts';
import { galleryView } from './image-views.ts';
import { consoleImportPages } from './import-routes.ts';
import { consoleNotificationPages } from './notification-routes.ts';
import { lowStockForm } from './notification-views.ts';
import { consoleOrderPages } from './order-routes.ts';
import { consolePayoutPages } from './payout-routes.ts';
import { productFormView, productsView } from './product-views.ts';
import { consoleShippingPages } from './shipping-routes.ts';
import { consoleShopPageForm, type ShopPageForm, shopPageForm, shopPageFormOf } from './shop-page-form.ts';
import {
  onTheForm,
  refuseTwice,
  type VariantsForm,
  variantsBody,
  variantsFormOf,
  variantsFormOfBody,
} from './variant-form.ts';
import { variantsFormView } from './variant-views.ts';
import { consolePage, overviewView, productPath, shopView } from './views.ts';

const SELLERS = ['seller'] as const;

type Detail = Awaited<ReturnType<typeof getOwnProduct>>;

const PRODUCT_DONE = ['created', 'saved', 'published', 'unpublished', 'deleted', 'lowStock'] as const;

export function consolePages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = (limit: 'productWrites' | 'orders' | 'returns') =>
    ({ config: { auth: 'public', limit }, schema: { hide: true } }) as const;

  /** The caller's product (any, for an admin); another seller's is not there for them (404). */
  const ownProduct = (req: FastifyRequest, id: string) => {
    signedIn(req, SELLERS);
    return getOwnProduct(req.ctx, id);
  };

  consoleOrderPages(app, deps);
  consoleImportPages(app, deps);
  consoleShippingPages(app, deps);
  consoleDiscountPages(app, deps);
  consolePayoutPages(app, deps);
  consoleNotificationPages(app, deps);

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
    const q = req.query as Record<string, string | undefined>;
    const pageNo = pageNoOf(q.page);
    // The list's filters: what GET /products takes, anything else left out.
    const filters = {
      search: one(q.search)?.trim().slice(0, 200) || undefined,
      status: PRODUCT_STATUSES.find((x) => x === q.status),
      categoryId: one(q.categoryId) || undefined,
    };
    const list = await listProducts(
      req.ctx,
      listProductsQuery.parse({
        sellerId: me.id,
        ...filters,
        limit: PAGE_SIZE,
        offset: (pageNo - 1) * PAGE_SIZE,
      }),
    );
    return productsView(v, {
      ...o,
      products: list.products,
      pageNo,
      more: list.total > pageNo * PAGE_SIZE,
      filters,
      categories: (await listCategories(req.ctx)).categories,
    });
  };

  const productFormPage = async (
    req: FastifyRequest,
    v: View,
    o: {
      product?: Detail;
      values: ProductForm;
      error?: FormError;
      done?: string;
      /** The options and variants as typed, with their refusal (the edit page). */
      variants?: { form: VariantsForm; error?: FormError };
      /** The low-stock threshold as typed, with its refusal. */
      lowStock?: { threshold: string; error: FormError };
    },
  ) =>
    productFormView(v, {
      ...o,
      categories: (await listCategories(req.ctx)).categories,
      variants:
        o.product &&
        variantsFormView(
          v,
          o.product.id,
          o.variants?.form ?? variantsFormOf(v.p.locale, o.product),
          o.variants?.error,
        ),
      gallery: o.product && (await galleryOf(req, v, o.product.id)),
      lowStock: o.product && (await lowStockOf(req, v, o.product.id, o.lowStock)),
    });

  /** The product page's low-stock form: the threshold as typed after a refusal, else the one set. */
  const lowStockOf = async (
    req: FastifyRequest,
    v: View,
    productId: string,
    typed?: { threshold: string; error: FormError },
  ) => {
    if (typed) return lowStockForm(v, productId, typed.threshold, typed.error);
    const [set] = (await myThresholds(req.ctx, [productId])).thresholds;
    return lowStockForm(v, productId, set ? String(set.threshold) : '');
  };

  /** The product page's gallery: its images, the last gallery form's outcome or refusal. */
  const galleryOf = async (req: FastifyRequest, v: View, productId: string, error?: FormError) => {
    const done = doneOf(IMAGE_DONE, (req.query as { image?: string }).image);
    return galleryView(v, {
      productId,
      images: (await listImages(req.ctx, deps.images, productId)).images,
      done: done && t(v.p.locale, 'web.console.images.done', { done }),
      error,
    });
  };
  consoleImagePages(app, deps, async (req, v, productId, error) => {
    const product = await ownProduct(req, productId);
    return productFormView(v, {
      product,
      values: formOfProduct(v.p.locale, product),
      categories: (await listCategories(req.ctx)).categories,
      variants: variantsFormView(v, product.id, variantsFormOf(v.p.locale, product)),
      gallery: await galleryOf(req, v, productId, error),
    });
  });

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
    // A new product is written in the console's language unless the seller chooses the other.
    const values = { ...formOfBody({}, v.p.locale), stockQuantity: '0', status: 'active' };
    return sendHtml(reply, await productFormPage(req, v, { values }));
  });

  app.post<{ Body: Body }>('/console/products/new', postRoute('productWrites'), async (req, reply) => {
    signedIn(req, SELLERS);
    const values = formOfBody(req.body, req.ctx.locale ?? undefined);
    try {
      refuseBlockedImage(values, deps.commerce.publicBaseUrl);
      await createProduct(req.ctx, readForm(createProductBody, productBody(values)));
    } catch (err) {
      return answerRefusal(req, reply, s, onProductForm(err), (v, error) =>
        productFormPage(req, v, { values, error }),
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
      const values = { ...formOfBody(req.body), language: product.sourceLanguage };
      try {
        refuseBlockedImage(values, deps.commerce.publicBaseUrl);
        await updateProduct(req.ctx, id, readForm(updateProductBody, productBody(values, product)));
      } catch (err) {
        return answerRefusal(req, reply, s, onProductForm(err), (v, error) =>
          productFormPage(req, v, { product, values, error }),
        );
      }
      return seeOther(reply, `${productPath(id)}?done=saved`);
    },
  );

  // The edit page's low-stock form (PUT /sellers/me/low-stock-thresholds/:productId): empty is none.
  app.post<{ Params: { productId: string }; Body: Body }>(
    '/console/products/:productId/low-stock',
    postRoute('productWrites'),
    async (req, reply) => {
      const id = req.params.productId;
      const product = await ownProduct(req, id);
      const typed = one(req.body.threshold).trim().slice(0, 20);
      try {
        const { threshold } = readForm(lowStockBody, { threshold: typed === '' ? null : Number(typed) });
        await setMyThreshold(req.ctx, id, threshold);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          productFormPage(req, v, {
            product,
            values: formOfProduct(v.p.locale, product),
            lowStock: { threshold: typed, error },
          }),
        );
      }
      return seeOther(reply, `${productPath(id)}?done=lowStock#low-stock`);
    },
  );

  // The edit page's second form: the options and the whole set of variants, one PATCH.
  app.post<{ Params: { productId: string }; Body: Body }>(
    '/console/products/:productId/variants',
    postRoute('productWrites'),
    async (req, reply) => {
      const id = req.params.productId;
      const product = await ownProduct(req, id);
      const form = variantsFormOfBody(req.body);
      const { body, sent, places } = variantsBody(form);
      try {
        try {
          const change = readForm(updateProductBody, body);
          refuseTwice(form, sent, places);
          await updateProduct(req.ctx, id, change);
        } catch (err) {
          throw onTheForm(err, sent, places);
        }
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          productFormPage(req, v, {
            product,
            values: formOfProduct(v.p.locale, product),
            variants: { form, error },
          }),
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

  // ---- the shop ----------------------------------------------------------------------------

  const shopPage = async (
    req: FastifyRequest,
    v: View,
    o: {
      values?: ShopForm;
      error?: FormError;
      done?: string;
      /** The shop page's form as typed, with its refusal. */
      pageForm?: { values: ShopPageForm; error: FormError };
    } = {},
  ) => {
    const shop = (await withProfile(req.ctx, await deps.auth.me(req.ctx))).seller;
    const values = o.values ?? (Object.fromEntries(SHOP_FIELDS.map((k) => [k, shop?.[k] ?? ''])) as ShopForm);
    const page = shop ? await shopPageFormOf(req) : undefined;
    return shopView(v, {
      ...o,
      shop,
      values,
      pageForm:
        page &&
        shopPageForm(v, {
          path: page.path,
          values: o.pageForm?.values ?? page.values,
          ...(o.pageForm ? { error: o.pageForm.error } : {}),
        }),
    });
  };
  consoleShopPageForm(app, deps, shopPage);

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/shop',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await shopPage(req, v, {
          done:
            req.query.done === 'saved'
              ? t(v.p.locale, 'web.console.shop.saved')
              : req.query.done === 'page'
                ? t(v.p.locale, 'web.console.shop.pageSaved')
                : undefined,
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
