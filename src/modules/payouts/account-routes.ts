// HTTP adapter of a seller's payout account (docs/api.md "Payout accounts"): the API's
// GET, POST and PUT /sellers/me/payout-account; the pages the provider's onboarding sends the
// seller's browser back to (…/return, …/refresh); and, when the sandbox is the provider, its
// onboarding page (/sandbox/connect/:accountId) and its disputes (/sandbox/disputes).
//
// The pages are signed in by the pages' own session cookie (src/web/core.ts), not a bearer
// token: a browser coming back from Stripe, or following the onboarding link, carries only it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, wordsOf } from '../../contract/errors.ts';
import { type Locale, type Text, t, text } from '../../contract/i18n.ts';
import { acceptForms } from '../../http/input.ts';
import { SESSION_COOKIE } from '../../web/core.ts';
import { type WebUser, webSessionUser } from '../auth/web-sessions.ts';
import { pageLang, readPageLocale, sendPage } from '../page-layout.ts';
import {
  getPayoutAccount,
  MINIMUM_CENTS,
  onboardingLinkOf,
  openPayoutAccount,
  type PayoutAccountRow,
  payoutAccountById,
  payoutAccountOf,
  recordSandboxBank,
  refreshFromProvider,
  updatePayoutSettings,
} from './accounts.ts';
import type { PayoutsDeps } from './deps.ts';
import { FAILING_ACCOUNT_SUFFIX, ownPath, SANDBOX_BANK } from './providers/sandbox.ts';
import {
  type BankField,
  type BankForm,
  connectedPage,
  connectPage,
  connectPagePath,
  messagePage,
  PAGE_CSP,
} from './sandbox-connect-page.ts';
import { sandboxDisputeRoutes } from './sandbox-disputes.ts';
import { PAYOUT_SCHEDULES } from './tables.ts';

const tags = ['payouts'];

/** Where the seller's payouts are shown in the console: where the provider's return lands. */
export const CONSOLE_PAYOUTS = '/console/payouts';

export const payoutAccountAnswer = z
  .object({
    provider: z.enum(['sandbox', 'stripe']),
    accountId: z.string(),
    payoutsEnabled: z.boolean(),
    requirements: z.array(z.string()),
    bankLast4: z.string().nullable(),
    schedule: z.enum(PAYOUT_SCHEDULES),
    minimumCents: z.number().int(),
    nextPayoutAt: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'PayoutAccount' });

export const payoutSettingsBody = z.object({
  schedule: z.enum(PAYOUT_SCHEDULES).optional(),
  minimumCents: z.number().int().min(MINIMUM_CENTS.min).max(MINIMUM_CENTS.max).optional(),
});

const openedAnswer = z.object({ account: payoutAccountAnswer, onboardingUrl: z.string() });

export function payoutAccountRoutes(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    await fastify.register(apiRoutes(deps));
    await fastify.register(returnPages(deps));
    if (deps.sandbox) {
      await fastify.register(sandboxConnectPages(deps));
      await fastify.register(sandboxDisputeRoutes({ ...deps, sandbox: deps.sandbox }));
    }
  };
}

function apiRoutes(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/sellers/me/payout-account',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: 'Your payout account: whether it pays out, what the provider still needs, your schedule',
          response: { 200: payoutAccountAnswer },
        },
      },
      async (req) => getPayoutAccount(req.ctx),
    );

    app.post(
      '/sellers/me/payout-account',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: 'Open your payout account at the payment provider (once), and get a link to finish it',
          description:
            '201 when it is opened now, 200 when you have one: either way with a fresh `onboardingUrl`, ' +
            'where you give the bank account your payouts go to.',
          response: { 200: openedAnswer, 201: openedAnswer },
        },
      },
      async (req, reply) => {
        const { created, ...answer } = await openPayoutAccount(req.ctx, deps);
        return reply.code(created ? 201 : 200).send(answer);
      },
    );

    app.put(
      '/sellers/me/payout-account',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: 'Set your payout schedule (daily or weekly, at 09:00 Toronto time) and minimum payout',
          description: 'What is not sent is kept. A new schedule moves `nextPayoutAt` to its next time.',
          body: payoutSettingsBody,
          response: { 200: payoutAccountAnswer },
        },
      },
      async (req) => updatePayoutSettings(req.ctx, req.body),
    );
  };
}

// ---- the pages: the session cookie ------------------------------------------------------------

/** The person the pages' session cookie names, while it stands. */
async function sessionOf(req: FastifyRequest): Promise<{ id: string; user: WebUser } | undefined> {
  const id = req.cookies[SESSION_COOKIE];
  if (!id) return undefined;
  const user = await webSessionUser(req.ctx, id);
  if (!user) return undefined;
  req.ctx.user = user;
  return { id, user };
}

const signInPath = (next: string) => `/account/sign-in?next=${encodeURIComponent(next)}`;

const seeOther = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

const page = (reply: FastifyReply, status: number, body: string) => sendPage(reply, status, body, PAGE_CSP);

/** A refusal as a page, in the page's language. */
function refusalPage(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: Text,
  link?: { href: string; label: Text },
) {
  const p = pageLang(req, { known: req.ctx.user?.locale, here: null });
  const l: Locale = p.locale;
  const title = t(l, status === 404 ? 'web.error.notFoundTitle' : 'web.error.title');
  return page(
    reply,
    status,
    messagePage(p, title, wordsOf(l, message), link && { href: link.href, label: wordsOf(l, link.label) }),
  );
}

const pageRoute = {
  preValidation: readPageLocale,
  config: { auth: 'public', limit: 'pages', otherFormat: true },
  schema: { hide: true },
} as const;

/**
 * Where the provider's onboarding sends the seller's browser: back (…/return: the account as
 * the provider has it now, then the console), or for a new link when one expired (…/refresh).
 */
function returnPages(deps: PayoutsDeps) {
  return async (app: FastifyInstance) => {
    /** The signed-in seller of a page, or the answer that sends them to sign in or refuses them. */
    const sellerOf = async (req: FastifyRequest, reply: FastifyReply, here: string) => {
      const session = await sessionOf(req);
      if (!session) return { answered: seeOther(reply, signInPath(here)) };
      if (session.user.role !== 'seller' && session.user.role !== 'admin') {
        return {
          answered: refusalPage(req, reply, 403, text('web.error.roleNeeded', { role: 'seller' })),
        };
      }
      return { user: session.user };
    };

    app.get('/sellers/me/payout-account/return', pageRoute, async (req, reply) => {
      const who = await sellerOf(req, reply, '/sellers/me/payout-account/return');
      if (!who.user) return who.answered;
      try {
        await refreshFromProvider(req.ctx, deps, who.user.id);
      } catch (err) {
        // The provider's account.updated event says the same later: the seller goes on.
        if (!(err instanceof AppError)) throw err;
      }
      return seeOther(reply, CONSOLE_PAYOUTS);
    });

    app.get('/sellers/me/payout-account/refresh', pageRoute, async (req, reply) => {
      const who = await sellerOf(req, reply, '/sellers/me/payout-account/refresh');
      if (!who.user) return who.answered;
      const row = await payoutAccountOf(req.ctx, who.user.id);
      if (!row) {
        return refusalPage(req, reply, 404, text('error.payouts.noAccount'), {
          href: CONSOLE_PAYOUTS,
          label: text('page.payoutConnect.continue'),
        });
      }
      try {
        return seeOther(reply, await onboardingLinkOf(req.ctx, deps, row));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return refusalPage(req, reply, err.statusCode, err.text);
      }
    });
  };
}

// ---- the sandbox's onboarding page ----------------------------------------------------------

/** An account's id without the failing suffix: the page's address stays good after a rename. */
const baseId = (accountId: string) =>
  accountId.endsWith(FAILING_ACCOUNT_SUFFIX) ? accountId.slice(0, -FAILING_ACCOUNT_SUFFIX.length) : accountId;

/**
 * The form's token: bound to the seller's session (a secret only their browser holds) and to
 * the account, so a page of another site cannot post it in their name.
 */
const formToken = (sessionId: string, accountId: string) =>
  createHmac('sha256', sessionId)
    .update(`sandbox-connect\n${baseId(accountId)}`)
    .digest('base64url');

function tokenFits(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const first = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && typeof value[0] === 'string'
      ? value[0]
      : undefined;

/** The form's fields checked: the bank account, or each field's problem. */
export function readBankForm(body: Record<string, unknown>): {
  values: BankForm;
  problems: Partial<Record<BankField, Text>>;
} {
  const digits = (v: string) => v.replace(/[\s-]/g, '');
  const values: BankForm = {
    holder: (first(body.holder) ?? '').trim().slice(0, 200),
    institution: digits(first(body.institution) ?? '').slice(0, 20),
    transit: digits(first(body.transit) ?? '').slice(0, 20),
    account: digits(first(body.account) ?? '').slice(0, 40),
  };
  const problems: Partial<Record<BankField, Text>> = {};
  if (values.holder.length === 0 || values.holder.length > 100) {
    problems.holder = text('page.payoutConnect.holderProblem');
  }
  if (!/^\d{3}$/.test(values.institution))
    problems.institution = text('page.payoutConnect.institutionProblem');
  if (!/^\d{5}$/.test(values.transit)) problems.transit = text('page.payoutConnect.transitProblem');
  if (!/^\d{7,12}$/.test(values.account)) {
    problems.account = text('page.payoutConnect.accountProblem');
  } else if (values.account !== SANDBOX_BANK.pays && values.account !== SANDBOX_BANK.fails) {
    problems.account = text('page.payoutConnect.testOnly', {
      pays: SANDBOX_BANK.pays,
      fails: SANDBOX_BANK.fails,
    });
  }
  return { values, problems };
}

function sandboxConnectPages(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    acceptForms(fastify, 4096);
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    /** The account the page's address names (before or after a rename), if it is this seller's. */
    const accountOf = async (req: FastifyRequest, accountId: string, sellerId: string) => {
      if (!/^acct_[A-Za-z0-9_]{1,100}$/.test(accountId)) return undefined;
      const base = baseId(accountId);
      const row: PayoutAccountRow | undefined =
        (await payoutAccountById(req.ctx, base)) ??
        (await payoutAccountById(req.ctx, `${base}${FAILING_ACCOUNT_SUFFIX}`));
      return row && row.sellerId === sellerId && row.provider === 'sandbox' ? row : undefined;
    };

    /** The "continue" path the link carried, when it is one of ours. */
    const backOf = (value: unknown) => {
      const given = first(value);
      return given && given.length <= 500 ? ownPath(given, deps.publicBaseUrl) : undefined;
    };

    const noSuchAccount = (req: FastifyRequest, reply: FastifyReply) =>
      refusalPage(req, reply, 404, text('page.payoutConnect.noSuchAccount'));

    app.get<{ Params: { accountId: string }; Querystring: Record<string, unknown> }>(
      '/sandbox/connect/:accountId',
      pageRoute,
      async (req, reply) => {
        const back = backOf(req.query.return);
        const here = connectPagePath(req.params.accountId, back);
        const session = await sessionOf(req);
        if (!session) return seeOther(reply, signInPath(req.url));
        const row = await accountOf(req, req.params.accountId, session.user.id);
        if (!row) return noSuchAccount(req, reply);
        const p = pageLang(req, { known: session.user.locale, here });
        return page(
          reply,
          200,
          connectPage(p, {
            accountId: row.accountId,
            csrf: formToken(session.id, row.accountId),
            back,
            bankLast4: row.bankLast4,
          }),
        );
      },
    );

    app.post<{ Params: { accountId: string }; Body: Record<string, unknown> | undefined }>(
      '/sandbox/connect/:accountId',
      pageRoute,
      async (req, reply) => {
        const body = req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? req.body : {};
        const back = backOf(body.return);
        const here = connectPagePath(req.params.accountId, back);
        const session = await sessionOf(req);
        if (!session) {
          return refusalPage(req, reply, 401, text('page.payoutConnect.signIn'), {
            href: signInPath(here),
            label: text('page.payoutConnect.signInLink'),
          });
        }
        const row = await accountOf(req, req.params.accountId, session.user.id);
        if (!row) return noSuchAccount(req, reply);
        const csrf = formToken(session.id, row.accountId);
        if (!tokenFits(body.csrf, csrf)) {
          return refusalPage(req, reply, 403, text('web.form.expired'), {
            href: here,
            label: text('page.payoutConnect.again'),
          });
        }
        const p = pageLang(req, { known: session.user.locale, here });
        const { values, problems } = readBankForm(body);
        if (Object.keys(problems).length > 0) {
          return page(
            reply,
            400,
            connectPage(p, {
              accountId: row.accountId,
              csrf,
              back,
              bankLast4: row.bankLast4,
              values,
              problems,
            }),
          );
        }
        const fails = values.account === SANDBOX_BANK.fails;
        const last4 = values.account.slice(-4);
        await recordSandboxBank(req.ctx, row, { last4, fails });
        return page(reply, 200, connectedPage(p, { last4, fails, back: back ?? CONSOLE_PAYOUTS }));
      },
    );
  };
}
