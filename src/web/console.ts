import type { FastifyInstance } from 'fastify';
import type { WebDeps } from './routes.ts';

export function consolePages(_app: FastifyInstance, _deps: WebDeps) {}
