// `portage seed`: test accounts once, a deterministic catalog, idempotent, never in production.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/index.ts';
import { CATEGORIES, SAMPLE_IMAGES, SELLERS, seedCatalog, seededProduct } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { products, productVariants } from '../src/modules/catalog/tables.ts';
import { imageStoreFor } from '../src/modules/images/store.ts';
import { testKeyPem, testUcpKeyPem } from './helpers/app.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const opened: Array<Database | TestDatabase> = [];
afterAll(async () => {
  for (const d of opened) await d.close();
});

/** Runs `portage seed` against a fresh database; answers its output and the database. */
async function seedWithCli(args: string[]) {
  let env: Record<string, string>;
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  if (process.env.TEST_DATABASE_URL) {
    database = await testDatabase();
    opened.push(database);
    env = { DATABASE_URL: database.url! };
  } else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-seed-'));
    env = { DATA_DIR: dataDir };
  }
  const cli = (extra: string[]) =>
    run(process.execPath, ['bin/portage.js', 'seed', ...extra], {
      cwd: root,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, LOG_LEVEL: 'warn', ...env },
    });
  const first = await cli(args);
  const second = await cli(args);
  const db = database ?? (await openDatabase({ dataDir }));
  if (!database) opened.push(db);
  return { first: first.stdout, second: second.stdout, db, dataDir };
}

describe('portage seed', () => {
  it('creates one test account per role, prints each password once, and a catalog; twice adds nothing', async () => {
    const { first, second, db, dataDir } = await seedWithCli(['--products', '60', '--seed', '7']);
    for (const role of ['buyer', 'seller', 'admin']) {
      expect(first).toMatch(
        new RegExp(`^${role}\\s+${role}@portage\\.test\\s+password: [A-Za-z0-9_-]{16}$`, 'm'),
      );
      expect(second).toMatch(
        new RegExp(`^${role}\\s+${role}@portage\\.test\\s+exists; password unchanged$`, 'm'),
      );
    }
    expect(first).toMatch(/8 categories, 12 sellers, 60 new products of 60/);
    expect(second).toMatch(/0 new products of 60/);
    const [counts] = await rowsOf<{ products: number; sellers: number; roles: string[] }>(
      db.db,
      sql`select (select count(*)::int from products) as products,
                 (select count(*)::int from seller_profiles) as sellers,
                 (select array_agg(role order by role) from users where email like '%@portage.test') as roles`,
    );
    // 12 catalog sellers and the test seller's shop.
    expect(counts).toEqual({
      products: 60,
      sellers: SELLERS.length + 1,
      roles: ['admin', 'buyer', 'seller'],
    });
    // Every product's image is one the service itself serves (at PUBLIC_BASE_URL), made by the seed:
    // the sample tiles drawn as WebP, in the image store (the data directory, or the database).
    const urls = await rowsOf<{ url: string }>(
      db.db,
      sql`select distinct image_urls[1] as url from products`,
    );
    const store = imageStoreFor({ bucket: undefined, database: db, dataDir: dataDir ?? '' });
    expect(urls.length).toBeGreaterThan(10);
    for (const { url } of urls) {
      expect(url).toMatch(/^http:\/\/localhost:3000\/images\/[0-9a-f]{16}-400\.webp$/);
      expect(await store.has(url.slice('http://localhost:3000/images/'.length)), url).toBe(true);
    }
    const [svgs] = await rowsOf<{ stored: number }>(db.db, sql`select count(*)::int as stored from images`);
    expect(svgs).toEqual({ stored: SAMPLE_IMAGES.size });
  });

  it('refuses to run in production', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-seed-'));
    const failed = await run(process.execPath, ['bin/portage.js', 'seed'], {
      cwd: root,
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        DATA_DIR: dataDir,
        APP_ENV: 'production',
        PUBLIC_BASE_URL: 'https://portage.example',
        PAYMENT_WEBHOOK_SECRET: 'whsec_production_test_0123456789',
        STRIPE_SECRET_KEY: 'sk_test_production1',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_production1',
        JWT_PRIVATE_KEY: testKeyPem(),
        UCP_SIGNING_KEY: testUcpKeyPem(),
      },
    }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in failed && failed.code).toBe(2);
    expect((failed as { stderr: string }).stderr).toMatch(/never runs with APP_ENV=production/);
  });
});

describe('the seeded catalog', () => {
  it('is the same for the same seed and differs for another', async () => {
    // What the database holds is what the generator makes, so one seeded database stands for
    // every other seeded with the same seed.
    const a = await testDatabase();
    opened.push(a);
    expect((await seedCatalog(a.db, { seed: 3, count: 40 })).productsInserted).toBe(40);
    const stored = await a.db
      .select({
        id: products.id,
        title: products.title,
        priceCents: products.priceCents,
        sellerId: products.sellerId,
        categoryId: products.categoryId,
        keywords: products.keywords,
        isDigital: products.isDigital,
        isPerishable: products.isPerishable,
        weightKg: products.weightKg,
      })
      .from(products);
    const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
    const generated = Array.from({ length: 40 }, (_, i) => seededProduct(3, i))
      .map((p) => ({
        id: p.id,
        title: p.title,
        priceCents: p.priceCents,
        sellerId: p.sellerId,
        categoryId: p.categoryId,
        keywords: p.keywords,
        isDigital: p.isDigital,
        isPerishable: p.isPerishable,
        weightKg: p.weightKg,
      }))
      .sort(byId);
    expect(stored.sort(byId)).toEqual(generated);
    expect(seededProduct(4, 0)).not.toEqual(seededProduct(3, 0));
  });

  it('sells clothing in sizes when asked (`portage seed`): S keeps the product id, M and L are added, the same every time', async () => {
    const d = await testDatabase();
    opened.push(d);
    await seedCatalog(d.db, { seed: 7, count: 120, sizes: true });
    const rows = await d.db
      .select({
        product: products.id,
        options: products.options,
        low: products.priceCents,
        high: products.priceMaxCents,
      })
      .from(products)
      .where(sql`${products.options} <> '[]'::jsonb`);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.options).toEqual([{ name: 'Size', values: ['S', 'M', 'L'] }]);
      const variants = await d.db
        .select()
        .from(productVariants)
        .where(eq(productVariants.productId, r.product))
        .orderBy(productVariants.position);
      expect(variants.map((v) => [v.optionValues, v.position])).toEqual([
        [['S'], 0],
        [['M'], 1],
        [['L'], 2],
      ]);
      expect(variants[0]!.id).toBe(r.product);
      expect(variants[1]!.sku).toBe(`${variants[0]!.sku}-M`);
      expect(variants[2]!.priceCents).toBe(Math.round(variants[0]!.priceCents * 1.1));
      expect([r.low, r.high]).toEqual([variants[0]!.priceCents, variants[2]!.priceCents]);
    }
    const again = await testDatabase();
    opened.push(again);
    await seedCatalog(again.db, { seed: 7, count: 120, sizes: true });
    const ids = async (db: typeof d.db) =>
      (await db.select({ id: productVariants.id }).from(productVariants).orderBy(productVariants.id)).map(
        (v) => v.id,
      );
    expect(await ids(again.db)).toEqual(await ids(d.db));
  });

  it('sells every shipped product in 1 to 5 sizes, 3 on average, when a benchmark asks', async () => {
    const d = await testDatabase();
    opened.push(d);
    await seedCatalog(d.db, { seed: 5, count: 200, variantsPerProduct: 3 });
    const rows = await rowsOf<{
      id: string;
      digital: boolean;
      options: unknown;
      n: number;
      lo: number;
      hi: number;
      vlo: number;
      vhi: number;
      values: string[];
    }>(
      d.db,
      sql`select p.id, p.is_digital as digital, p.options, count(v.id)::int as n,
            p.price_cents as lo, p.price_max_cents as hi, min(v.price_cents) as vlo, max(v.price_cents) as vhi,
            array_agg(v.option_values[1] order by v.position) as values
          from products p join product_variants v on v.product_id = p.id
          group by p.id order by p.id`,
    );
    expect(rows).toHaveLength(200);
    const shipped = rows.filter((r) => !r.digital);
    const mean = shipped.reduce((a, r) => a + r.n, 0) / shipped.length;
    expect(mean).toBeGreaterThan(2.5);
    expect(mean).toBeLessThan(3.5);
    expect(new Set(shipped.map((r) => r.n))).toEqual(new Set([1, 2, 3, 4, 5]));
    for (const r of rows) {
      expect([r.lo, r.hi]).toEqual([r.vlo, r.vhi]);
      if (r.n === 1) {
        expect(r.options).toEqual([]);
        continue;
      }
      const sizes = ['XS', 'S', 'M', 'L', 'XL'].slice(0, r.n);
      expect(r.options).toEqual([{ name: 'Size', values: sizes }]);
      expect(r.values).toEqual(sizes);
    }
    expect(rows.filter((r) => r.digital).every((r) => r.n === 1)).toBe(true);
  });

  it('is realistic: every category, sellers in several provinces, perishable food, digital goods without weight', () => {
    const sample = Array.from({ length: 2000 }, (_, i) => seededProduct(1, i));
    const categories = new Set(sample.map((p) => p.categoryId));
    expect(categories.size).toBe(CATEGORIES.length);
    expect(new Set(SELLERS.map((s) => s.province)).size).toBeGreaterThanOrEqual(8);
    expect(sample.some((p) => p.isPerishable)).toBe(true);
    const digital = sample.filter((p) => p.isDigital);
    expect(digital.length).toBeGreaterThan(0);
    expect(digital.every((p) => p.weightKg === null && !p.isPerishable)).toBe(true);
    expect(sample.filter((p) => !p.isDigital).every((p) => (p.weightKg ?? 0) > 0)).toBe(true);
    expect(sample.every((p) => p.priceCents > 0 && p.keywords.length > 0)).toBe(true);
    // About one product in ten says "Handmade" (in English, as written or translated): the benchmark's broad query.
    const englishTitle = (p: (typeof sample)[number]) => p.translations['en-CA']?.title ?? p.title;
    const handmade = sample.filter((p) => englishTitle(p).startsWith('Handmade')).length / sample.length;
    expect(handmade).toBeGreaterThan(0.07);
    expect(handmade).toBeLessThan(0.13);
  });

  it('is in both languages: Quebec shops write in French with an English translation, some others add French', async () => {
    const sample = Array.from({ length: 2000 }, (_, i) => seededProduct(1, i));
    const french = sample.filter((p) => p.language === 'fr-CA');
    expect(french.length / sample.length).toBeGreaterThan(0.1);
    expect(french.every((p) => p.translations['en-CA'] !== undefined)).toBe(true);
    const translated = sample.filter((p) => p.language === 'en-CA' && p.translations['fr-CA']);
    expect(translated.length / sample.length).toBeGreaterThan(0.15);
    // "érable", "erable" and "sirops" find maple syrup in a seeded shop, as "maple" does.
    const d = await testDatabase();
    opened.push(d);
    await seedCatalog(d.db, { seed: 5, count: 1500 });
    const found = async (word: string) =>
      (
        await rowsOf<{ n: number }>(
          d.db,
          sql`select count(*)::int as n from products where search_doc @@ portage_search_query(null, ${word})`,
        )
      )[0]!.n;
    const maple = await found('maple');
    expect(maple).toBeGreaterThan(0);
    for (const word of ['érable', 'erable', 'sirops']) expect(await found(word), word).toBeGreaterThan(0);
    const [names] = await rowsOf<{ n: number }>(
      d.db,
      sql`select count(*)::int as n from categories where translations -> 'fr-CA' ->> 'name' = 'Plein air'`,
    );
    expect(names).toEqual({ n: 1 });
  });
});
