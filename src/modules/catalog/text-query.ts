// Free text to a PostgreSQL full-text query. Only letters and digits survive, so quotes,
// operators and SQL in the text are just text; the last word matches as a prefix.
import { type SQL, sql } from 'drizzle-orm';

const MAX_WORDS = 12;

/** The tsquery source for `text`, or null when nothing searchable remains. */
export function tsQuerySource(text: string): string | null {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  return words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ');
}

/** `to_tsquery('english', …)` for `text` (English stemming), or null. */
export function tsQuery(text: string): SQL | null {
  const source = tsQuerySource(text);
  return source === null ? null : sql`to_tsquery('english', ${source})`;
}
