// An in-process inverted index of the active catalog, for search: PostgreSQL stays the
// source of truth; the index holds, per lexeme, the products that contain it and in which
// field, and per product the few columns that filters, facets and sorts need. A broad query
// then ranks and counts facets over its ~100,000 matches in a few milliseconds, where a
// database must visit each matching row. Three parts: the data (index-store.ts, with the
// lexicon in lexicon.ts), its sync with the database (index-sync.ts), and the query
// (index-query.ts).
import type { Db } from '../../db/index.ts';
import type { EngineAnswer, IndexQuery } from './engine.ts';
import { IndexSearcher } from './index-query.ts';
import { IndexStore } from './index-store.ts';
import { IndexSync } from './index-sync.ts';

export class MemorySearchIndex {
  private readonly store = new IndexStore();
  private readonly sync: IndexSync;
  private readonly searcher = new IndexSearcher(this.store);

  /** `overlapMs`: how long after its stamp a change may commit and still be seen (tests shorten it). */
  constructor(opts: { overlapMs?: number } = {}) {
    this.sync = new IndexSync(this.store, opts.overlapMs);
  }

  /**
   * Live products, dead entries awaiting the sweep, lexemes, postings, the upkeep's counters,
   * and how many changed rows the last refresh looked at.
   */
  stats() {
    return { ...this.store.stats(), lastRefreshRows: this.sync.lastRefreshRows };
  }

  /** Bumped by every change a search could see: an answer computed at one version holds while it stays. */
  get version() {
    return this.store.version;
  }

  /** Loads every active product (start-up). */
  build(db: Db): Promise<void> {
    return this.sync.build(db);
  }

  /** Applies the changes committed since the last look; resolves after a read that started after this call. */
  refresh(db: Db): Promise<void> {
    return this.sync.refresh(db);
  }

  /**
   * Browsing (no words, no filters: the storefront's first pages) counts the facets of the
   * whole catalog, a pass over every entry (about 20 ms at a million products): its answers
   * are kept while the index's version stands, a few pages' worth (the version bumps clear them).
   * A kept answer is shared: callers read it, never change it.
   */
  private browsing = new Map<string, EngineAnswer>();
  private browsingVersion = -1;
  private static readonly BROWSING_PAGES = 64;

  search(q: IndexQuery): EngineAnswer {
    if (q.terms.length > 0 || q.clauses.length > 0) return this.searcher.search(q);
    if (this.browsingVersion !== this.store.version) {
      this.browsing.clear();
      this.browsingVersion = this.store.version;
    }
    const key = `${q.sort} ${q.limit} ${q.offset} ${q.agents === true}`;
    let answer = this.browsing.get(key);
    if (!answer) {
      answer = this.searcher.search(q);
      if (this.browsing.size >= MemorySearchIndex.BROWSING_PAGES) this.browsing.clear();
      this.browsing.set(key, answer);
    }
    return answer;
  }
}
