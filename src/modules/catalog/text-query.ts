// Free text to a PostgreSQL full-text query. Only letters and digits survive, so quotes,
// operators and SQL in the text are just text; the last word matches as a prefix.
import { type SQL, sql } from 'drizzle-orm';

const MAX_WORDS = 12;

/** The words of `text` that search looks at: letters and digits, lower-cased. */
export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
}

/**
 * What a full-text query of `text` is made of, or null when nothing searchable remains:
 * every word but the last must match (English or French stems, accents folded: "canoes"
 * finds "canoe", "erable" "érable"); the last is a prefix, of a stem or of a word as
 * written, so that "runn" finds "running" although its stem is "run" (the search vector
 * keeps title and keyword words unstemmed too). Made by portage_search_query (src/db/functions).
 */
export function searchTerms(text: string): { leading: string | null; prefix: string } | null {
  const words = searchWords(text);
  const last = words.pop();
  if (last === undefined) return null;
  return { leading: words.length ? words.join(' ') : null, prefix: last };
}

/** The query of `searchTerms`, from its parts (values or placeholders of a prepared statement). */
export function tsQueryOf(leading: unknown, prefix: unknown): SQL {
  return sql`portage_search_query(${leading === null ? sql`null` : leading}::text, ${prefix}::text)`;
}

/** The full-text query for `text`, or null when nothing searchable remains. */
export function tsQuery(text: string): SQL | null {
  const terms = searchTerms(text);
  return terms && tsQueryOf(terms.leading, terms.prefix);
}
