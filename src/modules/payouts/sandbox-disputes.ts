// The sandbox's disputes (admin only, served only when the sandbox is the provider): a buyer's
// chargeback made on demand, as Stripe's test cards make one. Each is the event Stripe would
// send (`charge.dispute.created`, then `charge.dispute.closed` won or lost), Stripe-shaped,
// signed with the webhook secret and handed to the webhook's own handling (receiveWebhook),
// so a dispute takes exactly the path a real one takes (docs/api.md "Payout accounts").
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { conflict, invalid, notFound, problem } from '../../contract/errors.ts';
import { checkoutSessions } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import { receiveWebhook } from '../payments/service.ts';
import type { PayoutsDeps } from './deps.ts';
import { disputes } from './tables.ts';

/** Stripe's dispute reasons. */
export const DISPUTE_REASONS = [
  'bank_cannot_process',
  'check_returned',
  'credit_not_processed',
  'customer_initiated',
  'debit_not_authorized',
  'duplicate',
  'fraudulent',
  'general',
  'incorrect_account_details',
  'insufficient_funds',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'unrecognized',
] as const;

/** Days a seller has to answer a dispute in the sandbox (Stripe gives about a week to three). */
export const EVIDENCE_DAYS = 7;

/** A sandbox dispute as its events describe it. */
export interface SandboxDispute {
  id: string;
  paymentIntentId: string;
  amountCents: number;
  /** What the dispute costs (DISPUTE_FEE_CENTS), kept won or lost. */
  feeCents: number;
  reason: string;
  status: 'needs_response' | 'under_review' | 'won' | 'lost';
  createdAt: Date;
  evidenceDueBy: Date;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const unix = (d: Date) => Math.floor(d.getTime() / 1000);
const sha = (what: string) => createHash('sha256').update(what).digest('hex').slice(0, 24);

/** A new dispute's id, as Stripe writes them (`dp_…`). */
export const sandboxDisputeId = () => `dp_sandbox_${hex(12)}`;

/**
 * The Stripe-shaped event of a dispute at `phase`: the Dispute object with its payment intent,
 * reason, status, evidence deadline, and balance transactions (the amount and the fee taken when
 * it opened; the amount given back when it is won).
 */
export function disputeEvent(
  phase: 'created' | 'updated' | 'closed',
  d: SandboxDispute,
  now: Date,
): Record<string, unknown> {
  const created = unix(d.createdAt);
  const transactions = [
    {
      id: `txn_sandbox_${sha(`${d.id}\nopened`)}`,
      object: 'balance_transaction',
      amount: -d.amountCents,
      fee: d.feeCents,
      net: -d.amountCents - d.feeCents,
      currency: 'cad',
      type: 'adjustment',
      reporting_category: 'dispute',
      created,
    },
    ...(d.status === 'won'
      ? [
          {
            id: `txn_sandbox_${sha(`${d.id}\nwon`)}`,
            object: 'balance_transaction',
            amount: d.amountCents,
            fee: 0,
            net: d.amountCents,
            currency: 'cad',
            type: 'adjustment',
            reporting_category: 'dispute_reversal',
            created: unix(now),
          },
        ]
      : []),
  ];
  return {
    id: `evt_sandbox_${hex(12)}`,
    object: 'event',
    type: `charge.dispute.${phase}`,
    created: unix(now),
    livemode: false,
    data: {
      object: {
        id: d.id,
        object: 'dispute',
        amount: d.amountCents,
        currency: 'cad',
        charge: `ch_sandbox_${sha(d.paymentIntentId)}`,
        payment_intent: d.paymentIntentId,
        reason: d.reason,
        status: d.status,
        created,
        livemode: false,
        is_charge_refundable: false,
        metadata: {},
        evidence_details: {
          due_by: unix(d.evidenceDueBy),
          has_evidence: false,
          past_due: d.evidenceDueBy <= now,
          submission_count: 0,
        },
        balance_transactions: transactions,
      },
    },
  };
}

const disputeBody = z.object({
  paymentIntentId: z.string().min(1).max(255),
  amountCents: z.number().int().min(1).max(100_000_000).optional(),
  reason: z.enum(DISPUTE_REASONS).optional(),
});

const closeBody = z.object({ outcome: z.enum(['won', 'lost']) });

const tags = ['sandbox'];

/** The disputes opened by this instance, until the webhook's handling has one of its own (bounded). */
const OPENED_MAX = 10_000;

export function sandboxDisputeRoutes(deps: PayoutsDeps & { sandbox: NonNullable<PayoutsDeps['sandbox']> }) {
  const opened = new Map<string, SandboxDispute>();
  const remember = (d: SandboxDispute) => {
    if (opened.size >= OPENED_MAX) opened.delete(opened.keys().next().value as string);
    opened.set(d.id, d);
  };

  /** Delivers `event` as Stripe does: its exact bytes, signed, to the webhook's handling. */
  const deliver = async (ctx: RequestContext, event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    // A dispute makes no order: the platform's fee, which only a payment's orders take, is unused.
    await receiveWebhook(
      ctx,
      { ...deps, platformFeeBps: 0 },
      Buffer.from(payload),
      deps.sandbox.sign(payload, ctx.now()),
    );
  };

  /** A dispute as it stands: the webhook's record of it, else this instance's. */
  const disputeOf = async (ctx: RequestContext, id: string): Promise<SandboxDispute | undefined> => {
    const [row] = await ctx.db.select().from(disputes).where(eq(disputes.id, id));
    if (row) {
      return {
        id: row.id,
        paymentIntentId: row.paymentIntentId,
        amountCents: row.amountCents,
        feeCents: row.feeCents,
        reason: row.reason,
        status:
          row.outcome !== 'open'
            ? row.outcome
            : row.status === 'under_review'
              ? 'under_review'
              : 'needs_response',
        createdAt: row.createdAt,
        evidenceDueBy: row.evidenceDueBy ?? new Date(row.createdAt.getTime() + EVIDENCE_DAYS * 86_400_000),
      };
    }
    return opened.get(id);
  };

  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/sandbox/disputes',
      {
        config: { auth: ['admin'] },
        schema: {
          tags,
          summary:
            "Open a dispute of a sandbox payment: Stripe's charge.dispute.created, sent to the webhook",
          description:
            'The whole payment unless `amountCents` says less; `reason` is Stripe’s (default fraudulent). ' +
            `The seller has ${EVIDENCE_DAYS} days to answer; the dispute costs DISPUTE_FEE_CENTS.`,
          body: disputeBody,
          response: { 201: z.object({ disputeId: z.string() }) },
        },
      },
      async (req, reply) => {
        const ctx = req.ctx;
        const [paid] = await ctx.db
          .select({ totalCents: checkoutSessions.totalCents })
          .from(checkoutSessions)
          .where(eq(checkoutSessions.paymentIntentId, req.body.paymentIntentId));
        if (!paid) throw notFound('error.payouts.noSuchPayment');
        const amountCents = req.body.amountCents ?? paid.totalCents;
        if (amountCents > paid.totalCents) {
          throw invalid('error.payouts.disputeAboveCharge', undefined, [
            problem('amountCents', 'validation.disputeAboveCharge'),
          ]);
        }
        const now = ctx.now();
        const dispute: SandboxDispute = {
          id: sandboxDisputeId(),
          paymentIntentId: req.body.paymentIntentId,
          amountCents,
          feeCents: deps.disputeFeeCents,
          reason: req.body.reason ?? 'fraudulent',
          status: 'needs_response',
          createdAt: now,
          evidenceDueBy: new Date(now.getTime() + EVIDENCE_DAYS * 86_400_000),
        };
        await deliver(ctx, disputeEvent('created', dispute, now));
        remember(dispute);
        return reply.code(201).send({ disputeId: dispute.id });
      },
    );

    app.post(
      '/sandbox/disputes/:id/close',
      {
        config: { auth: ['admin'] },
        schema: {
          tags,
          summary:
            "Close a sandbox dispute, won or lost: Stripe's charge.dispute.closed, sent to the webhook",
          params: z.object({ id: z.string().max(100) }),
          body: closeBody,
          response: { 200: z.object({ disputeId: z.string(), status: z.enum(['won', 'lost']) }) },
        },
      },
      async (req) => {
        const ctx = req.ctx;
        const dispute = await disputeOf(ctx, req.params.id);
        if (!dispute) throw notFound('error.payouts.sandboxDisputeNotFound', { id: req.params.id });
        if (dispute.status === 'won' || dispute.status === 'lost')
          throw conflict('error.payouts.sandboxDisputeClosed');
        const closed: SandboxDispute = { ...dispute, status: req.body.outcome };
        await deliver(ctx, disputeEvent('closed', closed, ctx.now()));
        if (opened.has(closed.id)) opened.set(closed.id, closed);
        return { disputeId: closed.id, status: req.body.outcome };
      },
    );
  };
}
