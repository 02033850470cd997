// HTTP adapter of the auth module: parse, call one service function, shape the answer.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminUserAnswer,
  becomeSellerBody,
  changeRoleBody,
  googleCallbackQuery,
  googleStartQuery,
  jwks,
  loginAnswer,
  loginBody,
  logoutAllAnswer,
  me,
  platformTaxProfile,
  platformTaxProfileBody,
  refreshAnswer,
  registerAnswer,
  registerBody,
  sellerInvoiceBody,
  updateMeBody,
  userIdParams,
  userWithToken,
} from '../../contract/auth.ts';
import { bearerToken } from '../../http/auth.ts';
import type { RequestContext } from '../context.ts';
import { accountEmailRoutes } from './email-routes.ts';
import type { KeyRing } from './keys.ts';
import {
  getPlatformTaxProfile,
  putPlatformTaxProfile,
  saveLocale,
  updateInvoiceIdentity,
  withProfile,
} from './sellers.ts';
import type { AuthService } from './service.ts';

export function authRoutes(auth: AuthService, keys: KeyRing) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    await fastify.register(accountEmailRoutes(auth));
    /** GET /me's answer: the account, its saved locale and the seller's invoice identity. */
    const meAnswer = async (ctx: RequestContext) => withProfile(ctx, await auth.me(ctx));

    app.post(
      '/auth/register',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary: 'Create a buyer account and sign in',
          body: registerBody,
          response: { 201: registerAnswer },
        },
      },
      async (req, reply) => reply.code(201).send(await auth.register(req.ctx, req.body)),
    );

    app.post(
      '/auth/login',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary: 'Sign in with email and password',
          description:
            'Answers both documented forms at once: `user` + `token`, and top-level `userId` + `role`.',
          body: loginBody,
          response: { 200: loginAnswer },
        },
      },
      async (req) => auth.login(req.ctx, req.body),
    );

    app.post(
      '/auth/refresh',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary:
            'Exchange a token (expired at most the refresh window ago) for a fresh one, within the session age',
          response: { 200: refreshAnswer },
        },
      },
      async (req) => auth.refresh(req.ctx, bearerToken(req.headers.authorization)),
    );

    app.post(
      '/auth/logout-all',
      {
        config: { auth: 'user', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary: 'Log out everywhere: every token of the caller stops working, and cannot be refreshed',
          response: { 200: logoutAllAnswer },
        },
      },
      async (req) => auth.logoutAll(req.ctx),
    );

    app.get(
      '/me',
      {
        config: { auth: 'user', scope: 'any' },
        schema: {
          tags: ['auth'],
          summary: 'The signed-in user',
          response: { 200: me },
        },
      },
      async (req) => meAnswer(req.ctx),
    );

    app.patch(
      '/me',
      {
        config: { auth: 'user' },
        schema: {
          tags: ['auth'],
          summary: 'Your settings: `locale` (en-CA, fr-CA, or null to follow Accept-Language)',
          description: 'Takes effect at the next request. Answers the signed-in user as `GET /me` does.',
          body: updateMeBody,
          response: { 200: me },
        },
      },
      async (req) => {
        await saveLocale(req.ctx, req.body.locale, auth.forget);
        return meAnswer(req.ctx);
      },
    );

    app.patch(
      '/me/seller',
      {
        config: { auth: ['seller'] },
        schema: {
          tags: ['auth'],
          summary: "Your shop's invoice identity: legal name, address, GST/HST and QST registration numbers",
          description:
            'Only the fields sent change; `null` clears one. Numbers may be written with spaces or hyphens and ' +
            'are stored normalized (`123456782RT0001`, `1234567892TQ0001`, `NR00012345`); a malformed one is ' +
            '`400` naming the field and what is wrong (docs/invoices.md). Answers the user as `GET /me` does.',
          body: sellerInvoiceBody,
          response: { 200: me },
        },
      },
      async (req) => {
        await updateInvoiceIdentity(req.ctx, req.body);
        return meAnswer(req.ctx);
      },
    );

    app.get(
      '/admin/tax-profile',
      {
        config: { auth: ['admin'] },
        schema: {
          tags: ['admin'],
          summary: "The platform's identity as marketplace operator on invoices (404 until set)",
          response: { 200: platformTaxProfile },
        },
      },
      async (req) => getPlatformTaxProfile(req.ctx),
    );

    app.put(
      '/admin/tax-profile',
      {
        config: { auth: ['admin'] },
        schema: {
          tags: ['admin'],
          summary: "Set the platform's identity as marketplace operator on invoices",
          description:
            'Legal name, address and GST/HST and QST registration numbers: invoices of sellers without a ' +
            'GST/HST (or QST) number name the platform as the operator collecting that tax (docs/invoices.md).',
          body: platformTaxProfileBody,
          response: { 200: platformTaxProfile },
        },
      },
      async (req) => putPlatformTaxProfile(req.ctx, req.body),
    );

    app.post(
      '/me/seller',
      {
        config: { auth: 'user' },
        schema: {
          tags: ['auth'],
          summary: 'Become a seller: open a shop; answers a fresh token with the seller role',
          body: becomeSellerBody,
          response: { 200: userWithToken },
        },
      },
      async (req) => auth.becomeSeller(req.ctx, req.body),
    );

    app.patch(
      '/admin/users/:id',
      {
        config: { auth: ['admin'] },
        schema: {
          tags: ['admin'],
          summary: "Change a user's role (the user's older tokens stop working)",
          params: userIdParams,
          body: changeRoleBody,
          response: { 200: adminUserAnswer },
        },
      },
      async (req) => auth.changeRole(req.ctx, req.params.id, req.body),
    );

    for (const [path, suspend] of [
      ['suspend', true],
      ['reinstate', false],
    ] as const) {
      app.post(
        `/admin/users/:id/${path}`,
        {
          config: { auth: ['admin'] },
          schema: {
            tags: ['admin'],
            summary: suspend
              ? 'Suspend a user: they cannot sign in, and every token and session of theirs ends'
              : 'Reinstate a suspended user (they sign in again)',
            params: userIdParams,
            response: { 200: adminUserAnswer.extend({ suspended: z.boolean() }) },
          },
        },
        async (req) => auth.setSuspended(req.ctx, req.params.id, suspend),
      );
    }

    app.get(
      '/auth/google/start',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary: 'Start signing in with the external identity provider (redirects there)',
          description:
            'Sets the short-lived cookie `portage_login` (HttpOnly, SameSite=Lax, path of the callback) ' +
            'that binds the login to this browser; the callback refuses the login without it.',
          querystring: googleStartQuery,
          response: { 302: z.null().describe('Redirect to the identity provider') },
        },
      },
      async (req, reply) => {
        const { location, cookie } = await auth.startExternalLogin(req.ctx, req.query.redirectUri);
        return reply.setCookie(cookie.name, cookie.value, cookie.options).redirect(location, 302);
      },
    );

    app.get(
      '/auth/google/callback',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags: ['auth'],
          summary: 'Where the identity provider returns; redirects to redirectUri with #token=… or #error=…',
          description:
            'Needs the cookie set by /auth/google/start in the same browser (400 otherwise); clears it.',
          querystring: googleCallbackQuery,
          response: { 302: z.null().describe('Redirect to the redirectUri given at start') },
        },
      },
      async (req, reply) => {
        const cleared = auth.clearedLoginCookie();
        reply.setCookie(cleared.name, cleared.value, cleared.options);
        const search = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
        const location = await auth.finishExternalLogin(req.ctx, {
          search,
          query: req.query,
          cookies: req.cookies,
        });
        return reply.redirect(location, 302);
      },
    );

    app.get(
      '/.well-known/jwks.json',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['discovery'],
          summary: 'Public keys that verify this deployment’s tokens',
          response: { 200: jwks },
        },
      },
      async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send({ keys: keys.jwks }),
    );
  };
}
