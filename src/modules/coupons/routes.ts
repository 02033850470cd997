// HTTP adapter of coupons: admins create them (buyers apply them through the cart).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { coupon, createCouponBody } from '../../contract/cart.ts';
import { createCoupon } from './service.ts';

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
}
