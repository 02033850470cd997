// The ACP calls of the typed client: the checkout sessions under /acp (docs/acp.md), as a buyer's
// agent. Each sends ACP's headers, answers the session checked against the ACP contract, and
// throws ACP's own error (AcpApiError) with ACP's error as the route sent it, rather than ours.
import type { z } from 'zod';
import {
  type AcpCheckoutSession,
  type acpCancelSessionRequest,
  acpCheckoutSession,
  type acpCompleteSessionRequest,
  type acpCreateSessionRequest,
  type acpUpdateSessionRequest,
} from '../contract/acp.ts';
import { acpErrorOf, PortageApiError } from './errors.ts';
import { freshCreate } from './fresh-create.ts';
import { type HttpClient, pathSegment } from './http.ts';
import { acpIdempotencyKey } from './idempotency.ts';

export type { AcpCheckoutSession };
export type AcpCreateSessionInput = z.input<typeof acpCreateSessionRequest>;
export type AcpUpdateSessionInput = z.input<typeof acpUpdateSessionRequest>;
export type AcpCompleteSessionInput = z.input<typeof acpCompleteSessionRequest>;
export type AcpCancelSessionInput = z.input<typeof acpCancelSessionRequest>;

/**
 * ACP's request headers of one call, named as the MCP binding's `meta` names them. Without
 * `idempotency_key`, a POST gets a key derived from the call (acpIdempotencyKey).
 */
export interface AcpRequestMeta {
  api_version: string;
  idempotency_key?: string;
  request_id?: string;
  user_agent?: string;
  accept_language?: string;
  signature?: string;
  timestamp?: string;
}

/** The header each `meta` field is sent as (Idempotency-Key aside: it is the key option). */
const ACP_HEADERS = {
  api_version: 'api-version',
  request_id: 'request-id',
  user_agent: 'user-agent',
  accept_language: 'accept-language',
  signature: 'signature',
  timestamp: 'timestamp',
} as const satisfies Partial<Record<keyof AcpRequestMeta, string>>;

/**
 * POST /acp/checkout_sessions: opens a session (201), priced and held when it can be. With a
 * derived key, a retry answers the session the first call opened as it is now; one that has
 * ended (canceled, expired, paid) is not handed back: the call opens a new one, under a key that
 * names the ended one (so its own retry answers that new one).
 */
export async function createAcpSession(
  http: HttpClient,
  payload: AcpCreateSessionInput,
  meta: AcpRequestMeta,
): Promise<AcpCheckoutSession> {
  if (meta.idempotency_key !== undefined) {
    return acpCall(http, 'POST', undefined, '', meta, { operation: 'create', body: payload });
  }
  const { idempotency_key: _, ...read } = meta;
  return freshCreate({
    create: (after, replayed) =>
      acpCall(http, 'POST', undefined, '', meta, {
        operation: 'create',
        body: payload,
        ...(after === undefined ? {} : { key: { after } }),
        replayed,
      }),
    idOf: (session) => session.id,
    now: (id) => getAcpSession(http, id, read),
    ended: (session) => ['canceled', 'expired', 'completed'].includes(session.status),
  });
}

/** GET /acp/checkout_sessions/:id. */
export async function getAcpSession(
  http: HttpClient,
  id: string,
  meta: AcpRequestMeta,
): Promise<AcpCheckoutSession> {
  return acpCall(http, 'GET', id, '', meta);
}

/** POST /acp/checkout_sessions/:id: changes the session and prices it again. */
export async function updateAcpSession(
  http: HttpClient,
  id: string,
  payload: AcpUpdateSessionInput,
  meta: AcpRequestMeta,
): Promise<AcpCheckoutSession> {
  // A derived key covers the whole session as it is: any update applied since is a new call.
  return acpCall(http, 'POST', id, '', meta, { operation: 'update', body: payload, state: (s) => s });
}

/** POST /acp/checkout_sessions/:id/complete: pays the session with a delegated token. */
export async function completeAcpSession(
  http: HttpClient,
  id: string,
  payload: AcpCompleteSessionInput,
  meta: AcpRequestMeta,
): Promise<AcpCheckoutSession> {
  // A derived key covers what is paid for, not the session's progress through paying: a retry
  // while the first call pays (complete_in_progress) or after it (completed) keeps the key.
  return acpCall(http, 'POST', id, '/complete', meta, {
    operation: 'complete',
    body: payload,
    state: ({ status: _s, updated_at: _u, order: _o, ...paidFor }) => paidFor,
  });
}

/** POST /acp/checkout_sessions/:id/cancel: cancels the session, its stock back at once. */
export async function cancelAcpSession(
  http: HttpClient,
  id: string,
  payload: AcpCancelSessionInput | undefined,
  meta: AcpRequestMeta,
): Promise<AcpCheckoutSession> {
  return acpCall(http, 'POST', id, '/cancel', meta, { operation: 'cancel', body: payload ?? {} });
}

/**
 * One ACP call: `meta` as headers; a POST without meta.idempotency_key gets a key derived from
 * the operation, the session id, the body and, when `state` is given, what it takes of the
 * session read just before (acpIdempotencyKey).
 */
async function acpCall(
  http: HttpClient,
  method: 'GET' | 'POST',
  id: string | undefined,
  suffix: string,
  meta: AcpRequestMeta,
  post?: {
    operation: string;
    body: unknown;
    state?: (session: AcpCheckoutSession) => unknown;
    /** What else a derived key covers (a create's: the ended session it replaces). */
    key?: unknown;
    replayed?: () => void;
  },
): Promise<AcpCheckoutSession> {
  let path: string;
  try {
    path = `/acp/checkout_sessions${id === undefined ? '' : `/${pathSegment(id, http.messageLocale)}`}${suffix}`;
  } catch (err) {
    throw err instanceof PortageApiError ? acpErrorOf(err) : err;
  }
  const headers: Record<string, string> = {};
  for (const [field, header] of Object.entries(ACP_HEADERS)) {
    const value = meta[field as keyof typeof ACP_HEADERS];
    if (value !== undefined) headers[header] = value;
  }
  let idempotencyKey: string | undefined;
  if (post) {
    const { idempotency_key: given, ...read } = meta;
    idempotencyKey =
      given ??
      acpIdempotencyKey(
        post.operation,
        id ?? '',
        post.body,
        post.state && id !== undefined ? post.state(await getAcpSession(http, id, read)) : post.key,
      );
  }
  return http.request(method, path, {
    headers,
    body: post?.body,
    idempotencyKey,
    schema: acpCheckoutSession,
    errors: 'acp',
    ...(post?.replayed ? { replayed: post.replayed } : {}),
  });
}
