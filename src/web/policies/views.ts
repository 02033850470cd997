// The platform's policies as pages, and the checkout's line that links two of them. An admin's
// text is never HTML: it is escaped whole, and only its blank lines, "## " headings and "- "
// lists become markup.
import { html } from 'ghtml';
import { type Locale, t } from '../../contract/i18n.ts';
import type { Policy } from '../../modules/policies/service.ts';
import { wordsWith } from '../../views/words.ts';
import type { View } from '../core.ts';
import { dateText, page } from '../layout.ts';

const list = (lines: string[]) =>
  html`<ul>!${lines.map((line) => html`<li>${line.slice(2).trim()}</li>`)}</ul>`;

/** A policy's text as HTML: paragraphs, "## " headings and "- " lists; everything else escaped. */
export function policyHtml(body: string): string {
  return body
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => {
      const lines = block.split('\n').map((line) => line.trim());
      if (lines.every((line) => line.startsWith('- '))) return list(lines);
      // A heading may head its paragraph directly, without a blank line between them.
      const head = lines[0]!.startsWith('## ') ? html`<h2>${lines.shift()!.slice(3).trim()}</h2>` : '';
      if (!lines.length) return head;
      if (lines.every((line) => line.startsWith('- '))) return html`!${head}!${list(lines)}`;
      const paragraph = lines.map((line, i) => (i ? html`<br>${line}` : html`${line}`));
      return html`!${head}<p>!${paragraph}</p>`;
    })
    .join('\n');
}

/** "By paying, you accept our terms of use and our returns policy", the two linked (the checkout's). */
export const acceptTermsLine = (l: Locale) =>
  html`<p class="hint">!${wordsWith(
    l,
    'web.checkout.acceptTerms',
    {},
    {
      terms: html`<a href="/policies/terms">${t(l, 'web.policies.link.terms')}</a>`,
      returns: html`<a href="/policies/returns">${t(l, 'web.policies.link.returns')}</a>`,
    },
  )}</p>`;

/** A policy's page: its title, its text, and when the admin last changed it. */
export function policyPage(v: View, policy: Policy): string {
  const l = v.p.locale;
  const title = t(l, 'web.policies.title', { kind: policy.kind });
  const updated = policy.updatedAt
    ? html`<p class="muted">${t(l, 'web.policies.updated', { date: dateText(v, policy.updatedAt) })}</p>`
    : '';
  return page(v, {
    title,
    index: true,
    body: html`<article class="card policy"><h1>${title}</h1>!${policyHtml(policy.body)}!${updated}</article>`,
  });
}
