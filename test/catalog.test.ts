// Categories and products over HTTP: the product rules, who sees and changes what, soft
// delete, listing and paging, and the review aggregates shown in the product detail.

import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { productList, productListItem } from '../src/contract/catalog.ts';
import { isRecordId, newId, randomKey } from '../src/contract/common.ts';
import { listItemsByIds, listProducts } from '../src/modules/catalog/service.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { defaultSku } from '../src/modules/catalog/variants.ts';
import { inTransaction } from '../src/modules/context.ts';
import { reviews } from '../src/modules/reviews/tables.ts';
import { type Answer, type SignedIn, useTestApp } from './helpers/app.ts';
import {
  admin,
  buyer,
  category,
  errorBody,
  expectError,
  expectInvalid,
  product,
  seller,
  uniqueWord,
} from './helpers/builders.ts';

const { t, database } = useTestApp();
let root: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
});

const notFound = (id: string) => errorBody('NOT_FOUND', 404, `Product ${id} not found`);
const ids = (res: Answer) => (res.body.products as Array<{ id: string }>).map((p) => p.id);

describe('categories', () => {
  it('an admin creates a category (201) and GET /categories lists it', async () => {
    const slug = `tools-${uniqueWord()}`;
    const res = await t.api.as(root).post('/admin/categories', { name: ' Tools ', slug });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^categories:[A-Za-z0-9_-]{20}$/),
      name: 'Tools',
      slug,
      parentId: null,
      language: 'en-CA',
    });
    const child = await t.api
      .as(root)
      .post('/admin/categories', { name: 'Hand tools', slug: `hand-${slug}`, parentId: res.body.id });
    expect(child.status).toBe(201);
    expect(child.body).toEqual({
      id: expect.stringMatching(/^categories:/),
      name: 'Hand tools',
      slug: `hand-${slug}`,
      parentId: res.body.id,
      language: 'en-CA',
    });

    const b = await buyer(t.api);
    const list = await t.api.as(b).get('/categories');
    expect(list.status).toBe(200);
    expect(list.body.categories).toContainEqual(res.body);
    expect(list.body.categories).toContainEqual(child.body);
  });

  it('refuses a duplicate slug with 409', async () => {
    const slug = `dup-${uniqueWord()}`;
    expect((await t.api.as(root).post('/admin/categories', { name: 'One', slug })).status).toBe(201);
    const res = await t.api.as(root).post('/admin/categories', { name: 'Two', slug });
    expectError(res, 'CONFLICT', 409, `A category with the slug ${slug} already exists`);
    // At once, too: one wins.
    const raced = `race-${uniqueWord()}`;
    const answers = await Promise.all(
      [1, 2, 3].map((n) => t.api.as(root).post('/admin/categories', { name: `Race ${n}`, slug: raced })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
  });

  it('refuses an unknown parentId with 400 naming parentId', async () => {
    for (const parentId of ['categories:doesnotexist00000000', 'nope']) {
      const res = await t.api
        .as(root)
        .post('/admin/categories', { name: 'Orphan', slug: `orphan-${uniqueWord()}`, parentId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: `Unknown parent category ${parentId}`,
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'parentId', message: 'unknown category' }],
      });
    }
  });

  it('refuses a bad slug with 400', async () => {
    for (const slug of ['Has Spaces', 'UPPER', 'double--hyphen', '-leading', '']) {
      const res = await t.api.as(root).post('/admin/categories', { name: 'Bad', slug });
      expectInvalid(res, [
        { field: 'slug', message: 'must be lowercase letters, digits and single hyphens' },
      ]);
    }
  });

  it('a buyer or a seller creating a category is 403', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).post('/admin/categories', { name: 'Mine', slug: `mine-${uniqueWord()}` });
    expectError(res, 'AUTHZ_ERROR', 403, 'AUTHZ_ERROR: This needs the admin role; you are buyer');
    const s = await seller(t.api);
    const bySeller = await t.api.as(s).post('/admin/categories', { name: 'M', slug: `m-${uniqueWord()}` });
    expect(bySeller.status).toBe(403);
  });
});

describe('POST /products', () => {
  it('a seller creates a product: 201 with the full detail, active by default', async () => {
    const s = await seller(t.api);
    const cat = await category(t.api, root);
    const res = await t.api.as(s).post('/products', {
      title: 'Maple syrup, grade A',
      description: 'Amber, rich taste',
      priceCents: 1899,
      stockQuantity: 12,
      imageUrl: 'https://img.example.ca/syrup.jpg',
      imageUrls: ['https://img.example.ca/syrup.jpg', 'https://img.example.ca/syrup-2.jpg'],
      categoryId: cat.id,
      isPerishable: true,
      isDigital: false,
      weight: 1.5,
      dimensions: { width: 10, height: 20, depth: 5.5 },
      keywords: ['syrup', 'maple'],
      specifications: { grade: 'A', volume: '500 ml' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^products:[A-Za-z0-9_-]{20}$/),
      title: 'Maple syrup, grade A',
      description: 'Amber, rich taste',
      priceCents: 1899,
      imageUrl: 'https://img.example.ca/syrup.jpg',
      imageUrls: ['https://img.example.ca/syrup.jpg', 'https://img.example.ca/syrup-2.jpg'],
      stockQuantity: 12,
      sellerId: s.id,
      sellerName: 'Maple Goods',
      seller: { name: 'Maple Goods', rating: 0, reviewCount: 0 },
      categoryId: cat.id,
      status: 'active',
      dateCreated: expect.any(Number),
      isPerishable: true,
      isDigital: false,
      weight: 1.5,
      dimensions: { width: 10, height: 20, depth: 5.5 },
      keywords: ['syrup', 'maple'],
      specifications: { grade: 'A', volume: '500 ml' },
      rating: 0,
      reviewCount: 0,
      reviews: [],
      priceRange: { minCents: 1899, maxCents: 1899 },
      options: [],
      // A product sold one way: one variant, under the product's own id, its SKU the id's key.
      variants: [
        {
          id: res.body.id,
          sku: defaultSku(res.body.id),
          options: {},
          title: '',
          priceCents: 1899,
          compareAtPriceCents: null,
          stockQuantity: 12,
          available: true,
          weight: null,
          dimensions: null,
          imageUrl: null,
          barcode: null,
          status: 'active',
        },
      ],
      language: 'en-CA',
      descriptionLanguage: 'en-CA',
      optionsLanguage: 'en-CA',
      sourceLanguage: 'en-CA',
      translations: {},
      // Its seller's (and admins') alone: offered to AI agents by default.
      agentChannels: true,
    });
    expect(Math.abs(res.body.dateCreated - t.clock.now().getTime() / 1000)).toBeLessThan(5);

    // The detail answers the same, the seller's choice of channels aside.
    const b = await buyer(t.api);
    const got = await t.api.as(b).get(`/products/${res.body.id}`);
    expect(got.status).toBe(200);
    const { agentChannels: _, ...forBuyers } = res.body;
    expect(got.body).toEqual(forBuyers);

    const [row] = await database.db.select().from(products).where(eq(products.id, res.body.id));
    expect(row).toMatchObject({ sellerId: s.id, status: 'active', priceCents: 1899, weightKg: 1.5 });
  });

  it('applies the defaults of the optional fields', async () => {
    const s = await seller(t.api);
    const res = await t.api.as(s).post('/products', { title: 'Plain mug', priceCents: 1200, weight: 0.4 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: '',
      stockQuantity: 0,
      imageUrl: null,
      imageUrls: [],
      categoryId: null,
      isDigital: false,
      isPerishable: false,
      weight: 0.4,
      dimensions: null,
      keywords: [],
      specifications: {},
      status: 'active',
    });
  });

  it("creates a draft when asked for status 'draft'", async () => {
    const s = await seller(t.api);
    const res = await t.api
      .as(s)
      .post('/products', { title: 'Draft', priceCents: 100, weight: 1, status: 'draft' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('draft');
    const [row] = await database.db.select().from(products).where(eq(products.id, res.body.id));
    expect(row!.status).toBe('draft');
  });

  it('refuses every broken rule with 400 VALIDATION_ERROR naming the field', async () => {
    const s = await seller(t.api);
    const base = { title: 'Rule test', priceCents: 1000, weight: 1 };
    const price = [{ field: 'priceCents', message: 'must be a positive integer (cents)' }];
    for (const priceCents of [0, -5, 12.5, '100']) {
      expectInvalid(await t.api.as(s).post('/products', { ...base, priceCents }), price);
    }
    expectInvalid(await t.api.as(s).post('/products', { ...base, stockQuantity: -1 }), [
      { field: 'stockQuantity', message: 'must be an integer >= 0' },
    ]);
    expectInvalid(await t.api.as(s).post('/products', { title: 'No weight', priceCents: 1000 }), [
      { field: 'weight', message: 'required for a physical product: kilograms, greater than 0' },
    ]);
    expectInvalid(await t.api.as(s).post('/products', { ...base, weight: null }), [
      { field: 'weight', message: 'required for a physical product: kilograms, greater than 0' },
    ]);
    expectInvalid(
      await t.api
        .as(s)
        .post('/products', { ...base, isDigital: true, isPerishable: true, weight: undefined }),
      [{ field: 'isPerishable', message: 'a digital product cannot be perishable' }],
    );
    const unknownCategory = await t.api
      .as(s)
      .post('/products', { ...base, categoryId: 'categories:doesnotexist00000000' });
    expect(unknownCategory.body).toEqual({
      error: 'Unknown category categories:doesnotexist00000000',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'categoryId', message: 'unknown category' }],
    });
    for (const imageUrl of ['not a url', 'ftp://img.example.ca/a.jpg', 'javascript:alert(1)']) {
      expectInvalid(await t.api.as(s).post('/products', { ...base, imageUrl }), [
        { field: 'imageUrl', message: 'must be an http(s) URL' },
      ]);
    }
    // Nothing of that was stored.
    const mine = await database.db.select().from(products).where(eq(products.sellerId, s.id));
    expect(mine).toEqual([]);
  });

  it('an empty categoryId is an unknown category (400), on create and on change, never a broken foreign key', async () => {
    // Found by the fuzz test: "" skipped the category check and reached the foreign key (500).
    const s = await seller(t.api);
    const created = await product(t.api, s);
    for (const res of [
      await t.api.as(s).post('/products', { title: 'Tray', priceCents: 1000, weight: 1, categoryId: '' }),
      await t.api.as(s).patch(`/products/${created.id}`, { categoryId: '' }),
    ]) {
      expect(res.body).toEqual({
        error: 'Unknown category ""',
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'categoryId', message: 'unknown category' }],
      });
    }
    const listed = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(
      listed.body.products.map((p: { id: string; categoryId: string | null }) => [p.id, p.categoryId]),
    ).toEqual([[created.id, null]]);
  });

  it('a digital product needs no weight; weight and dimensions are not kept for it', async () => {
    const s = await seller(t.api);
    const res = await t.api.as(s).post('/products', { title: 'E-book', priceCents: 999, isDigital: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ isDigital: true, isPerishable: false, weight: null, dimensions: null });
    const sent = await t.api.as(s).post('/products', {
      title: 'Sound pack',
      priceCents: 499,
      isDigital: true,
      weight: 2,
      dimensions: { width: 1, height: 1, depth: 1 },
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ weight: null, dimensions: null });
  });

  it('a buyer creating a product is 403 AUTHZ_ERROR', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).post('/products', { title: 'Mine', priceCents: 100, weight: 1 });
    expectError(res, 'AUTHZ_ERROR', 403, 'AUTHZ_ERROR: This needs the seller role; you are buyer');
  });

  it("a seller naming another seller's id is 403; their own id is fine", async () => {
    const s = await seller(t.api);
    const other = await seller(t.api);
    const res = await t.api
      .as(s)
      .post('/products', { title: 'Sneaky', priceCents: 100, weight: 1, sellerId: other.id });
    expectError(res, 'AUTHZ_ERROR', 403, 'AUTHZ_ERROR: A seller creates products in their own catalog only');
    expect(await database.db.select().from(products).where(eq(products.sellerId, other.id))).toEqual([]);
    const own = await t.api
      .as(s)
      .post('/products', { title: 'Mine', priceCents: 100, weight: 1, sellerId: s.id });
    expect(own.status).toBe(201);
    expect(own.body.sellerId).toBe(s.id);
  });

  it('an admin must name the seller, and then creates in that catalog', async () => {
    const s = await seller(t.api);
    const missing = await t.api.as(root).post('/products', { title: 'Admin', priceCents: 100, weight: 1 });
    expect(missing.body).toEqual({
      error: 'An admin must name the seller',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'sellerId', message: 'required for admins' }],
    });
    const b = await buyer(t.api);
    const notSeller = await t.api
      .as(root)
      .post('/products', { title: 'Admin', priceCents: 100, weight: 1, sellerId: b.id });
    expectInvalid(notSeller, [{ field: 'sellerId', message: 'not a seller' }]);
    const res = await t.api
      .as(root)
      .post('/products', { title: 'Admin made', priceCents: 100, weight: 1, sellerId: s.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sellerId: s.id, sellerName: 'Maple Goods', status: 'active' });
  });
});

describe('GET /products answer', () => {
  it('is exactly the productList contract (it is serialized without a second check)', async () => {
    const s = await seller(t.api);
    await product(t.api, s, { imageUrl: 'https://img.example.ca/a.jpg' });
    await product(t.api, s, { isDigital: true, status: 'draft' });
    const res = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(res.status).toBe(200);
    expect(productList.parse(res.body)).toEqual(res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(productList.shape).sort());
    expect(res.body.products).toHaveLength(2);
    for (const item of res.body.products) {
      expect(Object.keys(item).sort()).toEqual(Object.keys(productListItem.shape).sort());
    }
  });
});

describe('product reads inside a transaction', () => {
  it('answer as over HTTP: the listing and the search page read through the query builder', async () => {
    // Outside a transaction these reads go straight to the driver; inside one (a service
    // joining its caller's transaction) through the transaction's handle.
    const s = await seller(t.api);
    const cat = await category(t.api, root);
    for (const priceCents of [1200, 2500, 4000]) {
      await product(t.api, s, { categoryId: cat.id, priceCents, imageUrl: 'https://img.example.ca/t.jpg' });
    }
    const query = { categoryId: cat.id, minPrice: 1000, maxPrice: 3000, limit: 20, offset: 0 };
    const http = await t.api
      .as(s)
      .get(`/products?categoryId=${encodeURIComponent(cat.id)}&minPrice=1000&maxPrice=3000`);
    expect(http.body.products).toHaveLength(2);
    const ctx = {
      db: database.db,
      now: () => t.clock.now(),
      log: t.app.log,
      user: { id: s.id, email: s.email, role: 'seller' as const },
    };
    const [listed, byIds] = await inTransaction(ctx, async (tx) => [
      await listProducts(tx, query),
      await listItemsByIds(tx, [...ids(http)].reverse()),
    ]);
    expect(listed).toEqual(http.body);
    expect(byIds).toEqual([...http.body.products].reverse());
  });
});

describe('visibility', () => {
  it('a draft or inactive product is 404 to buyers and other sellers, visible to its owner and admins', async () => {
    const owner = await seller(t.api);
    const other = await seller(t.api);
    const b = await buyer(t.api);
    const draft = await product(t.api, owner, { status: 'draft' });
    const inactive = await product(t.api, owner);
    expect((await t.api.as(owner).patch(`/products/${inactive.id}`, { status: 'inactive' })).status).toBe(
      200,
    );
    for (const p of [draft, inactive]) {
      for (const who of [b, other]) {
        const res = await t.api.as(who).get(`/products/${p.id}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(notFound(p.id));
      }
      for (const who of [owner, root]) {
        const res = await t.api.as(who).get(`/products/${p.id}`);
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(p.id);
      }
    }
  });

  it('an active product is visible to everyone', async () => {
    const owner = await seller(t.api);
    const p = await product(t.api, owner);
    // The seller's choice of agent channels is theirs and the admins' to read.
    const { agentChannels: _, ...forOthers } = p;
    for (const [who, seen] of [
      [owner, p],
      [await seller(t.api), forOthers],
      [await buyer(t.api), forOthers],
      [root, p],
    ] as const) {
      const res = await t.api.as(who).get(`/products/${p.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(seen);
    }
  });

  it('GET /products: buyers list active only; a seller also lists all of their own; status filters', async () => {
    const word = uniqueWord();
    const a = await seller(t.api);
    const other = await seller(t.api);
    const b = await buyer(t.api);
    const aActive = await product(t.api, a, { title: `A active ${word}` });
    const aDraft = await product(t.api, a, { title: `A draft ${word}`, status: 'draft' });
    const aInactive = await product(t.api, a, { title: `A inactive ${word}` });
    await t.api.as(a).patch(`/products/${aInactive.id}`, { status: 'inactive' });
    const oActive = await product(t.api, other, { title: `Other active ${word}` });
    const oDraft = await product(t.api, other, { title: `Other draft ${word}`, status: 'draft' });
    const list = (who: SignedIn, extra = '') => t.api.as(who).get(`/products?search=${word}${extra}`);

    const forBuyer = await list(b);
    expect(forBuyer.status).toBe(200);
    expect(forBuyer.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(ids(forBuyer)).toEqual([aActive.id, oActive.id]);
    expect(forBuyer.body.products[0]).toEqual({
      id: aActive.id,
      title: aActive.title,
      description: '',
      priceCents: 1000,
      imageUrl: null,
      imageUrls: [],
      stockQuantity: 10,
      sellerId: a.id,
      categoryId: null,
      status: 'active',
      dateCreated: expect.any(Number),
      isPerishable: false,
      isDigital: false,
      rating: 0,
      reviewCount: 0,
      priceRange: { minCents: 1000, maxCents: 1000 },
      language: 'en-CA',
      descriptionLanguage: 'en-CA',
    });

    expect(ids(await list(a))).toEqual([aActive.id, aDraft.id, aInactive.id, oActive.id]);
    expect(ids(await list(other))).toEqual([aActive.id, oActive.id, oDraft.id]);
    expect(ids(await list(root))).toEqual([aActive.id, aDraft.id, aInactive.id, oActive.id, oDraft.id]);

    expect(ids(await list(a, '&status=draft'))).toEqual([aDraft.id]);
    expect(ids(await list(a, '&status=inactive'))).toEqual([aInactive.id]);
    expect(ids(await list(root, '&status=draft'))).toEqual([aDraft.id, oDraft.id]);
    const buyerDrafts = await list(b, '&status=draft');
    expect(buyerDrafts.body).toEqual({ products: [], total: 0, limit: 20, offset: 0 });
    expectInvalid(await list(b, '&status=gone'), [
      { field: 'status', message: 'must be one of draft, active, inactive, deleted' },
    ]);
  });

  it('deleted products are left out by default and listed for their owner with status=deleted', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const kept = await product(t.api, s, { title: `Kept ${word}` });
    const gone = await product(t.api, s, { title: `Gone ${word}` });
    expect((await t.api.as(s).delete(`/products/${gone.id}`)).status).toBe(200);
    for (const who of [s, b, root]) {
      expect(ids(await t.api.as(who).get(`/products?search=${word}`))).toEqual([kept.id]);
    }
    const deleted = await t.api.as(s).get(`/products?search=${word}&status=deleted`);
    expect(ids(deleted)).toEqual([gone.id]);
    expect(deleted.body.products[0].status).toBe('deleted');
    expect(ids(await t.api.as(b).get(`/products?search=${word}&status=deleted`))).toEqual([]);
    expect(ids(await t.api.as(await seller(t.api)).get(`/products?search=${word}&status=deleted`))).toEqual(
      [],
    );
  });
});

describe('PATCH /products/:id', () => {
  it('the owner changes title and price; the detail reflects it', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Old title', priceCents: 1000 });
    const res = await t.api.as(s).patch(`/products/${p.id}`, { title: 'New title', priceCents: 1250 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...p,
      title: 'New title',
      priceCents: 1250,
      priceRange: { minCents: 1250, maxCents: 1250 },
      variants: [{ ...p.variants[0], priceCents: 1250 }],
    });
    const b = await buyer(t.api);
    const { agentChannels: _, ...forBuyers } = res.body;
    expect((await t.api.as(b).get(`/products/${p.id}`)).body).toEqual(forBuyers);
  });

  it('moves a product between draft, active and inactive', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { status: 'draft' });
    for (const status of ['active', 'inactive', 'draft', 'active']) {
      const res = await t.api.as(s).patch(`/products/${p.id}`, { status });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
  });

  it('another seller: 403 on an active product (visible), 404 on a draft (invisible); a buyer: 403', async () => {
    const owner = await seller(t.api);
    const other = await seller(t.api);
    const active = await product(t.api, owner, { title: 'Active' });
    const draft = await product(t.api, owner, { title: 'Draft', status: 'draft' });
    const forbidden = await t.api.as(other).patch(`/products/${active.id}`, { title: 'Mine now' });
    expectError(
      forbidden,
      'AUTHZ_ERROR',
      403,
      `AUTHZ_ERROR: Only the seller who owns product ${active.id} may change it`,
    );
    const hidden = await t.api.as(other).patch(`/products/${draft.id}`, { title: 'Mine now' });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(notFound(draft.id));
    const b = await buyer(t.api);
    const byBuyer = await t.api.as(b).patch(`/products/${active.id}`, { title: 'Mine now' });
    expect(byBuyer.status).toBe(403);
    expect(byBuyer.body.code).toBe('AUTHZ_ERROR');
    const [row] = await database.db.select().from(products).where(eq(products.id, active.id));
    expect(row!.title).toBe('Active');
  });

  it('refuses status deleted, digital and perishable together, and an empty body', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { isPerishable: true });
    expectInvalid(await t.api.as(s).patch(`/products/${p.id}`, { status: 'deleted' }), [
      { field: 'status', message: 'must be draft, active or inactive (use DELETE to delete)' },
    ]);
    expectInvalid(await t.api.as(s).patch(`/products/${p.id}`, { isDigital: true }), [
      { field: 'isPerishable', message: 'a digital product cannot be perishable' },
    ]);
    const empty = await t.api.as(s).patch(`/products/${p.id}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: expect.any(String), message: 'send at least one field to change' }],
    });
    expectInvalid(await t.api.as(s).patch(`/products/${p.id}`, { priceCents: 0 }), [
      { field: 'priceCents', message: 'must be a positive integer (cents)' },
    ]);
    expectInvalid(await t.api.as(s).patch(`/products/${p.id}`, { weight: null }), [
      { field: 'weight', message: 'required for a physical product: kilograms, greater than 0' },
    ]);
    const [row] = await database.db.select().from(products).where(eq(products.id, p.id));
    expect(row).toMatchObject({ status: 'active', isDigital: false, isPerishable: true, weightKg: 1 });
  });

  it('turning a product digital drops its weight and dimensions', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { weight: 2, dimensions: { width: 1, height: 2, depth: 3 } });
    const res = await t.api.as(s).patch(`/products/${p.id}`, { isDigital: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ isDigital: true, weight: null, dimensions: null });
    // Back to physical: it needs a weight again.
    expectInvalid(await t.api.as(s).patch(`/products/${p.id}`, { isDigital: false }), [
      { field: 'weight', message: 'required for a physical product: kilograms, greater than 0' },
    ]);
  });

  it('a deleted product cannot change: 409', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    await t.api.as(s).delete(`/products/${p.id}`);
    const res = await t.api.as(s).patch(`/products/${p.id}`, { title: 'Back' });
    expectError(res, 'CONFLICT', 409, `Product ${p.id} is deleted; a deleted product cannot change`);
  });
});

describe('DELETE /products/:id', () => {
  it('soft deletes: 200 with status deleted, the row stays, buyers get 404, and it never comes back', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s);
    const res = await t.api.as(s).delete(`/products/${p.id}`);
    expect(res.status).toBe(200);
    // Its variant is no longer on sale.
    expect(res.body).toEqual({ ...p, status: 'deleted', variants: [{ ...p.variants[0], available: false }] });

    const rows = await database.db.select().from(products).where(eq(products.id, p.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: p.id, status: 'deleted', title: p.title, sellerId: s.id });

    expect(await t.api.as(b).get(`/products/${p.id}`)).toMatchObject({ status: 404, body: notFound(p.id) });
    expect((await t.api.as(s).get(`/products/${p.id}`)).body.status).toBe('deleted');

    for (const status of ['active', 'draft', 'inactive']) {
      expect((await t.api.as(s).patch(`/products/${p.id}`, { status })).status).toBe(409);
    }
    const [after] = await database.db.select().from(products).where(eq(products.id, p.id));
    expect(after!.status).toBe('deleted');
  });

  it('only the owner deletes: another seller 403 (active) or 404 (draft), a buyer 403', async () => {
    const owner = await seller(t.api);
    const other = await seller(t.api);
    const active = await product(t.api, owner);
    const draft = await product(t.api, owner, { status: 'draft' });
    expect((await t.api.as(other).delete(`/products/${active.id}`)).status).toBe(403);
    expect(await t.api.as(other).delete(`/products/${draft.id}`)).toMatchObject({
      status: 404,
      body: notFound(draft.id),
    });
    expect((await t.api.as(await buyer(t.api)).delete(`/products/${active.id}`)).status).toBe(403);
    const rows = await database.db.select().from(products).where(eq(products.sellerId, owner.id));
    expect(rows.map((r) => r.status).sort()).toEqual(['active', 'draft']);
  });
});

describe('unknown and malformed ids', () => {
  it('are 404 NOT_FOUND, never 500, on every product route', async () => {
    const s = await seller(t.api);
    const raw = [
      'products:nope',
      'users:abc',
      "'; drop table products;--",
      'products:',
      `products:${'x'.repeat(70)}`,
    ];
    for (const id of raw) {
      const path = `/products/${encodeURIComponent(id)}`;
      for (const res of [
        await t.api.as(s).get(path),
        await t.api.as(s).patch(path, { title: 'x' }),
        await t.api.as(s).delete(path),
        await t.api.as(root).get(path),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(notFound(id));
      }
    }
    // The products table is intact.
    const [count] = await database.db.select({ n: sql<number>`count(*)::int` }).from(products);
    expect(count!.n).toBeGreaterThan(0);
  });
});

describe('new ids', () => {
  it('are well-formed and distinct, across refills of their random pool', () => {
    // 4 KiB of pool at 15 bytes an id: 1,000 ids refill it three times.
    const ids = Array.from({ length: 1000 }, () => newId('orders'));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) {
      expect(id).toMatch(/^orders:[A-Za-z0-9_-]{20}$/);
      expect(isRecordId('orders', id)).toBe(true);
    }
    const keys = Array.from({ length: 600 }, () => randomKey(12));
    expect(new Set(keys).size).toBe(600);
    expect(keys.every((k) => /^[A-Za-z0-9_-]{16}$/.test(k))).toBe(true);
    expect(() => randomKey(65)).toThrow(RangeError);
  });
});

describe('GET /products query parameters', () => {
  it('limit defaults to 20 and may not exceed 100; offset pages', async () => {
    const s = await seller(t.api);
    const made = [];
    for (let i = 0; i < 22; i++) made.push((await product(t.api, s, { title: `Item ${i}` })).id);
    const first = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 22, limit: 20, offset: 0 });
    expect(ids(first)).toEqual(made.slice(0, 20));
    const rest = await t.api.as(s).get(`/products?sellerId=${s.id}&offset=20`);
    expect(rest.body).toMatchObject({ total: 22, limit: 20, offset: 20 });
    expect(ids(rest)).toEqual(made.slice(20));
    const small = await t.api.as(s).get(`/products?sellerId=${s.id}&limit=5&offset=3`);
    expect(ids(small)).toEqual(made.slice(3, 8));
    expect((await t.api.as(s).get(`/products?sellerId=${s.id}&limit=100`)).body.products).toHaveLength(22);
    expectInvalid(await t.api.as(s).get(`/products?sellerId=${s.id}&limit=101`), [
      { field: 'limit', message: 'must be at most 100' },
    ]);
    expectInvalid(await t.api.as(s).get('/products?limit=0'), [
      { field: 'limit', message: 'must be at least 1' },
    ]);
    expectInvalid(await t.api.as(s).get('/products?offset=-1'), [
      { field: 'offset', message: 'must be at least 0' },
    ]);
  });

  it('filters by seller, category and inclusive price range', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const other = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    const p1000 = await product(t.api, s, { title: `One ${word}`, priceCents: 1000, categoryId: cat.id });
    const p2000 = await product(t.api, s, { title: `Two ${word}`, priceCents: 2000 });
    const p3000 = await product(t.api, other, {
      title: `Three ${word}`,
      priceCents: 3000,
      categoryId: cat.id,
    });
    const q = (extra: string) => t.api.as(b).get(`/products?search=${word}&${extra}`);
    expect(ids(await q(`sellerId=${s.id}`))).toEqual([p1000.id, p2000.id]);
    expect(ids(await q(`sellerId=${other.id}`))).toEqual([p3000.id]);
    expect(ids(await q(`categoryId=${encodeURIComponent(cat.id)}`))).toEqual([p1000.id, p3000.id]);
    expect(ids(await q('minPrice=1000&maxPrice=2000'))).toEqual([p1000.id, p2000.id]);
    expect(ids(await q('minPrice=2000'))).toEqual([p2000.id, p3000.id]);
    expect(ids(await q('maxPrice=2999'))).toEqual([p1000.id, p2000.id]);
    expect(ids(await q('minPrice=3000&maxPrice=3000'))).toEqual([p3000.id]);
    expect((await q('minPrice=1000&maxPrice=2000')).body.total).toBe(2);
    const bad = await q('minPrice=2001&maxPrice=2000');
    expectInvalid(bad, [{ field: 'minPrice', message: 'minPrice must not exceed maxPrice' }]);
    expect((await q('minPrice=abc')).status).toBe(400);
  });

  it('search is full text over title, keywords and description', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const inTitle = await product(t.api, s, { title: `Lantern ${word}` });
    const inKeywords = await product(t.api, s, { title: 'Candle', keywords: [word] });
    const inDescription = await product(t.api, s, {
      title: 'Wick',
      description: `Spare wick for the ${word}`,
    });
    await product(t.api, s, { title: 'Unrelated' });
    const res = await t.api.as(s).get(`/products?search=${word}`);
    expect(res.body.total).toBe(3);
    expect(ids(res)).toEqual([inTitle.id, inKeywords.id, inDescription.id]);
    const two = await t.api.as(s).get(`/products?search=${encodeURIComponent(`lantern ${word}`)}`);
    expect(ids(two)).toEqual([inTitle.id]);
    const punctuation = await t.api.as(s).get(`/products?search=${encodeURIComponent('!!! ???')}`);
    expect(punctuation.body).toEqual({ products: [], total: 0, limit: 20, offset: 0 });
  });

  it('pages neither overlap nor skip while the seller adds products', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const originals: string[] = [];
    for (let i = 0; i < 25; i++) originals.push((await product(t.api, s, { title: `Original ${i}` })).id);
    const page = (offset: number) => t.api.as(b).get(`/products?sellerId=${s.id}&limit=5&offset=${offset}`);
    // The list's own order (oldest first, ties by id: two products made in one millisecond
    // tie), read before any product is added.
    const before = (await t.api.as(b).get(`/products?sellerId=${s.id}&limit=25`)) as Answer;
    expect([...ids(before)].sort()).toEqual([...originals].sort());
    const create = (i: number) => product(t.api, s, { title: `Added ${i}` });
    // Interleave: a page, a new product, a page, a new product...
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 5; i++) work.push(page(i * 5), create(i), create(i + 5));
    const answers = await Promise.all(work);
    const pages = answers.filter((_, i) => i % 3 === 0) as Answer[];
    const seen = pages.flatMap((p) => ids(p)).filter((id) => originals.includes(id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual([...originals].sort());
    // The pages are exactly the originals, in the order the list gave them before the adds.
    expect(pages.flatMap((p) => ids(p))).toEqual(ids(before));
    expect((await page(25)).body.products).toHaveLength(5);
    expect((await page(0)).body.total).toBe(35);
  });
});

describe('dateCreated', () => {
  it('is the creation time in whole Unix seconds (truncated), the same in the detail and the list', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    // 750 ms past the second: truncation and rounding disagree.
    await database.db
      .update(products)
      .set({ createdAt: new Date('2024-05-01T12:00:00.750Z') })
      .where(eq(products.id, p.id));
    const expected = Date.parse('2024-05-01T12:00:00Z') / 1000;
    const list = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(list.body.products[0].dateCreated).toBe(expected);
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.dateCreated).toBe(expected);
  });

  it("is truncated to whole seconds in a review's dateCreated too", async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const b = await buyer(t.api, 'ivy');
    await database.db.insert(reviews).values({
      id: newId('reviews'),
      productId: p.id,
      buyerId: b.id,
      rating: 5,
      comment: 'Great',
      createdAt: new Date('2024-05-01T12:00:00.750Z'),
    });
    const detail = await t.api.as(b).get(`/products/${p.id}`);
    expect(detail.body.reviews).toEqual([
      {
        rating: 5,
        title: '',
        comment: 'Great',
        author: 'Test ivy',
        dateCreated: Date.parse('2024-05-01T12:00:00Z') / 1000,
      },
    ]);
  });
});

describe('rating aggregates', () => {
  const addReview = (
    productId: string,
    buyerId: string,
    rating: number,
    extra: Partial<typeof reviews.$inferInsert> = {},
  ) =>
    database.db
      .insert(reviews)
      .values({ id: newId('reviews'), productId, buyerId, rating, ...extra })
      .returning({ id: reviews.id })
      .then((rows) => rows[0]!.id);

  it('count published reviews only, for the product and its seller; the detail lists the newest', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const other = await product(t.api, s);
    const [ann, bob, cat, dan, eve] = [
      await buyer(t.api, 'ann'),
      await buyer(t.api, 'bob'),
      await buyer(t.api, 'cat'),
      await buyer(t.api, 'dan'),
      await buyer(t.api, 'eve'),
    ];
    const at = (iso: string) => new Date(iso);
    const r5 = await addReview(p.id, ann!.id, 5, {
      comment: 'Lovely',
      createdAt: at('2024-03-01T10:00:00Z'),
    });
    await addReview(p.id, bob!.id, 4, { comment: 'Good', createdAt: at('2024-03-02T10:00:00Z') });
    const hidden = await addReview(p.id, cat!.id, 1, {
      comment: 'Spam http://x.example',
      published: false,
      createdAt: at('2024-03-03T10:00:00Z'),
    });
    const r3 = await addReview(other.id, dan!.id, 3, {
      comment: 'Fine',
      createdAt: at('2024-03-04T10:00:00Z'),
    });

    const detail = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      rating: 4.5,
      reviewCount: 2,
      seller: { name: 'Maple Goods', rating: 4, reviewCount: 3 },
    });
    expect(detail.body.reviews).toEqual([
      {
        rating: 4,
        title: '',
        comment: 'Good',
        author: 'Test bob',
        dateCreated: Date.parse('2024-03-02T10:00:00Z') / 1000,
      },
      {
        rating: 5,
        title: '',
        comment: 'Lovely',
        author: 'Test ann',
        dateCreated: Date.parse('2024-03-01T10:00:00Z') / 1000,
      },
    ]);
    const listed = await t.api.as(dan!).get(`/products?sellerId=${s.id}`);
    expect(
      listed.body.products.map((x: { rating: number; reviewCount: number }) => [x.rating, x.reviewCount]),
    ).toEqual([
      [4.5, 2],
      [3, 1],
    ]);

    // Deleting reviews updates both aggregates.
    await database.db.delete(reviews).where(eq(reviews.id, r3));
    const afterSeller = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(afterSeller.body).toMatchObject({
      rating: 4.5,
      reviewCount: 2,
      seller: { rating: 4.5, reviewCount: 2 },
    });
    await database.db.delete(reviews).where(eq(reviews.id, r5));
    const afterProduct = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(afterProduct.body).toMatchObject({
      rating: 4,
      reviewCount: 1,
      seller: { rating: 4, reviewCount: 1 },
    });
    expect(afterProduct.body.reviews).toEqual([
      {
        rating: 4,
        title: '',
        comment: 'Good',
        author: 'Test bob',
        dateCreated: Date.parse('2024-03-02T10:00:00Z') / 1000,
      },
    ]);
    // Adding and deleting an unpublished review changes nothing; publishing a held one counts it.
    const pending = await addReview(p.id, eve!.id, 2, { published: false });
    await database.db.delete(reviews).where(eq(reviews.id, pending));
    const unchanged = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(unchanged.body).toMatchObject({
      rating: 4,
      reviewCount: 1,
      seller: { rating: 4, reviewCount: 1 },
    });
    await database.db.update(reviews).set({ published: true }).where(eq(reviews.id, hidden));
    const published = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(published.body).toMatchObject({
      rating: 2.5,
      reviewCount: 2,
      seller: { rating: 2.5, reviewCount: 2 },
    });
    expect(published.body.reviews.map((r: { author: string }) => r.author)).toEqual(['Test cat', 'Test bob']);

    const [row] = await database.db.select().from(products).where(eq(products.id, p.id));
    expect(row).toMatchObject({ reviewCount: 2, ratingSum: 5, rating: 2.5 });
    // Holding a published review back uncounts it.
    await database.db.update(reviews).set({ published: false }).where(eq(reviews.id, hidden));
    const held = await t.api.as(dan!).get(`/products/${p.id}`);
    expect(held.body).toMatchObject({ rating: 4, reviewCount: 1, seller: { rating: 4, reviewCount: 1 } });
    expect(held.body.reviews.map((r: { author: string }) => r.author)).toEqual(['Test bob']);
    const back = await database.db.select().from(products).where(eq(products.id, other.id));
    expect(back[0]).toMatchObject({ reviewCount: 0, ratingSum: 0, rating: 0 });
  });

  it('rounds the average to two decimals, the same in the detail, the list and the search', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: `Rated ${word}` });
    for (const [i, rating] of [5, 4, 4].entries()) {
      await addReview(p.id, (await buyer(t.api, `avg${i}`)).id, rating);
    }
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body).toMatchObject({
      rating: 4.33,
      reviewCount: 3,
      seller: { rating: 4.33, reviewCount: 3 },
    });
    const listed = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(listed.body.products[0]).toMatchObject({ rating: 4.33, reviewCount: 3 });
    const found = await t.api.as(s).get(`/search/products?q=${word}`);
    expect(found.body.results[0]).toMatchObject({ rating: 4.33, reviewCount: 3 });
  });

  it('the detail lists at most the 5 newest published reviews', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    for (let i = 1; i <= 7; i++) {
      const b = await buyer(t.api, `r${i}`);
      await addReview(p.id, b.id, (i % 5) + 1, {
        comment: `Review ${i}`,
        createdAt: new Date(Date.UTC(2024, 0, i)),
      });
    }
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.reviewCount).toBe(7);
    expect(detail.body.reviews.map((r: { comment: string }) => r.comment)).toEqual([
      'Review 7',
      'Review 6',
      'Review 5',
      'Review 4',
      'Review 3',
    ]);
  });
});
