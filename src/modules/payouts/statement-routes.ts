import type { FastifyInstance } from 'fastify';
import type { PayoutsDeps } from './deps.ts';

export function statementRoutes(_deps: PayoutsDeps) {
  return async (_fastify: FastifyInstance) => {};
}
