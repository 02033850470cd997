// The one error model of the service: every failure answer is {error, code, statusCode}
// (+ details for validation). Services throw AppError; the HTTP error handler shapes it.
import { z } from 'zod';
import {
  BASE_LOCALE,
  CATALOGUES,
  type Locale,
  type MessageKey,
  type MessageValues,
  type Text,
  t,
  text,
} from './i18n.ts';

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

/** A field's problem before it is put into words (rendered in the reader's locale). */
export interface Problem {
  field: string;
  message: Text;
}

export class AppError extends Error {
  /**
   * `message` is a catalogue key (with `values` for its placeholders); the answer is written in
   * the reader's locale when it leaves, `Error.message` in the base locale for logs.
   */
  readonly text: Text;
  readonly problems?: Problem[];
  /** Seconds to wait before trying again (the Retry-After of a 503). */
  readonly retryAfter?: number;

  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: Text,
    problems?: Problem[],
    retryAfter?: number,
  ) {
    super(wordsOf(BASE_LOCALE, message));
    this.name = 'AppError';
    this.text = message;
    if (problems) this.problems = problems;
    if (retryAfter) this.retryAfter = retryAfter;
  }

  /** The field problems in the base locale. */
  get details(): FieldProblem[] | undefined {
    return this.problems && wordProblems(BASE_LOCALE, this.problems);
  }

  toBody(locale: Locale = BASE_LOCALE): ErrorBody {
    return {
      error: wordsOf(locale, this.text),
      code: this.code,
      statusCode: this.statusCode,
      ...(this.problems ? { details: wordProblems(locale, this.problems) } : {}),
    };
  }
}

/**
 * A message in `locale`. An error on its way out must never fail for want of a word: a key
 * missing from the catalogues (a test forbids it) is sent as it is.
 */
export function wordsOf(locale: Locale, message: Text): string {
  return message.key in CATALOGUES[BASE_LOCALE]
    ? t(locale, message.key, message.values)
    : String(message.key);
}

export const wordProblems = (locale: Locale, problems: Problem[]): FieldProblem[] =>
  problems.map((p) => ({ field: p.field, message: wordsOf(locale, p.message) }));

export const problem = (field: string, key: MessageKey, values?: MessageValues): Problem => ({
  field,
  message: text(key, values),
});

export const invalid = (key: MessageKey, values?: MessageValues, problems?: Problem[]) =>
  new AppError('VALIDATION_ERROR', 400, text(key, values), problems);
export const unauthenticated = (key: MessageKey = 'error.auth.invalidToken', values?: MessageValues) =>
  new AppError('AUTH_ERROR', 401, text(key, values));
export const forbidden = (key: MessageKey, values?: MessageValues) =>
  new AppError('AUTHZ_ERROR', 403, text(key, values));
export const notFound = (key: MessageKey, values?: MessageValues) =>
  new AppError('NOT_FOUND', 404, text(key, values));
export const conflict = (key: MessageKey, values?: MessageValues) =>
  new AppError('CONFLICT', 409, text(key, values));
export const rateLimited = (key: MessageKey, values?: MessageValues) =>
  new AppError('RATE_LIMIT', 429, text(key, values));
export const internal = (key: MessageKey = 'error.internal', values?: MessageValues) =>
  new AppError('INTERNAL_ERROR', 500, text(key, values));

/** What a person reads of a rate limit (a 429 on a page): when to try again, in the limiter's seconds. */
export function tooManyWords(err: AppError | undefined): Text {
  const seconds = Number(err?.text.values?.seconds ?? err?.retryAfter ?? 60);
  return text('page.tooMany.wait', { seconds: Number.isFinite(seconds) && seconds > 0 ? seconds : 60 });
}

/** Seconds a caller is asked to wait when the database cannot be reached. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The service cannot do its work for a moment (the database is unreachable; `key` says why when
 * it is something else, such as too many invoices being drawn): 503, try again in `seconds`.
 */
export function unavailable(
  seconds = UNAVAILABLE_RETRY_SECONDS,
  key: MessageKey = 'error.unavailable',
): AppError {
  return new AppError('INTERNAL_ERROR', 503, text(key, { seconds }), undefined, seconds);
}

/**
 * The problems of an input that failed `schema`, in our words ("must be a whole number from 1
 * to 100", "is required") and the reader's locale. The bounds come from the field's schema,
 * so a number names both ends.
 */
export function inputProblems(
  schema: z.ZodType | undefined,
  error: { issues: z.core.$ZodIssue[] },
): Problem[] {
  return error.issues.map((issue) => ({
    field: issue.path.join('.') || 'input',
    message: wordIssue(issue, schema && fieldSchema(schema, issue.path)),
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

/** A schema's own message is a catalogue key ('validation.postalCode'): its words are ours. */
const isKey = (message: string): message is MessageKey => message in CATALOGUES[BASE_LOCALE];

/** "must be at least 3 characters", "must have at most 50 items", "must be at most 5". */
function bound(origin: string, side: 'Least' | 'Most', n: number | bigint): Text {
  const kind = origin === 'string' ? 'Characters' : origin === 'array' ? 'Items' : '';
  return text(`validation.at${side}${kind}` as MessageKey, { n: Number(n) });
}

/** A field left out (zod keeps no input in its issues: its message says what it received). */
const missing = (issue: z.core.$ZodIssue) =>
  issue.code === 'invalid_type' && /received undefined$/.test(issue.message);

export function wordIssue(issue: z.core.$ZodIssue, field: z.ZodType | undefined): Text {
  if (isKey(issue.message)) {
    // A check's key ('validation.atMost' on .max(5)) takes its bound as {n}; a refinement its params.
    const bound =
      issue.code === 'too_big' ? issue.maximum : issue.code === 'too_small' ? issue.minimum : undefined;
    const values =
      (issue as { params?: MessageValues }).params ??
      (bound !== undefined ? { n: Number(bound) } : undefined);
    return text(issue.message, values);
  }
  if (missing(issue)) return text('validation.required');
  if (
    field instanceof z.ZodNumber &&
    (issue.code === 'too_small' || issue.code === 'too_big' || issue.code === 'invalid_type')
  ) {
    const whole = field.isInt ? 'Int' : 'Number';
    const min = Number.isFinite(field.minValue) ? field.minValue : undefined;
    const max =
      Number.isFinite(field.maxValue) && (field.maxValue ?? 0) < Number.MAX_SAFE_INTEGER
        ? field.maxValue
        : undefined;
    if (min != null && max != null) return text(`validation.${whole}Between` as MessageKey, { min, max });
    if (min != null) return text(`validation.${whole}AtLeast` as MessageKey, { min });
    if (max != null) return text(`validation.${whole}AtMost` as MessageKey, { max });
    return text(`validation.${whole}` as MessageKey);
  }
  switch (issue.code) {
    case 'invalid_type':
      return text('validation.type', { type: issue.expected });
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return text('validation.notEmpty');
      return bound(issue.origin, 'Least', issue.minimum);
    case 'too_big':
      return bound(issue.origin, 'Most', issue.maximum);
    case 'invalid_value':
      return text('validation.oneOf', { values: issue.values.map((v) => String(v)).join(', ') });
    case 'invalid_format':
      return text('validation.format', { format: issue.format });
    case 'unrecognized_keys':
      return text('validation.unknownFields', { fields: issue.keys.join(', ') });
    default:
      return text('validation.invalid');
  }
}
