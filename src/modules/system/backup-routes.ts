// POST /admin/backup: the embedded database, copied by the service that holds it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/index.ts';
import { backupFileName, createBackups } from './backups.ts';

export function backupRoutes(database: Database) {
  const backups = createBackups(database);
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/admin/backup',
      {
        config: { auth: ['admin'], limit: 'backups' },
        schema: {
          tags: ['admin'],
          summary:
            'A consistent copy of the embedded database while the service runs (a gzipped tarball PGlite opens); 409 on PostgreSQL',
          response: {
            200: {
              description: 'The copy (`Content-Disposition: attachment`)',
              content: {
                'application/gzip': { schema: z.any().describe('The tar.gz of the data directory') },
              },
            },
          },
        },
      },
      async (req, reply) => {
        const archive = await backups.take(req.ctx);
        return reply
          .header('content-type', 'application/gzip')
          .header('content-disposition', `attachment; filename="${backupFileName(req.ctx.now())}"`)
          .header('cache-control', 'no-store')
          .send(archive);
      },
    );
  };
}
