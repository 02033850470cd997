// HTTP adapter of payments: the provider's webhook (POST /webhooks/payments) and, when the
// sandbox is the provider, its payment page (docs/api.md "Payments", "Paying").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkoutParams } from '../../contract/checkout.ts';
import { AppError, invalid, wordsOf } from '../../contract/errors.ts';
import { t } from '../../contract/i18n.ts';
import { sessionForPayment } from '../checkout/service.ts';
import { numberedOrdersOfCheckout, type OrdersDeps } from '../orders/service.ts';
import { readPageLocale } from '../page-layout.ts';
import type { PaymentProvider } from './provider.ts';
import { closedPage, PAGE_CSP, paidPage, paymentPage, sandboxPageLang } from './sandbox-page.ts';
import { paySandbox, receiveWebhook } from './service.ts';

export interface PaymentRoutesDeps extends OrdersDeps {
  provider: PaymentProvider;
  /** The reader of Connect events (sellers' accounts), with that endpoint's secret. */
  connect?: Pick<PaymentProvider, 'name' | 'parseWebhook'>;
  /** The sandbox's signer, when the sandbox is the provider (its page is served only then). */
  sandbox?: { sign(payload: string, now: Date): string };
}

const tags = ['payments'];

export function paymentRoutes(deps: PaymentRoutesDeps) {
  return async (fastify: FastifyInstance) => {
    await fastify.register(webhookRoutes(deps));
    if (deps.sandbox) await fastify.register(sandboxRoutes(deps, deps.sandbox));
  };
}

function webhookRoutes(deps: PaymentRoutesDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // The signature is over the exact bytes received: this plugin keeps JSON bodies raw.
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );

    app.post(
      '/webhooks/payments',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          summary: "The payment provider's events (signature header Stripe-Signature: t=…,v1=…)",
          response: {
            200: z.object({
              received: z.literal(true),
              duplicate: z.boolean(),
              orderIds: z.array(z.string()).optional(),
            }),
          },
        },
      },
      async (req) => {
        if (!Buffer.isBuffer(req.body)) throw invalid('error.payments.eventNotJson');
        const signature = req.headers['stripe-signature'];
        return receiveWebhook(req.ctx, deps, req.body, typeof signature === 'string' ? signature : undefined);
      },
    );

    const connect = deps.connect;
    if (connect) {
      app.post(
        '/webhooks/connect',
        {
          config: { auth: 'public' },
          schema: {
            tags,
            summary:
              "The provider's events of sellers' connected accounts (Stripe Connect's endpoint; signed with STRIPE_CONNECT_WEBHOOK_SECRET)",
            response: { 200: z.object({ received: z.literal(true), duplicate: z.boolean() }) },
          },
        },
        async (req) => {
          if (!Buffer.isBuffer(req.body)) throw invalid('error.payments.eventNotJson');
          const signature = req.headers['stripe-signature'];
          const { received, duplicate } = await receiveWebhook(
            req.ctx,
            {
              ...deps,
              provider: { ...deps.provider, name: connect.name, parseWebhook: connect.parseWebhook },
            },
            req.body,
            typeof signature === 'string' ? signature : undefined,
          );
          return { received, duplicate };
        },
      );
    }
  };
}

function sandboxRoutes(deps: PaymentRoutesDeps, sandbox: NonNullable<PaymentRoutesDeps['sandbox']>) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // The page's form posts form-encoded fields (it works without script).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const html = (reply: FastifyReply, status: number, body: string) =>
      reply
        .code(status)
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', PAGE_CSP)
        .header('cache-control', 'no-store')
        .send(body);

    app.get(
      '/sandbox/checkout/:sessionId',
      {
        // `?lang=` chooses the page's language, else the buyer's saved one, else Accept-Language.
        preValidation: readPageLocale,
        config: { auth: 'public', limit: 'orders', otherFormat: true },
        schema: { tags, summary: "The sandbox's payment page (HTML)", params: checkoutParams },
      },
      async (req, reply) => {
        const session = await sessionForPayment(req.ctx, req.params.sessionId);
        const p = await sandboxPageLang(req, session, req.params.sessionId);
        if (!session) return html(reply, 404, closedPage(p, t(p.locale, 'page.sandbox.noSuchSession')));
        if (session.status === 'complete') {
          return html(reply, 200, paidPage(p, session, await numberedOrdersOfCheckout(req.ctx, session.id)));
        }
        if (session.status === 'expired' || session.expiresAt <= req.ctx.now()) {
          return html(reply, 410, closedPage(p, t(p.locale, 'page.sandbox.sessionExpired')));
        }
        return html(reply, 200, paymentPage(p, session));
      },
    );

    app.post(
      '/sandbox/checkout/:sessionId/pay',
      {
        // The page's form carries the language it was shown in (`lang`).
        preValidation: readPageLocale,
        config: { auth: 'public', limit: 'checkout' },
        schema: {
          tags,
          summary: 'Pay a checkout in the sandbox: card 4242424242424242 pays, 4000000000000002 is declined',
          params: checkoutParams,
          body: z.object({ card: z.string().max(32) }).passthrough(),
          response: {
            200: z.object({
              paid: z.literal(true),
              sessionId: z.string(),
              paymentIntentId: z.string(),
              orderIds: z.array(z.string()),
            }),
          },
        },
      },
      async (req, reply) => {
        const fromForm = isForm(req);
        try {
          const paid = await paySandbox(
            req.ctx,
            { ...deps, sign: sandbox.sign },
            req.params.sessionId,
            req.body.card,
          );
          if (!fromForm) return paid;
          const session = await sessionForPayment(req.ctx, paid.sessionId);
          const p = await sandboxPageLang(req, session, paid.sessionId);
          return html(
            reply,
            200,
            paidPage(p, session!, await numberedOrdersOfCheckout(req.ctx, paid.sessionId)),
          );
        } catch (err) {
          if (!fromForm || !(err instanceof AppError)) throw err;
          const session = await sessionForPayment(req.ctx, req.params.sessionId);
          const p = await sandboxPageLang(req, session, req.params.sessionId);
          const said = wordsOf(p.locale, err.text);
          if (!session || err.code !== 'PAYMENT_PROVIDER_ERROR') {
            return html(reply, err.statusCode, closedPage(p, said));
          }
          return html(reply, err.statusCode, paymentPage(p, session, said));
        }
      },
    );
  };
}

const isForm = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
