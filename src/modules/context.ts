// What every service call receives: who is calling, the database handle and the clock.
import type { FastifyBaseLogger } from 'fastify';
import type { Role } from '../contract/common.ts';
import type { Db } from '../db/index.ts';

export interface AuthUser {
  id: string;
  email: string;
  role: Role;
}

export type Clock = () => Date;

export interface RequestContext {
  db: Db;
  now: Clock;
  log: FastifyBaseLogger;
  /** The signed-in caller; undefined on public routes. */
  user?: AuthUser;
}

/** The caller of a route that requires sign-in (the guard has run). */
export function caller(ctx: RequestContext): AuthUser {
  if (!ctx.user) throw new Error('caller() on a route without authentication');
  return ctx.user;
}
