// A refused request's schema problems as the agent protocols write them (ACP's and UCP's skins
// alike): each after its JSON path into the request (`$.line_items[0].id is required`).
import type { FastifySchemaValidationError } from 'fastify';
import type { z } from 'zod';
import { inputProblems, wordsOf } from '../contract/errors.ts';
import type { Locale } from '../contract/i18n.ts';
import { zodIssuesOf } from './errors.ts';

/** A path into a request as the protocols write it: `$.line_items[0].id`. */
export const jsonPath = (parts: readonly PropertyKey[]) =>
  `$${parts.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;

/**
 * A request's schema problems in our words and the reader's locale, each after its path: a
 * schema's own message is a catalogue key, zod's built-in issues are worded from the field's schema.
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
    .map((issue, i) => `${jsonPath(issue.path)}${separator}${wordsOf(locale, worded[i]!.message)}`)
    .join('; ');
}

/** A request's zod issues, an array's index in a path a number (`$.line_items[0]`, not `.0`). */
export function requestIssues(validation: FastifySchemaValidationError[]): z.core.$ZodIssue[] {
  return zodIssuesOf({ validation }).map((issue) => ({
    ...issue,
    path: issue.path.map((p) => (typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : p)),
  }));
}
