// HTTP adapter of the admins' lists (docs/api.md "Orders and users for admins"): orders and users,
// searched, filtered and paged, and an order's and a user's history. Admins only.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminOrderAnswer,
  adminOrderList,
  adminOrdersQuery,
  adminUserAnswer,
  adminUserList,
  adminUsersQuery,
} from '../../contract/desk.ts';
import * as service from './service.ts';

const tags = ['admin'];
const idParams = z.object({ id: z.string().max(100) });

export async function adminListRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/admin/orders',
    {
      config: { auth: ['admin'] },
      schema: {
        tags,
        summary:
          'Orders, newest first: searched by number or buyer email, filtered by status, days, province, shop',
        querystring: adminOrdersQuery,
        response: { 200: adminOrderList },
      },
    },
    async (req) => service.adminOrders(req.ctx, req.query),
  );

  app.get(
    '/admin/orders/:id',
    {
      config: { auth: ['admin'] },
      schema: {
        tags,
        summary: 'An order with its buyer, shop, refunds, returns and history',
        params: idParams,
        response: { 200: adminOrderAnswer },
      },
    },
    async (req) => service.adminOrder(req.ctx, req.params.id),
  );

  app.get(
    '/admin/users',
    {
      config: { auth: ['admin'] },
      schema: {
        tags,
        summary: "Users: searched by an email's or a name's beginning, filtered by role and suspension",
        querystring: adminUsersQuery,
        response: { 200: adminUserList },
      },
    },
    async (req) => service.adminUsers(req.ctx, req.query),
  );

  app.get(
    '/admin/users/:id',
    {
      config: { auth: ['admin'] },
      schema: {
        tags,
        summary: 'A user with their shop, orders, returns, reviews and the admins’ actions on them',
        params: idParams,
        response: { 200: adminUserAnswer },
      },
    },
    async (req) => service.adminUser(req.ctx, req.params.id),
  );
}
