// HTTP adapter of analytics: the platform's figures for admins (get_analytics) and a seller's
// own. GET /sellers/me/analytics lives here: there is no sellers module, and its rules are these.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { analyticsAnswer, analyticsQuery } from '../../contract/analytics.ts';
import * as analytics from './service.ts';

const tags = ['analytics'];

export async function analyticsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/admin/analytics',
    {
      config: { auth: ['admin'], limit: 'analytics', scope: 'analytics' },
      schema: {
        tags,
        summary: "The platform's figures for a window of days (get_analytics, admins)",
        querystring: analyticsQuery,
        response: { 200: analyticsAnswer },
      },
    },
    async (req) => analytics.platformAnalytics(req.ctx, req.query),
  );

  app.get(
    '/sellers/me/analytics',
    {
      config: { auth: ['seller'], limit: 'analytics' },
      schema: {
        tags,
        summary: 'Your shop’s figures for a window of days (sellers)',
        querystring: analyticsQuery,
        response: { 200: analyticsAnswer },
      },
    },
    async (req) => analytics.sellerAnalytics(req.ctx, req.query),
  );
}
