// HTTP adapter of returns: the buyer's request (request_return), list and detail; the seller's
// list (GET /sellers/me/returns lives here: its rules are the returns'); the decisions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  approveReturnBody,
  listReturnsQuery,
  listSellerReturnsQuery,
  receiveReturnBody,
  rejectReturnBody,
  requestReturnApiBody,
  returnList,
  returnParams,
  returnRequest,
} from '../../contract/returns.ts';
import type { ReturnsDeps } from './service.ts';
import * as returnsService from './service.ts';

const tags = ['returns'];

export function returnRoutes(deps: ReturnsDeps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/returns',
      {
        config: { auth: ['buyer'], limit: 'returns', scope: 'orders' },
        schema: {
          tags,
          summary: 'Request a return of a delivered order, whole or some of its products (request_return)',
          body: requestReturnApiBody,
          response: { 201: returnRequest },
        },
      },
      async (req, reply) => {
        const answer = await returnsService.requestReturn(req.ctx, deps, req.body);
        return reply.code(201).send(answer);
      },
    );

    app.get(
      '/returns',
      {
        config: { auth: ['buyer'], limit: 'returns', scope: 'orders' },
        schema: {
          tags,
          summary: 'Your return requests, newest first',
          querystring: listReturnsQuery,
          response: { 200: returnList },
        },
      },
      async (req) => returnsService.listReturns(req.ctx, req.query, 'buyer'),
    );

    app.get(
      '/returns/:returnId',
      {
        config: { auth: 'user', limit: 'returns', scope: 'orders' },
        schema: {
          tags,
          summary: 'A return request, to its buyer, its seller or an admin',
          params: returnParams,
          response: { 200: returnRequest },
        },
      },
      async (req) => returnsService.getReturn(req.ctx, req.params.returnId),
    );

    app.post(
      '/returns/:returnId/approve',
      {
        config: { auth: ['seller'], limit: 'returns' },
        schema: {
          tags,
          summary:
            'Approve a pending return (its seller or an admin): refunded now, or, with instructions, once the parcel is received',
          params: returnParams,
          body: approveReturnBody,
          response: { 200: returnRequest },
        },
      },
      async (req) =>
        returnsService.approveReturn(
          req.ctx,
          deps,
          req.params.returnId,
          req.body?.note,
          req.body?.instructions,
        ),
    );

    app.post(
      '/returns/:returnId/receive',
      {
        config: { auth: ['seller'], limit: 'returns' },
        schema: {
          tags,
          summary:
            'The parcel of a return awaiting it came back: put units back in stock, and refund (its seller or an admin)',
          params: returnParams,
          body: receiveReturnBody,
          response: { 200: returnRequest },
        },
      },
      async (req) =>
        returnsService.receiveReturn(req.ctx, deps, req.params.returnId, req.body?.restock ?? {}),
    );

    app.post(
      '/returns/:returnId/reject',
      {
        config: { auth: ['seller'], limit: 'returns' },
        schema: {
          tags,
          summary: 'Reject a pending return, saying why (its seller or an admin)',
          params: returnParams,
          body: rejectReturnBody,
          response: { 200: returnRequest },
        },
      },
      async (req) => returnsService.rejectReturn(req.ctx, deps, req.params.returnId, req.body.note),
    );

    app.get(
      '/sellers/me/returns',
      {
        config: { auth: ['seller'], limit: 'returns' },
        schema: {
          tags,
          summary: "Returns of your shop's orders, newest first (sellers)",
          querystring: listSellerReturnsQuery,
          response: { 200: returnList },
        },
      },
      async (req) => returnsService.listReturns(req.ctx, req.query, 'seller'),
    );

    app.get(
      '/admin/returns/escalated',
      {
        config: { auth: ['admin'] },
        schema: {
          tags,
          summary:
            "Returns left pending past their seller's time to answer, oldest first (admins decide them)",
          querystring: listReturnsQuery,
          response: { 200: returnList },
        },
      },
      async (req) => returnsService.escalatedReturns(req.ctx, req.query),
    );
  };
}
