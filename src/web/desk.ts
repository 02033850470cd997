import type { FastifyInstance } from 'fastify';
import type { WebDeps } from './routes.ts';

export function deskPages(_app: FastifyInstance, _deps: WebDeps) {}
