// The view frame of the MCP Apps views (src/mcp/views.ts): one document per view with the pages'
// stylesheet and the view's own rules, an empty live region the view's script fills with what a
// tool answered, the view's words (JSON) and its script. The host gives the language later, so
// the document itself is in the base language.
import { html } from 'ghtml';
import { BASE_LOCALE } from '../contract/i18n.ts';
import { documentFrame } from './document.ts';
import { STYLESHEET } from './stylesheet.ts';

/** JSON safe inside a script element: no `<` is left in it to close the element. */
export const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

export interface ViewParts {
  /** The view's name (`cart`), on <body data-view> for its script. */
  name: string;
  /** The view's own CSS after the pages' stylesheet (our text, never a person's). */
  style: string;
  /** The view's words, each language's, as a value for scriptJson. */
  words: unknown;
  /** The view's script (our text). */
  script: string;
}

export function viewDocument(v: ViewParts): string {
  return documentFrame({
    lang: BASE_LOCALE,
    title: 'Portage',
    lines: true,
    head: html`
<style>!${STYLESHEET}!${v.style}</style>`,
    bodyAttributes: html` data-view="${v.name}"`,
    body: html`<main id="view" aria-live="polite"></main>
<script type="application/json" id="words">!${scriptJson(v.words)}</script>
<script>!${v.script}</script>`,
  });
}
