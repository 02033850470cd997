// What the site's pages share beyond their frame: their CSP, amounts and dates in the page's
// language, and reading a form and its refusal. The frame and the forms' markup are
// src/views/page.ts and src/views/forms.ts, re-exported here under the names the sections use.
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AppError, inputProblems, wordsOf } from '../contract/errors.ts';
import { formatDate, formatMoney, type Locale, t, text } from '../contract/i18n.ts';
import type { FormError } from '../views/forms.ts';
import { type PageOptions, sitePage } from '../views/page.ts';
import type { View } from './core.ts';

export {
  actionButton,
  badge,
  checkbox,
  csrfField,
  type FieldOptions,
  type FormError,
  field,
  formAlert,
  notice,
  selectField,
  tabs,
  textArea,
} from '../views/forms.ts';
export type { PageOptions } from '../views/page.ts';

/** The CSP of every page: our stylesheet, product images over https, forms to ourselves, no script. */
export const WEB_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** An amount as the page's language writes it (html`...` escapes it where it goes). */
export const moneyText = (v: View, cents: number) => formatMoney(v.p.locale, cents);
/** A date (unix seconds, a Date or YYYY-MM-DD) as the page's language writes it. */
export const dateText = (v: View, d: Date | string | number) =>
  formatDate(v.p.locale, typeof d === 'number' ? new Date(d * 1000) : d);

/** A page of the site in its frame (src/views/page.ts). */
export const page = (v: View, o: PageOptions): string => sitePage(v, o);

/** Answers a page (HTML) with `status`. */
export const sendHtml = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/** A refusal a form shows again (4xx from a service or the form's schema); anything else goes on (401: to sign in). */
export const shownRefusal = (err: unknown): err is AppError =>
  err instanceof AppError && err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 401;

/** The refusal a service or a form's schema gave, in the page's words. */
export function formErrorOf(locale: Locale, err: AppError): FormError {
  const fields: Record<string, string> = {};
  for (const p of err.problems ?? []) fields[p.field] ??= wordsOf(locale, p.message);
  return { message: wordsOf(locale, err.problems?.length ? text('web.form.fix') : err.text), fields };
}

/** The form's values read by `schema`; a refusal names each field's problem, as the API's 400 does. */
export function readForm<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_ERROR', 400, text('web.form.fix'), inputProblems(schema, parsed.error));
}

/** A province's or territory's name in the page's language ("Quebec", "Québec"). */
export const provinceName = (l: Locale, p: string) => t(l, 'web.province', { p });
