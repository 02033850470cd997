// Catalogue text for HTML. `words` is a message as plain text: html`...` escapes it where it is
// put. `wordsWith` is a message whose placeholders hold HTML fragments (a <strong>, a link):
// its words are escaped, the fragments (made by html`...`) put in as they are.
import { html } from 'ghtml';
import { type Locale, type MessageKey, type MessageValues, t } from '../contract/i18n.ts';

/** The message `key` in `locale`, as text (escaped by the html`...` it goes into). */
export const words = (locale: Locale, key: MessageKey, values?: MessageValues): string =>
  t(locale, key, values);

/** Marks where a fragment goes (private-use characters: never in a catalogue). */
const MARK = /\uE000(\d+)\uE001/g;

/**
 * The message `key` as HTML: its words and `values` escaped, each of `fragments` (HTML that
 * html`...` made) in place of its placeholder. Fragments go in after the message is rendered, so
 * nothing in them is read as the message's syntax.
 */
export function wordsWith(
  locale: Locale,
  key: MessageKey,
  values: MessageValues,
  fragments: Record<string, string>,
): string {
  const names = Object.keys(fragments);
  const marks = Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE001`]));
  const escaped: string = html`${t(locale, key, { ...values, ...marks })}`;
  return escaped.replace(MARK, (_, i: string) => fragments[names[Number(i)] as string] ?? '');
}
