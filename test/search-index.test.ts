// The in-process search index under churn: a seller rewriting descriptions with new words
// over and over must not grow the process (docs/decisions.md "Search"),
// and searches stay right while dead entries are reclaimed and their ordinals reused.
// The index's counters are read from an instance of our own over the same database (a
// second instance, as another API process would be); the answers are the app's, over HTTP.
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { products, productVariants } from '../src/modules/catalog/tables.ts';
import { MemorySearchIndex } from '../src/modules/search/memory-index.ts';
import { type Answer, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';

const { t, database } = useTestApp({ env: { SEARCH_INDEX: 'memory' } });
let root: SignedIn;
let shopper: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
  shopper = await buyer(t.api, 'shopper');
});

const search = (params: Record<string, string | number>) =>
  t.api
    .as(shopper)
    .get(`/search/products?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);
const ids = (res: Answer) => (res.body.results as Array<{ id: string }>).map((r) => r.id);
const words = (n: number) => Array.from({ length: n }, () => uniqueWord());
/** A description rewrite straight in the database: the fastest write a test can make. */
const rewrite = (id: string, description: string) =>
  database.db.update(products).set({ description }).where(eq(products.id, id));

async function freshIndex() {
  const index = new MemorySearchIndex();
  await index.build(database.db);
  return index;
}

describe('keeping up with the database', () => {
  it('after a burst of writes re-reads its rows for the overlap only, not on every search until the next write', async () => {
    const s = await seller(t.api);
    const made = await Promise.all([1, 2, 3].map((i) => product(t.api, s, { title: `Burst kettle ${i}` })));
    // A 1-second overlap (30 s in the app) keeps the test short.
    const index = new MemorySearchIndex({ overlapMs: 1000 });
    await index.build(database.db);
    for (const p of made) await rewrite(p.id, words(5).join(' '));
    await index.refresh(database.db);
    expect(index.stats().lastRefreshRows).toBeGreaterThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // The first look after the overlap still covers the burst (it may have committed late)...
    await index.refresh(database.db);
    // ...the next one no longer reads it.
    await index.refresh(database.db);
    expect(index.stats().lastRefreshRows).toBe(0);
    expect(index.stats().live).toBeGreaterThanOrEqual(3);
  });
});

describe('what the index re-reads', () => {
  /** The stamp the index follows, and whether the search document is what its text makes. */
  const stampOf = async (id: string) => {
    const [row] = await database.db
      .select({
        changed: products.changedAt,
        doc: sql<string>`${products.searchDoc}::text`,
        docFollowsText: sql<boolean>`${products.searchDoc} = (
          setweight(to_tsvector('english', title), 'A') ||
          setweight(to_tsvector('english', portage_join_words(keywords)), 'B') ||
          setweight(to_tsvector('english', description), 'C') ||
          setweight(to_tsvector('simple', title || ' ' || portage_join_words(keywords)), 'D'))`,
      })
      .from(products)
      .where(eq(products.id, id));
    return row!;
  };

  it('a stock or reservation change is not a product change; only a sell-out or restock stamps the variant; text and price are, and the search document follows the text', async () => {
    const s = await seller(t.api);
    const made = await product(t.api, s, { title: 'Quiet kettle' });
    const before = await stampOf(made.id);
    expect(before.docFollowsText).toBe(true);

    // What a checkout and its payment write: untouched stamp and document.
    await database.db
      .update(productVariants)
      .set({ stockQuantity: sql`${productVariants.stockQuantity} - 1`, reservedQuantity: 2 })
      .where(eq(productVariants.id, made.id));
    expect(await stampOf(made.id)).toEqual(before);
    const variantStamp = async () =>
      (
        await database.db
          .select({ changed: productVariants.changedAt })
          .from(productVariants)
          .where(eq(productVariants.id, made.id))
      )[0]!.changed.getTime();
    // Units still free (10 - 1 - 2): the variant's stamp stays too.
    const stocked = await variantStamp();
    await database.db
      .update(productVariants)
      .set({ reservedQuantity: 8 })
      .where(eq(productVariants.id, made.id));
    expect(await variantStamp()).toBe(stocked);
    // The last free unit held: the variant's stamp moves (search's inStock), the product's does not.
    await database.db
      .update(productVariants)
      .set({ reservedQuantity: 9 })
      .where(eq(productVariants.id, made.id));
    const soldOut = await variantStamp();
    expect(soldOut).toBeGreaterThan(stocked);
    expect(await stampOf(made.id)).toEqual(before);
    expect(ids(await search({ q: 'quiet kettle', filters: 'inStock:false' }))).toContain(made.id);
    await database.db
      .update(productVariants)
      .set({ reservedQuantity: 0 })
      .where(eq(productVariants.id, made.id));
    expect(await variantStamp()).toBeGreaterThan(soldOut);

    const word = uniqueWord();
    await database.db
      .update(products)
      .set({ title: `Loud ${word} kettle` })
      .where(eq(products.id, made.id));
    const retitled = await stampOf(made.id);
    expect(retitled.changed.getTime()).toBeGreaterThan(before.changed.getTime());
    expect(retitled.docFollowsText).toBe(true);
    expect(retitled.doc).toContain(`'${word}'`);
    expect((await search({ q: word })).body.results).toEqual([expect.objectContaining({ id: made.id })]);

    await database.db
      .update(products)
      .set({ priceCents: 4321, priceMaxCents: 4321 })
      .where(eq(products.id, made.id));
    const repriced = await stampOf(made.id);
    expect(repriced.changed.getTime()).toBeGreaterThan(retitled.changed.getTime());
    expect(repriced.doc).toBe(retitled.doc);
  });
});

describe('memory under description rewrites', () => {
  it('dead entries, postings and the lexicon stay bounded while new words keep coming', async () => {
    const s = await seller(t.api);
    const churned = await product(t.api, s, { title: 'Churned kettle' });
    const index = await freshIndex();
    const before = index.stats();
    let last: string[] = [];
    // 800 rewrites of 40 new words each: 32,000 words that each live for one rewrite.
    for (let i = 0; i < 800; i++) {
      last = words(40);
      await rewrite(churned.id, last.join(' '));
      await index.refresh(database.db);
      if (i % 100 === 99) {
        // The app's own index follows too; the newest words are found, as a prefix too.
        expect(ids(await search({ q: last[0]! }))).toEqual([churned.id]);
        expect(ids(await search({ q: last[1]!.slice(0, 8) }))).toEqual([churned.id]);
      }
    }
    await index.refresh(database.db);
    const after = index.stats();
    expect(after.live).toBe(before.live);
    // A sweep starts past 4,096 dead postings here and ends before they double: the dead are
    // a few hundred rewrites' worth at most, never the 800.
    expect(after.dead).toBeLessThan(250);
    expect(after.lexemes - before.lexemes).toBeLessThan(10_000);
    expect(after.deadPostings).toBeLessThanOrEqual(2 * 4096 + 100);
    expect(after.sweeps).toBeGreaterThanOrEqual(3);
    // Ordinals are reused: the columns do not grow with the rewrites.
    expect(after.entries - before.entries).toBeLessThan(250);
    // The old words are gone, the newest found.
    expect(ids(await search({ q: last[39]! }))).toEqual([churned.id]);
  }, 120_000);

  it('a new word makes no pass over the whole vocabulary: it waits in the small sorted side list', async () => {
    const s = await seller(t.api);
    // A vocabulary of some thousands of words first.
    for (let i = 0; i < 10; i++) await product(t.api, s, { description: words(300).join(' ') });
    const index = await freshIndex();
    const before = index.stats();
    expect(before.lexemes).toBeGreaterThan(3000);
    const word = uniqueWord();
    const p = await product(t.api, s, { title: `Tamarack ${word}` });
    await index.refresh(database.db);
    const after = index.stats();
    expect(after.lexicon.merges).toBe(before.lexicon.merges);
    expect(after.lexicon.movedWords).toBe(before.lexicon.movedWords);
    // The new words only: "tamarack", the unique word, and its stem when the stemmer cuts it.
    expect(after.lexicon.pending - before.lexicon.pending).toBeGreaterThanOrEqual(1);
    expect(after.lexicon.pending - before.lexicon.pending).toBeLessThanOrEqual(3);
    const found = index.search({
      terms: [{ prefixes: [word.slice(0, 7)] }],
      clauses: [],
      sort: 'relevance',
      limit: 20,
      offset: 0,
    });
    expect(found.ids).toEqual([p.id]);
    expect(ids(await search({ q: word.slice(0, 7) }))).toEqual([p.id]);
  });
});

describe('answers while entries are reclaimed and reused', () => {
  it('exact and prefix matches, facets, sorts and filters stay right through many sweeps', async () => {
    const word = uniqueWord();
    const [s1, s2] = [await seller(t.api), await seller(t.api)];
    const [c1, c2] = [(await category(t.api, root)).id, (await category(t.api, root)).id];
    const make = (owner: SignedIn, categoryId: string | null, priceCents: number, extra = {}) =>
      product(t.api, owner, { title: `Lantern ${priceCents} ${word}`, priceCents, categoryId, ...extra });
    const p = [
      await make(s1, c1, 900),
      await make(s1, c2, 3000, { isPerishable: true }),
      await make(s2, c1, 7000, { isDigital: true, weight: undefined }),
      await make(s2, null, 12000),
      await make(s1, c1, 30000),
    ];
    const check = async (round: number) => {
      const all = await search({ q: word, sort: 'price_asc' });
      expect(ids(all), `round ${round}`).toEqual(p.map((x) => x.id));
      expect(all.body.facets).toEqual({
        categoryId: { [c1]: 3, [c2]: 1, none: 1 },
        sellerId: { [s1.id]: 3, [s2.id]: 2 },
        isDigital: { true: 1, false: 4 },
        isPerishable: { true: 1, false: 4 },
        priceRange: { '0-25': 1, '25-50': 1, '50-100': 1, '100-250': 1, '250+': 1 },
        inStock: { true: 5 },
      });
      expect(ids(await search({ q: word, sort: 'price_desc', limit: 2 }))).toEqual([p[4]!.id, p[3]!.id]);
      expect(ids(await search({ q: `lantern ${word.slice(0, 6)}`, filters: `sellerId:${s2.id}` }))).toEqual(
        [p[2]!.id, p[3]!.id].sort(),
      );
      expect(
        ids(await search({ q: word, filters: `categoryId:${c1},priceCents:..10000`, sort: 'price_asc' })),
      ).toEqual([p[0]!.id, p[2]!.id]);
      expect(ids(await search({ q: word, filters: 'isPerishable:true' }))).toEqual([p[1]!.id]);
    };
    await check(0);
    // The catalog's own products get new descriptions over and over (each rewrite a new
    // entry, the old one dead), among other products' rewrites: ordinals are freed and reused.
    const s3 = await seller(t.api);
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await product(t.api, s3, { title: `Filler ${uniqueWord()}` }));
    const index = await freshIndex();
    let described: string[] = [];
    for (let round = 1; round <= 6; round++) {
      for (let i = 0; i < 60; i++) {
        for (const o of others) await rewrite(o.id, words(20).join(' '));
        described = words(p.length);
        for (const [k, x] of p.entries()) await rewrite(x.id, `Glows ${described[k]}`);
        // Each search makes the app's index read these versions (and kill the previous ones).
        expect((await search({ q: word, limit: 1 })).body.total).toBe(p.length);
        await index.refresh(database.db);
      }
      await check(round);
      // The newest description word of each is found, exactly and as a prefix.
      for (const [k, x] of p.entries()) {
        expect(ids(await search({ q: `${described[k]} ${word}` }))).toEqual([x.id]);
        expect(ids(await search({ q: `${word} ${described[k]!.slice(0, 7)}` }))).toEqual([x.id]);
      }
    }
    expect(index.stats().sweeps).toBeGreaterThanOrEqual(6);
    // A price change after all that still moves a product between filters and buckets.
    await t.api.as(s1).patch(`/products/${p[0]!.id}`, { priceCents: 26000 });
    const moved = await search({ q: word, filters: 'priceCents:25000..' });
    expect(ids(moved).sort()).toEqual([p[0]!.id, p[4]!.id].sort());
    expect(moved.body.facets.priceRange).toEqual({ '250+': 2 });
  }, 300_000);
});

describe('browsing (no words, no filters)', () => {
  it('keeps its answer only while nothing changed: a new, an edited and a withdrawn product show at once', async () => {
    const s = await seller(t.api);
    const before = await search({ sort: 'newest', limit: 5 });
    const again = await search({ sort: 'newest', limit: 5 });
    expect(again.body).toEqual(before.body);
    const p = await product(t.api, s, { title: `${uniqueWord()} fresh`, priceCents: 777 });
    const after = await search({ sort: 'newest', limit: 5 });
    expect(after.body.total).toBe(before.body.total + 1);
    expect(ids(after)[0]).toBe(p.id);
    await t.api.as(s).patch(`/products/${encodeURIComponent(p.id)}`, { priceCents: 888 });
    expect((await search({ sort: 'newest', limit: 5 })).body.results[0].priceCents).toBe(888);
    await t.api.as(s).patch(`/products/${encodeURIComponent(p.id)}`, { status: 'inactive' });
    const gone = await search({ sort: 'newest', limit: 5 });
    expect(gone.body.total).toBe(before.body.total);
    expect(ids(gone)).not.toContain(p.id);
  });
});
