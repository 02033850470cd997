// HTTP adapter of the catalog's CSV import and export. Registered in its own scope: its
// text/csv parser hands the body over as a stream, bounded by the import itself.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { exportQuery, importQuery, importReport } from '../../contract/catalog.ts';
import { AppError, invalid } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import { exportProducts, importProducts, MAX_IMPORT_BYTES } from './csv.ts';

const tags = ['catalog'];

export async function csvRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.addContentTypeParser('text/csv', (req, payload, done) => {
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > MAX_IMPORT_BYTES) {
      return done(
        new AppError(
          'VALIDATION_ERROR',
          413,
          text('error.catalog.importTooLarge', { mb: MAX_IMPORT_BYTES / 1024 / 1024 }),
        ),
        undefined,
      );
    }
    // Not enumerable: the checks that walk every body (src/http/input.ts, idempotency) see `{}`.
    done(null, Object.defineProperty({}, 'stream', { value: payload, enumerable: false }));
  });

  app.post(
    '/products/import',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary:
          "Import products and variants from a CSV body (text/csv, up to 50 MB) into the caller's catalog",
        querystring: importQuery,
        response: { 200: importReport },
      },
    },
    async (req) => {
      const stream = (req.body as { stream?: AsyncIterable<Buffer> } | undefined)?.stream;
      if (!stream) throw invalid('error.catalog.importBody');
      return importProducts(req.ctx, stream, req.query);
    },
  );

  app.get(
    '/products/export.csv',
    {
      config: { auth: ['seller'], limit: 'productWrites' },
      schema: {
        tags,
        summary: "The caller's products and variants as CSV, one row per variant (re-importable)",
        querystring: exportQuery,
      },
    },
    async (req, reply) => {
      const stream = await exportProducts(req.ctx, req.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="products.csv"')
        .send(stream);
    },
  );
}
