// HTTP adapter of the account emails' links (docs/api.md "Account emails"). The POST routes take
// JSON (the API, answering JSON) and the form fields of the pages (answering a page). GET of a
// link serves its page and never uses the link: mail scanners open links before people do.
// Form parsing (4 KiB) exists only inside this plugin.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  forgotPasswordAnswer,
  forgotPasswordBody,
  linkPageQuery,
  resendVerificationAnswer,
  resetPasswordAnswer,
  resetPasswordBody,
  verifyEmailAnswer,
  verifyEmailBody,
} from '../../contract/auth.ts';

import { AppError, inputProblems, wordsOf } from '../../contract/errors.ts';
import { type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import { unavailableOr, zodIssuesOf } from '../../http/errors.ts';
import { pageLang, readPageLocale, sendPage } from '../page-layout.ts';
import {
  ACCOUNT_PAGE_CSP,
  donePage,
  linkErrorPage,
  resetPasswordPage,
  tooManyPage,
  unavailablePage,
  verifyEmailPage,
} from './pages.ts';
import type { AuthService } from './service.ts';

const FORM_LIMIT = 4096;
const tags = ['auth'];

const VERIFY_BAD_LINK: MessageKey = 'page.verify.badLink';
const RESET_BAD_LINK: MessageKey = 'page.reset.badLink';
/** The page's own address, to open it again in another language. */
const resetPageOf = (token: string) => `/auth/password/reset?token=${encodeURIComponent(token)}`;

const isForm = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

const html = (reply: FastifyReply, status: number, body: string) =>
  sendPage(reply, status, body, ACCOUNT_PAGE_CSP);

/** A form's refusal, as a person reads it in `locale`: "The new password must be at least 8 characters". */
function formProblem(locale: Locale, err: FastifyError): string {
  if (err instanceof AppError) return wordsOf(locale, err.text);
  if (!hasZodFastifySchemaValidationErrors(err)) return t(locale, 'page.link.unreadableForm');
  return inputProblems(resetPasswordBody, { issues: zodIssuesOf(err) })
    .map(({ field, message }) => {
      const label =
        field === 'password'
          ? t(locale, 'page.reset.field.password')
          : field === 'confirmPassword'
            ? t(locale, 'page.reset.field.confirmPassword')
            : field;
      return t(locale, 'page.reset.fieldProblem', { field: label, problem: wordsOf(locale, message) });
    })
    .join('; ');
}

export function accountEmailRoutes(auth: AuthService) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    // `?lang=` and the forms' `lang` field choose the pages' language (and the errors').
    app.addHook('preValidation', readPageLocale);

    // The page's form (form fields with a token) is refused with a page; everything else, JSON
    // callers and forms that are not the page's, with the error model (the parent handler).
    app.setErrorHandler((thrown: FastifyError, req, reply) => {
      const err = unavailableOr(thrown, req);
      const page = req.method === 'GET' || isForm(req);
      // The database away: a page to come back to (the link still works), not the API's JSON.
      if (page && err instanceof AppError && err.statusCode === 503) {
        if (err.retryAfter) reply.header('retry-after', String(err.retryAfter));
        return html(reply, 503, unavailablePage(pageLang(req), err));
      }
      const validation = hasZodFastifySchemaValidationErrors(err);
      const body = req.body as Record<string, unknown> | undefined;
      const token = typeof body?.token === 'string' ? body.token : undefined;
      // Too many tries on a link's page: when to try again, never "a dead link".
      const tooMany = err instanceof AppError && err.statusCode === 429;
      if (tooMany && req.method === 'GET') return html(reply, 429, tooManyPage(pageLang(req), err));
      if (!isForm(req) || token === undefined || !(err instanceof AppError || validation)) throw err;
      const status = err instanceof AppError ? err.statusCode : 400;
      // Too many tries is about the form too: the link still works, the person waits and retries.
      const aboutTheForm =
        validation || (err instanceof AppError && (err.details !== undefined || status === 429));
      if (req.routeOptions.url === '/auth/password/reset') {
        if (aboutTheForm && token) {
          const p = pageLang(req, { here: resetPageOf(token) });
          return html(reply, status, resetPasswordPage(p, token, formProblem(p.locale, err)));
        }
        return html(reply, status, linkErrorPage(pageLang(req), RESET_BAD_LINK));
      }
      if (tooMany) return html(reply, 429, tooManyPage(pageLang(req), err));
      return html(reply, status, linkErrorPage(pageLang(req), VERIFY_BAD_LINK));
    });

    app.get(
      '/auth/email/verify',
      {
        config: { auth: 'public', limit: 'emailLinks' },
        schema: {
          tags,
          summary: 'The page an email verification link opens (HTML; opening it does not verify)',
          querystring: linkPageQuery,
          hide: true,
        },
      },
      async (req, reply) => {
        const token = req.query.token;
        const p = pageLang(req);
        if (!token || !(await auth.linkIsLive(req.ctx, 'verify', token))) {
          return html(reply, 400, linkErrorPage(p, VERIFY_BAD_LINK));
        }
        return html(reply, 200, verifyEmailPage(p, token));
      },
    );

    app.post(
      '/auth/email/verify',
      {
        bodyLimit: FORM_LIMIT,
        config: { auth: 'public', limit: 'emailLinks' },
        schema: {
          tags,
          summary: 'Verify the email address with the token of the link sent at registration',
          description:
            'The link works once, for 48 hours; an unknown, used or expired token is `400 VALIDATION_ERROR`. ' +
            'Also takes the form fields of the link’s page (`application/x-www-form-urlencoded`) and then answers a page.',
          body: verifyEmailBody,
          response: { 200: verifyEmailAnswer },
        },
      },
      async (req, reply) => {
        const answer = await auth.verifyEmail(req.ctx, req.body.token);
        if (!isForm(req)) return answer;
        return html(reply, 200, donePage(pageLang(req), 'page.verify.doneTitle', 'page.verify.done'));
      },
    );

    app.post(
      '/auth/email/verify/resend',
      {
        config: { auth: 'user', limit: 'auth' },
        schema: {
          tags,
          summary: 'Send the signed-in user a new email verification link',
          description:
            '`409 CONFLICT` when the address is already verified. Earlier links keep working until used or expired.',
          response: { 202: resendVerificationAnswer },
        },
      },
      async (req, reply) => reply.code(202).send(await auth.resendVerification(req.ctx)),
    );

    app.post(
      '/auth/password/forgot',
      {
        config: { auth: 'public', limit: 'auth' },
        schema: {
          tags,
          summary: 'Ask for a password reset link by email; always 202 with the same answer',
          description:
            'A verified address receives a single-use link valid 30 minutes; an address not yet verified receives ' +
            'a verification link instead (a reset needs a verified address); an unknown address receives nothing. ' +
            'The answer is the same, and takes about the same time, in every case.',
          body: forgotPasswordBody,
          response: { 202: forgotPasswordAnswer },
        },
      },
      async (req, reply) => reply.code(202).send(await auth.forgotPassword(req.ctx, req.body.email)),
    );

    app.get(
      '/auth/password/reset',
      {
        config: { auth: 'public', limit: 'emailLinks' },
        schema: {
          tags,
          summary: 'The page a password reset link opens (HTML form; opening it does not use the link)',
          querystring: linkPageQuery,
          hide: true,
        },
      },
      async (req, reply) => {
        const token = req.query.token;
        const p = pageLang(req);
        if (!token || !(await auth.linkIsLive(req.ctx, 'reset', token))) {
          return html(reply, 400, linkErrorPage(p, RESET_BAD_LINK));
        }
        return html(reply, 200, resetPasswordPage(p, token));
      },
    );

    app.post(
      '/auth/password/reset',
      {
        bodyLimit: FORM_LIMIT,
        config: { auth: 'public', limit: 'emailLinks' },
        schema: {
          tags,
          summary:
            'Set a new password with the token of a reset link; every older token of the user stops working',
          description:
            'The link works once, for 30 minutes; an unknown, used or expired token is `400 VALIDATION_ERROR`. ' +
            'Every other reset link of the user stops working too. Sign in again with the new password. ' +
            'Also takes the form fields of the link’s page (`application/x-www-form-urlencoded`) and then answers a page.',
          body: resetPasswordBody,
          response: { 200: resetPasswordAnswer },
        },
      },
      async (req, reply) => {
        const answer = await auth.resetPassword(req.ctx, req.body);
        if (!isForm(req)) return answer;
        return html(reply, 200, donePage(pageLang(req), 'page.reset.doneTitle', 'page.reset.done'));
      },
    );
  };
}
