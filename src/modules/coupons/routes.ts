// HTTP adapter of coupons and discounts: admins make the platform's coupons, sellers their
// shop's coupons and automatic discount (buyers apply coupons through the cart).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  coupon,
  createCouponBody,
  shopCouponsAnswer,
  shopDiscountAnswer,
  shopDiscountBody,
} from '../../contract/cart.ts';
import { notFound } from '../../contract/errors.ts';
import { caller } from '../context.ts';
import {
  createCoupon,
  getShopDiscount,
  listCoupons,
  MAX_SHOP_COUPONS,
  removeShopDiscount,
  setShopDiscount,
} from './service.ts';

export async function couponRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/admin/coupons',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Create a coupon: percent or fixed amount, minimum, expiry, limits, terms',
        body: createCouponBody,
        response: { 201: coupon },
      },
    },
    async (req, reply) => reply.code(201).send(await createCoupon(req.ctx, req.body)),
  );

  app.post(
    '/sellers/me/coupons',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags: ['sellers'],
        summary: "Create one of the shop's coupons: on its items only, paid by the shop",
        body: createCouponBody,
        response: { 201: coupon },
      },
    },
    async (req, reply) => reply.code(201).send(await createCoupon(req.ctx, req.body, caller(req.ctx).id)),
  );

  app.get(
    '/sellers/me/coupons',
    {
      config: { auth: ['seller'] },
      schema: {
        tags: ['sellers'],
        summary: "The shop's coupons, newest first, each with its redemptions",
        response: { 200: shopCouponsAnswer },
      },
    },
    async (req) => ({ coupons: await listCoupons(req.ctx, MAX_SHOP_COUPONS, caller(req.ctx).id) }),
  );

  app.get(
    '/sellers/me/automatic-discount',
    {
      config: { auth: ['seller'] },
      schema: {
        tags: ['sellers'],
        summary: "The shop's automatic discount, or null",
        response: { 200: shopDiscountAnswer },
      },
    },
    async (req) => ({ discount: await getShopDiscount(req.ctx, caller(req.ctx).id) }),
  );

  app.put(
    '/sellers/me/automatic-discount',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags: ['sellers'],
        summary: "Set the shop's automatic discount: a percent off its items over a minimum",
        body: shopDiscountBody,
        response: { 200: shopDiscountAnswer },
      },
    },
    async (req) => ({ discount: await setShopDiscount(req.ctx, caller(req.ctx).id, req.body) }),
  );

  app.delete(
    '/sellers/me/automatic-discount',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags: ['sellers'],
        summary: "End the shop's automatic discount",
        response: { 200: shopDiscountAnswer },
      },
    },
    async (req) => {
      if (!(await removeShopDiscount(req.ctx, caller(req.ctx).id))) throw notFound('error.discount.none');
      return { discount: null };
    },
  );
}
