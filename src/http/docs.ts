// The API reference page (/docs, Scalar over /openapi.json). Its package takes about 0.3 s to
// import, a sixth of the start-up budget, and no API call needs it: it is loaded on the first
// visit, or in the background once the server listens, and served by a Fastify instance of
// its own that this app's /docs routes hand the request to.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { notFound } from '../contract/errors.ts';

const NOT_FORWARDED = new Set(['content-length', 'connection', 'transfer-encoding', 'date', 'keep-alive']);

export function registerDocs(app: FastifyInstance) {
  let reference: Promise<FastifyInstance> | undefined;
  const load = () => {
    reference ??= (async () => {
      const { default: scalar } = await import('@scalar/fastify-api-reference');
      const inner = Fastify({ logger: false });
      await inner.register(scalar, {
        routePrefix: '/docs',
        // Self-contained: its script comes from this server, and the system's fonts replace the
        // web fonts it would fetch from its vendor (a machine offline saw a blank page).
        configuration: { url: '/openapi.json', title: 'Portage API', withDefaultFonts: false },
        logLevel: 'silent',
      });
      await inner.ready();
      return inner;
    })();
    reference.catch(() => {
      reference = undefined;
    });
    return reference;
  };

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const res = await (await load()).inject({
      method: req.method as 'GET',
      url: req.url,
      headers: { accept: req.headers.accept ?? '*/*' },
    });
    if (res.statusCode >= 400)
      throw notFound('error.http.noRoute', { method: req.method, path: req.url.split('?')[0] ?? '' });
    reply.code(res.statusCode);
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    }
    return reply.send(res.rawPayload);
  };
  const options = {
    config: {
      auth: 'public' as const,
      // The page runs its own scripts and styles, which the API's CSP (default-src 'none')
      // forbids; nothing of it comes from elsewhere.
      csp: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
      },
    },
    schema: { hide: true },
  };
  app.get('/docs', options, serve);
  app.get('/docs/*', options, serve);
  app.addHook('onListen', async () => {
    void load().catch((err) => app.log.warn({ err }, 'the API reference could not be loaded'));
  });
}
