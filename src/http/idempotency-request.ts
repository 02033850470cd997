// What the idempotency plugin (idempotency.ts) makes of a request and its answer: the request's
// hash, which tells the same request from another under one key, and the answer's text when it
// can be stored.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Larger answers are not stored (the row is deleted; a retry runs again): the table stays bounded. */
export const MAX_STORED_BYTES = 1024 * 1024;

/**
 * SHA-256 of the method, the URL as sent (path and query) and the body as received: parsed
 * JSON written back with its object keys sorted, so that the same JSON sent with other
 * spacing or key order is the same request. (The raw bytes are gone once Fastify parses;
 * the body after validation would hide differences the schema strips or defaults.)
 */
export function requestHash(req: FastifyRequest): string {
  const body = req.body;
  const text =
    body === undefined || body === null
      ? ''
      : typeof body === 'string'
        ? `text:${body}`
        : Buffer.isBuffer(body)
          ? `bytes:${body.toString('base64')}`
          : `json:${canonicalJson(body)}`;
  return createHash('sha256').update(`${req.method}\n${req.url}\n${text}`).digest('hex');
}

/** JSON with every object's keys sorted (depth is bounded by refuseUnsafeInput, src/http/input.ts). */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/** The answer's text if it can be stored: JSON (or empty) and at most MAX_STORED_BYTES. */
export function storableBody(reply: FastifyReply, payload: unknown): string | undefined {
  if (payload === null || payload === undefined) return '';
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload : undefined;
  if (text === undefined) return undefined; // a stream: cannot be replayed
  if (text.length === 0) return '';
  const type = String(reply.getHeader('content-type') ?? '');
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) return undefined;
  if (Buffer.byteLength(text) > MAX_STORED_BYTES) return undefined;
  return typeof text === 'string' ? text : text.toString('utf8');
}
