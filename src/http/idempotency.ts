// Idempotency-Key on POST requests (docs/api.md "Idempotency"): one Fastify plugin, registered
// once (app.ts); a route tunes it through its config.idempotency (RouteIdempotency, http/types.ts:
// required, replayable, claimAhead). A service knows one thing of it: the commit-time store,
// RequestContext.answerWithCommit (below). The table's statements are in modules/system/queries.ts.
//
// The same caller sending the same key with the same request within 24 hours gets
// the first answer again (header Idempotent-Replayed: true) and the handler does not run
// again; the same key with another request, or while the first is still running, is 409. A
// route may refuse a stored answer (idempotency.replayable: POST /checkout's session has ended):
// the same key then runs the handler anew.
// Server errors (5xx) and rate limits (429) are not stored: a retry runs again.
//
// Only signed-in callers: keys are scoped per user (two users may pick the same key), and the
// anonymous POSTs (register, login, the payment webhook) need none: the webhook is made
// idempotent by its event id, and logging in twice is harmless. An anonymous caller's header
// is ignored. A route with idempotency.required (the ACP and UCP routes) refuses a POST
// or PUT without a key, and scopes keys by caller (a user, or ctx.principal: a platform) and path.
//
// The lifecycle, all through the idempotency_keys table (src/modules/system/tables.ts):
// - preValidation: the key is checked (1-255 printable ASCII, else 400) and the request
//   hashed, from the body as received (before the schema's transforms).
// - preHandler (after validation: an invalid body is a plain 400, never stored): the row is
//   claimed with one insert ... on conflict do nothing (responseStatus null = running). A row
//   already there is replayed, refused (409), or taken over (expired; or abandoned, below)
//   by a conditional update, so two requests racing on one key never both run the handler.
// - onSend: the answer is stored (status < 500 but 429, JSON or empty, at most 1 MiB), or the
//   row is deleted (a 5xx, a 429, a stream, a larger answer: a retry runs again).
// - onResponse: a row this request still holds as running is deleted (a safety net: onSend
//   runs for every answer Fastify sends, errors included).
//
// A route with idempotency.claimAhead (its handler's first database work is a transaction) does not
// claim in preHandler: the claim goes ahead of that transaction, outside it, in its first round
// trip (RequestContext.transactions, db/batching-client.ts), and is committed before the
// transaction's work as it would have been. When the key is taken already, that transaction fails
// unchanged and the handler's wrapper takes the path above: replay, 409, or take over and run.
// A handler that fails before its first transaction sent anything never claimed: nothing stored.
// A transaction whose first write is its commit (deferred writes only: delegate payment) takes
// the claim inside it, in one write with its commit: there another request with the same key
// waits for that commit, then replays, instead of finding it running (409).
//
// The commit-time store, the one option a service sees: it may store the answer with the commit of
// its last transaction instead of in onSend (RequestContext.answerWithCommit, set only when the
// request has a key; a route sends that answer with sendAnswer): serialized as the route will send it, written with the
// commit. onSend then finds the answer it sends already stored and writes nothing; any other
// answer (a failure after that commit) is stored, or not, as above, and a row answered at the
// commit keeps that answer: it says what was committed.
//
// A client that disconnects does not stop the handler, so an aborted request keeps its row:
// the handler's answer is still stored in onSend and the retry gets it. A process that dies
// mid-request leaves a running row: after RUNNING_LEASE_MS a retry with the same request
// takes it over and runs (no handler runs that long: outside calls carry shorter time limits);
// until then it is 409 "still running".
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
} from 'fastify';
import fp from 'fastify-plugin';
import { AppError, conflict, invalid, problem } from '../contract/errors.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Job } from '../jobs/runner.ts';
import type { RequestContext, RequestTransactions } from '../modules/context.ts';
import {
  claimKeyRow,
  claimKeyRowAhead,
  deleteExpiredKeys,
  type KeyHold,
  keyRow,
  releaseKey,
  retakeAnsweredKey,
  storeKeyAnswer,
  storeKeyAnswerLater,
  takeOverKey,
} from '../modules/system/queries.ts';
import { MAX_STORED_BYTES, requestHash, storableBody } from './idempotency-request.ts';

export { MAX_STORED_BYTES };

const IDEMPOTENCY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a key's first answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A row running longer than this was left by a process that died: the same request may take it over. */
export const RUNNING_LEASE_MS = 5 * 60 * 1000;

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

interface Claim {
  userId: string;
  key: string;
  hash: string;
  /** When this request claimed the row: with the hash, tells its row from a later owner's. */
  createdAt?: Date;
  /** The claim time of a claim sent ahead of the handler's transaction (claimAhead), until accepted. */
  aheadAt?: Date;
  /** Stored, deleted or replayed: nothing left to do. */
  settled?: boolean;
  /** The answer a transaction stored with its commit (answerWithCommit), and the object it serialized. */
  committedAnswer?: { status: number; body: string; answer: unknown };
  /** The route's test of a stored answer (a checkout that has ended is not replayed). */
  replayable?: (ctx: RequestContext, status: number, body: string) => Promise<boolean>;
}

const claims = new WeakMap<FastifyRequest, Claim>();

/** A claim sent ahead of the handler's transaction found its key taken (see claimAhead above). */
class KeyTaken extends Error {
  constructor() {
    super('the Idempotency-Key is held by another request or answered already');
  }
}

/** A claim's hold on its row, as of `now` (its createdAt once claimed). */
const claimValues = (claim: Claim, now: Date): KeyHold => ({
  userId: claim.userId,
  key: claim.key,
  hash: claim.hash,
  createdAt: now.toISOString(),
  expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
});

/** A refusal of the Idempotency-Key, with its reason (the ACP routes answer each with the spec's code). */
export class IdempotencyError extends AppError {
  constructor(
    readonly reason: 'required' | 'invalid' | 'conflict' | 'in_flight',
    error: AppError,
  ) {
    super(error.code, error.statusCode, error.text, error.problems);
  }
}

/** What a route asks of this plugin (its config.idempotency; see RouteIdempotency in http/types.ts). */
export interface IdempotencyOptions {
  /** Every POST (and PUT) must carry a key, scoped to the caller and the path (ACP, UCP). */
  required: boolean;
  /** The key is claimed ahead of the handler's first transaction, in its first round trip. */
  claimAhead: boolean;
  /** Whether a stored answer may still be replayed (none: always, within 24 hours). */
  replayable?: (ctx: RequestContext, status: number, body: string) => Promise<boolean>;
}

/**
 * A route's options, from config.idempotency ('required', or an object) and the names routes
 * used before it was one object (config.replayable, config.claimAhead), still accepted.
 */
export function idempotencyOptions(config: FastifyContextConfig | undefined): IdempotencyOptions {
  const given = config?.idempotency;
  const own = typeof given === 'object' ? given : {};
  return {
    required: given === 'required' || own.required === true,
    claimAhead: own.claimAhead === true,
    replayable: own.replayable,
  };
}

const routeOptions = new WeakMap<object, IdempotencyOptions>();
const optionsOf = (req: FastifyRequest): IdempotencyOptions => {
  const config = req.routeOptions.config;
  let known = routeOptions.get(config);
  if (!known) {
    known = idempotencyOptions(config);
    routeOptions.set(config, known);
  }
  return known;
};

/**
 * The plugin: registered once on the app (app.ts), it serves every route; a route tunes it
 * through its config.idempotency. Not encapsulated (fastify-plugin): its hooks are the app's.
 */
export const idempotency = fp(async (app: FastifyInstance) => registerIdempotency(app), {
  name: 'idempotency',
});

function registerIdempotency(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    if (idempotencyOptions(route.config).claimAhead) route.handler = claimingAhead(route.handler);
  });

  app.addHook('preValidation', async (req) => {
    const owner = req.ctx?.user?.id ?? req.ctx?.principal;
    const key = req.headers[IDEMPOTENCY_HEADER];
    const options = optionsOf(req);
    const required = options.required;
    // POST, and any write where keys are required (UCP's update is a PUT the spec keys).
    if (!owner || (req.method !== 'POST' && !required)) return;
    if (key === undefined && required) {
      throw new IdempotencyError(
        'required',
        invalid('error.idempotency.required', undefined, [problem('Idempotency-Key', 'validation.required')]),
      );
    }
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new IdempotencyError(
        'invalid',
        invalid('error.idempotency.invalidKey', undefined, [
          problem('Idempotency-Key', 'validation.idempotencyKey'),
        ]),
      );
    }
    claims.set(req, {
      // Scoped to the caller, and for the routes that require keys to the path as well.
      userId: required ? `${owner} ${req.url.split('?')[0]}` : owner,
      key,
      hash: requestHash(req),
      replayable: options.replayable,
    });
  });

  app.addHook('preHandler', async (req, reply) => {
    const claim = claims.get(req);
    if (!claim) return;
    const transactions: RequestTransactions = {};
    req.ctx.transactions = transactions;
    req.ctx.answerWithCommit = (tx, status, answer) =>
      storeWithCommit(reply, claim, transactions, tx, status, answer);
    if (optionsOf(req).claimAhead) {
      const now = req.ctx.now();
      claim.aheadAt = now;
      transactions.ahead = claimKeyRowAhead(claimValues(claim, now), (claimed) => {
        if (!claimed) throw new KeyTaken();
        claim.createdAt = now;
      });
      return;
    }
    const stored = await claimKey(req.ctx, claim);
    if (stored) return replay(reply, claim, stored);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const claim = claims.get(req);
    if (!claim?.createdAt || claim.settled) return payload;
    claim.settled = true;
    const committed = claim.committedAnswer;
    if (committed && committed.status === reply.statusCode) {
      // The bytes stored are the bytes sent, so that a replay is the same answer byte for byte.
      if (committed.body !== payload)
        req.log.warn('an answer stored with its commit was sent serialized otherwise');
      return committed.body;
    }
    const body = storableBody(reply, payload);
    const { ctx } = req;
    const status = reply.statusCode;
    // A rate limit ran nothing: the same key runs once the caller may again.
    const storing = status < 500 && status !== 429 && body !== undefined;
    await settle(
      req,
      () => (storing ? storeAnswer(ctx, claim, status, body) : release(ctx, claim)),
      storing ? Buffer.byteLength(body) : 0,
    );
    return payload;
  });

  app.addHook('onResponse', async (req) => {
    const claim = claims.get(req);
    if (!claim?.createdAt || claim.settled) return;
    claim.settled = true;
    const { ctx } = req;
    await settle(req, () => release(ctx, claim), 0);
  });

  /**
   * Writes of a key's row (its answer, or its release) that failed because the database could not
   * be reached: tried again every second, so that a retry after the outage finds the answer, or
   * runs, instead of finding the row running until its lease ends. Bounded by the answers' bytes:
   * past the bound, the lease is what frees a row.
   */
  const unsettled = new Map<() => Promise<unknown>, number>();
  let heldBytes = 0;
  let retrying: NodeJS.Timeout | undefined;
  let busy = false;
  const settle = async (req: FastifyRequest, write: () => Promise<unknown>, bytes: number) => {
    try {
      await write();
    } catch (err) {
      // The answer goes out all the same.
      req.log.error({ err }, 'could not record the answer of an Idempotency-Key request');
      // Each write held costs its answer's bytes and a claim's worth (a release holds no answer).
      const cost = bytes + ENTRY_BYTES;
      if (!isDatabaseUnavailable(err) || heldBytes + cost > MAX_UNSETTLED_BYTES) return;
      unsettled.set(write, cost);
      heldBytes += cost;
      retrying ??= setInterval(retryUnsettled, 1_000).unref();
    }
  };
  const retryUnsettled = async () => {
    if (busy) return;
    busy = true;
    try {
      for (const [write, bytes] of unsettled) {
        try {
          await write();
        } catch (err) {
          if (isDatabaseUnavailable(err)) return; // still away: the next tick tries again
          app.log.error({ err }, 'gave up recording the answer of an Idempotency-Key request');
        }
        unsettled.delete(write);
        heldBytes -= bytes;
      }
      clearInterval(retrying);
      retrying = undefined;
    } finally {
      busy = false;
    }
  };
  app.addHook('onClose', async () => {
    clearInterval(retrying);
    retrying = undefined;
    unsettled.clear();
    heldBytes = 0;
  });
}

/** The answers held in memory while their rows' writes wait for the database to come back, at most. */
const MAX_UNSETTLED_BYTES = 16 * 1024 * 1024;
/** What a held write costs besides its answer (its claim's values, the closure): 16 MiB is 16,384 releases. */
const ENTRY_BYTES = 1024;

/** Sends a stored answer again: the exact bytes of the first one, not serialized again. */
function replay(reply: FastifyReply, claim: Claim, stored: { status: number; body: string }) {
  claim.settled = true;
  reply.header(REPLAYED_HEADER, 'true').code(stored.status);
  if (stored.body === '') return reply.send();
  return reply.type('application/json; charset=utf-8').send(Buffer.from(stored.body, 'utf8'));
}

/**
 * A claimAhead route's handler: when its claim found the key taken (its transaction failed
 * unchanged), the key is claimed the slow way: a stored answer is replayed, a running or other
 * request is 409, and a key this request takes over (expired, abandoned) runs the handler again.
 */
function claimingAhead(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function (this: FastifyInstance, req, reply) {
    try {
      return await handler.call(this, req, reply);
    } catch (err) {
      const claim = claims.get(req);
      // The query builder wraps a statement's failure: the refusal is its cause.
      const taken = err instanceof KeyTaken || (err instanceof Error && err.cause instanceof KeyTaken);
      if (!taken || !claim) throw err;
      const stored = await claimKey(req.ctx, claim);
      if (stored) return replay(reply, claim, stored);
      return handler.call(this, req, reply);
    }
  };
}

/**
 * Claims the key for this request (and answers undefined: run the handler), or answers the
 * stored first answer to replay, or throws 409. Only the conditional statements decide who
 * runs: the row read between them only chooses which one to try.
 */
async function claimKey(
  ctx: RequestContext,
  claim: Claim,
): Promise<{ status: number; body: string } | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.now();
    const hold = claimValues(claim, now);
    if (await claimKeyRow(ctx.db, hold)) {
      claim.createdAt = now;
      return undefined;
    }
    const row = await keyRow(ctx.db, claim.userId, claim.key);
    if (!row) continue; // deleted in between (a 5xx, a release): insert again
    const expired = row.expiresAt.getTime() <= now.getTime();
    if (!expired && row.requestHash !== claim.hash) {
      throw new IdempotencyError('conflict', conflict('error.idempotency.otherRequest'));
    }
    if (!expired && row.responseStatus !== null) {
      const body = row.responseBody ?? '';
      if (!claim.replayable || (await claim.replayable(ctx, row.responseStatus, body))) {
        return { status: row.responseStatus, body };
      }
      // A stale answer (the checkout it opened has ended): this request takes the row over, if
      // no other did since it was read, and runs anew.
      if (await retakeAnsweredKey(ctx.db, hold, row.createdAt)) {
        claim.createdAt = now;
        return undefined;
      }
      continue;
    }
    const abandoned = row.createdAt.getTime() <= now.getTime() - RUNNING_LEASE_MS;
    if (!expired && !abandoned)
      throw new IdempotencyError('in_flight', conflict('error.idempotency.stillRunning'));
    if (await takeOverKey(ctx.db, hold, now, new Date(now.getTime() - RUNNING_LEASE_MS))) {
      claim.createdAt = now;
      return undefined;
    }
    // Someone else took it over or finished it first: look again.
  }
  throw new IdempotencyError('in_flight', conflict('error.idempotency.stillRunning'));
}

/**
 * answerWithCommit (RequestContext): the answer serialized as the route sends it, its store
 * deferred to go out with the commit of tx's transaction, and known stored once that commits.
 */
async function storeWithCommit(
  reply: FastifyReply,
  claim: Claim,
  transactions: RequestTransactions,
  tx: RequestContext,
  status: number,
  answer: unknown,
) {
  // A claim still ahead of this transaction goes out before the store does (or inside it, first).
  const claimedAt = claim.createdAt ?? claim.aheadAt;
  if (!claimedAt || claim.settled || !tx.inTransaction) return;
  const serialize = reply.getSerializationFunction(String(status)) as
    | ((value: unknown) => string)
    | undefined;
  const body = serialize ? serialize(answer) : JSON.stringify(answer);
  if (Buffer.byteLength(body) > MAX_STORED_BYTES) return;
  await storeKeyAnswerLater(tx.db, claimValues(claim, claimedAt), status, body);
  transactions.committed = () => {
    claim.committedAnswer = { status, body, answer };
  };
}

/**
 * Sends a route's answer: when it is the one stored with a commit (answerWithCommit), as the
 * bytes stored, without serializing it a second time.
 */
export function sendAnswer(req: FastifyRequest, reply: FastifyReply, status: number, answer: unknown) {
  const committed = claims.get(req)?.committedAnswer;
  if (committed && committed.answer === answer && committed.status === status) {
    return reply.code(status).type('application/json; charset=utf-8').send(committed.body);
  }
  return reply.code(status).send(answer);
}

/** Stores the answer on this request's row, while it still holds it as running. */
async function storeAnswer(ctx: RequestContext, claim: Claim, status: number, body: string) {
  await storeKeyAnswer(ctx.db, claimValues(claim, claim.createdAt!), status, body);
}

/** Deletes this request's row, while it still holds it as running. */
async function release(ctx: RequestContext, claim: Claim) {
  await releaseKey(ctx.db, claimValues(claim, claim.createdAt!));
}

/** Deletes expired keys, a bounded batch per pass (the runner runs another pass at once while batches are full). */
export function idempotencyCleanupJob(opts: { batch?: number; everyMs?: number } = {}): Job {
  const batch = opts.batch ?? 1000;
  return {
    name: 'idempotency-cleanup',
    everyMs: opts.everyMs ?? 10 * 60 * 1000,
    batch,
    run: (ctx) => deleteExpiredKeys(ctx.db, ctx.now(), batch),
  };
}
