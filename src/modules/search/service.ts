import type { z } from 'zod';
import type { productListItem, searchAnswer, searchQuery } from '../../contract/catalog.ts';
import type { Db } from '../../db/index.ts';
import { listItemsByIds } from '../catalog/service.ts';
import { searchWords } from '../catalog/text-query.ts';
import type { RequestContext } from '../context.ts';
import { type EngineAnswer, emptyAnswer, type IndexQuery, type SortKey } from './engine.ts';
import { parseFilters } from './filters.ts';
import type { MemorySearchIndex } from './memory-index.ts';
import { stemsOfWords } from './queries.ts';
import { sqlSearch } from './sql-engine.ts';

type Answer = z.infer<typeof searchAnswer>;
type Query = z.infer<typeof searchQuery>;
type ListItem = z.infer<typeof productListItem>;

/** Words whose stems are remembered; past this the memory starts again. */
export const STEM_CACHE_MAX = 10_000;

export type SearchEngine = ReturnType<typeof createSearch>;

export function createSearch(opts: { index: MemorySearchIndex | undefined }) {
  const { index } = opts;
  const stems = new StemCache();
  let prepared = !index;

  /**
   * With the stems known, the read of the changes goes out first, the answer is computed on
   * the index as it is while the database works (changes apply only when their read comes
   * back), and the read of that page follows: one round trip's wait. Only when the read
   * brought a change is the answer computed again and its page read again.
   */
  async function indexSearch(ctx: RequestContext, index: MemorySearchIndex, q: IndexQuery) {
    const version = index.version;
    const refreshed = index.refresh(ctx.db);
    // Awaited below; handled here too, in case the search throws before that.
    refreshed.catch(() => {});
    // The read is sent once its promises have run: a turn of the event loop lets it leave
    // before the synchronous search holds the thread, so the database works meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    let found = index.search(q);
    let [, results] = await Promise.all([refreshed, listItemsByIds(ctx, found.ids)]);
    if (index.version !== version) {
      found = index.search(q);
      results = await listItemsByIds(ctx, found.ids);
    }
    return { found, results };
  }

  return {
    /** Loads the index (start-up); a no-op for the SQL engine. */
    async prepare(db: Db) {
      if (!index) return undefined;
      await index.build(db);
      prepared = true;
      return index.stats();
    },

    /** Whether searches can be answered: the index loaded (always, for the SQL engine). */
    ready: () => prepared,

    /** `agents`: only the products offered to AI agents (the UCP catalog; docs/ucp.md "Catalog"). */
    async search(ctx: RequestContext, q: Query, opts: { agents?: boolean } = {}): Promise<Answer> {
      const clauses = parseFilters(q.filters, ctx.locale);
      const words = searchWords(q.q);
      if (q.q.trim() && words.length === 0) return answer(q, emptyAnswer());
      const sort: SortKey = q.sort ?? (words.length ? 'relevance' : 'newest');
      const agents = opts.agents === true;
      const page = { clauses, sort, limit: q.limit, offset: q.offset, agents };
      if (!index) {
        const found = await sqlSearch(ctx, q, clauses, sort, agents);
        return answer(q, found, await listItemsByIds(ctx, found.ids));
      }
      let terms = stems.known(words);
      if (!terms) {
        // New words: their stems are read together with the changes, then the page.
        [, terms] = await Promise.all([index.refresh(ctx.db), stems.terms(ctx.db, words)]);
        const found = index.search({ ...page, terms });
        return answer(q, found, await listItemsByIds(ctx, found.ids));
      }
      const { found, results } = await indexSearch(ctx, index, { ...page, terms });
      return answer(q, found, results);
    },
  };
}

/**
 * The answer as the contract has it, field by field: it is serialized without a second
 * check (src/http/route-defaults.ts `unchecked`), so a result leaves out the list item's
 * `status` here (every result is active).
 */
function answer(q: Query, found: EngineAnswer, items: ListItem[] = []): Answer {
  const results = items.map(({ status: _, ...result }) => result);
  return { results, facets: found.facets, total: found.total, limit: q.limit, offset: q.offset };
}

/** A word folded as the search document's words are, and its English and French stems. */
interface Stems {
  folded: string;
  en: string[];
  fr: string[];
}

/**
 * Words to index terms, with PostgreSQL's English and French stemmers (the ones that made the
 * stored vectors), as portage_search_query (src/db/functions) makes the SQL engine's query:
 * every word but the last must be present through one of its stems (a stopword in either
 * language is dropped); the last is a prefix of a stem or of the word as written, folded.
 */
class StemCache {
  private readonly cache = new Map<string, Stems>();

  /** The terms of `words` when every word's stems are remembered, without the database. */
  known(words: string[]): IndexQuery['terms'] | undefined {
    const stems = new Map<string, Stems>();
    for (const w of words) {
      const known = this.cache.get(w);
      if (!known) return undefined;
      stems.set(w, known);
    }
    return toTerms(words, stems);
  }

  async terms(db: Db, words: string[]): Promise<IndexQuery['terms']> {
    if (words.length === 0) return [];
    // This query's stems are gathered in a map of its own: the shared cache may be cleared
    // by another search while this one waits for the database.
    const stems = new Map<string, Stems>();
    for (const w of words) {
      const known = this.cache.get(w);
      if (known) stems.set(w, known);
    }
    const missing = [...new Set(words.filter((w) => !stems.has(w)))];
    if (missing.length) {
      const rows = await stemsOfWords(db, missing);
      if (this.cache.size > STEM_CACHE_MAX) this.cache.clear();
      for (const r of rows) {
        const found = { folded: r.folded, en: r.en, fr: r.fr };
        stems.set(r.w, found);
        this.cache.set(r.w, found);
      }
    }
    return toTerms(words, stems);
  }
}

function toTerms(words: string[], stems: Map<string, Stems>): IndexQuery['terms'] {
  if (words.length === 0) return [];
  const of = (w: string): Stems => stems.get(w) ?? { folded: w, en: [], fr: [] };
  const last = of(words[words.length - 1]!);
  return [
    ...words
      .slice(0, -1)
      .map(of)
      .filter((s) => s.en.length > 0 && s.fr.length > 0)
      .map((s) => ({ exact: [...new Set([...s.en, ...s.fr])] })),
    { prefixes: [...new Set([...last.en, ...last.fr, last.folded])] },
  ];
}
