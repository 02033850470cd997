// The index's vocabulary: each lexeme (a stem, or a title or keyword word as written) with
// its postings, found by exact word and by prefix. Words come and go while the service runs
// (a seller may rewrite a description with new words as often as they like), so no change
// may cost a pass over the whole vocabulary on the next query: new words wait in a small
// sorted side list that is merged into the sorted main list only when it passes a bound,
// and removed words stay in the main list, marked, until the next merge.

/** A lexeme and its postings: entry ordinals packed with the field weight, `ord << 2 | weight`. */
export class Term {
  postings = new Int32Array(2);
  n = 0;
  /** Taken out of the lexicon; a sorted list may still hold it until the next merge. */
  removed = false;
  /**
   * Whether the postings ascend by entry: true as loaded (entries are numbered in load order),
   * false once a reused (lower) entry number is appended, until a query sorts them again.
   */
  ascending = true;
  constructor(readonly word: string) {}

  add(ord: number, weight: number) {
    if (this.n === this.postings.length) {
      const grown = new Int32Array(this.n * 2);
      grown.set(this.postings);
      this.postings = grown;
    }
    const v = (ord << 2) | weight;
    if (this.n > 0 && v < this.postings[this.n - 1]!) this.ascending = false;
    this.postings[this.n++] = v;
  }

  /** Sorts the postings by entry (once after entries were reused), for searching within them. */
  sortByEntry() {
    if (this.ascending) return;
    this.postings.subarray(0, this.n).sort();
    this.ascending = true;
  }

  /** Drops the postings of entries `keep` refuses; answers how many were dropped. */
  retain(keep: (ord: number) => boolean): number {
    const p = this.postings;
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      const v = p[r]!;
      if (keep(v >> 2)) p[w++] = v;
    }
    const dropped = this.n - w;
    this.n = w;
    // Give memory back when a list shrank to a quarter of its room.
    if (p.length > 8 && w * 4 <= p.length) this.postings = p.slice(0, Math.max(2, w * 2));
    return dropped;
  }
}

/** The side list is merged into the main list past this many words. */
const SIDE_MAX = 4096;

const byWord = (list: Term[], word: string): number => {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.word < word) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

export class Lexicon {
  private readonly terms = new Map<string, Term>();
  /** Sorted by word; may hold removed terms (`removed` of them), dropped at the next merge. */
  private main: Term[] = [];
  /** Sorted by word; words added since the last merge. */
  private side: Term[] = [];
  private removedInMain = 0;
  /** While loading, new words are only collected; `endBulk` sorts them once. */
  private bulk = false;
  /** Merges of the side list into the main list, and words they moved: the upkeep's cost. */
  merges = 0;
  movedWords = 0;

  get size() {
    return this.terms.size;
  }

  stats() {
    return {
      words: this.terms.size,
      pending: this.side.length,
      merges: this.merges,
      movedWords: this.movedWords,
    };
  }

  get(word: string): Term | undefined {
    return this.terms.get(word);
  }

  getOrAdd(word: string): Term {
    let term = this.terms.get(word);
    if (term) return term;
    term = new Term(word);
    this.terms.set(word, term);
    if (this.bulk) {
      this.side.push(term);
    } else {
      this.side.splice(byWord(this.side, word), 0, term);
      if (this.side.length > SIDE_MAX) this.merge();
    }
    return term;
  }

  remove(term: Term) {
    if (term.removed) return;
    term.removed = true;
    this.terms.delete(term.word);
    const i = this.bulk ? -1 : byWord(this.side, term.word);
    if (i >= 0 && this.side[i] === term) {
      this.side.splice(i, 1);
    } else {
      this.removedInMain++;
      // Removed words cost the prefix lookups that pass over them: drop them once they are
      // a quarter of the list (amortised: a merge per main.length / 4 removals).
      if (this.removedInMain > Math.max(SIDE_MAX, this.main.length / 4)) this.merge();
    }
  }

  /** Every term, in an order that also visits terms added while iterating (Map order). */
  values(): IterableIterator<Term> {
    return this.terms.values();
  }

  beginBulk() {
    this.bulk = true;
  }

  endBulk() {
    this.bulk = false;
    this.side.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
    this.merge();
  }

  /** Terms whose word starts with `prefix`. */
  withPrefix(prefix: string): Term[] {
    const out: Term[] = [];
    for (const list of [this.main, this.side]) {
      for (let i = byWord(list, prefix); i < list.length && list[i]!.word.startsWith(prefix); i++) {
        if (!list[i]!.removed) out.push(list[i]!);
      }
    }
    return out;
  }

  /** One linear pass: the side list woven into the main list, removed terms dropped. */
  private merge() {
    const main = this.main;
    const side = this.side;
    const out: Term[] = [];
    let i = 0;
    for (const s of side) {
      while (i < main.length && main[i]!.word < s.word) {
        const m = main[i++]!;
        if (!m.removed) out.push(m);
      }
      if (!s.removed) out.push(s);
    }
    while (i < main.length) {
      const m = main[i++]!;
      if (!m.removed) out.push(m);
    }
    this.main = out;
    this.side = [];
    this.removedInMain = 0;
    this.merges++;
    this.movedWords += out.length;
  }
}
