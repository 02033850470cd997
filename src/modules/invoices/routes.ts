// HTTP adapter of invoices: the signed link an email carries (GET /invoices/:token), answered
// without signing in (invoices/links.ts). An order's own invoice, for a signed-in caller, is
// GET /orders/:orderId/invoice in the orders module's routes; both answer through sendInvoice.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../contract/errors.ts';
import { invoiceQuery } from '../../contract/orders.ts';
import type { InvoiceLinks } from './links.ts';
import type { InvoiceRenderer } from './renderer.ts';
import { invoiceByLink, type invoiceOf } from './service.ts';

/** The PDF answer of either route; 503 (Retry-After) while too many invoices are being drawn. */
export const invoiceResponse = {
  200: {
    description: 'The invoice (`Content-Disposition: attachment`)',
    content: { 'application/pdf': { schema: z.any().describe('The PDF document') } },
  },
  503: errorBody,
};

export function sendInvoice(reply: FastifyReply, invoice: Awaited<ReturnType<typeof invoiceOf>>) {
  return reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${invoice.fileName}"`)
    .header('content-language', invoice.locale)
    .header('cache-control', 'private, no-store')
    .header('referrer-policy', 'no-referrer')
    .send(invoice.pdf);
}

export function invoiceRoutes(links: InvoiceLinks, invoices: InvoiceRenderer) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/invoices/:token',
      {
        config: { auth: 'public', limit: 'orders' },
        schema: {
          tags: ['orders'],
          summary:
            "An order's invoice from the link in its paid email (no sign-in; the link expires after a year)",
          params: z.object({ token: z.string().max(100) }),
          querystring: invoiceQuery,
          response: invoiceResponse,
        },
      },
      async (req, reply) => {
        // The link's language speaks its refusal too.
        if (req.query.locale) req.ctx.locale = req.query.locale;
        return sendInvoice(
          reply,
          await invoiceByLink(req.ctx, invoices, links, req.params.token, req.query.locale),
        );
      },
    );
  };
}
