// GET /search/products over HTTP: full text with stemming and prefixes, relevance and the
// sorts, the filter grammar, facets over the whole result, hostile text, paging, rate limit.
import { eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchAnswer, searchResult } from '../src/contract/catalog.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { STEM_CACHE_MAX } from '../src/modules/search/service.ts';
import { type Answer, type SignedIn, testApp, useTestApp } from './helpers/app.ts';
import {
  admin,
  buyer,
  category as makeCategory,
  product as makeProduct,
  seller,
  uniqueWord,
} from './helpers/builders.ts';
import { checkout, ON_ADDRESS, payOk } from './helpers/checkout.ts';

// test/search-sql.test.ts runs this same file on the SQL engine.
const engine = process.env.PORTAGE_TEST_SEARCH_INDEX ?? 'memory';

const { t, database } = useTestApp({ env: { SEARCH_INDEX: engine } });
let root: SignedIn;
let shopper: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
  shopper = await buyer(t.api, 'shopper');
});

const product = (owner: SignedIn, fields: Record<string, unknown> = {}) => makeProduct(t.api, owner, fields);
const category = async () => (await makeCategory(t.api, root)).id;
const search = (params: Record<string, string | number>, as: SignedIn = shopper) =>
  t.api
    .as(as)
    .get(`/search/products?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);
const ids = (res: Answer) => (res.body.results as Array<{ id: string }>).map((r) => r.id);
const setColumns = (id: string, values: Partial<typeof products.$inferInsert>) =>
  database.db.update(products).set(values).where(eq(products.id, id));

function expectBadFilter(res: Answer, clause: string) {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    error: expect.stringContaining(`Invalid filter "${clause}"`),
    code: 'VALIDATION_ERROR',
    statusCode: 400,
    details: [{ field: 'filters', message: expect.stringContaining(`"${clause}"`) }],
  });
}

describe('answer shape and visibility', () => {
  it('answers {results, facets, total, limit, offset} with the list fields of each result', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const cat = await category();
    const p = await product(s, {
      title: `Birch bowl ${word}`,
      description: 'Hand turned',
      priceCents: 4200,
      stockQuantity: 3,
      imageUrl: 'https://img.example.ca/bowl.jpg',
      categoryId: cat,
    });
    const res = await search({ q: word });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [
        {
          id: p.id,
          title: `Birch bowl ${word}`,
          description: 'Hand turned',
          priceCents: 4200,
          imageUrl: 'https://img.example.ca/bowl.jpg',
          imageUrls: ['https://img.example.ca/bowl.jpg'],
          stockQuantity: 3,
          sellerId: s.id,
          categoryId: cat,
          dateCreated: expect.any(Number),
          isPerishable: false,
          isDigital: false,
          rating: 0,
          reviewCount: 0,
          priceRange: { minCents: 4200, maxCents: 4200 },
          language: 'en-CA',
          descriptionLanguage: 'en-CA',
        },
      ],
      facets: {
        categoryId: { [cat]: 1 },
        sellerId: { [s.id]: 1 },
        isDigital: { false: 1 },
        isPerishable: { false: 1 },
        priceRange: { '25-50': 1 },
        inStock: { true: 1 },
      },
      total: 1,
      limit: 20,
      offset: 0,
    });
    expect(Math.abs(res.body.results[0].dateCreated - t.clock.now().getTime() / 1000)).toBeLessThan(5);
  });

  it('is exactly the searchAnswer contract (it is serialized without a second check)', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    await product(s, { title: `Spruce ${word}`, imageUrl: 'https://img.example.ca/s.jpg' });
    await product(s, {
      title: `Spruce ${word} file`,
      isDigital: true,
      weight: undefined,
      categoryId: await category(),
    });
    const res = await search({ q: word, filters: 'isDigital:true|false' });
    expect(res.status).toBe(200);
    expect(searchAnswer.parse(res.body)).toEqual(res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(searchAnswer.shape).sort());
    expect(Object.keys(res.body.facets).sort()).toEqual(Object.keys(searchAnswer.shape.facets.shape).sort());
    expect(res.body.results).toHaveLength(2);
    for (const result of res.body.results) {
      expect(Object.keys(result).sort()).toEqual(Object.keys(searchResult.shape).sort());
    }
  });

  it('finds active products only: never draft, inactive or deleted, whoever asks', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const active = await product(s, { title: `Active ${word}` });
    await product(s, { title: `Draft ${word}`, status: 'draft' });
    const inactive = await product(s, { title: `Inactive ${word}` });
    await t.api.as(s).patch(`/products/${inactive.id}`, { status: 'inactive' });
    const deleted = await product(s, { title: `Deleted ${word}` });
    await t.api.as(s).delete(`/products/${deleted.id}`);
    for (const who of [shopper, s, root]) {
      const res = await search({ q: word }, who);
      expect(ids(res)).toEqual([active.id]);
      expect(res.body.total).toBe(1);
    }
    expect(ids(await search({ q: '', filters: `sellerId:${s.id}` }))).toEqual([active.id]);
  });

  it('needs a signed-in caller', async () => {
    const res = await t.api.get('/search/products?q=anything');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTH_ERROR');
  });

  it('dateCreated is whole Unix seconds, truncated as everywhere else', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const p = await product(s, { title: `Clock ${word}` });
    await setColumns(p.id, { createdAt: new Date('2024-05-01T12:00:00.750Z') });
    const res = await search({ q: word });
    expect(res.body.results[0].dateCreated).toBe(Date.parse('2024-05-01T12:00:00Z') / 1000);
  });
});

describe('full text', () => {
  it('matches title, description and keywords', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const inTitle = await product(s, { title: `Quilt ${word}` });
    const inDescription = await product(s, { title: 'Blanket', description: `Soft as a ${word}` });
    const inKeywords = await product(s, { title: 'Throw', keywords: ['wool', word] });
    await product(s, { title: 'Pillow', description: 'Feathers' });
    const res = await search({ q: word, sort: 'price_asc' });
    expect(res.body.total).toBe(3);
    expect(ids(res).sort()).toEqual([inTitle.id, inDescription.id, inKeywords.id].sort());
  });

  it('stems English words: "Running shoes" is found by run, shoe and runs', async () => {
    const s = await seller(t.api);
    const shoes = await product(s, { title: 'Running shoes' });
    await product(s, { title: 'Walking stick' });
    for (const q of ['run', 'shoe', 'runs', 'running shoe', 'SHOES']) {
      const res = await search({ q, filters: `sellerId:${s.id}` });
      expect(ids(res)).toEqual([shoes.id]);
    }
  });

  it('matches the last word as a prefix: pad finds paddle; "canoe pad" needs both words', async () => {
    const s = await seller(t.api);
    const wooden = await product(s, { title: 'Wooden paddle' });
    const canoePaddle = await product(s, { title: 'Canoe paddle' });
    await product(s, { title: 'Canoe seat' });
    const q = (text: string) => search({ q: text, filters: `sellerId:${s.id}`, sort: 'newest' });
    expect(ids(await q('pad'))).toEqual([canoePaddle.id, wooden.id]);
    expect(ids(await q('canoe pad'))).toEqual([canoePaddle.id]);
    // Only the last word is a prefix.
    expect(ids(await q('pad canoe'))).toEqual([]);
  });

  it('the prefix is the last word as typed, even part-way through a word the stemmer shortens', async () => {
    const s = await seller(t.api);
    const shoes = await product(s, { title: 'Running shoes' });
    const dish = await product(s, { title: 'Baking dish' });
    // "runn" and "bakin" are how "running" and "baking" look while being typed; their stems
    // are "run" and "bake", which the typed prefixes do not start.
    for (const [q, id] of [
      ['runn', shoes.id],
      ['runni', shoes.id],
      ['bakin', dish.id],
    ] as const) {
      expect(ids(await search({ q, filters: `sellerId:${s.id}` })), q).toEqual([id]);
    }
  });

  it('ranks by relevance: an older title match above a newer description match', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const older = await product(s, { title: `Snowshoe ${word}` });
    t.clock.advance(2);
    const newer = await product(s, { title: 'Winter boots', description: `Pairs well with a ${word}` });
    // Without text the default is newest first; with text, relevance wins over recency.
    expect(ids(await search({ q: '', filters: `sellerId:${s.id}` }))).toEqual([newer.id, older.id]);
    expect(ids(await search({ q: word }))).toEqual([older.id, newer.id]);
    expect(ids(await search({ q: word, sort: 'relevance' }))).toEqual([older.id, newer.id]);
    expect(ids(await search({ q: word, sort: 'newest' }))).toEqual([newer.id, older.id]);
  });
});

describe('sorts', () => {
  it('price_asc, price_desc and newest', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const mid = await product(s, { title: `Mid ${word}`, priceCents: 2000 });
    t.clock.advance(1);
    const high = await product(s, { title: `High ${word}`, priceCents: 3000 });
    t.clock.advance(1);
    const low = await product(s, { title: `Low ${word}`, priceCents: 1000 });
    expect(ids(await search({ q: word, sort: 'price_asc' }))).toEqual([low.id, mid.id, high.id]);
    expect(ids(await search({ q: word, sort: 'price_desc' }))).toEqual([high.id, mid.id, low.id]);
    expect(ids(await search({ q: word, sort: 'newest' }))).toEqual([low.id, high.id, mid.id]);
    const bad = await search({ q: word, sort: 'cheapest' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: 'sort', message: 'must be one of relevance, price_asc, price_desc, newest, popular' },
    ]);
  });

  it('popular: units sold in the last 30 days, then rating', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const few = await product(s, { title: `Few ${word}` });
    const manyLowRating = await product(s, { title: `Many low ${word}` });
    const manyHighRating = await product(s, { title: `Many high ${word}` });
    const none = await product(s, { title: `None ${word}` });
    await setColumns(few.id, { unitsSold30d: 5, rating: 5 });
    await setColumns(manyLowRating.id, { unitsSold30d: 10, rating: 3 });
    await setColumns(manyHighRating.id, { unitsSold30d: 10, rating: 4.5 });
    await setColumns(none.id, { unitsSold30d: 0, rating: 5 });
    expect(ids(await search({ q: word, sort: 'popular' }))).toEqual([
      manyHighRating.id,
      manyLowRating.id,
      few.id,
      none.id,
    ]);
  });
});

/**
 * A crafted catalog under one unique word: nine active products over two sellers and two
 * categories (plus two without), and two that are not active.
 */
async function facetCatalog() {
  const word = uniqueWord();
  const [s1, s2] = [await seller(t.api), await seller(t.api)];
  const [c1, c2] = [await category(), await category()];
  const make = (owner: SignedIn, categoryId: string | null, priceCents: number, kind: string, extra = {}) =>
    product(owner, {
      title: `Item ${priceCents} ${word}`,
      priceCents,
      categoryId,
      ...(kind === 'digital' ? { isDigital: true, weight: undefined } : {}),
      ...(kind === 'perishable' ? { isPerishable: true } : {}),
      ...extra,
    });
  const p = {
    a: await make(s1!, c1, 100, 'physical'),
    b: await make(s1!, c1, 2499, 'perishable'),
    c: await make(s1!, c2, 2500, 'digital'),
    d: await make(s1!, c2, 4999, 'physical'),
    e: await make(s2!, c1, 5000, 'digital'),
    f: await make(s2!, null, 9999, 'perishable'),
    g: await make(s2!, c2, 10000, 'physical'),
    h: await make(s2!, c1, 24999, 'digital'),
    i: await make(s1!, null, 25000, 'physical'),
  };
  // Not active: never counted.
  await make(s2!, c1, 99999, 'physical', { status: 'draft' });
  const inactive = await make(s1!, c2, 500, 'physical');
  await t.api.as(s1!).patch(`/products/${inactive.id}`, { status: 'inactive' });
  return { word, s1: s1!, s2: s2!, c1, c2, p };
}

describe('facets', () => {
  it('count the whole result set, not the page', async () => {
    const { word, s1, s2, c1, c2 } = await facetCatalog();
    const res = await search({ q: word, limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.total).toBe(9);
    expect(res.body.facets).toEqual({
      categoryId: { [c1]: 4, [c2]: 3, none: 2 },
      sellerId: { [s1.id]: 5, [s2.id]: 4 },
      isDigital: { true: 3, false: 6 },
      isPerishable: { true: 2, false: 7 },
      // 2500 cents is $25.00: the 25-50 bucket; 25000 is $250.00: 250+.
      priceRange: { '0-25': 2, '25-50': 2, '50-100': 2, '100-250': 2, '250+': 1 },
      inStock: { true: 9 },
    });
    // The second page carries the same facets.
    const second = await search({ q: word, limit: 1, offset: 1 });
    expect(second.body.facets).toEqual(res.body.facets);
  });

  it('follow the filters', async () => {
    const { word, s1, s2, c1, c2, p } = await facetCatalog();
    const res = await search({ q: word, filters: 'isDigital:false,priceCents:..10000', limit: 1 });
    // a (s1,c1,100), b (s1,c1,2499,perishable), d (s1,c2,4999), f (s2,none,9999,perishable), g (s2,c2,10000)
    expect(res.body.total).toBe(5);
    expect(res.body.facets).toEqual({
      categoryId: { [c1]: 2, [c2]: 2, none: 1 },
      sellerId: { [s1.id]: 3, [s2.id]: 2 },
      isDigital: { false: 5 },
      isPerishable: { true: 2, false: 3 },
      priceRange: { '0-25': 2, '25-50': 1, '50-100': 1, '100-250': 1 },
      inStock: { true: 5 },
    });
    const all = await search({ q: word, filters: 'isDigital:false,priceCents:..10000', sort: 'price_asc' });
    expect(ids(all)).toEqual([p.a.id, p.b.id, p.d.id, p.f.id, p.g.id]);
  });
});

describe('filter grammar', () => {
  it('combines clauses with AND and values with | as OR', async () => {
    const { word, s1, s2, c1, c2, p } = await facetCatalog();
    const q = async (filters: string) =>
      ids(await search({ q: word, filters, sort: 'price_asc', limit: 100 }));
    expect(await q(`sellerId:${s1.id}`)).toEqual([p.a.id, p.b.id, p.c.id, p.d.id, p.i.id]);
    expect(await q(`sellerId:${s1.id},categoryId:${c2}`)).toEqual([p.c.id, p.d.id]);
    expect(await q(`sellerId:${s1.id}|${s2.id},categoryId:${c2}`)).toEqual([p.c.id, p.d.id, p.g.id]);
    expect(await q(`categoryId:${c1}|${c2}`)).toEqual([
      p.a.id,
      p.b.id,
      p.c.id,
      p.d.id,
      p.e.id,
      p.g.id,
      p.h.id,
    ]);
    expect(await q(`categoryId:${c1}, isPerishable:true`)).toEqual([p.b.id]);
    expect(await q('isDigital:true')).toEqual([p.c.id, p.e.id, p.h.id]);
    expect(await q('isDigital:true|false')).toHaveLength(9);
    expect(await q('isPerishable:false,isDigital:false')).toEqual([p.a.id, p.d.id, p.g.id, p.i.id]);
    expect(await q('categoryId:categories:doesnotexist00000000')).toEqual([]);
  });

  it('takes inclusive ranges, open ranges and exact prices', async () => {
    const { word, p } = await facetCatalog();
    const q = async (filters: string) =>
      ids(await search({ q: word, filters, sort: 'price_asc', limit: 100 }));
    expect(await q('priceCents:2499..5000')).toEqual([p.b.id, p.c.id, p.d.id, p.e.id]);
    expect(await q('priceCents:..2500')).toEqual([p.a.id, p.b.id, p.c.id]);
    expect(await q('priceCents:24999..')).toEqual([p.h.id, p.i.id]);
    expect(await q('priceCents:4999')).toEqual([p.d.id]);
    expect(await q('priceCents:..100|25000..')).toEqual([p.a.id, p.i.id]);
    expect(await q('priceCents:5000..5000')).toEqual([p.e.id]);
  });

  it('takes a minimum rating', async () => {
    const { word, p } = await facetCatalog();
    await setColumns(p.a.id, { rating: 4.5, reviewCount: 2 });
    await setColumns(p.b.id, { rating: 4, reviewCount: 1 });
    await setColumns(p.c.id, { rating: 3.5, reviewCount: 2 });
    await setColumns(p.d.id, { rating: 4.33, reviewCount: 3 });
    const q = async (filters: string) =>
      ids(await search({ q: word, filters, sort: 'price_asc', limit: 100 }));
    expect(await q('rating:4')).toEqual([p.a.id, p.b.id, p.d.id]);
    expect(await q('rating:4.33')).toEqual([p.a.id, p.d.id]);
    expect(await q('rating:4.34')).toEqual([p.a.id]);
    expect(await q('rating:4.5')).toEqual([p.a.id]);
    const rated = await search({ q: word, filters: 'rating:4.33', sort: 'price_asc' });
    expect(
      rated.body.results.map((r: { rating: number; reviewCount: number }) => [r.rating, r.reviewCount]),
    ).toEqual([
      [4.5, 2],
      [4.33, 3],
    ]);
    expect(await q('rating:3.5,isDigital:true')).toEqual([p.c.id]);
    expect(await q('rating:0')).toHaveLength(9);
  });

  it('splits field from value at the first colon only', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const cat = await category();
    const inCat = await product(s, { title: `Filed ${word}`, categoryId: cat });
    await product(s, { title: `Loose ${word}` });
    expect(cat).toMatch(/^categories:/);
    expect(ids(await search({ q: word, filters: `categoryId:${cat}` }))).toEqual([inCat.id]);
    expect(ids(await search({ q: '', filters: `sellerId:${s.id},categoryId:${cat}` }))).toEqual([inCat.id]);
  });

  it('refuses malformed clauses with 400 VALIDATION_ERROR naming the clause', async () => {
    for (const clause of [
      'bogus:1',
      'priceCents:abc',
      'priceCents:5..1',
      'priceCents:..',
      'priceCents:-5',
      'nocolon',
      ':value',
      'isDigital:maybe',
      'isPerishable:yes',
      'categoryId:',
      'sellerId:a||b',
      'rating:6',
      'rating:high',
      'rating:3|4',
    ]) {
      expectBadFilter(await search({ q: 'x', filters: clause }), clause);
    }
    // The bad clause is named even among good ones.
    expectBadFilter(await search({ filters: 'isDigital:true,bogus:1' }), 'bogus:1');
    expectBadFilter(await search({ filters: 'isDigital:true,' }), '');
  });

  it('names the exact problem', async () => {
    const res = await search({ filters: 'bogus:1' });
    expect(res.body).toEqual({
      error:
        'Invalid filter "bogus:1": unknown field "bogus"; use one of categoryId, sellerId, priceCents, isDigital, isPerishable, rating, inStock, option.<name>',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [
        {
          field: 'filters',
          message:
            '"bogus:1": unknown field "bogus"; use one of categoryId, sellerId, priceCents, isDigital, isPerishable, rating, inStock, option.<name>',
        },
      ],
    });
    const range = await search({ filters: 'priceCents:5..1' });
    expect(range.body.details).toEqual([
      { field: 'filters', message: '"priceCents:5..1": range start is above its end' },
    ]);
  });
});

/**
 * Under one unique word: a T-shirt in S ($15, 5 left), M ($20, 1 left) and L ($30, sold out);
 * a hoodie in M / Red ($60) and L / Navy ($70), both sold out; a mug sold one way ($25, 10 left).
 */
async function variantCatalog() {
  const word = uniqueWord();
  const s = await seller(t.api);
  const made = async (body: Record<string, unknown>) => {
    const res = await t.api.as(s).post('/products', { weight: 0.5, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; variants: Array<{ id: string; sku: string }> };
  };
  const tee = await made({
    title: `Tee ${word}`,
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    variants: [
      { sku: `TEE-S-${word}`, options: { Size: 'S' }, priceCents: 1500, stockQuantity: 5 },
      { sku: `TEE-M-${word}`, options: { Size: 'M' }, priceCents: 2000, stockQuantity: 1 },
      { sku: `TEE-L-${word}`, options: { Size: 'L' }, priceCents: 3000, stockQuantity: 0 },
    ],
  });
  const hoodie = await made({
    title: `Hoodie ${word}`,
    options: [
      { name: 'Size', values: ['M', 'L'] },
      { name: 'Colour', values: ['Red', 'Navy'] },
    ],
    variants: [
      { sku: `HOOD-MR-${word}`, options: { Size: 'M', Colour: 'Red' }, priceCents: 6000, stockQuantity: 0 },
      { sku: `HOOD-LN-${word}`, options: { Size: 'L', Colour: 'Navy' }, priceCents: 7000, stockQuantity: 0 },
    ],
  });
  const mug = await made({ title: `Mug ${word}`, priceCents: 2500, stockQuantity: 10 });
  return { word, s, tee, hoodie, mug };
}

describe('variants', () => {
  it('option.* and inStock hold for one variant; a purchase sells M out, a restock brings it back', async () => {
    const who = await buyer(t.api, 'variant-stock');
    const { word, s, tee, hoodie } = await variantCatalog();
    const find = async (filters: string) => ids(await search({ q: word, filters, sort: 'price_asc' }, who));
    expect(await find('option.Size:M')).toEqual([tee.id, hoodie.id]);
    // Names and values whatever their case.
    expect(await find(' option.size : m|xl')).toEqual([tee.id, hoodie.id]);
    // The hoodie's M is sold out.
    expect(await find('option.Size:M,inStock:true')).toEqual([tee.id]);
    expect(await find('option.Size:L,inStock:true')).toEqual([]);
    expect(await find('option.Colour:red,inStock:false')).toEqual([hoodie.id]);
    // One variant must hold every clause: the hoodie in M is Red, not Navy; the tee has no colour.
    expect(await find('option.Size:M,option.Colour:Navy')).toEqual([]);
    expect(await find('option.Size:S,option.Colour:Red')).toEqual([]);

    // The last M is bought: that variant has no free unit; S still has.
    const [, m] = tee.variants;
    const b = await buyer(t.api, 'tee-buyer');
    expect(
      (await t.api.as(b).post('/cart/items', { product_id: tee.id, quantity: 1, variant: m!.sku })).status,
    ).toBe(200);
    const session = await checkout(t.api, b, { shipping_address: ON_ADDRESS });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    await payOk(t.api, session.body.sessionId);
    expect(await find('option.Size:M,inStock:true')).toEqual([]);
    expect(await find('option.Size:M')).toEqual([tee.id, hoodie.id]);
    expect(await find('option.Size:S|M,inStock:true')).toEqual([tee.id]);
    expect(await find('option.Size:M,inStock:false')).toEqual([tee.id, hoodie.id]);

    const restocked = await t.api.as(s).patch(`/products/${tee.id}/variants/${m!.id}`, { stockQuantity: 3 });
    expect(restocked.status).toBe(200);
    expect(await find('option.Size:M,inStock:true')).toEqual([tee.id]);
    expect(await find('option.Size:M,inStock:false')).toEqual([hoodie.id]);
  });

  it("priceCents matches a variant's price; the sort by price takes the lowest matching variant", async () => {
    const who = await buyer(t.api, 'variant-price');
    const { word, tee, hoodie, mug } = await variantCatalog();
    const find = async (params: Record<string, string>) => ids(await search({ q: word, ...params }, who));
    // The tee's lowest price ($15) is outside; its L ($30) is inside.
    expect(await find({ filters: 'priceCents:2800..3500' })).toEqual([tee.id]);
    expect(await find({ filters: 'priceCents:2800..3500,option.Size:S' })).toEqual([]);
    // From $18: the tee's M ($20) is below the mug ($25); from $22, its L ($30) is above.
    expect(await find({ filters: 'priceCents:1800..3500', sort: 'price_asc' })).toEqual([tee.id, mug.id]);
    expect(await find({ filters: 'priceCents:2200..3500', sort: 'price_asc' })).toEqual([mug.id, tee.id]);
    expect(await find({ filters: 'priceCents:2200..3500', sort: 'price_desc' })).toEqual([tee.id, mug.id]);
    // Without variant clauses: each product's lowest active variant.
    expect(await find({ sort: 'price_asc' })).toEqual([tee.id, mug.id, hoodie.id]);
    expect(await find({ filters: 'option.Size:L', sort: 'price_asc' })).toEqual([tee.id, hoodie.id]);
    const results = (await search({ q: word, filters: 'option.Size:L', sort: 'price_desc' }, who)).body
      .results;
    // A result keeps the product's fields: its price is its lowest variant's.
    expect(results.map((r: { id: string; priceCents: number }) => [r.id, r.priceCents])).toEqual([
      [hoodie.id, 6000],
      [tee.id, 1500],
    ]);
  });

  it('facets count products by their matching variants: options, stock, price ranges', async () => {
    const who = await buyer(t.api, 'variant-facets');
    const { word, s } = await variantCatalog();
    const common = (n: number) => ({
      categoryId: { none: n },
      sellerId: { [s.id]: n },
      isDigital: { false: n },
      isPerishable: { false: n },
    });
    const all = await search({ q: word }, who);
    expect(all.body.total).toBe(3);
    expect(all.body.facets).toEqual({
      ...common(3),
      // The tee counts in two ranges ($15, $20 and $30).
      priceRange: { '0-25': 1, '25-50': 2, '50-100': 1 },
      inStock: { true: 2, false: 1 },
      'option.Size': { M: 2, L: 2, S: 1 },
      'option.Colour': { Red: 1, Navy: 1 },
    });
    const large = await search({ q: word, filters: 'option.size:l' }, who);
    expect(large.body.total).toBe(2);
    expect(large.body.facets).toEqual({
      ...common(2),
      priceRange: { '25-50': 1, '50-100': 1 },
      inStock: { false: 2 },
      'option.Size': { L: 2 },
      'option.Colour': { Navy: 1 },
    });
    const inStock = await search({ q: word, filters: 'inStock:true' }, who);
    expect(inStock.body.total).toBe(2);
    expect(inStock.body.facets).toEqual({
      ...common(2),
      priceRange: { '0-25': 1, '25-50': 1 },
      inStock: { true: 2 },
      'option.Size': { S: 1, M: 1 },
    });
  });

  it('refuses a bad option or stock clause with 400 naming it, in English and French', async () => {
    const who = await buyer(t.api, 'variant-bad');
    expectBadFilter(await search({ filters: 'option.:x' }, who), 'option.:x');
    expectBadFilter(
      await search({ filters: `option.${'n'.repeat(51)}:x` }, who),
      `option.${'n'.repeat(51)}:x`,
    );
    expectBadFilter(await search({ filters: 'inStock:maybe' }, who), 'inStock:maybe');
    expectBadFilter(await search({ filters: 'option.Size:' }, who), 'option.Size:');
    const en = await search({ filters: 'option.:x,inStock:true' }, who);
    expect(en.body.details).toEqual([
      {
        field: 'filters',
        message: `"option.:x": an option's name is 1 to 50 characters, as in option.Size:M`,
      },
    ]);
    const fr = await t.api
      .as(who)
      .get(`/search/products?filters=${encodeURIComponent('inStock:maybe')}`, { 'accept-language': 'fr-CA' });
    expect(fr.status).toBe(400);
    expect(fr.body).toEqual({
      error: 'Filtre « inStock:maybe » invalide : la valeur doit être true ou false',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'filters', message: '« inStock:maybe » : la valeur doit être true ou false' }],
    });
    const frOption = await t.api
      .as(who)
      .get(`/search/products?filters=${encodeURIComponent('option.:x')}`, { 'accept-language': 'fr-CA' });
    expect(frOption.body.details).toEqual([
      {
        field: 'filters',
        message: '« option.:x » : le nom d’une option a de 1 à 50 caractères, comme dans option.Size:M',
      },
    ]);
  });
});

describe('hostile query text', () => {
  it('is just text: 200, never 500, and the products table is still there', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const p = await product(s, { title: `Drop ${word} table` });
    for (const q of [
      "'; drop table products; --",
      'a & b | !c',
      '"quoted"',
      ':*',
      '\\',
      "' or 1=1 --",
      '(((',
      'foo:* & !bar',
      '<script>alert(1)</script>',
      '%',
      '_',
      'the',
      'ÉCOLE café ß',
      `${word}:*`,
      `!${word}`,
    ]) {
      const res = await search({ q });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        results: expect.any(Array),
        total: expect.any(Number),
        limit: 20,
        offset: 0,
      });
    }
    expect(ids(await search({ q: `!${word}` }))).toEqual([p.id]);
    expect(ids(await search({ q: `'${word}' --` }))).toEqual([p.id]);
    const [count] = await database.db.select({ n: sql<number>`count(*)::int` }).from(products);
    expect(count!.n).toBeGreaterThan(0);
    const rows = await database.db
      .select()
      .from(products)
      .where(inArray(products.id, [p.id]));
    expect(rows).toHaveLength(1);
  });

  it('text with nothing searchable in it finds nothing', async () => {
    const res = await search({ q: ':* & | !' });
    expect(res.body).toEqual({
      results: [],
      facets: { categoryId: {}, sellerId: {}, isDigital: {}, isPerishable: {}, priceRange: {}, inStock: {} },
      total: 0,
      limit: 20,
      offset: 0,
    });
  });
});

describe('pagination', () => {
  it('pages with limit and offset, without overlap or gaps; limit 101 is 400', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await product(s, { title: `Page ${word}`, priceCents: 100 + i })).id);
    const page = (offset: number) => search({ q: word, sort: 'price_asc', limit: 3, offset });
    const pages = [await page(0), await page(3), await page(6)];
    expect(pages.map((r) => r.body.results.length)).toEqual([3, 3, 1]);
    expect(pages.map((r) => [r.body.total, r.body.limit, r.body.offset])).toEqual([
      [7, 3, 0],
      [7, 3, 3],
      [7, 3, 6],
    ]);
    expect(pages.flatMap(ids)).toEqual(made);
    const past = await page(9);
    expect(past.body).toMatchObject({ results: [], total: 7, limit: 3, offset: 9 });
    expect((await search({ q: word, limit: 100 })).body.results).toHaveLength(7);

    const tooMany = await search({ q: word, limit: 101 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      error: expect.any(String),
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'limit', message: 'must be at most 100' }],
    });
    expect((await search({ q: word, limit: 0 })).status).toBe(400);
    expect((await search({ q: word, offset: -1 })).status).toBe(400);
  });
});

describe('rate limit', () => {
  it('is keyed by user: 30 searches a minute each, even from one client address', async () => {
    const limited = await testApp(database, { env: { RATE_LIMITS: 'on' } });
    try {
      // Registered through the unlimited app: the limited one would count registrations.
      const [one, two] = [await buyer(t.api, 'rl1'), await buyer(t.api, 'rl2')];
      const ip = '198.51.100.23';
      const asOne = limited.api.as(one!).from(ip);
      const asTwo = limited.api.as(two!).from(ip);
      for (let i = 0; i < 30; i++) expect((await asOne.get('/search/products?q=maple')).status).toBe(200);
      const over = await asOne.get('/search/products?q=maple');
      expect(over.status).toBe(429);
      expect(over.body).toEqual({
        error: expect.stringMatching(/^Too many requests; retry in \d+ seconds? \(limit 30 a minute\)$/),
        code: 'RATE_LIMIT',
        statusCode: 429,
      });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Same address, another user: a count of their own.
      for (let i = 0; i < 30; i++) expect((await asTwo.get('/search/products?q=maple')).status).toBe(200);
      expect((await asTwo.get('/search/products?q=maple')).status).toBe(429);
      expect((await asOne.get('/search/products?q=maple')).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('the word memory', () => {
  it('keeps answering when the remembered stems start again (over 10,000 words)', async () => {
    // A fresh instance, so that the count of remembered words is known exactly.
    const fresh = await testApp(database, { env: { SEARCH_INDEX: engine } });
    try {
      const s = await seller(t.api);
      const word = uniqueWord();
      await product(s, { title: `Birch ${word} canoe` });
      const find = (q: string) => fresh.api.as(shopper).get(`/search/products?${new URLSearchParams({ q })}`);
      expect((await find(`${word} canoe`)).body.total).toBe(1); // 2 words remembered
      // 12 new words a search, until just past the limit: the next new word clears the memory
      // while this query's remembered words are in use.
      for (let i = 0; i < Math.floor((STEM_CACHE_MAX - 2) / 12) + 1; i++) {
        expect((await find(Array.from({ length: 12 }, () => uniqueWord()).join(' '))).status).toBe(200);
      }
      const mixed = await find(`${word} ${uniqueWord()} canoe`);
      expect(mixed.status).toBe(200);
      expect(mixed.body.total).toBe(0);
      expect((await find(`${word} canoe`)).body.total).toBe(1);
    } finally {
      await fresh.close();
    }
  }, 120_000);
});

describe('freshness across instances', () => {
  it('a second instance sees a product created, changed and deleted through the first at once', async () => {
    const other = await testApp(database, { env: { SEARCH_INDEX: engine } });
    try {
      const word = uniqueWord();
      const s = await seller(t.api);
      const p = await product(s, { title: `Pine ${word} shelf`, priceCents: 4000 });
      const inOther = (params: Record<string, string>) =>
        other.api.as(shopper).get(`/search/products?${new URLSearchParams(params)}`);
      expect((await inOther({ q: word })).body.total).toBe(1);

      // A price change moves it between price filters and facet buckets.
      expect((await t.api.as(s).patch(`/products/${p.id}`, { priceCents: 30000 })).status).toBe(200);
      const cheap = await inOther({ q: word, filters: 'priceCents:..5000' });
      expect(cheap.body.total).toBe(0);
      const dear = await inOther({ q: word });
      expect(dear.body.facets.priceRange).toEqual({ '250+': 1 });
      expect(dear.body.results[0].priceCents).toBe(30000);

      // New words in the title are found; the old ones are gone.
      const renamed = uniqueWord();
      await t.api.as(s).patch(`/products/${p.id}`, { title: `Oak ${renamed} shelf` });
      expect((await inOther({ q: renamed })).body.total).toBe(1);
      expect((await inOther({ q: word })).body.total).toBe(0);

      // Hidden, then deleted: not found.
      await t.api.as(s).patch(`/products/${p.id}`, { status: 'inactive' });
      expect((await inOther({ q: renamed })).body.total).toBe(0);
      await t.api.as(s).patch(`/products/${p.id}`, { status: 'active' });
      expect((await inOther({ q: renamed })).body.total).toBe(1);
      await t.api.as(s).delete(`/products/${p.id}`);
      expect((await inOther({ q: renamed })).body.total).toBe(0);
    } finally {
      await other.close();
    }
  });
});
