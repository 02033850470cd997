// HTTP adapter of sellers' balances, payouts and disputes, and the operator's view of the money
// (docs/api.md "Balances, payouts and disputes").
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PayoutsDeps } from './deps.ts';
import * as service from './service.ts';

const tags = ['payouts'];
const cents = z.number().int();
const unix = z.number().int();
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

const balanceAnswer = z.object({
  currency: z.literal('CAD'),
  pendingCents: cents,
  availableCents: cents,
  inTransitCents: cents,
  paidOutCents: cents,
  payoutsEnabled: z.boolean(),
  missing: z.array(z.string()),
  nextPayout: z
    .object({
      at: unix,
      schedule: z.enum(['daily', 'weekly']),
      minimumCents: cents,
      amountCents: cents,
    })
    .nullable(),
});

const payoutAnswer = z.object({
  id: z.string(),
  amountCents: cents,
  status: z.enum(['in_transit', 'paid', 'failed', 'partly_failed']),
  createdAt: unix,
  transfers: z.array(
    z.object({
      orderId: z.string(),
      orderNumber: z.string().nullable(),
      amountCents: cents,
      status: z.enum(['requested', 'paid', 'failed']),
      transferId: z.string().nullable(),
      reversedCents: cents,
      error: z.string().nullable().optional(),
    }),
  ),
});

const disputeAnswer = z.object({
  id: z.string(),
  orderId: z.string(),
  reason: z.string(),
  status: z.string(),
  outcome: z.enum(['open', 'won', 'lost']),
  amountCents: cents,
  feeCents: cents,
  evidenceDueBy: unix.nullable(),
  evidenceSubmittedAt: unix.nullable(),
  evidenceFileSent: z.boolean(),
  createdAt: unix,
  closedAt: unix.nullable(),
});

export function payoutRoutes(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/sellers/me/balance',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: 'Your balances (pending, available, in transit, paid out) and your next payout',
          response: { 200: balanceAnswer },
        },
      },
      async (req) => service.myBalance(req.ctx),
    );

    app.get(
      '/sellers/me/payouts',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: 'Your payouts, newest first, each with its transfers by order',
          querystring: listQuery,
          response: { 200: z.object({ payouts: z.array(payoutAnswer) }) },
        },
      },
      async (req) => service.myPayouts(req.ctx, req.query.limit),
    );

    app.get(
      '/sellers/me/disputes',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: "Disputes of your orders' payments, newest first, with their deadlines",
          querystring: listQuery,
          response: { 200: z.object({ disputes: z.array(disputeAnswer) }) },
        },
      },
      async (req) => service.myDisputes(req.ctx, req.query.limit),
    );

    app.post(
      '/sellers/me/disputes/:disputeId/evidence',
      {
        config: { auth: ['seller'], limit: 'productWrites' },
        schema: {
          tags,
          summary: 'Send your evidence for a dispute (sent to the payment provider)',
          params: z.object({ disputeId: z.string().min(1).max(100) }),
          body: z.object({ text: z.string().trim().min(1).max(20_000) }),
          response: { 200: z.object({ sent: z.literal(true) }) },
        },
      },
      async (req) => service.sendEvidence(req.ctx, deps, req.params.disputeId, { text: req.body.text }),
    );

    app.post(
      '/admin/sellers/:sellerId/adjustments',
      {
        config: { auth: ['admin'], idempotency: 'required' },
        schema: {
          tags,
          summary:
            "Adjust a seller's available money (positive: owed to them; negative: taken back); needs an Idempotency-Key",
          params: z.object({ sellerId: z.string().min(1).max(100) }),
          body: z.object({
            amountCents: z
              .number()
              .int()
              .min(-10_000_000)
              .max(10_000_000)
              .refine((n) => n !== 0, 'must not be 0'),
            reason: z.string().trim().min(1).max(500),
          }),
          response: {
            201: z.object({
              id: z.string(),
              sellerId: z.string(),
              amountCents: cents,
              reason: z.string(),
              createdAt: unix,
            }),
          },
        },
      },
      async (req, reply) =>
        reply.code(201).send(await service.adjust(req.ctx, req.params.sellerId, req.body)),
    );

    app.get(
      '/admin/payouts',
      {
        config: { auth: ['admin'] },
        schema: {
          tags,
          summary:
            "The platform's money: commission, its tax, what is owed to sellers, failed transfers, open disputes",
          response: {
            200: z.object({
              currency: z.literal('CAD'),
              commissionCents: cents,
              commissionTaxCents: cents,
              owedToSellersCents: cents,
              providerCashCents: cents,
              failedTransfers: z.array(
                z.object({
                  payoutId: z.string(),
                  orderId: z.string(),
                  sellerId: z.string(),
                  amountCents: cents,
                  error: z.string().nullable(),
                  failedAt: unix.nullable(),
                }),
              ),
              openDisputes: z.array(
                z.object({
                  id: z.string(),
                  checkoutId: z.string(),
                  amountCents: cents,
                  feeCents: cents,
                  reason: z.string(),
                  status: z.string(),
                  evidenceDueBy: unix.nullable(),
                }),
              ),
            }),
          },
        },
      },
      async (req) => service.platformMoney(req.ctx),
    );
  };
}
