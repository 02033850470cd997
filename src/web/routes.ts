// The pages for people (docs/pages.md): the storefront, the buyer's account, the seller's console
// and the admin's desk, served by the same process as the API, over the same services. Every
// route here is `auth: 'public'` to the API's guard: the pages sign people in with their own
// session cookie (core.ts), and each page says whom it is for (`signedIn`).

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { AppError, forbidden, tooManyWords, wordsOf } from '../contract/errors.ts';
import { text } from '../contract/i18n.ts';
import { unavailableOr } from '../http/errors.ts';
import { acceptForms } from '../http/input.ts';
import { webSessionUser } from '../modules/auth/web-sessions.ts';
import { STYLESHEET, STYLESHEET_PATH } from '../views/stylesheet.ts';
import { words } from '../views/words.ts';
import { accountPages } from './account/routes.ts';
import { consolePages } from './console/routes.ts';
import {
  beginWebRequest,
  cookieOf,
  csrfFits,
  SESSION_COOKIE,
  safeLocalPath,
  seeOther,
  viewOf,
  type WebDeps,
  type WebSettings,
} from './core.ts';
import { deskPages } from './desk/routes.ts';
import { page, WEB_CSP } from './layout.ts';
import { policyPages } from './policies/routes.ts';
import { storePages } from './store/routes.ts';

/** The largest form a page accepts (a product's description is the largest field). */
const FORM_LIMIT = 64 * 1024;

export type { WebDeps };

export function webRoutes(deps: WebDeps) {
  const s = deps.settings;
  return async (app: FastifyInstance) => {
    acceptForms(app, FORM_LIMIT);

    app.addHook('onRequest', async (req, reply) => {
      if (req.url === STYLESHEET_PATH) return; // the same for everyone: no session read
      const id = cookieOf(req, SESSION_COOKIE);
      reply.header('content-security-policy', WEB_CSP).header('cache-control', 'no-store');
      let user: Awaited<ReturnType<typeof webSessionUser>>;
      try {
        user = id ? await webSessionUser(req.ctx, id) : undefined;
      } catch (err) {
        // The page that says so (the database unreachable) is shown signed out, in the asked language.
        beginWebRequest(req, reply, s, undefined);
        throw err;
      }
      beginWebRequest(req, reply, s, id && user ? { id, user } : undefined);
    });

    // Every form post carries the page's CSRF token; without it, nothing runs.
    app.addHook('preHandler', async (req) => {
      if (req.method !== 'POST') return;
      const body = req.body as Record<string, unknown> | undefined;
      // A file upload's token is in its action's query: its fields are read only after the check.
      const given = req.headers['content-type']?.startsWith('multipart/form-data')
        ? (req.query as Record<string, unknown>).csrf
        : body?.csrf;
      if (!csrfFits(req, s, given)) throw forbidden('web.form.expired');
    });

    app.setErrorHandler((err: FastifyError, req, reply) => errorPage(unavailableOr(err, req), req, reply, s));

    app.get(STYLESHEET_PATH, { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
      reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(STYLESHEET),
    );

    storePages(app, deps);
    accountPages(app, deps);
    consolePages(app, deps);
    deskPages(app, deps);
    policyPages(app, deps);
  };
}

/** A page that went wrong: sign in first, or the refusal as a page, in the person's language. */
function errorPage(err: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply, s: WebSettings) {
  const status = err.statusCode ?? 500;
  const v = viewOf(req, reply, s);
  if (status === 401) {
    const next = req.method === 'GET' ? v.here : (safeLocalPath(req.headers.referer) ?? '/');
    return seeOther(reply, `/account/sign-in?next=${encodeURIComponent(next)}`);
  }
  const l = v.p.locale;
  let message: string;
  if (err instanceof AppError && err.retryAfter) reply.header('retry-after', String(err.retryAfter));
  // A rate limit says when to try again, whatever refused (the limiter, a service's own limit).
  if (status === 429) message = wordsOf(l, tooManyWords(err instanceof AppError ? err : undefined));
  else if (err instanceof AppError) message = wordsOf(l, err.text);
  else if ((err as FastifyError).validation) message = wordsOf(l, text('web.error.badRequest'));
  else if (status >= 400 && status < 500) message = wordsOf(l, text('web.error.badRequest'));
  else {
    req.log.error({ err }, 'unhandled error on a page');
    message = wordsOf(l, text('web.error.internal', { id: req.id }));
  }
  const title = wordsOf(
    l,
    text(
      status === 404 ? 'web.error.notFoundTitle' : status === 429 ? 'page.tooMany.title' : 'web.error.title',
    ),
  );
  return reply
    .code(status >= 400 ? status : 500)
    .header('content-type', 'text/html; charset=utf-8')
    .send(
      page(v, {
        title,
        narrow: true,
        body: html`<div class="card"><h1>${title}</h1><p role="alert">${message}</p><p><a href="/">${words(l, 'web.error.home')}</a></p></div>`,
      }),
    );
}
