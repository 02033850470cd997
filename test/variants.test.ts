// Options and variants over HTTP: a product sold in several ways, each variant with its SKU,
// price and stock; naming a variant in the cart and the inventory check; the last unit of one
// variant raced by two checkouts; the order line naming what was sold; the seller's variant
// writes and their refusals.

import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { productVariants } from '../src/modules/catalog/tables.ts';
import { defaultSku } from '../src/modules/catalog/variants.ts';
import { orderItems } from '../src/modules/orders/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, product, seller, uniqueWord } from './helpers/builders.ts';
import { checkout, ON_ADDRESS, payOk } from './helpers/checkout.ts';
import { deliver, liveReservedUnits, ship, stockOf } from './helpers/orders.ts';

const { t, database } = useTestApp();
let s: SignedIn;

beforeAll(async () => {
  s = await seller(t.api);
});

/** A canoe paddle in two woods and two lengths, three of the four made. */
async function paddle(owner: SignedIn = s, stock = { cedar150: 5, cedar160: 1, ash150: 0 }) {
  const word = uniqueWord();
  const res = await t.api.as(owner).post('/products', {
    title: `Canoe paddle ${word}`,
    weight: 1.2,
    options: [
      { name: 'Wood', values: ['Cedar', 'Ash'] },
      { name: 'Length', values: ['150 cm', '160 cm'] },
    ],
    variants: [
      {
        sku: `PAD-C150-${word}`,
        options: { Wood: 'Cedar', Length: '150 cm' },
        priceCents: 12900,
        stockQuantity: stock.cedar150,
      },
      {
        sku: `PAD-C160-${word}`,
        options: { Wood: 'Cedar', Length: '160 cm' },
        priceCents: 13900,
        compareAtPriceCents: 15900,
        stockQuantity: stock.cedar160,
        weight: 1.4,
      },
      {
        sku: `PAD-A150-${word}`,
        options: { Length: '150 cm', Wood: 'Ash' },
        priceCents: 9900,
        stockQuantity: stock.ash150,
      },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...res.body, word } as {
    id: string;
    title: string;
    word: string;
    variants: Array<{ id: string; sku: string; title: string; priceCents: number }>;
  };
}

describe('a product with options', () => {
  it('is created with its variants in one request; the detail lists options and variants, the list the price range', async () => {
    const p = await paddle();
    expect(p).toMatchObject({
      priceCents: 9900,
      priceRange: { minCents: 9900, maxCents: 13900 },
      stockQuantity: 6,
      options: [
        { name: 'Wood', values: ['Cedar', 'Ash'] },
        { name: 'Length', values: ['150 cm', '160 cm'] },
      ],
    });
    expect(p.variants).toEqual([
      {
        id: expect.stringMatching(/^variants:[A-Za-z0-9_-]{20}$/),
        sku: `PAD-C150-${p.word}`,
        options: { Wood: 'Cedar', Length: '150 cm' },
        title: 'Cedar / 150 cm',
        priceCents: 12900,
        compareAtPriceCents: null,
        stockQuantity: 5,
        available: true,
        weight: null,
        dimensions: null,
        imageUrl: null,
        barcode: null,
        status: 'active',
      },
      expect.objectContaining({
        title: 'Cedar / 160 cm',
        compareAtPriceCents: 15900,
        weight: 1.4,
        available: true,
      }),
      expect.objectContaining({
        title: 'Ash / 150 cm',
        priceCents: 9900,
        stockQuantity: 0,
        available: false,
      }),
    ]);
    const b = await buyer(t.api);
    const list = await t.api.as(b).get(`/products?search=${p.word}`);
    expect(list.body.products).toEqual([
      expect.objectContaining({
        id: p.id,
        priceCents: 9900,
        priceRange: { minCents: 9900, maxCents: 13900 },
        stockQuantity: 6,
      }),
    ]);
    const variants = await t.api.as(b).get(`/products/${p.id}/variants`);
    expect(variants.status).toBe(200);
    expect(variants.body.variants.map((v: { title: string }) => v.title)).toEqual([
      'Cedar / 150 cm',
      'Cedar / 160 cm',
      'Ash / 150 cm',
    ]);
  });

  it('refuses a set that does not hold together, saying why', async () => {
    const post = (body: Record<string, unknown>) =>
      t.api.as(s).post('/products', { title: 'Paddle', weight: 1, ...body });
    const opts = [{ name: 'Wood', values: ['Cedar', 'Ash'] }];
    const noVariants = await post({ options: opts });
    expect(noVariants.status).toBe(400);
    expect(noVariants.body.details).toEqual([{ field: 'variants', message: 'required with options' }]);

    const missing = await post({ options: opts, variants: [{ options: {}, priceCents: 100 }] });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('The variant has no value for the option Wood');

    const unknown = await post({ options: opts, variants: [{ options: { Wood: 'Oak' }, priceCents: 100 }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('Oak is not a value of the option Wood (Cedar, Ash)');

    const twice = await post({
      options: opts,
      variants: [
        { options: { Wood: 'Ash' }, priceCents: 100 },
        { options: { Wood: 'Ash' }, priceCents: 200 },
      ],
    });
    expectError(twice, 'CONFLICT', 409, 'Two variants have the same option values (Ash)');

    const priced = await post({
      priceCents: 100,
      options: opts,
      variants: [{ options: { Wood: 'Ash' }, priceCents: 100 }],
    });
    expect(priced.status).toBe(400);
    expect(priced.body.details).toEqual([{ field: 'priceCents', message: 'set on each variant' }]);

    const four = await post({
      options: ['A', 'B', 'C', 'D'].map((name) => ({ name, values: ['x'] })),
      variants: [{ options: { A: 'x', B: 'x', C: 'x', D: 'x' }, priceCents: 100 }],
    });
    expect(four.status).toBe(400);

    const compareAt = await post({
      options: opts,
      variants: [{ options: { Wood: 'Ash' }, priceCents: 500, compareAtPriceCents: 500 }],
    });
    expect(compareAt.status).toBe(400);
    expect(compareAt.body.details).toEqual([
      { field: 'variants.0.compareAtPriceCents', message: 'must be above the price' },
    ]);
  });

  it('keeps a SKU once per seller (another seller may use it)', async () => {
    const p = await paddle();
    const again = await t.api.as(s).post('/products', {
      title: 'Copy',
      weight: 1,
      priceCents: 100,
      sku: p.variants[0]!.sku,
    });
    expectError(
      again,
      'CONFLICT',
      409,
      `The SKU ${p.variants[0]!.sku} is already used by another of your variants`,
    );
    const other = await seller(t.api);
    const theirs = await product(t.api, other, { sku: p.variants[0]!.sku });
    expect(theirs.id).toMatch(/^products:/);
  });
});

describe('buying a variant', () => {
  it('add_to_cart needs the variant of a product with options, lists the choices, and takes an id or a SKU', async () => {
    const p = await paddle();
    const b = await buyer(t.api);
    const bare = await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1 });
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({
      error: `Product ${p.id} is sold in several variants; name one in variant (an id or a SKU). Choices: Wood: Cedar, Ash; Length: 150 cm, 160 cm`,
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'variant', message: 'required: this product is sold in several variants' }],
    });
    const wrong = await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1, variant: 'NOPE' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([{ field: 'variant', message: 'no such variant on sale' }]);

    const [c150, c160] = p.variants;
    const bySku = await t.api
      .as(b)
      .post('/cart/items', { product_id: p.id, quantity: 2, variant: c150!.sku });
    expect(bySku.status).toBe(200);
    expect(bySku.body).toMatchObject({ product_id: p.id, variant_id: c150!.id, quantity: 2, added: true });
    const byId = await t.api.as(b).post('/cart/items', { product_id: p.id, quantity: 1, variant: c160!.id });
    expect(byId.status).toBe(200);
    expect(byId.body.cart.items).toEqual([
      {
        product_id: p.id,
        variant_id: c150!.id,
        variant_title: 'Cedar / 150 cm',
        sku: c150!.sku,
        title: `${p.title}, Cedar / 150 cm`,
        quantity: 2,
        unit_price_cents: 12900,
        line_total_cents: 25800,
        image_url: null,
      },
      expect.objectContaining({
        variant_id: c160!.id,
        title: `${p.title}, Cedar / 160 cm`,
        unit_price_cents: 13900,
      }),
    ]);
    // A variant's own id names its product too.
    const viaVariant = await t.api.as(b).post('/cart/items', { product_id: c160!.id, quantity: 1 });
    expect(viaVariant.status).toBe(409);
    expect(viaVariant.body.error).toMatch(/left/);

    // Removing by variant leaves the other line.
    const removed = await t.api.as(b).delete(`/cart/items/${encodeURIComponent(p.id)}?variant=${c150!.sku}`);
    expect(removed.status).toBe(200);
    expect(removed.body.cart.items.map((i: { variant_id: string }) => i.variant_id)).toEqual([c160!.id]);
  });

  it('check_inventory answers per variant', async () => {
    const p = await paddle();
    const b = await buyer(t.api);
    const [c150, , a150] = p.variants;
    const one = await t.api.as(b).get(`/products/${p.id}/inventory?quantity=3&variant=${c150!.sku}`);
    expect(one.body).toEqual({
      product_id: p.id,
      variant_id: c150!.id,
      available: true,
      stock_quantity: 5,
      requested_quantity: 3,
      message: expect.stringContaining(`${p.title}, Cedar / 150 cm`),
    });
    const out = await t.api.as(b).get(`/products/${p.id}/inventory?variant=${a150!.id}`);
    expect(out.body).toMatchObject({ variant_id: a150!.id, available: false, stock_quantity: 0 });
    const bare = await t.api.as(b).get(`/products/${p.id}/inventory`);
    expect(bare.status).toBe(400);
  });

  it('two buyers race for the last unit of one variant: one holds it, the other is refused; the other variants are untouched', async () => {
    const p = await paddle();
    const [c150, c160] = p.variants;
    const buyers = await Promise.all([buyer(t.api), buyer(t.api)]);
    for (const b of buyers) {
      const res = await t.api
        .as(b)
        .post('/cart/items', { product_id: p.id, quantity: 1, variant: c160!.sku });
      expect(res.status).toBe(200);
    }
    const answers = await Promise.all(
      buyers.map((b) => checkout(t.api, b, { shipping_address: ON_ADDRESS })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body.error).toContain(`${p.title}, Cedar / 160 cm`);
    expect(await stockOf(database, c160!.id)).toEqual({ stock: 1, reserved: 1 });
    expect(await liveReservedUnits(database, c160!.id)).toBe(1);
    expect(await stockOf(database, c150!.id)).toEqual({ stock: 5, reserved: 0 });

    // The winner pays: the order line names the variant sold; only its stock left.
    const won = answers.find((a) => a.status === 201)!;
    const [orderId] = await payOk(t.api, won.body.sessionId);
    const lines = await database.db.select().from(orderItems).where(eq(orderItems.orderId, orderId!));
    expect(lines).toEqual([
      expect.objectContaining({
        productId: p.id,
        variantId: c160!.id,
        variantTitle: 'Cedar / 160 cm',
        sku: c160!.sku,
        name: `${p.title}, Cedar / 160 cm`,
        unitPriceCents: 13900,
        quantity: 1,
      }),
    ]);
    expect(await stockOf(database, c160!.id)).toEqual({ stock: 0, reserved: 0 });
    expect(await stockOf(database, c150!.id)).toEqual({ stock: 5, reserved: 0 });
    const detail = await t.api.as(buyers[0]!).get(`/products/${p.id}`);
    expect(detail.body.stockQuantity).toBe(5);
  });
});

describe('returning variants', () => {
  it('two variants of one product in one order are two lines: each returns on its own, its units counted once', async () => {
    const p = await paddle(s, { cedar150: 5, cedar160: 5, ash150: 0 });
    const [c150, c160] = p.variants;
    const b = await buyer(t.api);
    for (const [v, quantity] of [
      [c150!, 2],
      [c160!, 1],
    ] as const) {
      const res = await t.api.as(b).post('/cart/items', { product_id: p.id, quantity, variant: v.sku });
      expect(res.status).toBe(200);
    }
    const held = await checkout(t.api, b, { shipping_address: ON_ADDRESS });
    expect(held.status).toBe(201);
    const [orderId] = await payOk(t.api, held.body.sessionId);
    const lines = await database.db.select().from(orderItems).where(eq(orderItems.orderId, orderId!));
    expect(lines.map((l) => [l.variantId, l.quantity]).sort()).toEqual(
      [
        [c150!.id, 2],
        [c160!.id, 1],
      ].sort(),
    );
    await ship(t, s, orderId!);
    await deliver(t, s, orderId!);

    // The 160 cm line by its variant's id: that line only.
    const first = await t.api
      .as(b)
      .post('/returns', { order_id: orderId, reason: 'other', items: [c160!.id] });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const decided = await t.api.as(s).post(`/returns/${first.body.return_id}/approve`);
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    // Then the product's id: what is left of it, the 150 cm line, and not the 160 cm again.
    const second = await t.api.as(b).post('/returns', { order_id: orderId, reason: 'other', items: [p.id] });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const [row] = await database.db
      .execute(sql`select items from returns where id = ${second.body.return_id}`)
      .then(
        (r) =>
          (r as unknown as { rows: Array<{ items: Array<{ variantId: string; quantity: number }> }> }).rows,
      );
    expect(row!.items.map((i) => [i.variantId, i.quantity])).toEqual([[c150!.id, 2]]);
  });
});

describe("the seller's variant writes", () => {
  it('adds, changes and deletes a variant; the price range follows; the last one stays', async () => {
    const p = await paddle();
    const added = await t.api.as(s).post(`/products/${p.id}/variants`, {
      options: { Wood: 'Ash', Length: '160 cm' },
      priceCents: 19900,
      stockQuantity: 2,
      barcode: '0123456789012',
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      title: 'Ash / 160 cm',
      sku: defaultSku(added.body.id),
      barcode: '0123456789012',
    });
    const again = await t.api.as(s).post(`/products/${p.id}/variants`, {
      options: { Wood: 'Ash', Length: '160 cm' },
      priceCents: 100,
    });
    expect(again.status).toBe(409);

    const changed = await t.api
      .as(s)
      .patch(`/products/${p.id}/variants/${added.body.id}`, { priceCents: 4900 });
    expect(changed.status).toBe(200);
    expect(changed.body.priceCents).toBe(4900);
    const b = await buyer(t.api);
    expect((await t.api.as(b).get(`/products/${p.id}`)).body.priceRange).toEqual({
      minCents: 4900,
      maxCents: 13900,
    });

    // An inactive variant leaves the buyer's view and the price range.
    await t.api.as(s).patch(`/products/${p.id}/variants/${added.body.id}`, { status: 'inactive' });
    const seen = (await t.api.as(b).get(`/products/${p.id}`)).body;
    expect(seen.priceRange).toEqual({ minCents: 9900, maxCents: 13900 });
    expect(seen.variants).toHaveLength(3);
    expect((await t.api.as(s).get(`/products/${p.id}`)).body.variants).toHaveLength(4);

    const gone = await t.api.as(s).delete(`/products/${p.id}/variants/${added.body.id}`);
    expect(gone.status).toBe(200);
    const [row] = await database.db
      .select()
      .from(productVariants)
      .where(eq(productVariants.id, added.body.id));
    expect(row!.status).toBe('deleted');

    // A product sold one way: its price and stock change on the product; its one variant cannot go.
    const plain = await product(t.api, s, { priceCents: 700 });
    const patched = await t.api.as(s).patch(`/products/${plain.id}`, { priceCents: 800, stockQuantity: 3 });
    expect(patched.body).toMatchObject({
      priceCents: 800,
      stockQuantity: 3,
      variants: [{ id: plain.id, priceCents: 800 }],
    });
    expectError(
      await t.api.as(s).delete(`/products/${plain.id}/variants/${plain.id}`),
      'CONFLICT',
      409,
      `Variant ${plain.id} is the product's last; delete the product instead`,
    );
    // The price of a product with options is each variant's.
    const refused = await t.api.as(s).patch(`/products/${p.id}`, { priceCents: 100 });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ field: 'priceCents', message: 'set on each variant' }]);
  });

  it('replaces the whole set in one change: kept by id, added without, deleted when left out', async () => {
    const p = await paddle();
    const [c150, c160] = p.variants;
    const res = await t.api.as(s).patch(`/products/${p.id}`, {
      options: [{ name: 'Wood', values: ['Cedar', 'Maple'] }],
      variants: [
        { id: c150!.id, options: { Wood: 'Cedar' }, priceCents: 12000, stockQuantity: 4, sku: c150!.sku },
        { options: { Wood: 'Maple' }, priceCents: 15000, stockQuantity: 1 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.options).toEqual([{ name: 'Wood', values: ['Cedar', 'Maple'] }]);
    expect(res.body.variants.map((v: { id: string; title: string }) => [v.id === c150!.id, v.title])).toEqual(
      [
        [true, 'Cedar'],
        [false, 'Maple'],
      ],
    );
    const [old] = await database.db.select().from(productVariants).where(eq(productVariants.id, c160!.id));
    expect(old!.status).toBe('deleted');
  });

  it("another seller's product: 403 on its variants; a buyer cannot write them", async () => {
    const p = await paddle();
    const other = await seller(t.api);
    const res = await t.api
      .as(other)
      .patch(`/products/${p.id}/variants/${p.variants[0]!.id}`, { priceCents: 1 });
    expect(res.status).toBe(403);
    const b = await buyer(t.api);
    expect((await t.api.as(b).post(`/products/${p.id}/variants`, { priceCents: 1 })).status).toBe(403);
    const [row] = await database.db
      .select()
      .from(productVariants)
      .where(eq(productVariants.id, p.variants[0]!.id));
    expect(row!.priceCents).toBe(12900);
  });
});
