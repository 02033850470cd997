// Free text to a PostgreSQL full-text query. Only letters and digits survive, so quotes,
// operators and SQL in the text are just text; the last word matches as a prefix.
import { type SQL, sql } from 'drizzle-orm';

const MAX_WORDS = 12;

/** The words of `text` that search looks at: letters and digits, lower-cased. */
export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
}

/**
 * The full-text query for `text`, or null when nothing searchable remains. Every word but
 * the last must match (English stems: "canoes" finds "canoe"); the last is a prefix, of a
 * stem or of a word as written, so that "runn" finds "running" although its stem is "run"
 * (the search vector keeps title and keyword words unstemmed too).
 */
export function tsQuery(text: string): SQL | null {
  const words = searchWords(text);
  const last = words.pop();
  if (last === undefined) return null;
  const prefix = sql`(to_tsquery('english', ${`${last}:*`}) || to_tsquery('simple', ${`${last}:*`}))`;
  return words.length ? sql`(to_tsquery('english', ${words.join(' & ')}) && ${prefix})` : prefix;
}
