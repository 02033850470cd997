// The small-page frame: one card under the shop's name, inline CSS, no script, no referrer, not
// indexed. The pages a person meets outside the site's own (sign-in and consent of an agent's
// OAuth, the sandbox's payment, email links) wear it.
import { html } from 'ghtml';
import { documentFrame } from './document.ts';
import { languageSwitch, type PageLang } from './language.ts';

const BASE_STYLE = `
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f4ef; color: #1f2328; margin: 0; line-height: 1.45; }
  header { background: #1d3b2a; color: #fff; padding: 14px 20px; font-weight: 700; font-size: 1.15rem; display: flex; align-items: center; gap: 14px; }
  header nav { margin-left: auto; font-weight: 400; font-size: .88rem; }
  header nav a { color: #fff; }
  main { max-width: 480px; margin: 32px auto; padding: 0 16px; }
  section { background: #fff; border: 1px solid #e3e1da; border-radius: 12px; padding: 22px 24px; }
  h1 { font-size: 1.3rem; margin: 0 0 12px; }
  label { display: block; margin: 14px 0 5px; font-size: .92rem; font-weight: 500; }
  input { width: 100%; padding: 11px 12px; font: inherit; border: 1px solid #b9bec6; border-radius: 8px; }
  input:focus { outline: 3px solid #9cc3ad; border-color: #2f5d43; }
  button { margin-top: 20px; width: 100%; padding: 12px; font: inherit; font-weight: 600; background: #1d3b2a; color: #fff; border: 0; border-radius: 8px; cursor: pointer; }
  button:hover { background: #2f5d43; }
  .hint { font-size: .85rem; color: #5b6470; }
  .error { color: #8c1d18; background: #fdecea; border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; }
`;

/** The document of a small page: not indexed, no referrer; `head` adds its own elements. */
export const smallDocument = (p: PageLang, title: string, head: string, body: string): string =>
  documentFrame({ lang: p.locale, title, head, body, noindex: true, referrer: 'no-referrer' });

/**
 * A whole small page: the shop's header and one card holding `body` (a fragment html`...`
 * made); `style` adds the page's own rules (our own CSS text, never a person's).
 */
export function smallPage(p: PageLang, title: string, body: string, style = ''): string {
  return smallDocument(
    p,
    title,
    html`<style>!${BASE_STYLE}!${style}</style>`,
    html`<header><span>Portage</span>!${languageSwitch(p)}</header>
<main><section>!${body}</section></main>`,
  );
}
