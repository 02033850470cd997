// A query over the index's data: the products containing every term (ranked by the best
// field of each), the filters, facet counts over the whole result in one pass, and a
// bounded heap for the page. Runs synchronously once its inputs are in.
// Long because the query is one synchronous pass whose parts share its arrays; split, they would copy them.
import {
  type EngineAnswer,
  FACET_VALUES,
  fixedFacets,
  type IndexQuery,
  optionFacets,
  type SortKey,
} from './engine.ts';
import { type Clause, foldOption, isVariantClause, type VariantClause } from './filters.ts';
import {
  ALL_IN_STOCK,
  BLOCK,
  IN_STOCK,
  type IndexStore,
  KEY_STOCK,
  NO_VARIANT,
  variantKey,
} from './index-store.ts';
import type { Term } from './lexicon.ts';

/**
 * Field weights, ts_rank's defaults times ten: title (A) 10, keywords (B) 4, description (C) 2,
 * words as written (D) 1. Whole numbers, so that a score is the same sum whatever order its
 * words are added in (the intersection takes them in the order that narrows fastest).
 */
const WEIGHT_SCORE = [1, 2, 4, 10];
/** A later word's list at least this many times longer than the candidates is searched, not read. */
const GALLOP_RATIO = 4;

/** A query's matching entries: the first `n` of `docs`. */
interface Matches {
  docs: Int32Array;
  n: number;
}

/**
 * The variant clauses, compiled: a variant passes when its price is in one range of each price
 * clause, its stock is accepted (bit 1 out of stock, bit 2 in stock) and each option clause
 * names an option of its product whose value (folded ordinal) is wanted.
 */
interface VariantFilter {
  any: boolean;
  prices: Float64Array[];
  stock: number;
  options: Array<{ name: number; wanted: Uint8Array }>;
  /** Scratch: per option clause, its option's place among the product's options. */
  pos: Int32Array;
  /** Per shape, its verdict on the option clauses plus one (0: not worked out yet). */
  shapes: Uint8Array;
}

/** A facet key's bits in a summary or a match's key (bits 1 and 2 are digital and perishable in the key). */
const KEY_MASK = 0xfc;
/** matchKey: every variant of the match passes (its option facets are its shape's). */
const MATCH_ALL = 1;

export class IndexSearcher {
  // Per-entry scratch space, reused from query to query. `mark` says how far an entry got in
  // this query: `tag(t)` once it matched terms 0..t; older queries' tags are all smaller.
  private mark = new Int32Array(0);
  private score = new Float32Array(0);
  private termBest = new Float32Array(0);
  private found = new Int32Array(0);
  private generation = 0;
  // Per-candidate scratch of the intersecting path: score so far, and the best weight of the
  // word being intersected (0: not found).
  private candScore = new Float32Array(0);
  private wordBest = new Float64Array(0);
  // Per-entry scratch of variant clauses: a match's lowest matching price and facet bits.
  private matchPrice = new Int32Array(0);
  private matchKey = new Uint8Array(0);

  constructor(private readonly store: IndexStore) {}

  search(q: IndexQuery): EngineAnswer {
    this.fitScratch();
    const matches = this.match(q.terms);
    const pass = this.filter(
      q.clauses.filter((c): c is Exclude<Clause, VariantClause> => !isVariantClause(c)),
    );
    const vf = this.variantFilter(q.clauses.filter(isVariantClause));
    // Closed shops' products (store.hidden): one byte per match, and nothing when none is closed.
    const { hidden, seller } = this.store;
    if (hidden) {
      const { docs } = matches;
      let w = 0;
      for (let i = 0; i < matches.n; i++) {
        const d = docs[i]!;
        if (hidden[seller[d]!] !== 1) docs[w++] = d;
      }
      matches.n = w;
    }
    // An agents' query (the UCP catalog) passes over the products kept out of agent channels.
    if (q.agents) {
      const { docs } = matches;
      const { agentsOff } = this.store;
      let w = 0;
      for (let i = 0; i < matches.n; i++) {
        const d = docs[i]!;
        if (agentsOff[d] !== 1) docs[w++] = d;
      }
      matches.n = w;
    }
    if (pass || vf.any) {
      const { docs } = matches;
      let w = 0;
      for (let i = 0; i < matches.n; i++) {
        const d = docs[i]!;
        if ((!pass || pass(d)) && (!vf.any || this.matchVariants(d, vf))) docs[w++] = d;
      }
      matches.n = w;
    }
    // With variant clauses, a match's price is its lowest matching variant's (matchVariants).
    const price = vf.any ? this.matchPrice : this.store.price;
    return { total: matches.n, ids: this.page(matches, q, price), facets: this.facets(matches, vf) };
  }

  private variantFilter(clauses: VariantClause[]): VariantFilter {
    const s = this.store;
    const vf: VariantFilter = {
      any: clauses.length > 0,
      prices: [],
      stock: 3,
      options: [],
      pos: new Int32Array(0),
      shapes: new Uint8Array(0),
    };
    for (const c of clauses) {
      if (c.field === 'priceCents') {
        vf.prices.push(
          Float64Array.from(
            c.ranges.flatMap((r) => [r.min ?? Number.NEGATIVE_INFINITY, r.max ?? Number.POSITIVE_INFINITY]),
          ),
        );
      } else if (c.field === 'inStock') {
        vf.stock &= (c.anyOf.includes(false) ? 1 : 0) | (c.anyOf.includes(true) ? 2 : 0);
      } else {
        const wanted = new Uint8Array(s.optionFolded.values.length);
        for (const v of c.anyOf) {
          const o = s.optionFolded.find(foldOption(v));
          if (o !== undefined) wanted[o] = 1;
        }
        vf.options.push({ name: s.optionFolded.find(c.name) ?? -1, wanted });
      }
    }
    vf.pos = new Int32Array(vf.options.length);
    if (vf.options.length > 0) vf.shapes = new Uint8Array(s.shapeCount);
    return vf;
  }

  /** Whether the variant at pool[base] (price, stock, values) passes the variant clauses. */
  private variantPasses(vf: VariantFilter, base: number): boolean {
    const { pool, slotFolded } = this.store;
    if ((vf.stock & (pool[base + 1] ? 2 : 1)) === 0 || !inRanges(vf.prices, pool[base]!)) return false;
    for (let c = 0; c < vf.options.length; c++) {
      if (vf.options[c]!.wanted[slotFolded[pool[base + 2 + vf.pos[c]!]!]!] !== 1) return false;
    }
    return true;
  }

  /** Places each option clause's option among the block's options (vf.pos); false when one is missing. */
  private placeOptions(vf: VariantFilter, at: number): boolean {
    const { pool, folded } = this.store;
    const k = pool[at]!;
    for (let c = 0; c < vf.options.length; c++) {
      let j = 0;
      while (j < k && folded[pool[at + 2 + j]!] !== vf.options[c]!.name) j++;
      if (j === k) return false;
      vf.pos[c] = j;
    }
    return true;
  }

  /**
   * Whether one of the entry's active variants passes the variant clauses; if so, notes its
   * lowest matching price (matchPrice) and facet bits (matchKey: buckets and stock, and
   * MATCH_ALL when every variant passes). The entry's summary, price bounds and shape decide
   * without its block when every variant passes or none can.
   */
  private matchVariants(d: number, vf: VariantFilter): boolean {
    const s = this.store;
    const f = s.flags[d]!;
    if (f & NO_VARIANT) return false;
    if ((f & BLOCK) === 0) {
      // Sold one way: its one variant is the product's price and IN_STOCK bit; it has no options.
      if (vf.options.length > 0) return false;
      const p = s.price[d]!;
      if ((vf.stock & (f & IN_STOCK ? 2 : 1)) === 0 || !inRanges(vf.prices, p)) return false;
      this.matchPrice[d] = p;
      this.matchKey[d] = (s.summary[d]! & KEY_MASK) | MATCH_ALL;
      return true;
    }
    const summary = s.summary[d]!;
    // 2: every variant passes the clauses seen so far; 1: some may; 0: none.
    let verdict = 2;
    if (vf.stock === 0) return false;
    if (vf.stock !== 3) {
      const some = (summary & KEY_STOCK) !== 0;
      const all = (summary & ALL_IN_STOCK) !== 0;
      if (vf.stock === 2) verdict = all ? 2 : some ? 1 : 0;
      else verdict = !some ? 2 : all ? 0 : 1;
    }
    if (verdict > 0 && vf.prices.length > 0)
      verdict = Math.min(verdict, boundsIn(vf.prices, s.price[d]!, s.maxPrice[d]!));
    if (verdict > 0 && vf.options.length > 0) verdict = Math.min(verdict, this.shapeVerdict(s.shape[d]!, vf));
    if (verdict === 0) return false;
    if (verdict === 2) {
      this.matchPrice[d] = s.price[d]!;
      this.matchKey[d] = (summary & KEY_MASK) | MATCH_ALL;
      return true;
    }
    const at = s.block[d]!;
    if (!this.placeOptions(vf, at)) return false;
    const key = this.walkBlock(at, vf);
    if (key === 0) return false;
    this.matchPrice[d] = this.lowest;
    this.matchKey[d] = key;
    return true;
  }

  /**
   * What a shape's values make of the option clauses: 0 when one clause has none of its
   * values (or the shape lacks the option), 2 when every value under each clause's option is
   * wanted, else 1. Worked out once per shape and query (vf.shapes).
   */
  private shapeVerdict(shape: number, vf: VariantFilter): number {
    const known = vf.shapes[shape]!;
    if (known !== 0) return known - 1;
    const s = this.store;
    const data = s.shapeData;
    const at = s.shapeStart[shape]!;
    const k = data[at]!;
    const m = data[at + 1 + k]!;
    let verdict = 2;
    for (const clause of vf.options) {
      let wanted = 0;
      let unwanted = 0;
      for (let j = 0; j < m; j++) {
        const slot = data[at + 2 + k + j]!;
        if (s.pairName[s.slotPair[slot]!] !== clause.name) continue;
        if (clause.wanted[s.slotFolded[slot]!] === 1) wanted++;
        else unwanted++;
      }
      verdict = Math.min(verdict, wanted === 0 ? 0 : unwanted === 0 ? 2 : 1);
    }
    vf.shapes[shape] = verdict + 1;
    return verdict;
  }

  /** The last walkBlock's lowest passing price. */
  private lowest = 0;

  /** The facet bits of the block's variants that pass (0: none); their lowest price in `lowest`. */
  private walkBlock(at: number, vf: VariantFilter): number {
    const pool = this.store.pool;
    const k = pool[at]!;
    const stride = 2 + k;
    let lowest = Number.POSITIVE_INFINITY;
    let key = 0;
    for (let i = 0, base = at + 2 + k; i < pool[at + 1]!; i++, base += stride) {
      if (!this.variantPasses(vf, base)) continue;
      const p = pool[base]!;
      if (p < lowest) lowest = p;
      key |= variantKey(p, pool[base + 1] !== 0);
    }
    this.lowest = lowest;
    return key;
  }

  private fitScratch() {
    const n = this.store.size;
    if (this.mark.length >= n) return;
    const size = Math.max(1024, n * 2);
    const mark = new Int32Array(size);
    mark.set(this.mark);
    this.mark = mark;
    this.matchPrice = new Int32Array(size);
    this.matchKey = new Uint8Array(size);
    this.score = new Float32Array(size);
    this.termBest = new Float32Array(size);
    this.found = new Int32Array(size);
  }

  /** Products containing every term, each scored by the best field of each term. */
  private match(terms: IndexQuery['terms']): Matches {
    const { store, found, score } = this;
    let n = 0;
    if (terms.length === 0) {
      const state = store.state;
      for (let d = 0; d < store.size; d++) {
        if (state[d] === 1) {
          found[n++] = d;
          score[d] = 0;
        }
      }
      return { docs: found, n };
    }
    const lexicon = store.lexicon;
    const lists: Term[][] = terms.map((t) =>
      'exact' in t
        ? t.exact.flatMap((l) => {
            const term = lexicon.get(l);
            return term ? [term] : [];
          })
        : // "handmad" and "handmade" both find "handmade": each term once.
          [...new Set(t.prefixes.flatMap((p) => lexicon.withPrefix(p)))],
    );
    // Rarest term first: it bounds the candidates.
    const size = (word: Term[]) => word.reduce((k, p) => k + p.n, 0);
    lists.sort((a, b) => size(a) - size(b));
    if (lists[0]!.length !== 1) return this.scan(lists);
    // After it, the one-lexeme words (one pass each narrows the candidates), then the words of
    // several lexemes (a pass per lexeme), on as few candidates as are left: "smoked salmon
    // cape breton" reads 15,619 candidates once for "breton" and about 900 for "smoke|smoked".
    const [first, ...rest] = lists;
    return this.intersect([
      first!,
      ...rest.filter((w) => w.length === 1),
      ...rest.filter((w) => w.length !== 1),
    ]);
  }

  /**
   * The rarest word is one lexeme (an exact word, or a prefix with one word): its postings,
   * sorted by entry, are the candidates, and every other word's lists are intersected with
   * them in order (the shorter side walked, the longer searched by galloping), scores kept
   * per candidate in small sequential arrays. Only the survivors touch the per-entry
   * columns: a selective query reads no list whole and makes no random access per posting.
   */
  private intersect(lists: Term[][]): Matches {
    const { found, score } = this;
    const first = lists[0]![0]!;
    first.sortByEntry();
    this.fitCandidates(first.n);
    const { candScore, wordBest } = this;
    // The first word's entries are the candidates; each later word keeps those it holds.
    let n = first.n;
    for (let i = 0; i < n; i++) {
      const v = first.postings[i]!;
      found[i] = v >> 2;
      candScore[i] = WEIGHT_SCORE[v & 3]!;
    }
    for (let t = 1; t < lists.length && n > 0; t++) {
      const word = lists[t]!;
      if (word.length === 1) {
        // One lexeme: the candidates it holds are kept, their score added, in the same pass.
        const term = word[0]!;
        term.sortByEntry();
        n = term.n >= n ? this.keepInLongerList(term, n) : this.keepInShorterList(term, n);
        continue;
      }
      wordBest.fill(0, 0, n);
      for (const term of word) {
        term.sortByEntry();
        if (term.n >= n) this.gallopCandidates(term, n);
        else this.gallopPostings(term, n);
      }
      // The candidates holding this word (through any of its lexemes), its best field added.
      let w = 0;
      for (let i = 0; i < n; i++) {
        const b = wordBest[i]!;
        if (b === 0) continue;
        found[w] = found[i]!;
        candScore[w] = candScore[i]! + b;
        w++;
      }
      n = w;
    }
    // Entries dead since their postings were written are still in the lists until a sweep.
    const state = this.store.state;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const d = found[i]!;
      if (state[d] !== 1) continue;
      found[m++] = d;
      score[d] = candScore[i]!;
    }
    return { docs: found, n: m };
  }

  private fitCandidates(n: number) {
    if (this.candScore.length >= n) return;
    const size = Math.max(1024, n * 2);
    this.candScore = new Float32Array(size);
    this.wordBest = new Float64Array(size);
  }

  /**
   * Keeps the candidates found[0..n) (ascending) that `term`'s list, at least as long, holds,
   * each looked up by galloping (exponential then binary search from the last place found),
   * its weight added to its score; answers how many are kept.
   */
  private keepInLongerList(term: Term, n: number): number {
    const { found, candScore } = this;
    const { postings } = term;
    const len = term.n;
    let lo = 0;
    let kept = 0;
    for (let i = 0; i < n && lo < len; i++) {
      const d = found[i]!;
      const key = d << 2;
      lo = gallop(postings, lo, len, key);
      if (lo >= len) break;
      const v = postings[lo]!;
      if (v >> 2 !== d) continue;
      found[kept] = d;
      candScore[kept] = candScore[i]! + WEIGHT_SCORE[v & 3]!;
      kept++;
      lo++;
    }
    return kept;
  }

  /** As keepInLongerList, walking `term`'s shorter list and searching the candidates. */
  private keepInShorterList(term: Term, n: number): number {
    const { found, candScore } = this;
    const { postings } = term;
    const len = term.n;
    let lo = 0;
    let kept = 0;
    for (let j = 0; j < len && lo < n; j++) {
      const v = postings[j]!;
      const d = v >> 2;
      lo = gallop(found, lo, n, d);
      if (lo >= n) break;
      if (found[lo] !== d) continue;
      found[kept] = d;
      candScore[kept] = candScore[lo]! + WEIGHT_SCORE[v & 3]!;
      kept++;
      lo++;
    }
    return kept;
  }

  /** Each candidate found[0..n) (ascending) looked up in `term`'s longer list: its best weight noted. */
  private gallopCandidates(term: Term, n: number) {
    const { found, wordBest } = this;
    const { postings } = term;
    const len = term.n;
    let lo = 0;
    for (let i = 0; i < n && lo < len; i++) {
      const key = found[i]! << 2;
      lo = gallop(postings, lo, len, key);
      if (lo >= len) break;
      const v = postings[lo]!;
      if (v >> 2 !== found[i]) continue;
      const w = WEIGHT_SCORE[v & 3]!;
      if (w > wordBest[i]!) wordBest[i] = w;
    }
  }

  /** Each of `term`'s postings (fewer than the candidates) looked up among found[0..n). */
  private gallopPostings(term: Term, n: number) {
    const { found, wordBest } = this;
    const { postings } = term;
    const len = term.n;
    let lo = 0;
    for (let j = 0; j < len && lo < n; j++) {
      const v = postings[j]!;
      const d = v >> 2;
      lo = gallop(found, lo, n, d);
      if (lo >= n) break;
      if (found[lo] !== d) continue;
      const w = WEIGHT_SCORE[v & 3]!;
      if (w > wordBest[lo]!) wordBest[lo] = w;
    }
  }

  /**
   * The rarest word has several lexemes (a prefix of many words): their postings are read
   * whole and marked per entry, and each later word's lists are read or, when much longer
   * than the candidates, searched per candidate.
   */
  private scan(lists: Term[][]): Matches {
    const { store, found, score } = this;
    let n = 0;
    if (this.generation > 30_000_000) {
      // Tags are generation * 64 + term in an Int32: start again before they overflow.
      this.mark.fill(0);
      this.generation = 0;
    }
    const gen = ++this.generation;
    const { mark, termBest } = this;
    const state = store.state;
    let candidatesAscending = false;
    for (let t = 0; t < lists.length; t++) {
      const tag = gen * 64 + t; // distinct per query and term (at most 12 terms)
      const previous = tag - 1;
      for (const term of lists[t]!) {
        const { postings } = term;
        const len = term.n;
        if (t > 0 && len > GALLOP_RATIO * n) {
          // Few candidates, a long list: look each candidate up in the list instead of
          // reading all of it (both ascending; exponential then binary search).
          if (!candidatesAscending) {
            found.subarray(0, n).sort();
            candidatesAscending = true;
          }
          term.sortByEntry();
          this.markInList(term, n, tag, previous);
          continue;
        }
        for (let i = 0; i < len; i++) {
          const v = postings[i]!;
          const d = v >> 2;
          const m = mark[d]!;
          const w = WEIGHT_SCORE[v & 3]!;
          if (m === tag) {
            // Matched this term already, through another lexeme or field: keep the best.
            if (w > termBest[d]!) {
              score[d]! += w - termBest[d]!;
              termBest[d] = w;
            }
          } else if (t === 0 ? state[d] === 1 : m === previous) {
            mark[d] = tag;
            score[d] = t === 0 ? w : score[d]! + w;
            termBest[d] = w;
            if (t === 0) found[n++] = d;
          }
        }
      }
      if (t > 0) {
        let w = 0;
        for (let i = 0; i < n; i++) if (mark[found[i]!] === tag) found[w++] = found[i]!;
        n = w;
      }
    }
    return { docs: found, n };
  }

  /** Marks the candidates found[0..n) (ascending) that `term` holds, as the scan does. */
  private markInList(term: Term, n: number, tag: number, previous: number) {
    const { found, mark, score, termBest } = this;
    const { postings } = term;
    const len = term.n;
    let lo = 0;
    for (let i = 0; i < n && lo < len; i++) {
      const d = found[i]!;
      const m = mark[d]!;
      if (m !== previous && m !== tag) continue;
      const key = d << 2;
      lo = gallop(postings, lo, len, key);
      if (lo >= len) break;
      const v = postings[lo]!;
      if (v >> 2 !== d) continue;
      const w = WEIGHT_SCORE[v & 3]!;
      if (m === tag) {
        if (w > termBest[d]!) {
          score[d]! += w - termBest[d]!;
          termBest[d] = w;
        }
      } else {
        mark[d] = tag;
        score[d]! += w;
        termBest[d] = w;
      }
    }
  }

  /** The product clauses (variant clauses are matchVariants'). */
  private filter(clauses: Array<Exclude<Clause, VariantClause>>): ((d: number) => boolean) | null {
    if (clauses.length === 0) return null;
    const s = this.store;
    const tests = clauses.map((c): ((d: number) => boolean) => {
      switch (c.field) {
        case 'categoryId': {
          // Category numbers shifted by one: 0 is "no category".
          const wanted = new Uint8Array(s.categories.values.length + 1);
          for (const v of c.anyOf) {
            const o = v === 'none' ? -1 : s.categories.find(v);
            if (o !== undefined) wanted[o + 1] = 1;
          }
          const category = s.category;
          return (d) => wanted[category[d]! + 1] === 1;
        }
        case 'sellerId': {
          const wanted = new Uint8Array(s.sellers.values.length);
          for (const v of c.anyOf) {
            const o = s.sellers.find(v);
            if (o !== undefined) wanted[o] = 1;
          }
          const seller = s.seller;
          return (d) => wanted[seller[d]!] === 1;
        }
        case 'isDigital':
        case 'isPerishable': {
          const bit = c.field === 'isDigital' ? 1 : 2;
          const yes = c.anyOf.includes(true);
          const no = c.anyOf.includes(false);
          const flags = s.flags;
          return (d) => ((flags[d]! & bit) !== 0 ? yes : no);
        }
        default: {
          const rating = s.rating;
          return (d) => rating[d]! >= c.min;
        }
      }
    });
    if (tests.length === 1) return tests[0]!;
    if (tests.length === 2) {
      const [a, b] = tests as [(d: number) => boolean, (d: number) => boolean];
      return (d) => a(d) && b(d);
    }
    return (d) => tests.every((t) => t(d));
  }

  /**
   * One pass over the matches: category and seller counts in arrays indexed by their numbers,
   * the fixed facets from one key byte per match (its summary, or with variant clauses the bits
   * of its matching variants). Option facets: without variant clauses, matches are counted per
   * shape and each shape's names and values once after; with them, from each block's passing variants.
   */
  private facets(matches: Matches, vf: VariantFilter): EngineAnswer['facets'] {
    const s = this.store;
    const categories = new Int32Array(s.categories.values.length + 1); // [0]: no category
    const sellers = new Int32Array(s.sellers.values.length);
    const byKey = new Int32Array(256);
    const { category, seller, flags, summary } = s;
    const options = new OptionCounts(s);
    const { docs, n } = matches;
    const { shape } = s;
    const shapes = this.fitShapes();
    let touched = 0;
    if (!vf.any) {
      // Every variant passes: a match counts by its summary and its shape.
      for (let i = 0; i < n; i++) {
        const d = docs[i]!;
        categories[category[d]! + 1]!++;
        sellers[seller[d]!]!++;
        const f = flags[d]!;
        byKey[(f & 3) | (summary[d]! & KEY_MASK)]!++;
        if ((f & BLOCK) !== 0 && shapes.count[shape[d]!]!++ === 0) shapes.touched[touched++] = shape[d]!;
      }
    } else {
      const { block, pool } = s;
      for (let i = 0; i < n; i++) {
        const d = docs[i]!;
        categories[category[d]! + 1]!++;
        sellers[seller[d]!]!++;
        const f = flags[d]!;
        const key = this.matchKey[d]!;
        byKey[(f & 3) | (key & KEY_MASK)]!++;
        if ((f & BLOCK) === 0) continue;
        if ((key & MATCH_ALL) !== 0) {
          // Every variant passes: its names and values are its shape's.
          if (shapes.count[shape[d]!]!++ === 0) shapes.touched[touched++] = shape[d]!;
          continue;
        }
        const at = block[d]!;
        this.placeOptions(vf, at);
        const stamp = i + 1;
        const k = pool[at]!;
        for (let j = 0; j < k; j++) options.addName(pool[at + 2 + j]!, 1, stamp);
        for (let v = 0, base = at + 2 + k; v < pool[at + 1]!; v++, base += 2 + k) {
          if (!this.variantPasses(vf, base)) continue;
          for (let j = 0; j < k; j++) options.addSlot(pool[base + 2 + j]!, 1, stamp);
        }
      }
    }
    // Stamps past the matches': a shape counts apart from any match.
    for (let t = 0; t < touched; t++) {
      const sh = shapes.touched[t]!;
      options.addShape(sh, shapes.count[sh]!, n + 1 + t);
      shapes.count[sh] = 0;
    }
    let digital = 0;
    let perishable = 0;
    let inStock = 0;
    const buckets = [0, 0, 0, 0, 0];
    for (let key = 0; key < 256; key++) {
      const k = byKey[key]!;
      if (k === 0) continue;
      if (key & 1) digital += k;
      if (key & 2) perishable += k;
      if (key & KEY_STOCK) inStock += k;
      for (let b = 0; b < 5; b++) if (key & (4 << b)) buckets[b]! += k;
    }
    const top = (counts: Int32Array, name: (i: number) => string) => {
      const found: Array<[string, number]> = [];
      for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) found.push([name(i), counts[i]!]);
      return Object.fromEntries(
        found.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, FACET_VALUES),
      );
    };
    return {
      categoryId: top(categories, (i) => (i === 0 ? 'none' : s.categories.values[i - 1]!)),
      sellerId: top(sellers, (i) => s.sellers.values[i]!),
      ...fixedFacets(n, digital, perishable, buckets, inStock),
      ...optionFacets(options.facets()),
    };
  }

  /** Per shape: matches counted in this query (zeroed after), and the shapes touched. */
  private shapeScratch = { count: new Int32Array(0), touched: new Int32Array(0) };

  private fitShapes() {
    const n = this.store.shapeCount;
    if (this.shapeScratch.count.length < n) {
      const size = Math.max(64, 2 * n);
      this.shapeScratch = { count: new Int32Array(size), touched: new Int32Array(size) };
    }
    return this.shapeScratch;
  }

  /** The ids of the requested page: a bounded heap keeps the best offset+limit, then sorts them. */
  private page(matches: Matches, q: IndexQuery, price: Int32Array): string[] {
    const cmp = this.comparator(q.sort, price);
    const key = this.firstKey(q.sort, price);
    const k = q.offset + q.limit;
    const { docs, n } = matches;
    let best: number[];
    if (n <= k * 4) {
      best = Array.from(docs.subarray(0, n)).sort(cmp);
    } else {
      // Max-heap (worst at the top) of the k best so far.
      const heap: number[] = [];
      const up = (i: number) => {
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (cmp(heap[i]!, heap[p]!) <= 0) break;
          const x = heap[i]!;
          heap[i] = heap[p]!;
          heap[p] = x;
          i = p;
        }
      };
      const down = (i: number) => {
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && cmp(heap[l]!, heap[m]!) > 0) m = l;
          if (r < heap.length && cmp(heap[r]!, heap[m]!) > 0) m = r;
          if (m === i) break;
          const x = heap[i]!;
          heap[i] = heap[m]!;
          heap[m] = x;
          i = m;
        }
      };
      for (let i = 0; i < n; i++) {
        const d = docs[i]!;
        if (heap.length < k) {
          heap.push(d);
          up(heap.length - 1);
        } else {
          // Most matches lose to the worst kept on the sort's first key alone.
          const a = key(d);
          const b = key(heap[0]!);
          if (a > b || (a === b && cmp(d, heap[0]!) >= 0)) continue;
          heap[0] = d;
          down(0);
        }
      }
      best = heap.sort(cmp);
    }
    return best.slice(q.offset, k).map((d) => this.store.ids[d]!);
  }

  /** The comparator's first criterion as a number, smaller first. */
  private firstKey(sort: SortKey, price: Int32Array): (d: number) => number {
    const { created, sold } = this.store;
    const score = this.score;
    switch (sort) {
      case 'price_asc':
        return (d) => price[d]!;
      case 'price_desc':
        return (d) => -price[d]!;
      case 'newest':
        return (d) => -created[d]!;
      case 'popular':
        return (d) => -sold[d]!;
      default:
        return (d) => -score[d]!;
    }
  }

  private comparator(sort: SortKey, price: Int32Array): (a: number, b: number) => number {
    const { ids, created, sold, rating } = this.store;
    const score = this.score;
    const byId = (a: number, b: number) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
    switch (sort) {
      case 'price_asc':
        return (a, b) => price[a]! - price[b]! || byId(a, b);
      case 'price_desc':
        return (a, b) => price[b]! - price[a]! || byId(a, b);
      case 'newest':
        return (a, b) => created[b]! - created[a]! || byId(a, b);
      case 'popular':
        return (a, b) => sold[b]! - sold[a]! || rating[b]! - rating[a]! || byId(a, b);
      default:
        return (a, b) => score[b]! - score[a]! || sold[b]! - sold[a]! || byId(a, b);
    }
  }
}

/**
 * The option facets of one query: per folded option name and per (name, value) pair, the
 * products counted, the last counter's stamp (a product, or a shape, counts once however many
 * of its values fold alike), and the lowest spelling seen (ordinal + 1).
 */
class OptionCounts {
  private readonly nameCount: Int32Array;
  private readonly nameLast: Int32Array;
  private readonly nameText: Int32Array;
  private readonly pairCount: Int32Array;
  private readonly pairLast: Int32Array;
  private readonly pairText: Int32Array;

  constructor(private readonly s: IndexStore) {
    const names = s.optionFolded.values.length;
    this.nameCount = new Int32Array(names);
    this.nameLast = new Int32Array(names);
    this.nameText = new Int32Array(names);
    this.pairCount = new Int32Array(s.pairCount);
    this.pairLast = new Int32Array(s.pairCount);
    this.pairText = new Int32Array(s.pairCount);
  }

  /** An option's name (an optionText ordinal) counted `n` times for the counter `stamp`. */
  addName(o: number, n: number, stamp: number) {
    const name = this.s.folded[o]!;
    if (this.nameLast[name] !== stamp) {
      this.nameLast[name] = stamp;
      this.nameCount[name]! += n;
    }
    this.nameText[name] = lowestSpelling(this.s.optionText.values, this.nameText[name]!, o);
  }

  /** A value (a block's slot) counted `n` times for the counter `stamp`. */
  addSlot(slot: number, n: number, stamp: number) {
    const pair = this.s.slotPair[slot]!;
    if (this.pairLast[pair] !== stamp) {
      this.pairLast[pair] = stamp;
      this.pairCount[pair]! += n;
    }
    this.pairText[pair] = lowestSpelling(
      this.s.optionText.values,
      this.pairText[pair]!,
      this.s.slotText[slot]!,
    );
  }

  /** A shape's names and values, for the `n` matches of that shape; `stamp` distinct per shape. */
  addShape(shape: number, n: number, stamp: number) {
    const data = this.s.shapeData;
    let at = this.s.shapeStart[shape]!;
    const k = data[at++]!;
    for (let j = 0; j < k; j++) this.addName(data[at++]!, n, stamp);
    const m = data[at++]!;
    for (let j = 0; j < m; j++) this.addSlot(data[at++]!, n, stamp);
  }

  facets() {
    const { s } = this;
    const text = s.optionText.values;
    const options = new Map<
      number,
      { name: string; n: number; values: Array<{ value: string; n: number }> }
    >();
    for (let name = 0; name < this.nameCount.length; name++) {
      if (this.nameCount[name]! > 0)
        options.set(name, { name: text[this.nameText[name]! - 1]!, n: this.nameCount[name]!, values: [] });
    }
    for (let pair = 0; pair < this.pairCount.length; pair++) {
      if (this.pairCount[pair]! > 0) {
        options
          .get(s.pairName[pair]!)!
          .values.push({ value: text[this.pairText[pair]! - 1]!, n: this.pairCount[pair]! });
      }
    }
    return [...options.values()];
  }
}

/** Whether `p` is in one range of each price clause (lo, hi pairs). */
function inRanges(prices: Float64Array[], p: number): boolean {
  for (let c = 0; c < prices.length; c++) {
    const ranges = prices[c]!;
    let inside = false;
    for (let r = 0; r < ranges.length && !inside; r += 2) inside = p >= ranges[r]! && p <= ranges[r + 1]!;
    if (!inside) return false;
  }
  return true;
}

/**
 * Whether prices from lo to hi pass the price clauses: 2 when all of them do (each clause has a
 * range holding lo..hi), 0 when none can (a clause has no range meeting it), else 1.
 */
function boundsIn(prices: Float64Array[], lo: number, hi: number): number {
  let verdict = 2;
  for (let c = 0; c < prices.length; c++) {
    const ranges = prices[c]!;
    let clause = 0;
    for (let r = 0; r < ranges.length && clause < 2; r += 2) {
      if (lo >= ranges[r]! && hi <= ranges[r + 1]!) clause = 2;
      else if (hi >= ranges[r]! && lo <= ranges[r + 1]!) clause = 1;
    }
    if (clause < verdict) verdict = clause;
    if (verdict === 0) return 0;
  }
  return verdict;
}

/** Spellings that fold alike show as the lowest among the matches: `kept` and the answer are ordinal + 1 (0: none yet). */
function lowestSpelling(text: string[], kept: number, o: number): number {
  if (kept === o + 1) return kept;
  return kept === 0 || text[o]! < text[kept - 1]! ? o + 1 : kept;
}

/**
 * The first index in sorted[from..end) whose value is >= key (end when none): exponential
 * steps from `from`, then a binary search. Every intersection of sorted lists walks with it.
 */
function gallop(sorted: Int32Array, from: number, end: number, key: number): number {
  let lo = from;
  // Walked first: where the lists are of like length the key is a few places on, and a walk
  // mispredicts one branch where the search below mispredicts several.
  for (const stop = Math.min(end, from + 8); lo < stop; lo++) if (sorted[lo]! >= key) return lo;
  let step = 1;
  let hi = lo;
  while (hi < end && sorted[hi]! < key) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > end) hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
