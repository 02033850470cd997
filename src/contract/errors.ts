// The one error model of the service: every failure answer is {error, code, statusCode}
// (+ details for validation). Services throw AppError; the HTTP error handler shapes it.
import { z } from 'zod';

export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'AUTH_ERROR',
  'AUTHZ_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMIT',
  'PAYMENT_PROVIDER_ERROR',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTH_ERROR',
  403: 'AUTHZ_ERROR',
  404: 'NOT_FOUND',
  408: 'VALIDATION_ERROR',
  409: 'CONFLICT',
  413: 'VALIDATION_ERROR',
  414: 'VALIDATION_ERROR',
  415: 'VALIDATION_ERROR',
  422: 'VALIDATION_ERROR',
  431: 'VALIDATION_ERROR',
  429: 'RATE_LIMIT',
};

/** The error code of an HTTP status (undefined for statuses without one, 5xx included). */
export const codeForStatus = (status: number): ErrorCode | undefined => CODE_BY_STATUS[status];

export const fieldProblem = z.object({ field: z.string(), message: z.string() });
export type FieldProblem = z.infer<typeof fieldProblem>;

export const errorBody = z
  .object({
    error: z.string(),
    code: z.enum(ERROR_CODES),
    statusCode: z.number().int(),
    details: z.array(fieldProblem).optional(),
    requestId: z.string().optional(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBody>;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: string,
    readonly details?: FieldProblem[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return {
      error: this.message,
      code: this.code,
      statusCode: this.statusCode,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const invalid = (message: string, details?: FieldProblem[]) =>
  new AppError('VALIDATION_ERROR', 400, message, details);
export const unauthenticated = (message = 'AUTH_ERROR: Invalid token') =>
  new AppError('AUTH_ERROR', 401, message);
export const forbidden = (message: string) => new AppError('AUTHZ_ERROR', 403, message);
export const notFound = (message: string) => new AppError('NOT_FOUND', 404, message);
export const conflict = (message: string) => new AppError('CONFLICT', 409, message);
export const rateLimited = (message: string) => new AppError('RATE_LIMIT', 429, message);
export const internal = (message = 'Internal server error') => new AppError('INTERNAL_ERROR', 500, message);
