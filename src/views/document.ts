// The document frame every HTML this service writes shares: doctype, language, charset, title,
// then what the frame above it adds (pages, small pages, emails, MCP views). Values are escaped
// by html`...`; `head`, `body` and `bodyAttributes` are fragments html`...` made.
import { html } from 'ghtml';

export interface DocumentParts {
  /** The document's language (a BCP 47 tag: en-CA, fr-CA). */
  lang: string;
  title: string;
  /** The fragments of the head after the title (a stylesheet, a style, a script). */
  head?: string;
  body: string;
  /** Attributes of <body> (` data-view="cart"`), as html`...` wrote them. */
  bodyAttributes?: string;
  /** A phone-width layout (pages and views; emails leave it to the mail reader). */
  viewport?: boolean;
  /** Asks search engines not to index it (account, payment and OAuth pages). */
  noindex?: boolean;
  /** The referrer policy (`same-origin`, `no-referrer`); none: the browser's. */
  referrer?: string;
  /** Whether the head and body each start on a line of their own (emails: easier to read raw). */
  lines?: boolean;
}

export function documentFrame(d: DocumentParts): string {
  const nl = d.lines ? '\n' : '';
  const meta = [
    d.viewport === false ? '' : '<meta name="viewport" content="width=device-width, initial-scale=1">',
    d.noindex ? '<meta name="robots" content="noindex">' : '',
    d.referrer ? html`<meta name="referrer" content="${d.referrer}">` : '',
  ].join('');
  return html`<!doctype html>!${nl}<html lang="${d.lang}"><head><meta charset="utf-8">!${meta}!${nl}<title>${d.title}</title>!${d.head ?? ''}</head>
<body!${d.bodyAttributes ?? ''}>
!${d.body}
</body></html>`;
}
