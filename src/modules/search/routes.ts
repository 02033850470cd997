// HTTP adapter of product search.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { searchAnswer, searchQuery } from '../../contract/catalog.ts';
import { unchecked } from '../../http/route-defaults.ts';
import type { SearchEngine } from './service.ts';

export const searchRoutes = (engine: SearchEngine) => async (fastify: FastifyInstance) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/search/products',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags: ['catalog'],
        summary: 'Full-text product search with filters and facets (active products only)',
        querystring: searchQuery,
        response: { 200: searchAnswer },
      },
      serializerCompiler: unchecked,
    },
    async (req) => engine.search(req.ctx, req.query),
  );
};
