// Every answer that is not a success goes through here and leaves as {error, code, statusCode}.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaValidationError,
} from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import {
  AppError,
  codeForStatus,
  inputProblems,
  type Problem,
  unavailable,
  wordProblems,
  wordsOf,
} from '../contract/errors.ts';
import { BASE_LOCALE, type Locale, negotiateLocale, type Text, t, text } from '../contract/i18n.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((thrown: FastifyError, req, reply) => {
    const err = unavailableOr(thrown, req);
    const locale = localeOf(req);
    if (err instanceof AppError) {
      if (err.retryAfter) reply.header('retry-after', String(err.retryAfter));
      return reply.code(err.statusCode).send(err.toBody(locale));
    }

    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      // Each worded with its field's schema (a number names both its bounds).
      const issues = zodIssuesOf(err);
      const schema = (req.routeOptions.schema as Record<string, unknown> | undefined)?.[where] as
        | z.ZodType
        | undefined;
      const worded = inputProblems(schema, { issues });
      const problems: Problem[] = issues.map((issue, i) =>
        issue.code === 'unrecognized_keys'
          ? // As the API has always said it: on the object that has them, the keys quoted.
            {
              field: fieldName(where, '', { path: issue.path }),
              message: text('validation.unrecognizedKeys', {
                n: issue.keys.length,
                fields: issue.keys.map((k) => `"${k}"`).join(', '),
              }),
            }
          : { field: fieldName(where, '', issue), message: worded[i]?.message ?? text('validation.invalid') },
      );
      const list = wordProblems(locale, problems)
        .map((d) => `${d.field} ${d.message}`)
        .join('; ');
      const error = new AppError(
        'VALIDATION_ERROR',
        400,
        text('error.validation.invalidInput', { where, list }),
        problems,
      );
      return reply.code(400).send(error.toBody(locale));
    }

    const status = err.statusCode ?? 500;
    const code = codeForStatus(status);
    if (code && !isResponseSerializationError(err)) {
      return reply.code(status).send(new AppError(code, status, clientMessage(err, status)).toBody(locale));
    }

    // Unexpected: log everything, answer nothing but the request id.
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({
      error: t(locale, 'error.internal'),
      code: 'INTERNAL_ERROR',
      statusCode: 500,
      requestId: req.id,
    });
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const message = t(localeOf(req), 'error.http.noRoute', { method: req.method, path: path ?? '' });
    if (ACP_PREFIX.test(req.url))
      return reply.code(404).send({ type: 'invalid_request', code: 'not_found', message });
    if (UCP_PREFIX.test(req.url)) return reply.code(404).send({ code: 'not_found', content: message });
    return reply
      .code(404)
      .send(new AppError('NOT_FOUND', 404, text('error.http.other', { message })).toBody());
  });
}

/**
 * A failure because the database cannot be reached (a restart, a failover) as the 503 every error
 * handler answers in its own format, with Retry-After; any other error as it is.
 */
export function unavailableOr<E>(err: E, req: FastifyRequest): E | AppError {
  if (err instanceof AppError || !isDatabaseUnavailable(err)) return err;
  req.log.warn({ err: (err as Error)?.message }, 'the database cannot be reached: answered 503');
  return unavailable();
}

function fieldName(where: string, instancePath: string, issue: unknown): string {
  const pathParts = (issue as { path?: PropertyKey[] } | undefined)?.path;
  const parts = pathParts?.length ? pathParts.map(String) : instancePath.split('/').filter(Boolean);
  // An unrecognised key is reported on its parent object: name the key itself.
  const keys = (issue as { code?: string; keys?: string[] } | undefined)?.keys;
  if (keys?.length) parts.push(keys.join(','));
  return parts.join('.') || where;
}

function clientMessage(err: FastifyError, status: number): Text {
  if (status === 413) return text('error.http.tooLarge');
  if (status === 415) return text('error.http.unsupportedType');
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return text('error.http.emptyBody');
  if (status === 400 && (err.name === 'SyntaxError' || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return text('error.http.badJson');
  }
  // A framework refusal we have no words for (rare): its own message.
  return text('error.http.other', { message: err.message });
}

/** The reader's language: the request context's, or, before one exists, Accept-Language alone. */
export function localeOf(req: FastifyRequest): Locale {
  return req.ctx?.locale ?? negotiateLocale(req.headers['accept-language']) ?? BASE_LOCALE;
}

/**
 * Refusals that happen before a route is found (bad percent-encoding, a path parameter over
 * the length limit): the error model, without echoing the URL back.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', req.id);
  const [status, said] =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, text('error.http.longSegment', { max: MAX_PARAM_LENGTH })]
      : [400, text('error.http.badUrl')];
  const message = wordsOf(localeOf(req), said);
  if (ACP_PREFIX.test(req.url))
    return reply.code(status).send({ type: 'invalid_request', code: 'invalid', message });
  if (UCP_PREFIX.test(req.url)) return reply.code(status).send({ code: 'invalid_request', content: message });
  return reply.code(status).send(new AppError('VALIDATION_ERROR', status, said).toBody(localeOf(req)));
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
  // No request was parsed: no language to read, the base locale answers.
  const [status, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, text('error.http.timeout')]
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, text('error.http.headersTooLarge')]
        : [400, text('error.http.malformed')];
  const body = JSON.stringify(new AppError('VALIDATION_ERROR', status, message).toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The provider hands each zod issue over without its code, message and path: put them back. */
export function zodIssuesOf(err: { validation: FastifySchemaValidationError[] }): z.core.$ZodIssue[] {
  return err.validation.map(
    (v) =>
      ({
        ...v.params,
        code: v.keyword,
        message: v.message ?? '',
        path: v.instancePath.split('/').filter(Boolean),
      }) as z.core.$ZodIssue,
  );
}
