// Every answer that is not a success goes through here and leaves as {error, code, statusCode}.
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, codeForStatus, type FieldProblem } from '../contract/errors.ts';

/**
 * PostgreSQL text cannot hold a NUL character: input carrying one is refused here, as a
 * 400, before it could reach a query and fail there as a 500.
 */
export function refuseNulCharacters(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    const inUrl = req.url.includes('%00') || req.url.includes('\u0000');
    // JSON.stringify writes a NUL as the six characters \u0000.
    if (inUrl || (req.body !== undefined && JSON.stringify(req.body).includes('\\u0000'))) {
      throw new AppError('VALIDATION_ERROR', 400, 'Text must not contain NUL characters (\\u0000)');
    }
  });
}

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
    reply
      .code(404)
      .send(new AppError('NOT_FOUND', 404, `No route ${req.method} ${path}; see /docs for the API`).toBody());
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
