// HTTP adapter of inventory: availability of a product (check_inventory).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { inventoryAnswer, inventoryQuery } from '../../contract/cart.ts';
import { productIdParams } from '../../contract/catalog.ts';
import { resolveVariant } from '../catalog/variants.ts';
import { checkInventory } from './service.ts';

export async function inventoryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/products/:productId/inventory',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags: ['catalog'],
        summary: 'Whether a quantity of a product can be bought now (check_inventory)',
        params: productIdParams,
        querystring: inventoryQuery,
        response: { 200: inventoryAnswer },
      },
    },
    async (req) => {
      const target = await resolveVariant(req.ctx, req.params.productId, req.query.variant);
      return checkInventory(req.ctx, { ...target, askedFor: req.params.productId }, req.query.quantity);
    },
  );
}
