// Every answer that is not a success goes through here and leaves as {error, code, statusCode}.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, codeForStatus, type FieldProblem } from '../contract/errors.ts';

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) return reply.code(err.statusCode).send(err.toBody());

    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const details: FieldProblem[] = err.validation.map((v) => ({
        field: fieldName(where, v.instancePath, v.params?.issue),
        message: /received undefined$/.test(v.message ?? '') ? 'is required' : (v.message ?? 'is invalid'),
      }));
      const list = details.map((d) => `${d.field} ${d.message}`).join('; ');
      return reply
        .code(400)
        .send(new AppError('VALIDATION_ERROR', 400, `Invalid ${where}: ${list}`, details).toBody());
    }

    const status = err.statusCode ?? 500;
    const code = codeForStatus(status);
    if (code && !isResponseSerializationError(err)) {
      return reply.code(status).send(new AppError(code, status, clientMessage(err, status)).toBody());
    }

    // Unexpected: log everything, answer nothing but the request id.
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({
      error: 'Internal server error; quote the request id when reporting it',
      code: 'INTERNAL_ERROR',
      statusCode: 500,
      requestId: req.id,
    });
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const message = `No route ${req.method} ${path}; see /docs for the API`;
    if (ACP_PREFIX.test(req.url))
      return reply.code(404).send({ type: 'invalid_request', code: 'not_found', message });
    if (UCP_PREFIX.test(req.url)) return reply.code(404).send({ code: 'not_found', content: message });
    return reply.code(404).send(new AppError('NOT_FOUND', 404, message).toBody());
  });
}

function fieldName(where: string, instancePath: string, issue: unknown): string {
  const pathParts = (issue as { path?: PropertyKey[] } | undefined)?.path;
  const parts = pathParts?.length ? pathParts.map(String) : instancePath.split('/').filter(Boolean);
  // An unrecognised key is reported on its parent object: name the key itself.
  const keys = (issue as { code?: string; keys?: string[] } | undefined)?.keys;
  if (keys?.length) parts.push(keys.join(','));
  return parts.join('.') || where;
}

function clientMessage(err: FastifyError, status: number): string {
  if (status === 413) return 'Request body is larger than the 1 MiB limit';
  if (status === 415) return 'Unsupported Content-Type; send application/json';
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'Request body is empty; send a JSON object';
  if (status === 400 && (err.name === 'SyntaxError' || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return 'Request body is not valid JSON';
  }
  return err.message;
}

/**
 * Refusals that happen before a route is found (bad percent-encoding, a path parameter over
 * the length limit): the error model, without echoing the URL back.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', req.id);
  const [status, message] =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, `A path segment is longer than ${MAX_PARAM_LENGTH} characters; no id is that long`]
      : [400, 'The URL is not valid: check its percent-encoding (%XX) and characters'];
  if (ACP_PREFIX.test(req.url))
    return reply.code(status).send({ type: 'invalid_request', code: 'invalid', message });
  if (UCP_PREFIX.test(req.url)) return reply.code(status).send({ code: 'invalid_request', content: message });
  return reply.code(status).send(new AppError('VALIDATION_ERROR', status, message).toBody());
}

/** The ACP routes answer in that protocol's flat error, even when no route, or no valid URL, is found. */
const ACP_PREFIX = /^\/(acp|agentic_commerce)\//;
/** The UCP routes likewise answer UCP's protocol error, `{code, content}`. */
const UCP_PREFIX = /^\/ucp\//;

export const MAX_PARAM_LENGTH = 100;

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (malformed HTTP, headers
 * over the limit, a request that took too long): the error model, then the connection closes.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive; send it again']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request headers are larger than the 16 KB limit']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify(new AppError('VALIDATION_ERROR', status, message).toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
