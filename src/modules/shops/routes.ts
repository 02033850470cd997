// HTTP adapter of shops' pages (docs/api.md "Shops"): a shop as anyone reads it, and the seller's
// own writing of it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { myShopAnswer, putShopBody, shopAnswer } from '../../contract/shops.ts';
import * as service from './service.ts';

const tags = ['shops'];

export function shopRoutes(deps: { publicBaseUrl: string }) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/shop-pages/:shop',
      {
        config: { auth: 'public', limit: 'search' },
        schema: {
          tags,
          summary:
            "A shop: its name, logo, province, rating, description and policies in the reader's language",
          description: 'By its slug (`maple-goods`) or its seller id (`users:…`); anything else is 404.',
          params: z.object({ shop: z.string().max(200) }),
          response: { 200: shopAnswer },
        },
      },
      async (req) => service.getShop(req.ctx, req.params.shop, deps.publicBaseUrl),
    );

    app.get(
      '/sellers/me/shop',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: "Your shop's page as you wrote it, both languages",
          response: { 200: myShopAnswer },
        },
      },
      async (req) => service.myShop(req.ctx),
    );

    app.put(
      '/sellers/me/shop',
      {
        config: { auth: ['seller'], limit: 'productWrites' },
        schema: {
          tags,
          summary: "Write your shop's page: its logo, and by language its description and policies",
          description: 'The whole page: a language left out (or all empty) is cleared.',
          body: putShopBody,
          response: { 200: myShopAnswer },
        },
      },
      async (req) => service.saveMyShop(req.ctx, req.body),
    );
  };
}
