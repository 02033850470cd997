// GET /images/:name: the images the service serves itself. An SVG could carry script; its own
// CSP makes it inert even when opened on its own, and nosniff keeps it an image.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../contract/errors.ts';
import { findImage } from './service.ts';

const NAME = /^[a-z0-9-]{1,100}\.svg$/;
/** No script, no fetch, no frame: only the SVG's own inline styles. */
const INERT = "default-src 'none'; style-src 'unsafe-inline'";

export function imageRoutes(app: FastifyInstance) {
  app.get<{ Params: { name: string } }>(
    '/images/:name',
    { config: { auth: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const name = req.params.name;
      const image = NAME.test(name) ? await findImage(req.ctx.db, name) : undefined;
      if (!image) throw notFound('error.images.notFound', { name: name.slice(0, 120) });
      return reply
        .header('content-type', image.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', INERT)
        .send(image.body);
    },
  );
}
