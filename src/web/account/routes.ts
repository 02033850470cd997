// The account: sign in and out, register, the overview (the verification email again), the
// agents with access (revoke) and the settings (language, password). Its orders and returns are
// ./order-routes.ts; its addresses src/web/addresses/.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { loginBody, registerBody } from '../../contract/auth.ts';
import type { Role } from '../../contract/common.ts';
import { AppError, invalid, problem } from '../../contract/errors.ts';
import { isLocale, t } from '../../contract/i18n.ts';
import { listOrdersQuery } from '../../contract/orders.ts';
import { saveLocale } from '../../modules/auth/sellers.ts';
import { endWebSession, startWebSession } from '../../modules/auth/web-sessions.ts';
import * as carts from '../../modules/cart/service.ts';
import { listAgents, revokeAgent } from '../../modules/oauth/grants.ts';
import * as orders from '../../modules/orders/service.ts';
import { addressPages } from '../addresses/routes.ts';
import {
  addCookie,
  cookieText,
  SESSION_COOKIE,
  safeLocalPath,
  seeOther,
  sessionIdOf,
  setPageLocale,
  signedIn,
  viewOf,
  type WebDeps,
  type WebSettings,
} from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { formErrorOf, readForm, sendHtml, shownRefusal } from '../layout.ts';
import { orderPages } from './order-routes.ts';
import { type Pending, pendingOf } from './pending.ts';
import { accountTabs } from './tabs.ts';
import {
  agentsPage,
  overviewPage,
  registerPage,
  settingsPage,
  signInPage,
  verificationPage,
} from './views.ts';

/** After a sign-in: a new session id (nothing from before carries over), its cookie, then the page asked for. */
async function signInAs(
  req: FastifyRequest,
  reply: FastifyReply,
  s: WebSettings,
  user: { id: string; tokenVersion: number },
  next: string,
) {
  const old = sessionIdOf(req);
  if (old) await endWebSession(req.ctx, old);
  const session = await startWebSession(req.ctx, user, s.sessionMaxAgeSeconds);
  addCookie(reply, cookieText(s, SESSION_COOKIE, session.id, s.sessionMaxAgeSeconds));
  return seeOther(reply, next);
}

/**
 * Adds the line asked for before the sign-in, as the person now signed in (a buyer), in the
 * request that signed them in (its form carried the CSRF token); answers where to go: the
 * product again, saying whether it was added.
 */
async function addPending(
  req: FastifyRequest,
  user: { id: string; email: string; role: Role },
  add: Pending | undefined,
  next: string,
): Promise<string> {
  if (!add || user.role !== 'buyer') return next;
  const product = `/shop/products/${encodeURIComponent(add.productId)}`;
  try {
    await carts.addToCart(
      { ...req.ctx, user: { id: user.id, email: user.email, role: user.role } },
      { product_id: add.productId, quantity: add.quantity },
    );
    return `${product}?added=1`;
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
    return `${product}?added=0`;
  }
}

export function accountPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  // ---- signing in and out ----------------------------------------------------------------

  app.get<{ Querystring: Record<string, string> }>('/account/sign-in', pageRoute, async (req, reply) => {
    const v = viewOf(req, reply, s);
    const next = safeLocalPath(req.query.next) ?? '/account';
    if (v.user) return seeOther(reply, next);
    return sendHtml(reply, signInPage(v, { next, add: pendingOf(req.query) }));
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/sign-in',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      const next = safeLocalPath(req.body.next) ?? '/account';
      const add = pendingOf(req.body);
      try {
        const input = readForm(loginBody, { email: req.body.email, password: req.body.password });
        const user = await deps.auth.checkCredentials(req.ctx, input);
        return await signInAs(req, reply, s, user, await addPending(req, user, add, next));
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          signInPage(v, { email: req.body.email, next, add, error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
    },
  );

  app.post(
    '/account/sign-out',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const id = sessionIdOf(req);
      if (id) await endWebSession(req.ctx, id);
      addCookie(reply, cookieText(s, SESSION_COOKIE, '', 0));
      return seeOther(reply, '/');
    },
  );

  app.get<{ Querystring: Record<string, string> }>('/account/register', pageRoute, async (req, reply) => {
    const v = viewOf(req, reply, s);
    return sendHtml(
      reply,
      registerPage(v, { next: safeLocalPath(req.query.next) ?? '/account', add: pendingOf(req.query) }),
    );
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/register',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      const next = safeLocalPath(req.body.next) ?? '/account';
      const b = req.body;
      const add = pendingOf(b);
      try {
        const input = readForm(registerBody, { email: b.email, password: b.password, name: b.name });
        // The new account keeps the language its pages were read in (its emails follow it).
        const user = await deps.auth.createBuyer(req.ctx, input, req.ctx.locale);
        return await signInAs(req, reply, s, user, await addPending(req, user, add, next));
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          registerPage(v, { email: b.email, name: b.name, next, add, error }),
        );
      }
    },
  );

  // ---- the overview ------------------------------------------------------------------------

  app.get('/account', pageRoute, async (req, reply) => {
    const user = signedIn(req);
    const v = viewOf(req, reply, s);
    const recent =
      user.role === 'buyer' || user.role === 'admin'
        ? await orders.listOrders(req.ctx, listOrdersQuery.parse({ limit: 5 }), 'buyer')
        : undefined;
    return sendHtml(reply, overviewPage(v, user, recent?.orders));
  });

  app.post(
    '/account/verification',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      let message: string;
      try {
        await deps.auth.resendVerification(req.ctx);
        message = t(l, 'web.account.resent');
      } catch (err) {
        if (!shownRefusal(err) && !(err instanceof AppError && err.statusCode === 429)) throw err;
        message = formErrorOf(l, err as AppError).message;
      }
      return sendHtml(reply, verificationPage(v, message));
    },
  );

  orderPages(app, deps);

  // ---- agents ------------------------------------------------------------------------------

  app.get('/account/agents', pageRoute, async (req, reply) => {
    signedIn(req);
    const v = viewOf(req, reply, s);
    const { agents } = await listAgents(req.ctx);
    const done = (req.query as { done?: string }).done;
    return sendHtml(reply, agentsPage(v, agents, Boolean(done)));
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/agents/revoke',
    { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      await revokeAgent(req.ctx, String(req.body.clientId ?? ''));
      return seeOther(reply, '/account/agents?done=1');
    },
  );

  // ---- settings ----------------------------------------------------------------------------

  app.get('/account/settings', pageRoute, async (req, reply) => {
    signedIn(req);
    const v = viewOf(req, reply, s);
    const done = (req.query as { done?: string }).done;
    return sendHtml(
      reply,
      settingsPage(v, {
        done: done
          ? t(v.p.locale, done === 'password' ? 'web.settings.passwordChanged' : 'web.settings.saved')
          : undefined,
      }),
    );
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/settings/locale',
    { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      const locale = req.body.locale;
      if (!isLocale(locale))
        throw invalid('web.form.fix', undefined, [problem('locale', 'web.settings.unknownLocale')]);
      await saveLocale(req.ctx, locale, deps.auth.forget);
      setPageLocale(req, reply, s, locale);
      return seeOther(reply, '/account/settings?done=locale');
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/account/settings/password',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      try {
        const input = readForm(
          z.object({ currentPassword: loginBody.shape.password, newPassword: registerBody.shape.password }),
          req.body,
        );
        const user = await deps.auth.changePassword(req.ctx, input);
        // Every other session and token ended with the old password; this browser goes on.
        return await signInAs(req, reply, s, user, '/account/settings?done=password');
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) => settingsPage(v, { error }));
      }
    },
  );

  addressPages(app, deps, accountTabs);
}
