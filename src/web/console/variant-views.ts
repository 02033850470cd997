// The product edit page's form of options and variants: the options' names and values, then a
// table of the variants (a card per variant on a phone), each input labelled with its row, each
// problem under its input. Markup only.
import { html } from 'ghtml';
import { MAX_OPTIONS } from '../../contract/catalog.ts';
import { t } from '../../contract/i18n.ts';
import type { View } from '../core.ts';
import { csrfField, type FormError, field, formAlert } from '../layout.ts';
import type { VariantRow, VariantsForm } from './variant-form.ts';
import { problemOf, productPath, table, th } from './views.ts';

const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** An input in a cell, labelled for a screen reader with its row; its problem under it. */
function cellInput(o: {
  name: string;
  label: string;
  of: string;
  value: string;
  error?: FormError;
  attrs?: string;
  /** The id of a problem shown elsewhere that this input shares (a variant's option values). */
  sharedProblem?: string;
}): string {
  const id = idOf(o.name);
  const problem = problemOf(o.error, o.name, id);
  const invalid = problem
    ? html` aria-invalid="true" aria-describedby="${id}-error"`
    : o.sharedProblem
      ? html` aria-invalid="true" aria-describedby="${o.sharedProblem}"`
      : '';
  return html`<label for="${id}" class="visually-hidden">${o.label} (${o.of})</label><input id="${id}" name="${o.name}" type="text" value="${o.value}" autocomplete="off"!${o.attrs ?? ''}!${invalid}>!${problem}`;
}

function variantRow(v: View, f: VariantsForm, r: VariantRow, n: number, error?: FormError): string {
  const l = v.p.locale;
  const blank = !r.id && n === f.rows.length - 1;
  const of = blank
    ? t(l, 'web.console.variants.newRow')
    : `${t(l, 'web.console.variants.row', { n: n + 1 })}${r.id ? ` ${r.sku}` : ''}`;
  const at = (x: string) => `variants.${n}.${x}`;
  const cell = (label: string, inner: string) => html`<td data-label="${label}">!${inner}</td>`;
  // A problem of the variant's values (missing, unknown, twice) goes under its last value.
  const options = problemOf(error, at('options'), idOf(at('options')));
  const optionCells = f.options.map((o, k) => {
    const label = o.name || t(l, 'web.console.variants.option', { n: k + 1 });
    const input = cellInput({
      name: at(`value.${k}`),
      label,
      of,
      value: r.values[k] ?? '',
      attrs: ' maxlength="50"',
      sharedProblem: options && o.name ? `${idOf(at('options'))}-error` : undefined,
    });
    return cell(label, k === f.options.length - 1 ? html`!${input}!${options}` : input);
  });
  const statusId = idOf(at('status'));
  const status = html`<label for="${statusId}" class="visually-hidden">${t(l, 'web.console.variants.status')} (${of})</label><select id="${statusId}" name="${at('status')}">!${(['active', 'inactive'] as const).map((x) => html`<option value="${x}"!${r.status === x ? ' selected' : ''}>${t(l, 'web.console.product.statusName', { status: x })}</option>`)}</select>`;
  const removeId = idOf(at('remove'));
  const remove = r.id
    ? html`<label class="check" for="${removeId}"><input id="${removeId}" type="checkbox" name="${at('remove')}" value="on"!${r.remove ? ' checked' : ''}>${t(l, 'web.console.variants.remove')}<span class="visually-hidden"> ${of}</span></label>`
    : '';
  return html`<tr>!${cell(
    t(l, 'web.console.variants.sku'),
    html`!${r.id ? html`<input type="hidden" name="${at('id')}" value="${r.id}">` : ''}!${cellInput({ name: at('sku'), label: t(l, 'web.console.variants.sku'), of, value: r.sku, error, attrs: ' maxlength="64"' })}`,
  )}!${optionCells.join('')}!${cell(
    t(l, 'web.console.variants.price'),
    cellInput({
      name: at('price'),
      label: t(l, 'web.console.variants.price'),
      of,
      value: r.price,
      error,
      attrs: ' inputmode="decimal" maxlength="20"',
    }),
  )}!${cell(
    t(l, 'web.console.variants.compareAt'),
    cellInput({
      name: at('compareAt'),
      label: t(l, 'web.console.variants.compareAt'),
      of,
      value: r.compareAt,
      error,
      attrs: ' inputmode="decimal" maxlength="20"',
    }),
  )}!${cell(
    t(l, 'web.console.variants.stock'),
    cellInput({
      name: at('stockQuantity'),
      label: t(l, 'web.console.variants.stock'),
      of,
      value: r.stock,
      error,
      attrs: ' inputmode="numeric" maxlength="10"',
    }),
  )}!${cell(t(l, 'web.console.variants.status'), status)}<td>!${remove}</td></tr>`;
}

/** The form of the product's options and variants, as it is or as typed with its refusal. */
export function variantsFormView(v: View, productId: string, f: VariantsForm, error?: FormError): string {
  const l = v.p.locale;
  const optionRows = f.options
    .slice(0, MAX_OPTIONS)
    .map(
      (o, n) =>
        html`<div class="row">!${field({ name: `options.${n}.name`, label: t(l, 'web.console.variants.optionName', { n: n + 1 }), value: o.name, error, attrs: ' maxlength="50"' })}!${field({ name: `options.${n}.values`, label: t(l, 'web.console.variants.optionValues', { n: n + 1 }), hint: t(l, 'web.console.variants.valuesHint'), value: o.values, error, attrs: ' maxlength="2600"' })}</div>`,
    );
  const head = [
    th(t(l, 'web.console.variants.sku')),
    ...f.options.map((o, k) => th(o.name || t(l, 'web.console.variants.option', { n: k + 1 }))),
    th(t(l, 'web.console.variants.price')),
    th(t(l, 'web.console.variants.compareAt')),
    th(t(l, 'web.console.variants.stock')),
    th(t(l, 'web.console.variants.status')),
    th(t(l, 'web.console.variants.remove')),
  ];
  const rows = f.rows.map((r, n) => variantRow(v, f, r, n, error));
  return html`<section aria-labelledby="variants-h"><h2 id="variants-h">${t(l, 'web.console.variants.title')}</h2>
<form method="post" action="${productPath(productId)}/variants" class="card" novalidate>!${csrfField(v)}!${formAlert(error)}
<p class="hint">${t(l, 'web.console.variants.intro')}</p>
<fieldset><legend>${t(l, 'web.console.variants.options')}</legend>!${optionRows}!${problemOf(error, 'options', 'f-options')}</fieldset>
!${table(head, rows, t(l, 'web.console.variants.title'), true)}!${problemOf(error, 'variants', 'f-variants')}
<button type="submit">${t(l, 'web.console.variants.save')}</button></form></section>`;
}
