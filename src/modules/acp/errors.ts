// ACP's flat error, `{type, code, message, param?}` (the spec's Error), thrown by the adapter's
// services and answered as is by its routes (routes.ts maps our own AppErrors onto it). Its
// `message` is put into words in the request's locale when it leaves; the rest never changes.
import type { FastifySchemaValidationError } from 'fastify';
import type { z } from 'zod';
import type { AcpError } from '../../contract/acp.ts';
import { inputProblems, say } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, render, type Text, text } from '../../contract/i18n.ts';
import { zodIssuesOf } from '../../http/errors.ts';

/** The fields of an ACP error that never change with the locale. */
export type AcpErrorFields = Omit<AcpError, 'message'>;

export class AcpFailure extends Error {
  constructor(
    readonly statusCode: number,
    readonly fields: AcpErrorFields,
    /** The error's message, put into words as it leaves. */
    readonly words: Text,
    /** Seconds for a Retry-After header (an in-flight request). */
    readonly retryAfter?: number,
  ) {
    super(render(BASE_LOCALE, words));
    this.name = 'AcpFailure';
  }

  /** The spec's flat error, its message in `locale`. */
  body(locale: Locale): AcpError {
    const { type, code, ...rest } = this.fields;
    return { type, code, message: render(locale, this.words), ...rest };
  }
}

export const acpInvalid = (code: string, said: Text, param?: string, status = 400) =>
  new AcpFailure(status, { type: 'invalid_request', code, ...(param ? { param } : {}) }, said);

export const acpNotFound = (id: string) =>
  acpInvalid('not_found', text('error.checkout.sessionNotFound', { id }), undefined, 404);

/** A path into a request as the protocols write it: `$.line_items[0].id`. */
export const jsonPath = (parts: readonly PropertyKey[]) =>
  `$${parts.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

/**
 * A request's schema problems in our words and the reader's locale, each after its path
 * (`$.line_items[0].id is required`): a schema's own message is a catalogue key, zod's
 * built-in issues are worded from the field's schema.
 */
export function schemaProblems(
  locale: Locale,
  validation: FastifySchemaValidationError[],
  schema: unknown,
  separator: string,
): string {
  const issues = requestIssues(validation);
  const worded = inputProblems(schema as z.ZodType | undefined, { issues });
  return issues
    .map((issue, i) => `${jsonPath(issue.path)}${separator}${say(locale, worded[i]!.message)}`)
    .join('; ');
}

/** A request's zod issues, an array's index in a path a number (`$.line_items[0]`, not `.0`). */
export function requestIssues(validation: FastifySchemaValidationError[]): z.core.$ZodIssue[] {
  return zodIssuesOf({ validation }).map((issue) => ({
    ...issue,
    path: issue.path.map((p) => (typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : p)),
  }));
}

/**
 * A refusal of the framework's before any route ran (a body too large, not JSON, of another
 * type): its own words in English, ours in French.
 */
export function frameworkWords(err: { code?: string; name?: string; message: string }): Text {
  const code = err.code ?? (err.name === 'SyntaxError' ? 'FST_ERR_CTP_INVALID_JSON_BODY' : 'other');
  return text('acp.error.framework', { code, message: err.message });
}

/** Where a complete request carries its delegated token. */
export const TOKEN_PARAM = '$.payment_data.instrument.credential.token';
