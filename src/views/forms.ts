// The pieces of the pages' forms and rows: fields that name their problem, one-button forms,
// badges, tabs. Each takes plain values (labels, values, a refusal's words) and escapes them;
// `attrs` alone is markup, the caller's, made with html`...`.
import { html } from 'ghtml';
import type { Locale, MessageKey, MessageValues } from '../contract/i18n.ts';
import { words } from './words.ts';

/** What a form needs of its page: the token every form carries. */
export interface FormView {
  csrf: string;
}

/** What a refused form shows: the refusal on top, and each field's problem under the field. */
export interface FormError {
  message: string;
  fields: Record<string, string>;
}

export const csrfField = (v: FormView): string => html`<input type="hidden" name="csrf" value="${v.csrf}">`;

export const formAlert = (error?: FormError): string =>
  error ? html`<p class="alert" role="alert" id="form-error">${error.message}</p>` : '';

export const notice = (message?: string): string =>
  message ? html`<p class="notice" role="status">${message}</p>` : '';

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | number | null;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  error?: FormError;
  /** Further attributes, as html`...` wrote them (` min="1"`). */
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
    attrs: html`!${ids.length ? html` aria-describedby="${ids.join(' ')}"` : ''}!${problem ? ' aria-invalid="true"' : ''}`,
    after: html`!${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}!${
      problem ? html`<p class="field-error" id="${id}-error">${problem}</p>` : ''
    }`,
  };
}

const flag = (on: boolean | undefined, name: string) => (on ? ` ${name}` : '');

export function field(o: FieldOptions): string {
  const id = fieldId(o.name);
  const d = described(o);
  const value = o.value === undefined || o.value === null ? '' : html` value="${String(o.value)}"`;
  const autocomplete = o.autocomplete ? html` autocomplete="${o.autocomplete}"` : '';
  return html`<div><label for="${id}">${o.label}</label><input id="${id}" name="${o.name}" type="${o.type ?? 'text'}"!${value}!${flag(o.required, 'required')}!${autocomplete}!${o.attrs ?? ''}!${d.attrs}>!${d.after}</div>`;
}

export function textArea(o: FieldOptions): string {
  const id = fieldId(o.name);
  const d = described(o);
  return html`<div><label for="${id}">${o.label}</label><textarea id="${id}" name="${o.name}"!${flag(o.required, 'required')}!${o.attrs ?? ''}!${d.attrs}>${String(o.value ?? '')}</textarea>!${d.after}</div>`;
}

export function selectField(o: FieldOptions & { options: { value: string; label: string }[] }): string {
  const id = fieldId(o.name);
  const d = described(o);
  const chosen = o.value === undefined || o.value === null ? '' : String(o.value);
  const options = o.options.map(
    (x) => html`<option value="${x.value}"!${flag(x.value === chosen, 'selected')}>${x.label}</option>`,
  );
  return html`<div><label for="${id}">${o.label}</label><select id="${id}" name="${o.name}"!${flag(o.required, 'required')}!${o.attrs ?? ''}!${d.attrs}>!${options}</select>!${d.after}</div>`;
}

export function checkbox(o: { name: string; label: string; checked?: boolean; value?: string }): string {
  const id = fieldId(`${o.name}-${o.value ?? 'on'}`);
  return html`<label class="check" for="${id}"><input id="${id}" type="checkbox" name="${o.name}" value="${o.value ?? 'on'}"!${flag(o.checked, 'checked')}>${o.label}</label>`;
}

/** A one-button form (an action on a row: cancel, publish, revoke). */
export function actionButton(
  v: FormView,
  o: { action: string; label: string; kind?: 'secondary' | 'danger'; fields?: Record<string, string> },
): string {
  const hidden = Object.entries(o.fields ?? {}).map(
    ([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`,
  );
  return html`<form class="inline" method="post" action="${o.action}">!${csrfField(v)}!${hidden}<button type="submit" class="${o.kind ? `small ${o.kind}` : 'small'}">${o.label}</button></form>`;
}

/** A status as a badge, in words (`order.status.shipped`-style keys). */
export const badge = (l: Locale, kind: string, key: MessageKey, values?: MessageValues): string =>
  html`<span class="badge ${kind}">${words(l, key, values)}</span>`;

/** Navigation between a section's pages, the current one marked. */
export function tabs(v: { here: string }, label: string, items: { href: string; label: string }[]): string {
  const path = new URL(v.here, 'http://page.invalid').pathname;
  return html`<nav aria-label="${label}"><ul class="tabs">!${items.map(
    (i) => html`<li><a href="${i.href}"!${i.href === path ? ' aria-current="page"' : ''}>${i.label}</a></li>`,
  )}</ul></nav>`;
}
