// The in-process index's matching against a plain reference, on a synthetic catalog with
// rewrites, removals and reclaimed (reused) entries: every path of the query (the rarest
// word one lexeme, intersected by galloping; or a prefix of many words, read whole) finds
// exactly the products holding every word, scores them by the best field of each word,
// counts the same facets and pages in the same order. No database: the rows are made here.
import { describe, expect, it } from 'vitest';
import {
  fixedFacets,
  type IndexQuery,
  optionFacets,
  priceBucket,
  type SortKey,
} from '../src/modules/search/engine.ts';
import type { Clause } from '../src/modules/search/filters.ts';
import { IndexSearcher } from '../src/modules/search/index-query.ts';
import { IndexStore } from '../src/modules/search/index-store.ts';

/** A small deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Words of very different frequencies, some sharing prefixes ("sal", "smok", "bre").
const VOCABULARY = [
  ['salmon', 0.3],
  ['salt', 0.05],
  ['salsa', 0.02],
  ['smoke', 0.3],
  ['smoky', 0.01],
  ['cape', 0.5],
  ['breton', 0.5],
  ['bread', 0.1],
  ['brew', 0.03],
  ['maple', 0.2],
  ['cedar', 0.002],
  ['kettle', 0.6],
] as const;
const FIELDS = 'DCBA';

interface Doc {
  id: string;
  words: Map<string, number>; // word -> best weight index 0..3
  category: string | null;
  seller: string;
  price: number;
  sold: number;
  created: number;
  live: boolean;
}

function makeDoc(next: () => number, id: string, created: number): Doc {
  const words = new Map<string, number>();
  for (const [w, p] of VOCABULARY) if (next() < p) words.set(w, Math.floor(next() * 4));
  return {
    id,
    words,
    category: next() < 0.1 ? null : `cat${Math.floor(next() * 5)}`,
    seller: `seller${Math.floor(next() * 7)}`,
    price: 100 + Math.floor(next() * 30_000),
    sold: Math.floor(next() * 4),
    created,
    live: true,
  };
}

const docText = (d: Doc) =>
  [...d.words].map(([w, k], i) => `'${w}':${i + 1}${k === 0 ? '' : FIELDS[k]}`).join(' ');

/** Products holding every word (prefix for the last), scored by the best field of each word. */
function reference(docs: Map<string, Doc>, words: string[], sort: SortKey) {
  const found: Array<{ d: Doc; score: number }> = [];
  for (const d of docs.values()) {
    if (!d.live) continue;
    let score = 0;
    let all = true;
    for (const [i, w] of words.entries()) {
      let best = -1;
      for (const [dw, k] of d.words) {
        if (i === words.length - 1 ? dw.startsWith(w) : dw === w) best = Math.max(best, k);
      }
      if (best < 0) {
        all = false;
        break;
      }
      score += [1, 2, 4, 10][best]!;
    }
    if (all) found.push({ d, score });
  }
  const byId = (a: Doc, b: Doc) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  found.sort((a, b) =>
    sort === 'price_asc'
      ? a.d.price - b.d.price || byId(a.d, b.d)
      : sort === 'newest'
        ? b.d.created - a.d.created || byId(a.d, b.d)
        : b.score - a.score || b.d.sold - a.d.sold || byId(a.d, b.d),
  );
  return found;
}

describe('index matching', () => {
  it('finds, scores, counts and pages as the reference does, through rewrites and reclaimed entries', () => {
    const next = rng(7);
    const store = new IndexStore();
    const searcher = new IndexSearcher(store);
    const docs = new Map<string, Doc>();
    let clock = 1;
    const write = (d: Doc) => {
      store.apply({
        id: d.id,
        category_id: d.category,
        seller_id: d.seller,
        price_cents: d.price,
        is_digital: d.price % 3 === 0,
        is_perishable: d.price % 5 === 0,
        rating: 0,
        units_sold_30d: d.sold,
        created: d.created,
        status: d.live ? 'active' : 'inactive',
        changed: clock++,
        doc: docText(d),
        option_names: [],
        variants: [[d.price, true, []]],
      });
    };
    store.beginLoad();
    for (let i = 0; i < 4000; i++) {
      const d = makeDoc(next, `p${String(i).padStart(5, '0')}`, i);
      docs.set(d.id, d);
      write(d);
    }
    store.endLoad();
    const queries: string[][] = [
      ['smoke', 'salmon', 'cape', 'breton'],
      ['smoke', 'salmon', 'cape', 'bre'],
      ['cedar', 'kettle'],
      ['salmon', 'sal'],
      ['sal'],
      ['kettle', 'cape', 's'],
      ['maple', 'smok'],
      ['cedar'],
      ['nothing'],
      ['kettle', 'nothing', 'cape'],
    ];
    const check = (round: number) => {
      for (const words of queries) {
        for (const sort of ['relevance', 'price_asc', 'newest'] as const) {
          const q: IndexQuery = {
            terms: [...words.slice(0, -1).map((w) => ({ exact: [w] })), { prefixes: [words.at(-1)!] }],
            clauses: [],
            sort,
            limit: 20,
            offset: 5,
          };
          const got = searcher.search(q);
          const want = reference(docs, words, sort);
          const label = `round ${round}, ${words.join(' ')}, ${sort}`;
          expect(got.total, label).toBe(want.length);
          const page = want.slice(5, 25);
          if (sort === 'relevance') {
            // Equal scores may come out in either order; the scores must not.
            const scoreOf = new Map(want.map((f) => [f.d.id, f.score]));
            expect(
              got.ids.map((id) => scoreOf.get(id)),
              label,
            ).toEqual(page.map((f) => f.score));
          } else {
            expect(got.ids, label).toEqual(page.map((f) => f.d.id));
          }
          const sellers: Record<string, number> = {};
          for (const f of want) sellers[f.d.seller] = (sellers[f.d.seller] ?? 0) + 1;
          expect(got.facets.sellerId, label).toEqual(sellers);
        }
      }
    };
    check(0);
    // Rewrites (new entries, the old ones dead), removals and returns, with sweeps between:
    // reused entry numbers make lists that no longer ascend until a query sorts them.
    const all = [...docs.values()];
    for (let round = 1; round <= 4; round++) {
      for (let i = 0; i < 1500; i++) {
        const old = all[Math.floor(next() * all.length)]!;
        const d = makeDoc(next, old.id, old.created);
        d.live = next() > 0.15;
        docs.set(d.id, d);
        all[all.indexOf(old)] = d;
        write(d);
        if (i % 100 === 0) store.reclaim();
      }
      store.reclaim();
      check(round);
    }
    expect(store.stats().sweeps).toBeGreaterThan(0);
  });
});

/** A product of the variant catalog: its options' names and its active variants. */
interface Sold {
  id: string;
  names: string[];
  variants: Array<[number, boolean, string[]]>;
  /** The product's own price (its variants' lowest, or its last one when it has none). */
  price: number;
  live: boolean;
}

const SIZES = ['S', 'M', 'L', 'm'];
const COLOURS = ['Red', 'Navy', 'red'];

function makeSold(next: () => number, id: string): Sold {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const kind = next();
  const own = 100 + Math.floor(next() * 30_000);
  const names = kind < 0.4 ? [] : kind < 0.7 ? [pick(['Size', 'size'])] : [pick(['Size', 'SIZE']), 'Colour'];
  const count = kind < 0.05 ? 0 : names.length === 0 ? 1 : 1 + Math.floor(next() * 4);
  const variants: Sold['variants'] = [];
  for (let i = 0; i < count; i++) {
    const values = names.map((_n, j) => (j === 0 ? pick(SIZES) : pick(COLOURS)));
    variants.push([100 + Math.floor(next() * 30_000), next() < 0.6, values]);
  }
  const price = variants.length ? Math.min(...variants.map((v) => v[0])) : own;
  return { id, names, variants, price, live: next() > 0.1 };
}

describe('variant matching', () => {
  it('variant clauses, the lowest matching price and the variant facets agree with a reference, through rewrites', () => {
    const next = rng(11);
    const store = new IndexStore();
    const searcher = new IndexSearcher(store);
    const sold = new Map<string, Sold>();
    let clock = 1;
    const write = (p: Sold) =>
      store.apply({
        id: p.id,
        category_id: null,
        seller_id: 'seller',
        price_cents: p.price,
        is_digital: false,
        is_perishable: false,
        rating: 0,
        units_sold_30d: 0,
        created: 0,
        status: p.live ? 'active' : 'inactive',
        changed: clock++,
        // Half the rewrites keep the text: the entry's variants change in place.
        doc: `'item':1A '${p.id.length % 2 ? 'odd' : 'even'}':2`,
        option_names: p.names,
        variants: p.variants,
      });
    store.beginLoad();
    for (let i = 0; i < 3000; i++) {
      const p = makeSold(next, `v${String(i).padStart(5, '0')}`);
      sold.set(p.id, p);
      write(p);
    }
    store.endLoad();
    const fold = (s: string) => s.toLowerCase();
    const queries: Clause[][] = [
      [],
      [{ field: 'inStock', anyOf: [true] }],
      [{ field: 'inStock', anyOf: [false] }],
      [
        { field: 'inStock', anyOf: [true] },
        { field: 'inStock', anyOf: [false] },
      ],
      [
        { field: 'option', name: 'size', anyOf: ['s', 'm', 'l', 'xl'] },
        { field: 'priceCents', ranges: [{ min: 100, max: 20000 }] },
      ],
      [{ field: 'option', name: 'size', anyOf: ['m'] }],
      [
        { field: 'option', name: 'size', anyOf: ['m', 'l'] },
        { field: 'inStock', anyOf: [true] },
      ],
      [
        { field: 'option', name: 'colour', anyOf: ['red'] },
        { field: 'option', name: 'size', anyOf: ['s'] },
      ],
      [{ field: 'priceCents', ranges: [{ min: 5000, max: 9999 }] }],
      [
        { field: 'priceCents', ranges: [{ max: 2000 }, { min: 25000 }] },
        { field: 'inStock', anyOf: [true, false] },
        { field: 'option', name: 'size', anyOf: ['s', 'm'] },
      ],
    ];
    const passes = (clauses: Clause[], p: Sold, v: Sold['variants'][number]) =>
      clauses.every((c) => {
        if (c.field === 'priceCents')
          return c.ranges.some((r) => v[0] >= (r.min ?? 0) && v[0] <= (r.max ?? 1e12));
        if (c.field === 'inStock') return c.anyOf.includes(v[1]);
        if (c.field !== 'option') return true;
        const j = p.names.findIndex((n) => fold(n) === c.name);
        return j >= 0 && c.anyOf.includes(fold(v[2][j]!));
      });
    const check = (round: number) => {
      for (const clauses of queries) {
        for (const sort of ['price_asc', 'price_desc'] as const) {
          const label = `round ${round}, ${JSON.stringify(clauses)}, ${sort}`;
          const got = searcher.search({ terms: [], clauses, sort, limit: 30, offset: 10 });
          const found: Array<{ p: Sold; price: number; matching: Sold['variants'] }> = [];
          for (const p of sold.values()) {
            if (!p.live) continue;
            const matching = p.variants.filter((v) => passes(clauses, p, v));
            if (clauses.length === 0) found.push({ p, price: p.price, matching });
            else if (matching.length)
              found.push({ p, price: Math.min(...matching.map((v) => v[0])), matching });
          }
          found.sort((a, b) =>
            a.price !== b.price
              ? sort === 'price_asc'
                ? a.price - b.price
                : b.price - a.price
              : a.p.id < b.p.id
                ? -1
                : 1,
          );
          expect(got.total, label).toBe(found.length);
          expect(got.ids, label).toEqual(found.slice(10, 40).map((f) => f.p.id));
          const buckets = [0, 0, 0, 0, 0];
          let inStock = 0;
          const options = new Map<
            string,
            { name: string; ids: Set<string>; values: Map<string, { value: string; ids: Set<string> }> }
          >();
          const lowest = (a: string, b: string) => (a < b ? a : b);
          for (const { p, matching } of found) {
            const inBucket = new Set(
              matching.length ? matching.map((v) => priceBucket(v[0])) : [priceBucket(p.price)],
            );
            for (const b of inBucket) buckets[b]!++;
            if (matching.some((v) => v[1])) inStock++;
            p.names.forEach((name, j) => {
              if (!matching.length) return;
              const o = options.get(fold(name)) ?? { name, ids: new Set(), values: new Map() };
              o.name = lowest(o.name, name);
              o.ids.add(p.id);
              options.set(fold(name), o);
              for (const v of matching) {
                const value = v[2][j]!;
                const c = o.values.get(fold(value)) ?? { value, ids: new Set() };
                c.value = lowest(c.value, value);
                c.ids.add(p.id);
                o.values.set(fold(value), c);
              }
            });
          }
          expect(got.facets, label).toEqual({
            categoryId: found.length ? { none: found.length } : {},
            sellerId: found.length ? { seller: found.length } : {},
            ...fixedFacets(found.length, 0, 0, buckets, inStock),
            ...optionFacets(
              [...options.values()].map((o) => ({
                name: o.name,
                n: o.ids.size,
                values: [...o.values.values()].map((v) => ({ value: v.value, n: v.ids.size })),
              })),
            ),
          });
        }
      }
    };
    check(0);
    const ids = [...sold.keys()];
    for (let round = 1; round <= 3; round++) {
      for (let i = 0; i < 2000; i++) {
        const id = ids[Math.floor(next() * ids.length)]!;
        const p = makeSold(next, id);
        sold.set(id, p);
        write(p);
        if (i % 100 === 0) store.reclaim();
      }
      store.reclaim();
      check(round);
    }
  });

  it('keeps its option words to the live catalog: a value renamed again and again leaves none behind', () => {
    const store = new IndexStore();
    const searcher = new IndexSearcher(store);
    const row = (id: string, size: string, changed: number) => ({
      id,
      category_id: null,
      seller_id: 'seller',
      price_cents: 1000,
      is_digital: false,
      is_perishable: false,
      rating: 0,
      units_sold_30d: 0,
      created: 0,
      status: 'active',
      changed,
      doc: `'tee':1A`,
      option_names: ['Size'],
      variants: [
        [1000, true, ['S']],
        [1100, true, [size]],
      ] as Array<[number, boolean, string[]]>,
    });
    store.apply(row('kept', 'M', 1));
    for (let i = 0; i < 5000; i++) store.apply(row('renamed', `M${i}`, 2 + i));
    // Two names' pairs at most live (S, M, and the last M<i>); a few compactions' worth linger.
    expect(store.pairCount).toBeLessThan(200);
    expect(store.shapeCount).toBeLessThan(200);
    const got = searcher.search({ terms: [], clauses: [], sort: 'price_asc', limit: 10, offset: 0 });
    expect(got.facets).toMatchObject({ 'option.Size': { S: 2, M: 1, M4999: 1 } });
    expect(Object.keys((got.facets as Record<string, object>)['option.Size']!)).toHaveLength(3);
  });
});
