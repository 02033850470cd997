// The console's CSV import page: the form (a file, a dry-run box) and what the last file did,
// each bad row by its line. Markup only.
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
  problemCount: number;
  problems: Array<{ line: number; field: string; message: string }>;
}

export function importView(v: View, o: { outcome?: ImportOutcome; error?: FormError }) {
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
    result = html`<p class="notice" role="status">${t(l, key, { products: r.products, variants: r.variants, updated: r.updated })}</p>!${
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
  return consolePage(
    v,
    t(l, 'web.console.import.title'),
    html`!${formAlert(o.error)}!${result}!${form}<p><a href="/products/export.csv">${t(l, 'web.console.import.export')}</a></p>`,
  );
}
