// HTTP adapter of checkout: POST /checkout (create_checkout) and GET /checkout/:sessionId.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { checkoutParams, checkoutSession, createCheckoutBody } from '../../contract/checkout.ts';
import { type CheckoutDeps, createCheckout, getCheckout } from './service.ts';

const tags = ['checkout'];

export function checkoutRoutes(deps: CheckoutDeps & { publishableKey: string }) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/checkout',
      {
        config: { auth: ['buyer'], limit: 'checkout' },
        schema: {
          tags,
          summary:
            'Open a checkout session for the cart (create_checkout): prices it for the address, holds the stock for 30 minutes; no order exists until payment',
          body: createCheckoutBody,
          response: { 200: checkoutSession, 201: checkoutSession },
        },
      },
      async (req, reply) => {
        const { session, created } = await createCheckout(req.ctx, deps, req.body);
        return reply.code(created ? 201 : 200).send(session);
      },
    );

    app.get(
      '/checkout/:sessionId',
      {
        config: { auth: ['buyer'], limit: 'orders' },
        schema: {
          tags,
          summary: 'A checkout session of yours, with its orders once paid',
          params: checkoutParams,
          response: { 200: checkoutSession },
        },
      },
      async (req) => getCheckout(req.ctx, deps.publishableKey, req.params.sessionId),
    );
  };
}
