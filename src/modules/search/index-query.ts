// A query over the index's data: the products containing every term (ranked by the best
// field of each), the filters, facet counts over the whole result in one pass, and a
// bounded heap for the page. Runs synchronously once its inputs are in.
import { type EngineAnswer, FACET_VALUES, fixedFacets, type IndexQuery, type SortKey } from './engine.ts';
import type { Clause } from './filters.ts';
import type { IndexStore } from './index-store.ts';
import type { Term } from './lexicon.ts';

/** Field weights, as ts_rank's defaults: title (A) 1.0, keywords (B) 0.4, description (C) 0.2, words as written (D) 0.1. */
const WEIGHT_SCORE = [0.1, 0.2, 0.4, 1.0];

const bucketOf = (cents: number) =>
  cents < 2500 ? 0 : cents < 5000 ? 1 : cents < 10000 ? 2 : cents < 25000 ? 3 : 4;

export class IndexSearcher {
  // Per-entry scratch space, reused from query to query.
  private stamp = new Int32Array(0);
  private termStamp = new Int32Array(0);
  private hits = new Uint8Array(0);
  private score = new Float32Array(0);
  private termBest = new Float32Array(0);
  private generation = 0;

  constructor(private readonly store: IndexStore) {}

  search(q: IndexQuery): EngineAnswer {
    this.fitScratch();
    const candidates = this.match(q.terms);
    const pass = this.filter(q.clauses);
    const matches = pass ? candidates.filter(pass) : candidates;
    return { total: matches.length, ids: this.page(matches, q), facets: this.facets(matches) };
  }

  private fitScratch() {
    const n = this.store.size;
    if (this.stamp.length >= n) return;
    const size = Math.max(1024, n * 2);
    const stamp = new Int32Array(size);
    stamp.set(this.stamp);
    this.stamp = stamp;
    const termStamp = new Int32Array(size);
    termStamp.set(this.termStamp);
    this.termStamp = termStamp;
    this.hits = new Uint8Array(size);
    this.score = new Float32Array(size);
    this.termBest = new Float32Array(size);
  }

  /** Products containing every term, each scored by the best field of each term. */
  private match(terms: IndexQuery['terms']): number[] {
    const { store } = this;
    if (terms.length === 0) {
      const all: number[] = [];
      for (let d = 0; d < store.size; d++) if (store.isLive(d)) all.push(d);
      for (const d of all) this.score[d] = 0;
      return all;
    }
    const lexicon = store.lexicon;
    const lists: Term[][] = terms.map((t) =>
      'exact' in t
        ? t.exact.flatMap((l) => {
            const term = lexicon.get(l);
            return term ? [term] : [];
          })
        : [...new Set(t.prefixes)].flatMap((p) => lexicon.withPrefix(p)),
    );
    // Rarest term first: it bounds the candidates.
    lists.sort((a, b) => a.reduce((n, p) => n + p.n, 0) - b.reduce((n, p) => n + p.n, 0));
    if (this.generation > 30_000_000) {
      // Stamps are generation * 64 + term in an Int32: start again before they overflow.
      this.stamp.fill(0);
      this.termStamp.fill(0);
      this.generation = 0;
    }
    const gen = ++this.generation;
    const { stamp, termStamp, hits, score, termBest } = this;
    const state = store.state;
    let candidates: number[] = [];
    for (let t = 0; t < lists.length; t++) {
      const tag = gen * 64 + t; // distinct per query and term (at most 12 terms)
      for (const term of lists[t]!) {
        const { postings, n } = term;
        for (let i = 0; i < n; i++) {
          const v = postings[i]!;
          const d = v >> 2;
          if (state[d] !== 1) continue; // dead, awaiting the sweep
          const w = WEIGHT_SCORE[v & 3]!;
          if (t === 0) {
            if (stamp[d] !== gen) {
              stamp[d] = gen;
              termStamp[d] = tag;
              hits[d] = 1;
              score[d] = w;
              termBest[d] = w;
              candidates.push(d);
            } else if (w > termBest[d]!) {
              score[d]! += w - termBest[d]!;
              termBest[d] = w;
            }
          } else if (stamp[d] === gen) {
            if (termStamp[d] !== tag) {
              if (hits[d] !== t) continue; // missed an earlier term
              termStamp[d] = tag;
              hits[d] = t + 1;
              score[d]! += w;
              termBest[d] = w;
            } else if (w > termBest[d]!) {
              score[d]! += w - termBest[d]!;
              termBest[d] = w;
            }
          }
        }
      }
      if (t > 0) candidates = candidates.filter((d) => hits[d] === t + 1);
    }
    return candidates;
  }

  private filter(clauses: Clause[]): ((d: number) => boolean) | null {
    if (clauses.length === 0) return null;
    const s = this.store;
    const tests = clauses.map((c): ((d: number) => boolean) => {
      switch (c.field) {
        case 'categoryId': {
          const wanted = new Set(c.anyOf.map((v) => (v === 'none' ? -1 : (s.categories.find(v) ?? -2))));
          return (d) => wanted.has(s.category[d]!);
        }
        case 'sellerId': {
          const wanted = new Set(c.anyOf.map((v) => s.sellers.find(v) ?? -2));
          return (d) => wanted.has(s.seller[d]!);
        }
        case 'isDigital':
        case 'isPerishable': {
          const bit = c.field === 'isDigital' ? 1 : 2;
          const wanted = new Set(c.anyOf);
          return (d) => wanted.has((s.flags[d]! & bit) !== 0);
        }
        case 'priceCents':
          return (d) => {
            const p = s.price[d]!;
            return c.ranges.some(
              (r) => (r.min === undefined || p >= r.min) && (r.max === undefined || p <= r.max),
            );
          };
        default:
          return (d) => s.rating[d]! >= c.min;
      }
    });
    return tests.length === 1 ? tests[0]! : (d) => tests.every((t) => t(d));
  }

  /** One pass over the matches; category and seller counts in arrays indexed by their dictionary numbers. */
  private facets(matches: number[]): EngineAnswer['facets'] {
    const s = this.store;
    const categories = new Int32Array(s.categories.values.length + 1); // [0]: no category
    const sellers = new Int32Array(s.sellers.values.length);
    let digital = 0;
    let perishable = 0;
    const buckets = [0, 0, 0, 0, 0];
    const { category, seller, flags, price } = s;
    for (let i = 0; i < matches.length; i++) {
      const d = matches[i]!;
      categories[category[d]! + 1]!++;
      sellers[seller[d]!]!++;
      const f = flags[d]!;
      if (f & 1) digital++;
      if (f & 2) perishable++;
      buckets[bucketOf(price[d]!)]!++;
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
      ...fixedFacets(matches.length, digital, perishable, buckets),
    };
  }

  /** The ids of the requested page: a bounded heap keeps the best offset+limit, then sorts them. */
  private page(matches: number[], q: IndexQuery): string[] {
    const cmp = this.comparator(q.sort);
    const k = q.offset + q.limit;
    let best: number[];
    if (matches.length <= k * 4) {
      best = [...matches].sort(cmp);
    } else {
      // Max-heap (worst at the top) of the k best so far.
      const heap: number[] = [];
      const up = (i: number) => {
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (cmp(heap[i]!, heap[p]!) <= 0) break;
          [heap[i], heap[p]] = [heap[p]!, heap[i]!];
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
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      };
      for (const d of matches) {
        if (heap.length < k) {
          heap.push(d);
          up(heap.length - 1);
        } else if (cmp(d, heap[0]!) < 0) {
          heap[0] = d;
          down(0);
        }
      }
      best = heap.sort(cmp);
    }
    return best.slice(q.offset, k).map((d) => this.store.ids[d]!);
  }

  private comparator(sort: SortKey): (a: number, b: number) => number {
    const { ids, price, created, sold, rating } = this.store;
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
