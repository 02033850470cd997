// HTTP adapter of shops' pages (docs/api.md "Shops"): a shop as anyone reads it, and the seller's
// own writing of it; admins' approval queue and their moves of a shop's state (status.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  myShopAnswer,
  putShopBody,
  SHOP_ACTIONS,
  shopAnswer,
  shopReasonBody,
  shopSellerParams,
  shopStateAnswer,
  shopsList,
  shopsQuery,
} from '../../contract/shops.ts';
import * as service from './service.ts';
import { listShops, moveShop, shopStateOf } from './status.ts';

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

    app.get(
      '/admin/shops',
      {
        config: { auth: ['admin'] },
        schema: {
          tags: ['admin'],
          summary: 'Shops pending approval (oldest first) or suspended (newest first), a page of them',
          querystring: shopsQuery,
          response: { 200: shopsList },
        },
      },
      async (req) => listShops(req.ctx, req.query),
    );

    app.get(
      '/admin/shops/:sellerId',
      {
        config: { auth: ['admin'] },
        schema: {
          tags: ['admin'],
          summary: "A shop's state, by its seller's id",
          params: shopSellerParams,
          response: { 200: shopStateAnswer },
        },
      },
      async (req) => shopStateOf(req.ctx, req.params.sellerId),
    );

    for (const action of SHOP_ACTIONS) {
      const withReason = action === 'suspend' || action === 'refuse';
      app.post(
        `/admin/shops/:sellerId/${action}`,
        {
          config: { auth: ['admin'] },
          schema: {
            tags: ['admin'],
            summary: {
              approve: 'Approve a shop pending approval: its products go on sale',
              refuse: 'Refuse a shop pending approval, with the reason told to its seller',
              suspend:
                'Suspend a shop: its products leave search and the protocols at once; open orders continue',
              reinstate: 'Reinstate a suspended shop: its products are on sale again',
            }[action],
            params: shopSellerParams,
            ...(withReason ? { body: shopReasonBody } : {}),
            response: { 200: shopStateAnswer },
          },
        },
        async (req) =>
          moveShop(
            req.ctx,
            req.params.sellerId,
            action,
            withReason ? (req.body as { reason: string }).reason : null,
          ),
      );
    }
  };
}
