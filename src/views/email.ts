// The email frame: an HTML email's document (inline styles only: mail readers drop style
// elements and stylesheets) and its text part. Each block of the HTML is a fragment html`...`
// made; the text part is the same message as lines.
import { html } from 'ghtml';
import { documentFrame } from './document.ts';

/** An email's HTML document in `lang`: its title and its blocks (paragraphs, tables), one a line. */
export const emailDocument = (lang: string, title: string, blocks: readonly string[]): string =>
  documentFrame({
    lang,
    title,
    viewport: false,
    lines: true,
    bodyAttributes: ' style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.4"',
    body: blocks.join('\n'),
  });

/** An email's text part: its lines, joined by line breaks. */
export const emailText = (lines: readonly string[]): string => lines.join('\n');

/** A person's text of several lines (a reason, a note): escaped, its line breaks kept. */
export const multiline = (text: string): string => html`${text}`.replace(/\r?\n/g, '<br>');

/** A link that shows its own address. */
export const plainLink = (url: string): string => html`<a href="${url}">${url}</a>`;
