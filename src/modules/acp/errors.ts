// ACP's flat error, `{type, code, message, param?}` (the spec's Error), thrown by the adapter's
// services and answered as is by its routes (routes.ts maps our own AppErrors onto it). Its
// `message` is put into words in the request's locale when it leaves; the rest never changes.
import type { z } from 'zod';
import type { AcpError } from '../../contract/acp.ts';
import { inputProblems, say } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, type MessageKey, type Text } from '../../contract/i18n.ts';

/**
 * What the protocol adapters say to a person, not yet in words: a catalogue key whose values
 * may be words of their own (a refusal quoted inside a message), all put into the reader's
 * locale when the answer leaves. Kept as such with a session's messages, so that each reading
 * of the session says them in its own locale.
 */
export interface Words {
  key: MessageKey;
  values?: Record<string, string | number | Date | Words>;
}

export const words = (key: MessageKey, values?: Words['values']): Words =>
  values ? { key, values } : { key };

const isWords = (value: unknown): value is Words =>
  typeof value === 'object' && value !== null && !(value instanceof Date) && 'key' in value;

/** Words (or a Text) in `locale`: the values that are words first. */
export function sayWords(locale: Locale, said: Words | Text): string {
  const values = said.values
    ? Object.fromEntries(
        Object.entries(said.values).map(([k, v]) => [k, isWords(v) ? sayWords(locale, v) : v] as const),
      )
    : undefined;
  return say(locale, values ? { key: said.key, values } : { key: said.key });
}

/** The fields of an ACP error that never change with the locale. */
export type AcpErrorFields = Omit<AcpError, 'message'>;

export class AcpFailure extends Error {
  constructor(
    readonly statusCode: number,
    readonly fields: AcpErrorFields,
    /** The error's message, put into words as it leaves. */
    readonly words: Words,
    /** Seconds for a Retry-After header (an in-flight request). */
    readonly retryAfter?: number,
  ) {
    super(sayWords(BASE_LOCALE, words));
    this.name = 'AcpFailure';
  }

  /** The spec's flat error, its message in `locale`. */
  body(locale: Locale): AcpError {
    const { type, code, ...rest } = this.fields;
    return { type, code, message: sayWords(locale, this.words), ...rest };
  }
}

export const acpInvalid = (code: string, said: Words, param?: string, status = 400) =>
  new AcpFailure(status, { type: 'invalid_request', code, ...(param ? { param } : {}) }, said);

export const acpNotFound = (id: string) =>
  acpInvalid('not_found', words('error.checkout.sessionNotFound', { id }), undefined, 404);

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
  validation: ReadonlyArray<{ message?: string; params?: { issue?: unknown } }>,
  schema: unknown,
  separator: string,
): string {
  const issues = validation.flatMap((v) => (v.params?.issue ? [v.params.issue as z.core.$ZodIssue] : []));
  const worded = inputProblems(schema as z.ZodType | undefined, { issues });
  return issues
    .map((issue, i) => `${jsonPath(issue.path)}${separator}${say(locale, worded[i]!.message)}`)
    .join('; ');
}

/**
 * A refusal of the framework's before any route ran (a body too large, not JSON, of another
 * type): its own words in English, ours in French.
 */
export function frameworkWords(err: { code?: string; name?: string; message: string }): Words {
  const code = err.code ?? (err.name === 'SyntaxError' ? 'FST_ERR_CTP_INVALID_JSON_BODY' : 'other');
  return words('acp.error.framework', { code, message: err.message });
}

/** Where a complete request carries its delegated token. */
export const TOKEN_PARAM = '$.payment_data.instrument.credential.token';
