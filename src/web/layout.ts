// The one layout of the pages, and the pieces of their forms. Every value put in a page goes
// through escapeHtml (or `say`, which escapes); every word is the catalogues'.
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AppError, inputProblems, say as sayText } from '../contract/errors.ts';
import { escapeHtml } from '../contract/format.ts';
import {
  formatDate,
  formatMoney,
  type Locale,
  type MessageKey,
  type MessageValues,
  t,
  text,
} from '../contract/i18n.ts';
import { POLICY_KINDS } from '../contract/policies.ts';
import { languageSwitch, say } from '../modules/page-layout.ts';
import type { View } from './core.ts';
import { STYLESHEET_PATH } from './style.ts';

export { say };

/** The CSP of every page: our stylesheet, product images over https, forms to ourselves, no script. */
export const WEB_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface PageOptions {
  title: string;
  body: string;
  /** A form-sized column (sign-in, settings). */
  narrow?: boolean;
  /** Whether search engines may index it (the storefront's pages); account pages are never indexed. */
  index?: boolean;
}

/** An amount as the page's language writes it; `money` escaped for HTML, `moneyText` for a message's value. */
export const moneyText = (v: View, cents: number) => formatMoney(v.p.locale, cents);
export const money = (v: View, cents: number) => escapeHtml(moneyText(v, cents));
/** A date (unix seconds, a Date or YYYY-MM-DD); `date` escaped for HTML, `dateText` for a message's value. */
export const dateText = (v: View, d: Date | string | number) =>
  formatDate(v.p.locale, typeof d === 'number' ? new Date(d * 1000) : d);
export const date = (v: View, d: Date | string | number) => escapeHtml(dateText(v, d));

export function page(v: View, o: PageOptions): string {
  const l = v.p.locale;
  const user = v.user;
  const links = [
    // The cart is a buyer's: a seller or an admin is never linked to a page that refuses them.
    ...(!user || user.role === 'buyer' ? [`<a href="/shop/cart">${say(l, 'web.nav.cart')}</a>`] : []),
    ...(user
      ? [
          `<a href="/account">${say(l, 'web.nav.account')}</a>`,
          ...(user.role === 'seller' || user.role === 'admin'
            ? [`<a href="/console">${say(l, 'web.nav.console')}</a>`]
            : []),
          ...(user.role === 'admin' ? [`<a href="/desk">${say(l, 'web.nav.desk')}</a>`] : []),
          `<form method="post" action="/account/sign-out">${csrfField(v)}<button type="submit">${say(l, 'web.nav.signOut')}</button></form>`,
        ]
      : [
          `<a href="/account/sign-in?next=${encodeURIComponent(v.here)}">${say(l, 'web.nav.signIn')}</a>`,
          `<a href="/account/register">${say(l, 'web.nav.register')}</a>`,
        ]),
  ];
  const q = new URL(v.here, 'http://page.invalid').searchParams.get('q') ?? '';
  return `<!doctype html><html lang="${l}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${o.index ? '' : '<meta name="robots" content="noindex">'}<meta name="referrer" content="same-origin"><title>${escapeHtml(o.title)} · Portage</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head><body>
<a class="skip" href="#main">${say(l, 'web.skip')}</a>
<header class="top"><a class="brand" href="/">Portage</a>
<form class="search" role="search" method="get" action="/"><label for="site-q" class="visually-hidden">${say(l, 'web.search.label')}</label><input id="site-q" name="q" type="search" value="${escapeHtml(q)}" maxlength="200" placeholder="${say(l, 'web.search.placeholder')}"><button type="submit">${say(l, 'web.search.submit')}</button></form>
<nav aria-label="${say(l, 'web.nav.label')}">${links.join('')}${languageSwitch(v.p)}</nav></header>
<main id="main"${o.narrow ? ' class="narrow"' : ''}>
${o.body}
</main>
<footer>${say(l, 'web.footer')}${policyLinks(l)}</footer>
</body></html>`;
}

/** The footer's links to the platform's policies (src/web/policies.ts). */
const policyLinks = (l: Locale) =>
  `<nav aria-label="${say(l, 'web.footer.policies')}" class="policies">${POLICY_KINDS.map(
    (kind) => `<a href="/policies/${kind}">${say(l, 'web.policies.title', { kind })}</a>`,
  ).join('')}</nav>`;

// ---- forms --------------------------------------------------------------------------------

export const csrfField = (v: View) => `<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">`;

/** What a refused form shows: the refusal on top, and each field's problem under the field. */
export interface FormError {
  message: string;
  fields: Record<string, string>;
}

/** Answers a page (HTML) with `status`. */
export const sendHtml = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

/** A refusal a form shows again (4xx from a service or the form's schema); anything else goes on (401: to sign in). */
export const shownRefusal = (err: unknown): err is AppError =>
  err instanceof AppError && err.statusCode >= 400 && err.statusCode < 500 && err.statusCode !== 401;

/** The refusal a service or a form's schema gave, in the page's words. */
export function formErrorOf(locale: Locale, err: AppError): FormError {
  const fields: Record<string, string> = {};
  for (const p of err.problems ?? []) fields[p.field] ??= sayText(locale, p.message);
  return { message: sayText(locale, err.problems?.length ? text('web.form.fix') : err.text), fields };
}

/** The form's values read by `schema`; a refusal names each field's problem, as the API's 400 does. */
export function readForm<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_ERROR', 400, text('web.form.fix'), inputProblems(schema, parsed.error));
}

export const formAlert = (error?: FormError) =>
  error ? `<p class="alert" role="alert" id="form-error">${escapeHtml(error.message)}</p>` : '';

export const notice = (message?: string) =>
  message ? `<p class="notice" role="status">${escapeHtml(message)}</p>` : '';

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | number | null;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  error?: FormError;
  /** Further attributes, written by the caller (escaped there). */
  attrs?: string;
  /** The problems' field name when it differs from the input's (`shipping_address.postalCode`). */
  problemField?: string;
}

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

function described(o: FieldOptions): { attrs: string; after: string } {
  const id = fieldId(o.name);
  const problem = o.error?.fields[o.problemField ?? o.name];
  const ids = [...(o.hint ? [`${id}-hint`] : []), ...(problem ? [`${id}-error`] : [])];
  return {
    attrs: `${ids.length ? ` aria-describedby="${ids.join(' ')}"` : ''}${problem ? ' aria-invalid="true"' : ''}`,
    after: `${o.hint ? `<p class="hint" id="${id}-hint">${escapeHtml(o.hint)}</p>` : ''}${
      problem ? `<p class="field-error" id="${id}-error">${escapeHtml(problem)}</p>` : ''
    }`,
  };
}

export function field(o: FieldOptions): string {
  const id = fieldId(o.name);
  const d = described(o);
  const value = o.value === undefined || o.value === null ? '' : ` value="${escapeHtml(String(o.value))}"`;
  return `<div><label for="${id}">${escapeHtml(o.label)}</label><input id="${id}" name="${escapeHtml(o.name)}" type="${o.type ?? 'text'}"${value}${o.required ? ' required' : ''}${o.autocomplete ? ` autocomplete="${o.autocomplete}"` : ''}${o.attrs ?? ''}${d.attrs}>${d.after}</div>`;
}

export function textArea(o: FieldOptions): string {
  const id = fieldId(o.name);
  const d = described(o);
  return `<div><label for="${id}">${escapeHtml(o.label)}</label><textarea id="${id}" name="${escapeHtml(o.name)}"${o.required ? ' required' : ''}${o.attrs ?? ''}${d.attrs}>${escapeHtml(String(o.value ?? ''))}</textarea>${d.after}</div>`;
}

export function selectField(o: FieldOptions & { options: { value: string; label: string }[] }): string {
  const id = fieldId(o.name);
  const d = described(o);
  const chosen = o.value === undefined || o.value === null ? '' : String(o.value);
  const options = o.options
    .map(
      (x) =>
        `<option value="${escapeHtml(x.value)}"${x.value === chosen ? ' selected' : ''}>${escapeHtml(x.label)}</option>`,
    )
    .join('');
  return `<div><label for="${id}">${escapeHtml(o.label)}</label><select id="${id}" name="${escapeHtml(o.name)}"${o.required ? ' required' : ''}${o.attrs ?? ''}${d.attrs}>${options}</select>${d.after}</div>`;
}

export function checkbox(o: { name: string; label: string; checked?: boolean; value?: string }): string {
  const id = fieldId(`${o.name}-${o.value ?? 'on'}`);
  return `<label class="check" for="${id}"><input id="${id}" type="checkbox" name="${escapeHtml(o.name)}" value="${escapeHtml(o.value ?? 'on')}"${o.checked ? ' checked' : ''}>${escapeHtml(o.label)}</label>`;
}

/** A one-button form (an action on a row: cancel, publish, revoke). */
export function actionButton(
  v: View,
  o: { action: string; label: string; kind?: 'secondary' | 'danger'; fields?: Record<string, string> },
): string {
  const hidden = Object.entries(o.fields ?? {})
    .map(([k, val]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(val)}">`)
    .join('');
  return `<form class="inline" method="post" action="${escapeHtml(o.action)}">${csrfField(v)}${hidden}<button type="submit" class="small${o.kind ? ` ${o.kind}` : ''}">${escapeHtml(o.label)}</button></form>`;
}

/** A status as a badge, in words (`order.status.shipped`-style keys). */
export const badge = (l: Locale, kind: string, key: MessageKey, values?: MessageValues) =>
  `<span class="badge ${escapeHtml(kind)}">${say(l, key, values)}</span>`;

/** Navigation between a section's pages, the current one marked. */
export function tabs(v: View, label: string, items: { href: string; label: string }[]): string {
  const path = new URL(v.here, 'http://page.invalid').pathname;
  return `<nav aria-label="${escapeHtml(label)}"><ul class="tabs">${items
    .map(
      (i) =>
        `<li><a href="${escapeHtml(i.href)}"${i.href === path ? ' aria-current="page"' : ''}>${escapeHtml(i.label)}</a></li>`,
    )
    .join('')}</ul></nav>`;
}

/** A province's or territory's name in the page's language ("Quebec", "Québec"). */
export const provinceName = (l: Locale, p: string) => t(l, 'web.province', { p });
