// The frame of every page a person sees outside the API (account links, OAuth sign-in and
// consent): plain HTML and inline CSS, no script, no referrer, not indexed. Callers escape what
// they put in the body.
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../contract/format.ts';

const BASE_STYLE = `
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f4ef; color: #1f2328; margin: 0; line-height: 1.45; }
  header { background: #1d3b2a; color: #fff; padding: 14px 20px; font-weight: 700; font-size: 1.15rem; }
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

/** A whole page: the shop's header and one card holding `body`; `style` adds the page's own rules. */
export function pageLayout(title: string, body: string, style = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${BASE_STYLE}${style}</style></head><body>
<header>Portage</header>
<main><section>${body}</section></main>
</body></html>`;
}

/** Answers a page: HTML, its CSP, never cached. */
export function sendPage(reply: FastifyReply, status: number, body: string, csp: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .send(body);
}
