// Health and the machine-readable API reference.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/index.ts';

export function systemRoutes(database: Database) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/health',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['system'],
          summary: 'Liveness and database reachability',
          response: {
            200: z.object({ status: z.literal('ok') }),
            503: z.object({
              status: z.literal('unavailable'),
              error: z.string(),
              code: z.literal('INTERNAL_ERROR'),
              statusCode: z.literal(503),
            }),
          },
        },
      },
      async (_req, reply) => {
        if (await database.ping()) return { status: 'ok' as const };
        return reply.code(503).send({
          status: 'unavailable' as const,
          error: 'The database does not answer',
          code: 'INTERNAL_ERROR' as const,
          statusCode: 503 as const,
        });
      },
    );

    app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
      fastify.swagger(),
    );
  };
}
