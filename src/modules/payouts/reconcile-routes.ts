// HTTP adapter of the reconciliation of the ledger with the provider's balance transactions
// (docs/api.md "Reconciliation"): for admins.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../contract/errors.ts';
import type { PayoutsDeps } from './deps.ts';
import { MAX_PERIOD_DAYS, RECONCILE_GROUPS, reconcile } from './reconcile.ts';

const tags = ['payouts'];
const cents = z.number().int();
const day = (what: string) =>
  z
    .string()
    .max(10)
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'validation.isoDate')
    .describe(`${what}, YYYY-MM-DD, on the marketplace’s calendar (America/Toronto)`);

export const reconcileQuery = z.object({
  from: day('The first day of the period'),
  to: day(`The last day of the period (included; at most ${MAX_PERIOD_DAYS} days after the first)`),
});

const reconcileAnswer = z.discriminatedUnion('available', [
  z
    .object({ available: z.literal(false) })
    .describe('The payout provider keeps no balance of its own (the sandbox): nothing to reconcile'),
  z.object({
    available: z.literal(true),
    currency: z.literal('CAD'),
    from: z.string(),
    to: z.string(),
    lines: z.array(
      z.object({
        group: z.enum(RECONCILE_GROUPS),
        ledgerCents: cents.describe("What the ledger's provider cash moved (positive: money in)"),
        ledgerCount: z.number().int(),
        providerCents: cents.describe("What the provider's balance moved, before its processing fees"),
        providerCount: z.number().int(),
        differenceCents: cents.describe("The provider's less the ledger's: 0 when they agree"),
      }),
    ),
    otherTypes: z.array(z.object({ type: z.string(), cents, count: z.number().int() })),
    providerFeesCents: cents.describe("The provider's fees, not in the ledger"),
    providerPayoutsCents: cents.describe("The provider's payouts to the platform's bank, not in the ledger"),
    differenceCents: cents,
    complete: z.boolean(),
  }),
]);

export function reconcileRoutes(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/payouts/reconciliation',
      {
        config: { auth: ['admin'], limit: 'analytics' },
        schema: {
          tags,
          summary: "The ledger's provider cash against the provider's balance transactions, over a period",
          description:
            'For each group (charges, refunds, transfers, transfer reversals, disputes, other): what ' +
            "the ledger's provider cash moved in the period, what the provider's balance transactions " +
            'moved, and the difference. The provider’s fees and its payouts to the platform’s bank are ' +
            `on lines of their own. At most ${MAX_PERIOD_DAYS} days; \`400\` naming \`from\` or \`to\` ` +
            'otherwise. `{ "available": false }` with the sandbox.',
          querystring: reconcileQuery,
          response: { 200: reconcileAnswer, 400: errorBody },
        },
      },
      async (req) => reconcile(req.ctx, deps, req.query),
    );
  };
}
