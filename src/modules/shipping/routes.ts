// HTTP adapter of a seller's shipping profile (docs/shipping.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { shippingProfileAnswer, shippingProfileBody } from '../../contract/shipping.ts';
import * as shipping from './service.ts';

const tags = ['shipping'];

export async function shippingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/sellers/me/shipping',
    {
      config: { auth: ['seller'] },
      schema: {
        tags,
        summary: 'Your shipping profile (404 while your parcels ship at the platform’s flat rate)',
        response: { 200: shippingProfileAnswer },
      },
    },
    async (req) => shipping.getShippingProfile(req.ctx),
  );

  app.put(
    '/sellers/me/shipping',
    {
      config: { auth: ['seller'] },
      schema: {
        tags,
        summary:
          'Set your shipping profile: where parcels leave from, handling days, carrier services or a flat rate',
        description:
          'A whole profile: what is not sent takes its default. Buyers then choose among its options per parcel ' +
          '(docs/shipping.md); checkouts already open keep the options they were priced with.',
        body: shippingProfileBody,
        response: { 200: shippingProfileAnswer },
      },
    },
    async (req) => shipping.putShippingProfile(req.ctx, req.body),
  );

  app.delete(
    '/sellers/me/shipping',
    {
      config: { auth: ['seller'] },
      schema: {
        tags,
        summary: 'Remove your shipping profile: your parcels ship at the platform’s flat rate again',
        response: { 204: z.null() },
      },
    },
    async (req, reply) => {
      await shipping.deleteShippingProfile(req.ctx);
      return reply.code(204).send(null);
    },
  );
}
