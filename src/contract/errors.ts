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

/**
 * The problems of an input that failed `schema`, worded as the API words its own ("must be a
 * whole number from 1 to 100", "is required"), for inputs that reach no route's own messages
 * (the tools'). The bounds come from the field's schema, so a number names both ends.
 */
export function inputProblems(schema: z.ZodType, error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: issue.path.join('.') || 'input',
    message: wordIssue(issue, fieldSchema(schema, issue.path)),
  }));
}

/** The schema at `path` inside objects, arrays, optionals and defaults (undefined when lost). */
function fieldSchema(schema: z.ZodType | undefined, path: readonly PropertyKey[]): z.ZodType | undefined {
  let at = unwrap(schema);
  for (const key of path) {
    if (at instanceof z.ZodObject) at = unwrap(at.shape[String(key)] as z.ZodType | undefined);
    else if (at instanceof z.ZodArray) at = unwrap(at.element as z.ZodType);
    else return undefined;
  }
  return at;
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let at = schema;
  while (at instanceof z.ZodOptional || at instanceof z.ZodDefault || at instanceof z.ZodNullable) {
    at = at.unwrap() as z.ZodType;
  }
  return at;
}

/** "must be at least 3 characters", "must have at most 50 items", "must be at most 5". */
function bound(origin: string, side: 'least' | 'most', n: number | bigint): string {
  if (origin === 'string') return `must be at ${side} ${n} characters`;
  if (origin === 'array') return `must have at ${side} ${n} items`;
  return `must be at ${side} ${n}`;
}

/** A field left out (zod keeps no input in its issues: its message says what it received). */
const missing = (issue: z.core.$ZodIssue) =>
  issue.code === 'invalid_type' && /received undefined$/.test(issue.message);

function wordIssue(issue: z.core.$ZodIssue, field: z.ZodType | undefined): string {
  // A message the schema wrote itself is already in our words (zod's own start "Invalid", "Too").
  if (/^(must|is|has|cannot) /.test(issue.message)) return issue.message;
  if (
    field instanceof z.ZodNumber &&
    (issue.code === 'too_small' || issue.code === 'too_big' || issue.code === 'invalid_type')
  ) {
    if (missing(issue)) return 'is required';
    const kind = field.isInt ? 'a whole number' : 'a number';
    const min = Number.isFinite(field.minValue) ? field.minValue : undefined;
    const max =
      Number.isFinite(field.maxValue) && (field.maxValue ?? 0) < Number.MAX_SAFE_INTEGER
        ? field.maxValue
        : undefined;
    if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
    if (min !== undefined) return `must be ${kind} of at least ${min}`;
    if (max !== undefined) return `must be ${kind} of at most ${max}`;
    return `must be ${kind}`;
  }
  switch (issue.code) {
    case 'invalid_type':
      if (missing(issue)) return 'is required';
      return `must be ${issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return bound(issue.origin, 'least', issue.minimum);
    case 'too_big':
      return bound(issue.origin, 'most', issue.maximum);
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url'
        ? 'must be a URL'
        : issue.format === 'email'
          ? 'must be an email address'
          : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has unknown fields: ${issue.keys.join(', ')}`;
    case 'custom':
      // A refinement's message is always ours.
      return issue.message;
    default:
      return 'is invalid';
  }
}
