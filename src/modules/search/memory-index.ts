// An in-process inverted index of the active catalog, for search. PostgreSQL stays the
// source of truth and does the language work (the stored search vector holds the stems);
// this index holds, per lexeme, the products that contain it and in which field, and per
// product the few columns that filters, facets and sorts need, in typed arrays. A broad
// query then ranks and counts facets over its ~100,000 matches in a few milliseconds,
// where a database must visit each matching row.
//
// Freshness: before every search the index reads the rows whose changed_at (set by the
// database's clock, on insert and by trigger on update) is recent, so a search sees every
// committed change, from any instance.
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/index.ts';
import type { Clause } from './filters.ts';

/** Field weights, as ts_rank's defaults: title (A) 1.0, keywords (B) 0.4, description (C) 0.2, words as written (D) 0.1. */
const WEIGHT_SCORE = [0.1, 0.2, 0.4, 1.0];
/** Rows re-read on every refresh: changes committed up to this long after they were stamped are still seen. */
const OVERLAP_MS = 30_000;
const LOAD_BATCH = 20_000;

interface Row {
  id: string;
  category_id: string | null;
  seller_id: string;
  price_cents: number;
  is_digital: boolean;
  is_perishable: boolean;
  rating: number;
  units_sold_30d: number;
  created: number;
  status: string;
  changed_at: Date;
  doc: string;
}

const COLUMNS = sql`id, category_id, seller_id, price_cents, is_digital, is_perishable, rating, units_sold_30d,
  extract(epoch from created_at)::float8 as created, status, changed_at, search_doc::text as doc`;

class Postings {
  docs = new Int32Array(4);
  weights = new Uint8Array(4);
  n = 0;
  add(doc: number, weight: number) {
    if (this.n === this.docs.length) {
      const docs = new Int32Array(this.n * 2);
      docs.set(this.docs);
      this.docs = docs;
      const weights = new Uint8Array(this.n * 2);
      weights.set(this.weights);
      this.weights = weights;
    }
    this.docs[this.n] = doc;
    this.weights[this.n] = weight;
    this.n++;
  }
}

/** Interns strings (category and seller ids) as small integers. */
class Dictionary {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  ord(value: string): number {
    let o = this.index.get(value);
    if (o === undefined) {
      o = this.values.length;
      this.values.push(value);
      this.index.set(value, o);
    }
    return o;
  }
  find(value: string): number | undefined {
    return this.index.get(value);
  }
}

export type SortKey = 'relevance' | 'price_asc' | 'price_desc' | 'newest' | 'popular';

export interface IndexQuery {
  /** One entry per word: the lexemes of which a product must contain one (exact), or prefixes. */
  terms: Array<{ exact: string[] } | { prefixes: string[] }>;
  clauses: Clause[];
  sort: SortKey;
  limit: number;
  offset: number;
}

export interface IndexAnswer {
  total: number;
  ids: string[];
  facets: {
    categoryId: Record<string, number>;
    sellerId: Record<string, number>;
    isDigital: Record<string, number>;
    isPerishable: Record<string, number>;
    priceRange: Record<string, number>;
  };
}

const PRICE_BUCKETS = ['0-25', '25-50', '50-100', '100-250', '250+'] as const;

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n > 0));

/** The facets with fixed values, from counts: values with no product are left out. */
export function fixedFacets(total: number, digital: number, perishable: number, buckets: number[]) {
  return {
    isDigital: nonZero({ true: digital, false: total - digital }),
    isPerishable: nonZero({ true: perishable, false: total - perishable }),
    priceRange: nonZero(Object.fromEntries(PRICE_BUCKETS.map((b, i) => [b, buckets[i] ?? 0]))),
  };
}

const bucketOf = (cents: number) =>
  cents < 2500 ? 0 : cents < 5000 ? 1 : cents < 10000 ? 2 : cents < 25000 ? 3 : 4;

export class MemorySearchIndex {
  private size = 0;
  private capacity = 0;
  private ids: string[] = [];
  private alive = new Uint8Array(0);
  private category = new Int32Array(0);
  private seller = new Int32Array(0);
  private price = new Int32Array(0);
  private flags = new Uint8Array(0); // 1 digital, 2 perishable
  private rating = new Float64Array(0);
  private sold = new Int32Array(0);
  private created = new Float64Array(0);
  // Per-query scratch space, reused (a search runs synchronously once its inputs are in).
  private stamp = new Int32Array(0);
  private termStamp = new Int32Array(0);
  private hits = new Uint8Array(0);
  private score = new Float32Array(0);
  private termBest = new Float32Array(0);
  private generation = 0;

  // Per live product: its entry, a hash of its searchable text, when it last changed.
  private readonly byId = new Map<string, { ord: number; docHash: number; changedAt: number }>();
  private readonly lexemes = new Map<string, Postings>();
  private sortedLexemes: string[] | null = null;
  private readonly categories = new Dictionary();
  private readonly sellers = new Dictionary();
  private watermark = 0;
  private refreshing: Promise<void> | null = null;
  private nextRefresh: Promise<void> | null = null;
  private dead = 0;

  /** Live products, dead entries (replaced or removed; reclaimed at the next start), lexemes. */
  stats() {
    return { live: this.byId.size, dead: this.dead, lexemes: this.lexemes.size };
  }

  /** Loads every active product, in batches by id. */
  async build(db: Db): Promise<void> {
    const [start] = await queryRows<{ now: Date }>(db, sql`select clock_timestamp() as now`);
    let last = '';
    for (;;) {
      const rows = await queryRows<Row>(
        db,
        sql`select ${COLUMNS} from products where status = 'active' and id > ${last} order by id limit ${LOAD_BATCH}`,
      );
      for (const row of rows) this.apply(row);
      if (rows.length < LOAD_BATCH) break;
      last = rows[rows.length - 1]!.id;
    }
    this.watermark = new Date(start!.now).getTime();
  }

  /**
   * Applies what changed since the last look. A read already under way may have started
   * before the caller's own write committed, so a caller waits for a read that starts after
   * it called; callers arriving meanwhile share that next read.
   */
  refresh(db: Db): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.readChanges(db).finally(() => {
        this.refreshing = null;
      });
      return this.refreshing;
    }
    this.nextRefresh ??= this.refreshing
      .catch(() => {})
      .then(() => {
        this.nextRefresh = null;
        return this.refresh(db);
      });
    return this.nextRefresh;
  }

  private async readChanges(db: Db): Promise<void> {
    const since = new Date(this.watermark - OVERLAP_MS);
    const rows = await queryRows<Row>(db, sql`select ${COLUMNS} from products where changed_at > ${since}`);
    for (const row of rows) {
      this.apply(row);
      this.watermark = Math.max(this.watermark, new Date(row.changed_at).getTime());
    }
  }

  private apply(row: Row) {
    const changedAt = new Date(row.changed_at).getTime();
    const known = this.byId.get(row.id);
    if (known && known.changedAt === changedAt) return;
    if (row.status !== 'active') {
      if (known) this.kill(row.id, known.ord);
      return;
    }
    // Same searchable text: columns change in place; new text: a new entry, the old one dies.
    const docHash = fnv1a(row.doc);
    let ord: number;
    if (known && known.docHash === docHash) {
      ord = known.ord;
    } else {
      if (known) this.kill(row.id, known.ord);
      ord = this.append(row.id, row.doc);
    }
    this.category[ord] = row.category_id === null ? -1 : this.categories.ord(row.category_id);
    this.seller[ord] = this.sellers.ord(row.seller_id);
    this.price[ord] = row.price_cents;
    this.flags[ord] = (row.is_digital ? 1 : 0) | (row.is_perishable ? 2 : 0);
    this.rating[ord] = Number(row.rating);
    this.sold[ord] = row.units_sold_30d;
    this.created[ord] = Number(row.created);
    this.byId.set(row.id, { ord, docHash, changedAt });
  }

  private kill(id: string, ord: number) {
    this.alive[ord] = 0;
    this.byId.delete(id);
    this.dead++;
  }

  private append(id: string, doc: string): number {
    if (this.size === this.capacity) this.grow(Math.max(1024, this.capacity * 2));
    const ord = this.size++;
    this.ids[ord] = id;
    this.alive[ord] = 1;
    // tsvector text: 'lexeme':1A,5C 'other':3 — quotes doubled inside; no letter means D.
    for (const m of doc.matchAll(/'((?:[^']|'')+)':([0-9A-D,]+)/g)) {
      const lexeme = m[1]!.replaceAll("''", "'");
      const positions = m[2]!;
      const weight = positions.includes('A')
        ? 3
        : positions.includes('B')
          ? 2
          : positions.includes('C')
            ? 1
            : 0;
      let postings = this.lexemes.get(lexeme);
      if (!postings) {
        postings = new Postings();
        this.lexemes.set(lexeme, postings);
        this.sortedLexemes = null;
      }
      postings.add(ord, weight);
    }
    return ord;
  }

  private grow(capacity: number) {
    const grow = <T extends Int32Array | Uint8Array | Float64Array | Float32Array>(
      a: T,
      make: (n: number) => T,
    ) => {
      const b = make(capacity);
      b.set(a as never);
      return b;
    };
    this.alive = grow(this.alive, (n) => new Uint8Array(n));
    this.category = grow(this.category, (n) => new Int32Array(n));
    this.seller = grow(this.seller, (n) => new Int32Array(n));
    this.price = grow(this.price, (n) => new Int32Array(n));
    this.flags = grow(this.flags, (n) => new Uint8Array(n));
    this.rating = grow(this.rating, (n) => new Float64Array(n));
    this.sold = grow(this.sold, (n) => new Int32Array(n));
    this.created = grow(this.created, (n) => new Float64Array(n));
    this.stamp = grow(this.stamp, (n) => new Int32Array(n));
    this.termStamp = grow(this.termStamp, (n) => new Int32Array(n));
    this.hits = new Uint8Array(capacity);
    this.score = new Float32Array(capacity);
    this.termBest = new Float32Array(capacity);
    this.capacity = capacity;
  }

  /** Lexemes starting with `prefix`, by binary search over the sorted lexicon. */
  private withPrefix(prefix: string): Postings[] {
    this.sortedLexemes ??= [...this.lexemes.keys()].sort();
    const lex = this.sortedLexemes;
    let lo = 0;
    let hi = lex.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lex[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: Postings[] = [];
    for (let i = lo; i < lex.length && lex[i]!.startsWith(prefix); i++) out.push(this.lexemes.get(lex[i]!)!);
    return out;
  }

  search(q: IndexQuery): IndexAnswer {
    const candidates = this.match(q.terms);
    const pass = this.filter(q.clauses);
    const matches = pass ? candidates.filter(pass) : candidates;
    return { total: matches.length, ids: this.page(matches, q), facets: this.facets(matches) };
  }

  /** Products containing every term, each scored by the best field of each term. */
  private match(terms: IndexQuery['terms']): number[] {
    if (terms.length === 0) {
      const all: number[] = [];
      for (let d = 0; d < this.size; d++) if (this.alive[d]) all.push(d);
      for (const d of all) this.score[d] = 0;
      return all;
    }
    const lists = terms.map((t) =>
      'exact' in t
        ? t.exact.flatMap((l) => {
            const p = this.lexemes.get(l);
            return p ? [p] : [];
          })
        : [...new Set(t.prefixes)].flatMap((p) => this.withPrefix(p)),
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
    let candidates: number[] = [];
    for (let t = 0; t < lists.length; t++) {
      const tag = gen * 64 + t; // distinct per query and term (at most 12 terms)
      for (const postings of lists[t]!) {
        const { docs, weights, n } = postings;
        for (let i = 0; i < n; i++) {
          const d = docs[i]!;
          if (!this.alive[d]) continue;
          const w = WEIGHT_SCORE[weights[i]!]!;
          if (t === 0) {
            if (this.stamp[d] !== gen) {
              this.stamp[d] = gen;
              this.termStamp[d] = tag;
              this.hits[d] = 1;
              this.score[d] = w;
              this.termBest[d] = w;
              candidates.push(d);
            } else if (w > this.termBest[d]!) {
              this.score[d]! += w - this.termBest[d]!;
              this.termBest[d] = w;
            }
          } else if (this.stamp[d] === gen) {
            if (this.termStamp[d] !== tag) {
              if (this.hits[d] !== t) continue; // missed an earlier term
              this.termStamp[d] = tag;
              this.hits[d] = t + 1;
              this.score[d]! += w;
              this.termBest[d] = w;
            } else if (w > this.termBest[d]!) {
              this.score[d]! += w - this.termBest[d]!;
              this.termBest[d] = w;
            }
          }
        }
      }
      if (t > 0) candidates = candidates.filter((d) => this.hits[d] === t + 1);
    }
    return candidates;
  }

  private filter(clauses: Clause[]): ((d: number) => boolean) | null {
    if (clauses.length === 0) return null;
    const tests = clauses.map((c): ((d: number) => boolean) => {
      switch (c.field) {
        case 'categoryId': {
          const wanted = new Set(c.anyOf.map((v) => (v === 'none' ? -1 : (this.categories.find(v) ?? -2))));
          return (d) => wanted.has(this.category[d]!);
        }
        case 'sellerId': {
          const wanted = new Set(c.anyOf.map((v) => this.sellers.find(v) ?? -2));
          return (d) => wanted.has(this.seller[d]!);
        }
        case 'isDigital':
        case 'isPerishable': {
          const bit = c.field === 'isDigital' ? 1 : 2;
          const wanted = new Set(c.anyOf);
          return (d) => wanted.has((this.flags[d]! & bit) !== 0);
        }
        case 'priceCents':
          return (d) => {
            const p = this.price[d]!;
            return c.ranges.some(
              (r) => (r.min === undefined || p >= r.min) && (r.max === undefined || p <= r.max),
            );
          };
        default:
          return (d) => this.rating[d]! >= c.min;
      }
    });
    return (d) => tests.every((t) => t(d));
  }

  private facets(matches: number[]): IndexAnswer['facets'] {
    const categories = new Map<number, number>();
    const sellers = new Map<number, number>();
    let digital = 0;
    let perishable = 0;
    const buckets = [0, 0, 0, 0, 0];
    for (const d of matches) {
      const c = this.category[d]!;
      categories.set(c, (categories.get(c) ?? 0) + 1);
      const s = this.seller[d]!;
      sellers.set(s, (sellers.get(s) ?? 0) + 1);
      const f = this.flags[d]!;
      if (f & 1) digital++;
      if (f & 2) perishable++;
      buckets[bucketOf(this.price[d]!)]!++;
    }
    const top = (counts: Map<number, number>, name: (o: number) => string) =>
      Object.fromEntries(
        [...counts]
          .map(([o, n]) => [name(o), n] as const)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, FACET_VALUES),
      );
    return {
      categoryId: top(categories, (o) => (o === -1 ? 'none' : this.categories.values[o]!)),
      sellerId: top(sellers, (o) => this.sellers.values[o]!),
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
    return best.slice(q.offset, k).map((d) => this.ids[d]!);
  }

  private comparator(sort: SortKey): (a: number, b: number) => number {
    const byId = (a: number, b: number) =>
      this.ids[a]! < this.ids[b]! ? -1 : this.ids[a]! > this.ids[b]! ? 1 : 0;
    switch (sort) {
      case 'price_asc':
        return (a, b) => this.price[a]! - this.price[b]! || byId(a, b);
      case 'price_desc':
        return (a, b) => this.price[b]! - this.price[a]! || byId(a, b);
      case 'newest':
        return (a, b) => this.created[b]! - this.created[a]! || byId(a, b);
      case 'popular':
        return (a, b) => this.sold[b]! - this.sold[a]! || this.rating[b]! - this.rating[a]! || byId(a, b);
      default:
        return (a, b) => this.score[b]! - this.score[a]! || this.sold[b]! - this.sold[a]! || byId(a, b);
    }
  }
}

/** 32-bit FNV-1a: tells whether a product's searchable text changed. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Category and seller facets list at most this many values (the largest counts). */
export const FACET_VALUES = 50;
