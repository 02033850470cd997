// Products and categories in French and English over HTTP: a product's language and its
// translation on create and change (bounded, the other language only), answers in the reader's
// language (Accept-Language) saying which language each text is in, and search in both
// languages with accents folded and French stems, on both engines (test/product-languages-sql.test.ts
// runs this file on the SQL engine) and in GET /products?search=.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { products } from '../src/modules/catalog/tables.ts';
import { type Answer, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, errorBody, product as makeProduct, seller, uniqueWord } from './helpers/builders.ts';
import { openCheckout, payOk } from './helpers/checkout.ts';

const engine = process.env.PORTAGE_TEST_SEARCH_INDEX ?? 'memory';
const { t, database } = useTestApp({ env: { SEARCH_INDEX: engine } });
let root: SignedIn;
let shopper: SignedIn;
let maker: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
  shopper = await buyer(t.api, 'shopper');
  maker = await seller(t.api);
});

const FR = { 'accept-language': 'fr-CA' };
const EN = { 'accept-language': 'en-CA' };
const product = (fields: Record<string, unknown>) => makeProduct(t.api, maker, fields);
const search = (q: string, headers: Record<string, string> = EN, extra = '') =>
  t.api.as(shopper).get(`/search/products?q=${encodeURIComponent(q)}${extra}`, headers);
const ids = (res: Answer) => (res.body.results as Array<{ id: string }>).map((r) => r.id);
const listed = (q: string, headers: Record<string, string> = EN) =>
  t.api.as(shopper).get(`/products?search=${encodeURIComponent(q)}`, headers);
const listedIds = (res: Answer) => (res.body.products as Array<{ id: string }>).map((r) => r.id);

describe('a product in two languages', () => {
  it('is created with its language and a translation, and read in each', async () => {
    const word = uniqueWord();
    const p = await product({
      title: `Sirop d'érable ${word}`,
      description: 'Récolté au printemps',
      keywords: ['sucre'],
      language: 'fr-CA',
      translations: {
        'en-CA': { title: `Maple syrup ${word}`, description: 'Harvested in spring', keywords: ['sugar'] },
      },
    });
    // Every answer is in the reader's language, the create's too (the tests' default is English).
    expect(p).toMatchObject({ title: `Maple syrup ${word}`, language: 'en-CA', sourceLanguage: 'fr-CA' });
    const fr = await t.api.as(shopper).get(`/products/${p.id}`, FR);
    expect(fr.status).toBe(200);
    expect(fr.body).toMatchObject({
      title: `Sirop d'érable ${word}`,
      description: 'Récolté au printemps',
      keywords: ['sucre'],
      language: 'fr-CA',
      descriptionLanguage: 'fr-CA',
      sourceLanguage: 'fr-CA',
      translations: {
        'en-CA': { title: `Maple syrup ${word}`, description: 'Harvested in spring', keywords: ['sugar'] },
      },
    });
    const en = await t.api.as(shopper).get(`/products/${p.id}`, EN);
    expect(en.body).toMatchObject({
      title: `Maple syrup ${word}`,
      description: 'Harvested in spring',
      keywords: ['sugar'],
      language: 'en-CA',
      descriptionLanguage: 'en-CA',
      sourceLanguage: 'fr-CA',
    });
    const [row] = await database.db
      .select({ language: products.language, translations: products.translations, title: products.title })
      .from(products)
      .where(eq(products.id, p.id));
    expect(row).toEqual({
      language: 'fr-CA',
      title: `Sirop d'érable ${word}`,
      translations: {
        'en-CA': { title: `Maple syrup ${word}`, description: 'Harvested in spring', keywords: ['sugar'] },
      },
    });
  });

  it('falls back to the text as written, and says which language it is in', async () => {
    const word = uniqueWord();
    const p = await product({ title: `Canoe paddle ${word}`, description: 'Cedar' });
    const fr = await t.api.as(shopper).get(`/products/${p.id}`, FR);
    expect(fr.body).toMatchObject({
      title: `Canoe paddle ${word}`,
      description: 'Cedar',
      language: 'en-CA',
      descriptionLanguage: 'en-CA',
      sourceLanguage: 'en-CA',
      translations: {},
    });
    // A translated title with no translated description: the description as written.
    const q = await product({
      title: `Tuque ${word}`,
      description: 'Warm wool',
      translations: { 'fr-CA': { title: `Tuque chaude ${word}` } },
    });
    const frq = await t.api.as(shopper).get(`/products/${q.id}`, FR);
    expect(frq.body).toMatchObject({
      title: `Tuque chaude ${word}`,
      description: 'Warm wool',
      language: 'fr-CA',
      descriptionLanguage: 'en-CA',
      keywords: [],
    });
    const list = await listed(word, FR);
    expect(list.body.products).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: p.id,
          title: `Canoe paddle ${word}`,
          language: 'en-CA',
          descriptionLanguage: 'en-CA',
        }),
        expect.objectContaining({
          id: q.id,
          title: `Tuque chaude ${word}`,
          language: 'fr-CA',
          descriptionLanguage: 'en-CA',
        }),
      ]),
    );
  });

  it('refuses a translation in the product’s own language, unknown fields and unbounded text', async () => {
    const same = await t.api.as(maker).post('/products', {
      title: 'Paddle',
      priceCents: 1000,
      weight: 1,
      translations: { 'en-CA': { title: 'Paddle' } },
    });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({
      ...errorBody('VALIDATION_ERROR', 400, 'A translation must be in the other language, not en-CA'),
      details: [
        { field: 'translations.en-CA', message: 'must be in the other language than the product’s own' },
      ],
    });
    const sameFr = await t.api.as(maker).post(
      '/products',
      {
        title: 'Pagaie',
        priceCents: 1000,
        weight: 1,
        language: 'fr-CA',
        translations: { 'fr-CA': { title: 'x' } },
      },
      FR,
    );
    expect(sameFr.status).toBe(400);
    expect(sameFr.body.error).toBe('Une traduction doit être dans l’autre langue, pas en fr-CA');
    for (const translations of [
      { 'fr-CA': { title: 'x'.repeat(201) } },
      { 'fr-CA': { title: '' } },
      { 'fr-CA': { title: 'ok', description: 'x'.repeat(10_001) } },
      { 'fr-CA': { title: 'ok', keywords: Array.from({ length: 31 }, (_, i) => `k${i}`) } },
      { 'fr-CA': { title: 'ok', colour: 'red' } },
      { 'de-DE': { title: 'Paddel' } },
      { 'fr-CA': 'Pagaie' },
    ]) {
      const res = await t.api
        .as(maker)
        .post('/products', { title: 'Paddle', priceCents: 1000, weight: 1, translations });
      expect(res.status, JSON.stringify(translations)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const badLanguage = await t.api
      .as(maker)
      .post('/products', { title: 'Paddle', priceCents: 1000, weight: 1, language: 'de-DE' });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.body.details).toEqual([{ field: 'language', message: expect.any(String) }]);
  });

  it('changes its language and translation by PATCH (the translation replaced whole), its owner only', async () => {
    const word = uniqueWord();
    const p = await product({ title: `Mitaines ${word}`, language: 'fr-CA' });
    const other = await seller(t.api);
    const refused = await t.api
      .as(other)
      .patch(`/products/${p.id}`, { translations: { 'en-CA': { title: `Mittens ${word}` } } });
    expect(refused.status).toBe(403);
    const ok = await t.api
      .as(maker)
      .patch(
        `/products/${p.id}`,
        { translations: { 'en-CA': { title: `Mittens ${word}`, description: 'Wool' } } },
        EN,
      );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      title: `Mittens ${word}`,
      description: 'Wool',
      language: 'en-CA',
      sourceLanguage: 'fr-CA',
    });
    expect(ids(await search(`mittens ${word}`))).toEqual([p.id]);
    // The main text's language may not collide with the stored translation's.
    const collide = await t.api.as(maker).patch(`/products/${p.id}`, { language: 'en-CA' });
    expect(collide.status).toBe(400);
    expect(collide.body.details).toEqual([
      { field: 'translations.en-CA', message: 'must be in the other language than the product’s own' },
    ]);
    const cleared = await t.api.as(maker).patch(`/products/${p.id}`, { translations: {} }, EN);
    expect(cleared.body).toMatchObject({ title: `Mitaines ${word}`, language: 'fr-CA', translations: {} });
    expect(ids(await search(`mittens ${word}`))).toEqual([]);
    expect(ids(await search(`mitaines ${word}`))).toEqual([p.id]);
  });
});

describe('categories in two languages', () => {
  it('are named in the reader’s language when translated, and say which', async () => {
    const slug = `c-${uniqueWord()}`;
    const made = await t.api.as(root).post('/admin/categories', {
      name: `Pantry ${slug}`,
      slug,
      translations: { 'fr-CA': { name: `Garde-manger ${slug}` } },
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: made.body.id,
      name: `Pantry ${slug}`,
      slug,
      parentId: null,
      language: 'en-CA',
    });
    const fr = await t.api.as(shopper).get('/categories', FR);
    expect(fr.body.categories).toContainEqual({
      id: made.body.id,
      name: `Garde-manger ${slug}`,
      slug,
      parentId: null,
      language: 'fr-CA',
    });
    const en = await t.api.as(shopper).get('/categories', EN);
    expect(en.body.categories).toContainEqual({
      id: made.body.id,
      name: `Pantry ${slug}`,
      slug,
      parentId: null,
      language: 'en-CA',
    });
    const same = await t.api.as(root).post('/admin/categories', {
      name: 'x',
      slug: `c-${uniqueWord()}`,
      translations: { 'en-CA': { name: 'x' } },
    });
    expect(same.status).toBe(400);
  });
});

describe(`search in both languages (${engine} engine)`, () => {
  let sirop: string;
  let maple: string;
  let both: string;
  let word: string;

  beforeAll(async () => {
    word = uniqueWord();
    sirop = (await product({ title: `Sirop d'érable ${word}`, language: 'fr-CA', description: 'Très sucré' }))
      .id;
    maple = (await product({ title: `Maple syrup ${word}`, description: 'Dark and robust' })).id;
    both = (
      await product({
        title: `Smoked salmon ${word}`,
        description: 'From Cape Breton',
        translations: { 'fr-CA': { title: `Saumon fumé ${word}`, description: 'Des pêcheurs de la côte' } },
      })
    ).id;
  });

  const found = async (q: string) => {
    const [a, b] = await Promise.all([search(`${q} ${word}`), listed(`${q} ${word}`)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    // GET /products?search= matches as search does.
    expect([...listedIds(b)].sort()).toEqual([...ids(a)].sort());
    return ids(a).sort();
  };

  it('finds a French title by its words, with or without accents, and by their stems', async () => {
    for (const q of ['érable', 'erable', 'ÉRABLE', 'sirop', 'sirops', 'érables', 'Sirop érable']) {
      expect(await found(q), q).toEqual([sirop]);
    }
    // A word that starts the search matches as a prefix too: "éra" finds "érable".
    expect(ids(await search(`${word} éra`))).toEqual([sirop]);
    expect(ids(await search(`${word} sucre`))).toEqual([sirop]);
  });

  it('still finds English by English words and stems', async () => {
    expect(await found('maple')).toEqual([maple]);
    expect(await found('syrups')).toEqual([maple]);
    expect(await found('robust')).toEqual([maple]);
  });

  it('finds a product with a translation by words of either language', async () => {
    expect(await found('salmon')).toEqual([both]);
    expect(await found('saumon fumé')).toEqual([both]);
    expect(await found('saumons fume')).toEqual([both]);
    expect(await found('pecheurs')).toEqual([both]);
    expect(await found('smoked breton')).toEqual([both]);
  });

  it('drops a word that is a stopword in either language, as both engines do', async () => {
    // "de" (French) and "the" (English) are stopwords: the other words decide.
    expect(await found('sirop de')).toEqual([sirop]);
    expect(ids(await search(`the ${word} maple`))).toEqual([maple]);
    expect(ids(await search(`de ${word} sirop`))).toEqual([sirop]);
  });

  it('answers results in the reader’s language, saying which', async () => {
    const fr = await search(word, FR);
    const byId = new Map((fr.body.results as Array<{ id: string }>).map((r) => [r.id, r]));
    expect(byId.get(both)).toMatchObject({
      title: `Saumon fumé ${word}`,
      language: 'fr-CA',
      descriptionLanguage: 'fr-CA',
    });
    expect(byId.get(maple)).toMatchObject({ title: `Maple syrup ${word}`, language: 'en-CA' });
    expect(byId.get(sirop)).toMatchObject({ title: `Sirop d'érable ${word}`, language: 'fr-CA' });
    const en = await search(word, EN);
    const enById = new Map((en.body.results as Array<{ id: string }>).map((r) => [r.id, r]));
    expect(enById.get(both)).toMatchObject({ title: `Smoked salmon ${word}`, language: 'en-CA' });
    expect(enById.get(sirop)).toMatchObject({ title: `Sirop d'érable ${word}`, language: 'fr-CA' });
  });
});

describe('option names and values in two languages', () => {
  /** A tee written in English, its options translated into French by position. */
  async function tee(word: string) {
    const res = await t.api.as(maker).post('/products', {
      title: `Tee ${word}`,
      weight: 0.2,
      translations: {
        'fr-CA': {
          title: `T-shirt ${word}`,
          options: [
            { name: 'Taille', values: ['P', 'M'] },
            { name: 'Couleur', values: ['Rouge', 'Bleu'] },
          ],
        },
      },
      options: [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Colour', values: ['Red', 'Blue'] },
      ],
      variants: [
        { sku: `TEE-SR-${word}`, options: { Size: 'S', Colour: 'Red' }, priceCents: 2000, stockQuantity: 3 },
        { sku: `TEE-MB-${word}`, options: { Size: 'M', Colour: 'Blue' }, priceCents: 2200, stockQuantity: 0 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; variants: Array<{ id: string; sku: string }> };
  }
  const shape = (body: Record<string, unknown>) => ({
    title: body.title,
    options: body.options,
    optionsLanguage: body.optionsLanguage,
    variants: (body.variants as Array<Record<string, unknown>>).map((v) => ({
      id: v.id,
      sku: v.sku,
      options: v.options,
      title: v.title,
    })),
  });

  it('the cart names a line in the reader’s language; the order line keeps the name it was sold under', async () => {
    const word = uniqueWord();
    const p = await tee(word);
    const b = await buyer(t.api);
    const added = await t.api
      .as(b)
      .post('/cart/items', { product_id: p.id, variant: `TEE-SR-${word}`, quantity: 1 }, FR);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const line = (res: Answer) => {
      const [i] = res.body.items as Array<{ title: string; variant_title: string; variant_id: string }>;
      return { title: i!.title, variant_title: i!.variant_title, variant_id: i!.variant_id };
    };
    const id = p.variants.find((v) => v.sku === `TEE-SR-${word}`)!.id;
    expect(line(added.body.cart ? { ...added, body: added.body.cart } : added)).toEqual({
      title: `T-shirt ${word}, P / Rouge`,
      variant_title: 'P / Rouge',
      variant_id: id,
    });
    expect(line(await t.api.as(b).get('/cart', FR))).toEqual({
      title: `T-shirt ${word}, P / Rouge`,
      variant_title: 'P / Rouge',
      variant_id: id,
    });
    expect(line(await t.api.as(b).get('/cart', EN))).toEqual({
      title: `Tee ${word}, S / Red`,
      variant_title: 'S / Red',
      variant_id: id,
    });
    // A product without translation: as written in both.
    const plain = await product({
      title: `Mitts ${word}`,
      priceCents: undefined,
      stockQuantity: undefined,
      options: [{ name: 'Size', values: ['L'] }],
      variants: [{ options: { Size: 'L' }, priceCents: 1000, stockQuantity: 2 }],
    });
    await t.api
      .as(b)
      .post('/cart/items', { product_id: plain.id, variant: plain.variants[0]!.id, quantity: 1 });
    const both = (await t.api.as(b).get('/cart', FR)).body.items as Array<{ variant_title: string }>;
    expect(both.map((i) => i.variant_title)).toEqual(['P / Rouge', 'L']);
    // Bought: the order line is named as written, whoever reads it.
    const [orderId] = await payOk(t.api, (await openCheckout(t.api, b)).sessionId);
    const order = await t.api.as(b).get(`/orders/${orderId}`, FR);
    expect(order.status).toBe(200);
    expect((order.body.items as Array<{ name: string }>).map((i) => i.name)).toEqual([
      `Tee ${word}, S / Red`,
      `Mitts ${word}, L`,
    ]);
  });

  it('answers the options in the reader’s language; ids and SKUs stay', async () => {
    const word = uniqueWord();
    const p = await tee(word);
    const [sr, mb] = p.variants;
    const fr = await t.api.as(shopper).get(`/products/${p.id}`, FR);
    expect(fr.status).toBe(200);
    expect(shape(fr.body)).toEqual({
      title: `T-shirt ${word}`,
      options: [
        { name: 'Taille', values: ['P', 'M'] },
        { name: 'Couleur', values: ['Rouge', 'Bleu'] },
      ],
      optionsLanguage: 'fr-CA',
      variants: [
        { id: sr!.id, sku: sr!.sku, options: { Taille: 'P', Couleur: 'Rouge' }, title: 'P / Rouge' },
        { id: mb!.id, sku: mb!.sku, options: { Taille: 'M', Couleur: 'Bleu' }, title: 'M / Bleu' },
      ],
    });
    expect(fr.body.translations['fr-CA'].options).toEqual([
      { name: 'Taille', values: ['P', 'M'] },
      { name: 'Couleur', values: ['Rouge', 'Bleu'] },
    ]);
    const en = await t.api.as(shopper).get(`/products/${p.id}`, EN);
    expect(shape(en.body)).toEqual({
      title: `Tee ${word}`,
      options: [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Colour', values: ['Red', 'Blue'] },
      ],
      optionsLanguage: 'en-CA',
      variants: [
        { id: sr!.id, sku: sr!.sku, options: { Size: 'S', Colour: 'Red' }, title: 'S / Red' },
        { id: mb!.id, sku: mb!.sku, options: { Size: 'M', Colour: 'Blue' }, title: 'M / Blue' },
      ],
    });
    // Buying names the variant by its id or SKU whatever the language.
    const added = await t.api
      .as(shopper)
      .post('/cart/items', { product_id: p.id, quantity: 1, variant: sr!.sku }, FR);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  });

  it('refuses translated options that do not match the product’s, naming the field', async () => {
    const word = uniqueWord();
    const base = {
      title: `Tee ${word}`,
      weight: 0.2,
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [{ options: { Size: 'S' }, priceCents: 2000 }],
    };
    const tr = (options: unknown) => ({ 'fr-CA': { title: `T-shirt ${word}`, options } });
    const tooMany = await t.api.as(maker).post(
      '/products',
      {
        ...base,
        translations: tr([
          { name: 'Taille', values: ['P', 'M'] },
          { name: 'Couleur', values: ['Rouge'] },
        ]),
      },
      EN,
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details).toEqual([
      { field: 'translations.fr-CA.options', message: 'must have as many options as the product’s (1)' },
    ]);
    const fewValues = await t.api
      .as(maker)
      .post('/products', { ...base, translations: tr([{ name: 'Taille', values: ['P'] }]) }, FR);
    expect(fewValues.status).toBe(400);
    expect(fewValues.body.details).toEqual([
      {
        field: 'translations.fr-CA.options.0.values',
        message: 'doit avoir autant de valeurs que l’option (2)',
      },
    ]);
    const twice = await t.api
      .as(maker)
      .post('/products', { ...base, translations: tr([{ name: 'Taille', values: ['P', 'p'] }]) }, EN);
    expect(twice.body.details).toEqual([
      { field: 'translations.fr-CA.options.0.values', message: 'each value once' },
    ]);
    const long = await t.api
      .as(maker)
      .post('/products', { ...base, translations: tr([{ name: 'x'.repeat(51), values: ['P', 'M'] }]) }, EN);
    expect(long.status).toBe(400);
    expect(long.body.details.map((d: { field: string }) => d.field)).toEqual([
      'translations.fr-CA.options.0.name',
    ]);
    const extra = await t.api
      .as(maker)
      .post('/products', { ...base, translations: tr([{ name: 'Taille', values: ['P', 'M'], x: 1 }]) }, EN);
    expect(extra.status).toBe(400);
    expect(
      await database.db
        .select()
        .from(products)
        .where(eq(products.title, `Tee ${word}`)),
    ).toEqual([]);
  });

  it('drops the translated options when a change gives new options without them', async () => {
    const word = uniqueWord();
    const p = await tee(word);
    const changed = await t.api.as(maker).patch(
      `/products/${p.id}`,
      {
        options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
        variants: [{ options: { Size: 'L' }, priceCents: 2400, stockQuantity: 1 }],
      },
      FR,
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect([changed.body.title, changed.body.options, changed.body.optionsLanguage]).toEqual([
      `T-shirt ${word}`,
      [{ name: 'Size', values: ['S', 'M', 'L'] }],
      'en-CA',
    ]);
    expect(changed.body.translations).toEqual({
      'fr-CA': { title: `T-shirt ${word}`, description: '', keywords: [] },
    });
  });
});
