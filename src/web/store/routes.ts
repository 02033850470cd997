// The storefront: search with facets (`/`), a product's page, the cart with its estimate for a
// province, and the checkout's address form, which opens the payment page (the sandbox's or
// Stripe's) exactly as POST /checkout does, or first the shipping step when a parcel ships more
// than one way (shipping-routes.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { addToCartBody, applyCouponBody } from '../../contract/cart.ts';
import { PROVINCES, type Province } from '../../contract/common.ts';
import { AppError } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import * as addresses from '../../modules/addresses/service.ts';
import { shopNames } from '../../modules/auth/sellers.ts';
import * as carts from '../../modules/cart/service.ts';
import { getProductWithWrittenOptions, listCategories } from '../../modules/catalog/service.ts';
import { resolveVariant } from '../../modules/catalog/variants.ts';
import { createCheckout } from '../../modules/checkout/service.ts';
import { lastShippingProvince } from '../../modules/orders/service.ts';
import { readAddress, typedAddress } from '../addresses/form.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, formErrorOf, readForm, sendHtml, shownRefusal } from '../layout.ts';
import { filtersOf, ID, readStoreQuery } from './search-query.ts';
import { paymentPathOf, storeShippingPages } from './shipping-routes.ts';
import { hasChoice, shippingPath } from './shipping-views.ts';
import { shopPages } from './shop-page.ts';
import { chooseVariant } from './variants.ts';
import {
  type CartPageOptions,
  type CheckoutForm,
  cartPage,
  checkoutPage,
  productPage,
  searchPage,
} from './views.ts';

const PAGE_SIZE = 24;
const BUYERS = ['buyer'] as const;

/** The sign-in page that, once the person is signed in, adds the line and comes back to its product. */
const signInToAdd = (productId: string, quantity: number) =>
  `/account/sign-in?${new URLSearchParams({
    next: `/shop/products/${productId}`,
    add: productId,
    quantity: String(quantity),
  })}`;

/**
 * The product's page; a seller sees it without the form that adds it to a cart. `query` chooses
 * the variant of a product with options (its option values by name, or `variant`).
 */
async function productAnswer(
  req: FastifyRequest,
  v: View,
  id: string,
  error?: FormError,
  added?: string,
  query: Record<string, unknown> = {},
) {
  const { product: p, writtenOptions } = await getProductWithWrittenOptions(req.ctx, id);
  return productPage(v, p, {
    canBuy: v.user?.role !== 'seller',
    error,
    added,
    choice: chooseVariant(p, query, writtenOptions),
  });
}

/** The cart, estimated for the province the page asks (`?province=QC`), else the cart's own. */
async function cartAnswer(req: FastifyRequest, v: View, o: CartPageOptions = {}) {
  const q = req.query as { province?: string; added?: string };
  const province = (PROVINCES as readonly string[]).includes(q.province ?? '')
    ? (q.province as Province)
    : undefined;
  const cart = await carts.getCart(req.ctx, { province });
  return cartPage(v, cart, { added: Boolean(q.added), ...o });
}

/** The checkout's form as typed (or filled from a saved address), with the saved addresses to pick from. */
async function checkoutAnswer(
  req: FastifyRequest,
  v: View,
  typed: CheckoutForm,
  saved: readonly addresses.SavedAddress[],
  error?: FormError,
) {
  const cart = await carts.getCart(req.ctx);
  return checkoutPage(v, { cart, typed, saved, canSave: saved.length < addresses.MAX_ADDRESSES, error });
}

export function storePages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  storeShippingPages(app, deps);
  shopPages(app, deps);

  app.get('/', { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } }, async (req, reply) => {
    const v = viewOf(req, reply, s);
    const q = readStoreQuery(req.query);
    if (!q) throw new AppError('VALIDATION_ERROR', 400, text('web.error.badRequest'));
    const found = await deps.search.search(req.ctx, {
      q: q.q,
      filters: filtersOf(q),
      sort: q.sort,
      limit: PAGE_SIZE,
      offset: ((q.page ?? 1) - 1) * PAGE_SIZE,
    });
    const [{ categories }, shopName] = await Promise.all([
      listCategories(req.ctx),
      shopNames(req.ctx, Object.keys(found.facets.sellerId)),
    ]);
    const categoryName = new Map(categories.map((c) => [c.id, c.name]));
    return sendHtml(reply, searchPage(v, { q, found, categoryName, shopName, pageSize: PAGE_SIZE }));
  });

  app.get<{ Params: { productId: string } }>(
    '/shop/products/:productId',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const v = viewOf(req, reply, s);
      const query = req.query as Record<string, unknown>;
      const added = typeof query.added === 'string' ? query.added : undefined;
      const id = req.params.productId;
      // A variant's own id (where the sign-in comes back after adding it): its product, it chosen.
      if (id.startsWith('variants:')) {
        const { productId, variantId } = await resolveVariant(req.ctx, id, undefined);
        const to = new URLSearchParams({ variant: variantId, ...(added ? { added } : {}) });
        return seeOther(reply, `/shop/products/${encodeURIComponent(productId)}?${to}`);
      }
      return sendHtml(reply, await productAnswer(req, v, id, undefined, added, query));
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
          product_id: req.body.variant || req.body.product_id,
          quantity: Number(req.body.quantity),
        });
        if (wanted.success) return seeOther(reply, signInToAdd(wanted.data.product_id, wanted.data.quantity));
      }
      signedIn(req, BUYERS);
      try {
        const input = readForm(addToCartBody, {
          product_id: req.body.product_id,
          quantity: Number(req.body.quantity),
          ...(req.body.variant ? { variant: req.body.variant } : {}),
        });
        await carts.addToCart(req.ctx, input);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const id = String(req.body.product_id ?? '');
        if (!ID.test(id)) throw err;
        return sendHtml(
          reply,
          await productAnswer(req, v, id, formErrorOf(v.p.locale, err), undefined, {
            variant: req.body.variant,
          }),
          err.statusCode,
        );
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
      return sendHtml(reply, await cartAnswer(req, v));
    },
  );

  app.post<{ Params: { productId: string }; Body: Record<string, string> }>(
    '/shop/cart/items/:productId',
    { config: { auth: 'public', limit: 'cart' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      try {
        const wanted = readForm(
          z.object({ quantity: z.coerce.number().int().min(0).max(99) }),
          req.body,
        ).quantity;
        await carts.setCartQuantity(req.ctx, req.params.productId, wanted);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) => cartAnswer(req, v, { error }));
      }
      return seeOther(reply, '/shop/cart');
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/shop/cart/coupon',
    { config: { auth: 'public', limit: 'cart' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      try {
        if (req.body.remove) await carts.removeCoupon(req.ctx);
        else await carts.applyCoupon(req.ctx, readForm(applyCouponBody, { code: req.body.code }).code);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, couponError) =>
          cartAnswer(req, v, { couponError, code: req.body.code }),
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
        : {
            province: (await lastShippingProvince(req.ctx, user.id)) ?? '',
            save: saved.length === 0,
          };
      return sendHtml(reply, await checkoutAnswer(req, v, typed, saved));
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/shop/checkout',
    { config: { auth: 'public', limit: 'checkout' }, schema: { hide: true } },
    async (req, reply) => {
      const user = signedIn(req, BUYERS);
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
        // A parcel that ships more than one way: the buyer chooses first (shipping-routes.ts).
        if (hasChoice(session)) return seeOther(reply, shippingPath(session.sessionId));
        return seeOther(reply, paymentPathOf(session.sessionUrl, deps.commerce.publicBaseUrl));
      } catch (err) {
        return answerRefusal(req, reply, s, err, async (v, error) =>
          checkoutAnswer(req, v, typed, await addresses.listAddresses(req.ctx, user.id), error),
        );
      }
    },
  );
}
