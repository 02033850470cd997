// HTTP adapter of checkout: POST /checkout (create_checkout) and GET /checkout/:sessionId.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { checkoutParams, checkoutSession, createCheckoutBody } from '../../contract/checkout.ts';
import { findUser } from '../auth/users.ts';
import { numberedOrdersOfCheckout } from '../orders/service.ts';
import { pageLang, readPageLocale } from '../page-layout.ts';
import { returnPage, stripePage } from './pages.ts';
import {
  type CheckoutDeps,
  checkoutStillOpen,
  createCheckout,
  getCheckout,
  sessionForPayment,
} from './service.ts';

const tags = ['checkout'];

export function checkoutRoutes(deps: CheckoutDeps & { publishableKey: string }) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/checkout',
      {
        config: {
          auth: ['buyer'],
          limit: 'checkout',
          scope: 'shop',
          idempotency: { replayable: checkoutStillOpen },
        },
        schema: {
          tags,
          summary:
            'Open a checkout session for the cart (create_checkout): prices it for the address, holds the stock for 30 minutes; no order exists until payment',
          body: createCheckoutBody,
          response: { 200: checkoutSession, 201: checkoutSession },
        },
      },
      async (req, reply) => {
        const { session, created } = await createCheckout(req.ctx, deps, req.body);
        return reply.code(created ? 201 : 200).send(session);
      },
    );

    app.get(
      '/checkout/:sessionId',
      {
        config: { auth: ['buyer'], limit: 'orders', scope: 'shop' },
        schema: {
          tags,
          summary: 'A checkout session of yours, with its orders once paid',
          params: checkoutParams,
          response: { 200: checkoutSession },
        },
      },
      async (req) =>
        getCheckout(req.ctx, deps.publishableKey, req.params.sessionId, numberedOrdersOfCheckout),
    );

    if (deps.provider.name !== 'stripe') return;

    // The session id in the URL is the capability (120 random bits), as Stripe's own page URLs are.
    app.get(
      '/checkout/:sessionId/pay',
      {
        preValidation: readPageLocale,
        config: { auth: 'public', limit: 'orders' },
        schema: { hide: true, params: checkoutParams },
      },
      async (req, reply) => {
        const session = await sessionForPayment(req.ctx, req.params.sessionId);
        const buyer = session ? await findUser(req.ctx, session.buyerId) : undefined;
        const p = pageLang(req, { known: buyer?.locale });
        if (!session?.clientSecret || session.status !== 'ready_for_payment') {
          return reply
            .code(session ? 410 : 404)
            .header('content-type', 'text/html; charset=utf-8')
            .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
            .send(returnPage(p, session?.status ?? 'expired'));
        }
        const page = stripePage(p, {
          publishableKey: deps.publishableKey,
          clientSecret: session.clientSecret,
          totalCents: session.totalCents,
        });
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('content-security-policy', page.csp)
          .header('cache-control', 'no-store')
          .send(page.html);
      },
    );

    app.get(
      '/checkout/:sessionId/return',
      {
        preValidation: readPageLocale,
        config: { auth: 'public', limit: 'orders' },
        schema: { hide: true, params: checkoutParams },
      },
      async (req, reply) => {
        const session = await sessionForPayment(req.ctx, req.params.sessionId);
        const buyer = session ? await findUser(req.ctx, session.buyerId) : undefined;
        const p = pageLang(req, { known: buyer?.locale });
        return reply
          .code(session ? 200 : 404)
          .header('content-type', 'text/html; charset=utf-8')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
          .send(returnPage(p, session?.status ?? 'expired'));
      },
    );
  };
}
