// HTTP adapter of the cart (coupons applied included); answers are the agent tools' output shapes.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  addToCartAnswer,
  addToCartBody,
  applyCouponAnswer,
  applyCouponBody,
  cart,
  cartItemParams,
  removeFromCartAnswer,
  removeFromCartQuery,
  setCartQuantityBody,
} from '../../contract/cart.ts';
import * as carts from './service.ts';

const tags = ['cart'];

export async function cartRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/cart',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: {
        tags,
        summary: 'The cart with its estimate (get_cart)',
        response: { 200: cart },
      },
    },
    async (req) => carts.getCart(req.ctx),
  );

  app.post(
    '/cart/items',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: {
        tags,
        summary: 'Add units of a product (add_to_cart)',
        body: addToCartBody,
        response: { 200: addToCartAnswer },
      },
    },
    async (req) => carts.addToCart(req.ctx, req.body),
  );

  app.delete(
    '/cart/items/:productId',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: {
        tags,
        summary: 'Remove units of a product, all of them without quantity (remove_from_cart)',
        params: cartItemParams,
        querystring: removeFromCartQuery,
        response: { 200: removeFromCartAnswer },
      },
    },
    async (req) => carts.removeFromCart(req.ctx, req.params.productId, req.query.quantity, req.query.variant),
  );

  app.put(
    '/cart/items/:productId',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: {
        tags,
        summary: "Set a line's quantity, 0 removing it; answers the cart (the cart view's buttons)",
        params: cartItemParams,
        body: setCartQuantityBody,
        response: { 200: cart },
      },
    },
    async (req) => {
      await carts.setCartQuantity(req.ctx, req.params.productId, req.body.quantity);
      return carts.getCart(req.ctx);
    },
  );

  app.post(
    '/cart/coupon',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: {
        tags,
        summary: 'Apply a coupon code, any case (apply_coupon)',
        body: applyCouponBody,
        response: { 200: applyCouponAnswer },
      },
    },
    async (req) => carts.applyCoupon(req.ctx, req.body.code),
  );

  app.delete(
    '/cart/coupon',
    {
      config: { auth: ['buyer'], limit: 'cart', scope: 'shop' },
      schema: { tags, summary: 'Remove the coupon', response: { 200: cart } },
    },
    async (req) => carts.removeCoupon(req.ctx),
  );
}
