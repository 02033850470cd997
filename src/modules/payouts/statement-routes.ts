// HTTP adapter of sellers' monthly statements (docs/api.md "Statements"): the months that have
// one, and each month's statement as CSV or PDF.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../contract/errors.ts';
import { LOCALES } from '../../contract/i18n.ts';
import { caller } from '../context.ts';
import type { PayoutsDeps } from './deps.ts';
import { type StatementFile, type StatementFormat, statementFile, statementList } from './statements.ts';

const tags = ['payouts'];

export const statementQuery = z.object({
  locale: z
    .enum(LOCALES)
    .optional()
    .describe("The statement's language; your saved one by default, else Accept-Language"),
});

const monthParams = z.object({
  month: z.string().max(20).describe('The month, YYYY-MM, on the marketplace’s calendar (America/Toronto)'),
});

const fileResponse = (type: string, description: string) => ({
  200: { description, content: { [type]: { schema: z.any().describe(description) } } },
  400: errorBody,
  404: errorBody,
});

/** A statement answer, downloaded under its file name. */
export function sendStatement(reply: FastifyReply, file: StatementFile) {
  return reply
    .header('content-type', file.contentType)
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('content-language', file.locale)
    .header('cache-control', 'private, no-store')
    .send(file.body);
}

const DESCRIPTION =
  'The opening balance (what you were owed before the month: pending, available and in transit), ' +
  'each ledger transaction (date, kind, orders, gross, the platform’s commission, the GST/HST on it, ' +
  'net to you), the month’s totals, the platform’s invoice of its commission (its legal name and ' +
  'GST/HST number from its tax profile) and the closing balance. `400` for a month that is not ' +
  'YYYY-MM; `404` for a month not yet begun or in which no money of yours moved.';

export function statementRoutes(deps: PayoutsDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/sellers/me/statements',
      {
        config: { auth: ['seller'] },
        schema: {
          tags,
          summary: 'The months (America/Toronto) with a statement of yours, newest first',
          response: {
            200: z.object({
              statements: z.array(z.object({ month: z.string(), csvUrl: z.string(), pdfUrl: z.string() })),
            }),
          },
        },
      },
      async (req) => statementList(req.ctx, caller(req.ctx).id, deps.publicBaseUrl),
    );

    const formats: Array<[StatementFormat, string, string]> = [
      ['csv', 'text/csv', 'The statement as CSV: a header row, then one row per ledger transaction'],
      ['pdf', 'application/pdf', 'The statement as a PDF'],
    ];
    for (const [format, type, summary] of formats) {
      app.get(
        `/sellers/me/statements/:month.${format}`,
        {
          config: { auth: ['seller'], limit: 'orders' },
          schema: {
            tags,
            summary: `Your monthly statement as ${format.toUpperCase()}`,
            description: `${summary}. ${DESCRIPTION}`,
            params: monthParams,
            querystring: statementQuery,
            response: fileResponse(type, summary),
          },
        },
        async (req, reply) =>
          sendStatement(
            reply,
            await statementFile(req.ctx, caller(req.ctx).id, req.params.month, format, req.query.locale),
          ),
      );
    }
  };
}
