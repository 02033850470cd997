// The console's CSV import page: the form (a file, a dry-run box) and what the last file did,
// each bad row by its line, and the parts of the answer streamed while a file is read. Markup only.
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { CSV_COLUMNS } from '../../modules/catalog/csv.ts';
import type { View } from '../core.ts';
import { checkbox, type FormError, formAlert } from '../layout.ts';
import { consolePage, table, th } from './views.ts';

export interface ImportOutcome {
  dryRun: boolean;
  imported: boolean;
  products: number;
  variants: number;
  updated: number;
  deleted: number;
  problemCount: number;
  problems: Array<{ line: number; field: string; message: string }>;
}

/** What the last file did (its problems by line, or what was written), then the form. */
function importBody(v: View, o: { outcome?: ImportOutcome; error?: FormError }) {
  const l = v.p.locale;
  const r = o.outcome;
  let result = '';
  if (r && r.problemCount > 0) {
    const rows = r.problems.map(
      (p) =>
        html`<tr><td class="num" data-label="${t(l, 'web.console.import.line')}">${p.line}</td><td data-label="${t(l, 'web.console.import.column')}"><code>${p.field}</code></td><td data-label="${t(l, 'web.console.import.problem')}">${p.message}</td></tr>`,
    );
    const more = r.problemCount - r.problems.length;
    result = html`<h2 id="import-problems">${t(l, 'web.console.import.problems', { n: r.problemCount })}</h2>!${table(
      [
        th(t(l, 'web.console.import.line'), true),
        th(t(l, 'web.console.import.column')),
        th(t(l, 'web.console.import.problem')),
      ],
      rows,
      t(l, 'web.console.import.problems', { n: r.problemCount }),
      true,
    )}!${more > 0 ? html`<p>${t(l, 'web.console.import.more', { n: more })}</p>` : ''}`;
  } else if (r) {
    const key = r.dryRun ? 'web.console.import.wouldDo' : 'web.console.import.done';
    result = html`<p class="notice" role="status">${t(l, key, { products: r.products, variants: r.variants, updated: r.updated, deleted: r.deleted })}</p>!${
      r.imported ? html`<p><a href="/console/products">${t(l, 'web.console.products')}</a></p>` : ''
    }`;
  }
  // The token rides in the action's query: the body is the file, read as it arrives.
  const action = `/console/products/import?csrf=${encodeURIComponent(v.csrf)}`;
  const form = html`<form class="card" method="post" action="${action}" enctype="multipart/form-data">
<p class="hint">${t(l, 'web.console.import.hint')}</p><p class="hint">${t(l, 'web.console.import.format')} <code>${CSV_COLUMNS.join(', ')}</code></p>
!${checkbox({ name: 'dryRun', label: t(l, 'web.console.import.dryRun'), checked: r ? r.dryRun : true, value: 'true' })}
<div><label for="f-file">${t(l, 'web.console.import.file')}</label><input id="f-file" name="file" type="file" accept=".csv,text/csv" required></div>
<button type="submit">${t(l, 'web.console.import.submit')}</button></form>`;
  return html`!${formAlert(o.error)}!${result}!${form}<p><a href="/products/export.csv">${t(l, 'web.console.import.export')}</a></p>`;
}

export function importView(v: View, o: { outcome?: ImportOutcome; error?: FormError }) {
  return consolePage(v, t(v.p.locale, 'web.console.import.title'), importBody(v, o));
}

const BODY_MARK = '<!--import-body-->';

/**
 * The import's answer in parts, sent as the file is read: the page's head and the start of a
 * progress log (a live region, so each line is announced), a line per step, then the end of the
 * log, what the file did, the form and the page's foot.
 */
export function importStream(v: View) {
  const l = v.p.locale;
  const whole = consolePage(v, t(l, 'web.console.import.title'), BODY_MARK);
  const at = whole.indexOf(BODY_MARK);
  return {
    head: html`!${whole.slice(0, at)}<div class="import-progress" id="import-progress" role="log" aria-live="polite" aria-label="${t(l, 'web.console.import.progressLabel')}">`,
    /** `rows` read so far, and the share of the upload's bytes (0-100) when its size is known. */
    line: (rows: number, percent?: number) =>
      html`<p>!${
        percent === undefined
          ? ''
          : html`<progress max="100" value="${percent}" aria-label="${t(l, 'web.console.import.progressLabel')}">${percent} %</progress> `
      }${t(l, 'web.console.import.progress', { n: rows })}</p>`,
    end: (o: { outcome?: ImportOutcome; error?: FormError }) =>
      html`</div>!${importBody(v, o)}!${whole.slice(at + BODY_MARK.length)}`,
  };
}
