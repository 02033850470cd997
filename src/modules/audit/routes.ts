// HTTP adapter of the audit log (docs/api.md "Audit log"): admins read it and export it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { intParam } from '../../contract/catalog.ts';
import * as service from './service.ts';

const tags = ['admin'];

const filters = {
  action: z.string().max(60).optional().describe('One kind of action (`user.role`, `review.publish`…)'),
  subject: z.string().max(200).optional().describe('One thing acted on (its id)'),
};

const auditQuery = z.object({
  limit: intParam('limit', 1, 200).default(50),
  before: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('The `nextBefore` of the previous page'),
  ...filters,
});

const adminAction = z.object({
  id: z.number().int(),
  actorId: z.string(),
  actorEmail: z.string(),
  action: z.string(),
  subject: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.number().int(),
});

export async function auditRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/admin/audit',
    {
      config: { auth: ['admin'] },
      schema: {
        tags,
        summary: "The admins' actions, newest first: who, what, on what, when, before and after",
        querystring: auditQuery,
        response: {
          200: z.object({ actions: z.array(adminAction), nextBefore: z.number().int().nullable() }),
        },
      },
    },
    async (req) => service.auditPage(req.ctx, req.query),
  );

  app.get(
    '/admin/audit.csv',
    {
      config: { auth: ['admin'], limit: 'analytics' },
      schema: {
        tags,
        summary: `The newest ${service.AUDIT_EXPORT_MAX.toLocaleString('en-CA')} actions as CSV`,
        querystring: z.object(filters),
      },
    },
    async (req, reply) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="portage-audit.csv"')
        .send(await service.auditCsv(req.ctx, req.query)),
  );
}
