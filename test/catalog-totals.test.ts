// GET /products `total`: the number of products that match, for the caller, at the moment
// of the request. Totals are remembered between requests (docs/api.md "Catalog"), so these tests
// change what matches in every way a product can change, through the API and straight in the
// database (as another instance would), and ask again with one-product pages, whose total
// is never known from the page itself.
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/contract/common.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';

const { t, database } = useTestApp();
let root: SignedIn;

beforeAll(async () => {
  root = await admin(t.api, database);
});

/** The total of a one-product page of `query`, asked twice (counted, then remembered). */
async function total(who: SignedIn, query: string): Promise<number> {
  const first = await t.api.as(who).get(`/products?limit=1&${query}`);
  const again = await t.api.as(who).get(`/products?limit=1&${query}`);
  expect(first.status).toBe(200);
  expect(again.body.total).toBe(first.body.total);
  return first.body.total;
}

describe('GET /products total', () => {
  it('follows every change made through the API that moves a product in or out of a listing', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    const elsewhere = await category(t.api, root);
    const inRange = `categoryId=${encodeURIComponent(cat.id)}&minPrice=1000&maxPrice=5000`;
    const [p1, p2] = [
      await product(t.api, s, { categoryId: cat.id, priceCents: 1000 }),
      await product(t.api, s, { categoryId: cat.id, priceCents: 5000 }),
      await product(t.api, s, { categoryId: cat.id, priceCents: 2500 }),
    ];
    await product(t.api, s, { categoryId: cat.id, priceCents: 5001 });
    expect(await total(b, inRange)).toBe(3);

    await product(t.api, s, { categoryId: cat.id, priceCents: 3000 });
    expect(await total(b, inRange)).toBe(4);

    const patch = (id: string, body: object) => t.api.as(s).patch(`/products/${id}`, body);
    expect((await patch(p1!.id, { priceCents: 999 })).status).toBe(200);
    expect(await total(b, inRange)).toBe(3);
    expect((await patch(p1!.id, { priceCents: 1500 })).status).toBe(200);
    expect(await total(b, inRange)).toBe(4);

    // Changes that move nothing in or out leave it as it was.
    expect((await patch(p1!.id, { stockQuantity: 3, weight: 2 })).status).toBe(200);
    expect(await total(b, inRange)).toBe(4);

    expect((await patch(p2!.id, { status: 'inactive' })).status).toBe(200);
    expect(await total(b, inRange)).toBe(3);
    expect(await total(s, inRange)).toBe(4); // the seller still sees their own
    expect((await patch(p2!.id, { status: 'active' })).status).toBe(200);
    expect(await total(b, inRange)).toBe(4);

    const moved = `categoryId=${encodeURIComponent(elsewhere.id)}`;
    expect(await total(b, moved)).toBe(0);
    expect((await patch(p2!.id, { categoryId: elsewhere.id })).status).toBe(200);
    expect(await total(b, inRange)).toBe(3);
    expect(await total(b, moved)).toBe(1);

    expect((await t.api.as(s).delete(`/products/${p1!.id}`)).status).toBe(200);
    expect(await total(b, inRange)).toBe(2);
    expect(await total(s, `${inRange}&status=deleted`)).toBe(1);
  });

  it('follows a listing of every category and a text search', async () => {
    const word = uniqueWord();
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    const a = await product(t.api, s, { title: `Lamp ${word}`, categoryId: cat.id });
    await product(t.api, s, { title: `Shade ${word}` });
    const bySearch = `search=${word}`;
    expect(await total(b, bySearch)).toBe(2);

    // A product of another category, or of none, changes a listing of every category.
    await product(t.api, s, { title: `Bulb ${word}` });
    expect(await total(b, bySearch)).toBe(3);
    const other = await category(t.api, root);
    await product(t.api, s, { title: `Base ${word}`, categoryId: other.id });
    expect(await total(b, bySearch)).toBe(4);

    // A text change moves a product out of a search.
    expect((await t.api.as(s).patch(`/products/${a.id}`, { title: 'Lamp' })).status).toBe(200);
    expect(await total(b, bySearch)).toBe(3);
    expect((await t.api.as(s).patch(`/products/${a.id}`, { keywords: [word] })).status).toBe(200);
    expect(await total(b, bySearch)).toBe(4);
  });

  it('follows changes written straight to the database, as by another instance', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    const listing = `categoryId=${encodeURIComponent(cat.id)}&maxPrice=2000`;
    await product(t.api, s, { categoryId: cat.id, priceCents: 1000 });
    await product(t.api, s, { categoryId: cat.id, priceCents: 1500 });
    expect(await total(b, listing)).toBe(2);

    const id = newId('products');
    await database.db.insert(products).values({
      id,
      sellerId: s.id,
      categoryId: cat.id,
      title: 'Written elsewhere',
      priceCents: 2000,
      priceMaxCents: 2000,
    });
    expect(await total(b, listing)).toBe(3);
    await database.db
      .update(products)
      .set({ priceCents: 2001, priceMaxCents: 2001 })
      .where(eq(products.id, id));
    expect(await total(b, listing)).toBe(2);
    await database.db.update(products).set({ priceCents: 10, priceMaxCents: 10 }).where(eq(products.id, id));
    expect(await total(b, listing)).toBe(3);
    await database.db.update(products).set({ status: 'draft' }).where(eq(products.id, id));
    expect(await total(b, listing)).toBe(2);
    expect(await total(s, listing)).toBe(3);
    await database.db.update(products).set({ categoryId: null }).where(eq(products.id, id));
    expect(await total(s, listing)).toBe(2);
    await database.db
      .update(products)
      .set({ categoryId: cat.id, status: 'active' })
      .where(eq(products.id, id));
    expect(await total(b, listing)).toBe(3);
    await database.db.execute(sql`delete from products where id = ${id}`);
    expect(await total(b, listing)).toBe(2);
  });

  it('counts for each caller what they may see: buyers, each seller, admins', async () => {
    const s = await seller(t.api);
    const other = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    const listing = `categoryId=${encodeURIComponent(cat.id)}`;
    await product(t.api, s, { categoryId: cat.id });
    await product(t.api, s, { categoryId: cat.id, status: 'draft' });
    await product(t.api, other, { categoryId: cat.id, status: 'draft' });
    const gone = await product(t.api, other, { categoryId: cat.id });
    expect((await t.api.as(other).delete(`/products/${gone.id}`)).status).toBe(200);
    // Asked in turns, so that no caller's total is answered from another's.
    for (let round = 0; round < 2; round++) {
      expect(await total(b, listing)).toBe(1);
      expect(await total(s, listing)).toBe(2);
      expect(await total(other, listing)).toBe(2);
      expect(await total(root, listing)).toBe(3);
      expect(await total(root, `${listing}&status=deleted`)).toBe(1);
      expect(await total(b, `${listing}&status=draft`)).toBe(0);
      expect(await total(s, `${listing}&status=draft`)).toBe(1);
    }
  });

  it('is the same on every page, short or past the end', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const cat = await category(t.api, root);
    for (let i = 0; i < 5; i++) await product(t.api, s, { categoryId: cat.id });
    const page = async (limit: number, offset: number) =>
      (
        await t.api
          .as(b)
          .get(`/products?categoryId=${encodeURIComponent(cat.id)}&limit=${limit}&offset=${offset}`)
      ).body;
    for (const [limit, offset, length] of [
      [2, 0, 2],
      [2, 2, 2],
      [2, 4, 1],
      [2, 6, 0],
      [10, 0, 5],
      [1, 100, 0],
    ] as const) {
      const body = await page(limit, offset);
      expect({ limit, offset, length: body.products.length, total: body.total }).toEqual({
        limit,
        offset,
        length,
        total: 5,
      });
    }
    await product(t.api, s, { categoryId: cat.id });
    expect((await page(2, 6)).total).toBe(6);
    expect((await page(2, 0)).total).toBe(6);
  });
});
