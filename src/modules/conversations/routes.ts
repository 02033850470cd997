// HTTP adapter of an order's messages (docs/api.md "Messages"): read by its buyer, its seller or an
// admin; written by its buyer or its seller. An agent acting for one of them needs the `orders`
// scope, as for the order itself.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { orderMessage, orderMessageList, sendMessageBody } from '../../contract/order-messages.ts';
import { orderParams } from '../../contract/orders.ts';
import * as service from './service.ts';

const tags = ['orders'];

export function conversationRoutes(deps: { publicBaseUrl: string }) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/orders/:orderId/messages',
      {
        config: { auth: 'user', limit: 'orders', scope: 'orders' },
        schema: {
          tags,
          summary: "The messages between an order's buyer and its seller, oldest first",
          params: orderParams,
          response: { 200: orderMessageList },
        },
      },
      async (req) => service.messagesOf(req.ctx, req.params.orderId),
    );

    app.post(
      '/orders/:orderId/messages',
      {
        config: { auth: 'user', limit: 'messages', scope: 'orders' },
        schema: {
          tags,
          summary: 'Write to the other side of your order (its buyer or its seller), who is told by email',
          params: orderParams,
          body: sendMessageBody,
          response: { 201: orderMessage },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.sendMessage(req.ctx, deps, req.params.orderId, req.body.body)),
    );
  };
}
