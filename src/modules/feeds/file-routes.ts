// HTTP adapter of the file feed (docs/acp.md "File feed"): a file at its signed URL (no sign-in:
// the signature is the permission), and an admin's view of a platform's links. A platform's own
// links are GET /acp/feed, among the ACP routes (acp/routes.ts).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../contract/errors.ts';
import { feedFileParams, feedFileQuery, feedFiles } from '../../contract/feeds.ts';
import { platformParams } from '../../contract/platforms.ts';
import { type FeedLinkDeps, openFeedFile, platformFeedFileLinks } from './file-links.ts';

export function fileFeedRoutes(deps: FeedLinkDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/feeds/files/:name',
      {
        config: { auth: 'public', limit: 'feedFiles' },
        schema: {
          tags: ['acp'],
          summary: 'A file of the file feed, at the signed URL GET /acp/feed gave (no sign-in)',
          params: feedFileParams,
          querystring: feedFileQuery,
          response: {
            200: {
              description: 'The gzipped file, streamed (Content-Length set)',
              content: { 'application/gzip': { schema: z.any().describe('gzip of JSON Lines or CSV') } },
            },
            403: errorBody,
            404: errorBody,
          },
        },
      },
      async (req, reply) => {
        const { stream, bytes } = await openFeedFile(req.ctx, deps, req.params.name, req.query);
        return reply
          .header('content-type', 'application/gzip')
          .header('content-length', String(bytes))
          .header('content-disposition', `attachment; filename="${req.params.name}"`)
          .header('cache-control', 'private, no-store')
          .send(stream);
      },
    );

    app.get(
      '/admin/platforms/:id/feed-files',
      {
        config: { auth: ['admin'], limit: 'productWrites' },
        schema: {
          tags: ['admin'],
          summary: "A platform's links to the file feed's current files, as GET /acp/feed answers it",
          params: platformParams,
          response: { 200: feedFiles },
        },
      },
      async (req) => platformFeedFileLinks(req.ctx, deps, req.params.id),
    );
  };
}
