// Product images: the sample shop's (src/modules/images), which `portage seed` draws (no network)
// and the service serves at /images/:name, inert even when opened on their own; and the seller's
// console, which refuses an image address the pages' CSP would block.
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SAMPLE_IMAGES, seedCatalog } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { imageStoreFor } from '../src/modules/images/store.ts';
import { useTestApp } from './helpers/app.ts';
import { seller, uniqueWord } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

describe('the seeded images', () => {
  it('every seeded product’s image is served by the service: 200, an SVG, cached, inert', async () => {
    await seedCatalog(database.db, { seed: 11, count: 60, imageBase: 'http://portage.test' });
    const seeded = await rowsOf<{ image_urls: string[] }>(
      database.db,
      sql`select image_urls from products where id in (select id from products order by id limit 60)
          and image_urls[1] like 'http://portage.test/images/%'`,
    );
    expect(seeded).toHaveLength(60);
    const urls = new Set(seeded.flatMap((r) => r.image_urls));
    // One image per kind of product, shared by the products of that kind.
    expect(urls.size).toBeGreaterThan(10);
    for (const url of urls) {
      expect(url).toMatch(/^http:\/\/portage\.test\/images\/sample-[a-z0-9-]+-[0-9a-f]{10}\.svg$/);
      const res = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
      expect(res.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="400" height="300"/);
      expect(res.body).not.toMatch(/<script|href=|on\w+=/i);
      expect(Buffer.byteLength(res.body)).toBeLessThan(4096);
    }
    // Seeding again stores nothing new.
    const [before] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from images`);
    await seedCatalog(database.db, { seed: 11, count: 60, imageBase: 'http://portage.test' });
    const [after] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from images`);
    expect(after).toEqual(before);
    expect(before!.n).toBe(SAMPLE_IMAGES.size);
  });

  it('`portage seed` stores the tiles as WebP through the image store (made locally), and the products show those', async () => {
    const store = imageStoreFor({ bucket: undefined, database, dataDir: t.config.dataDir });
    // The same seed as above (its categories), 30 products more: those are new, with the WebP tiles.
    await seedCatalog(database.db, {
      seed: 11,
      count: 90,
      imageBase: 'http://portage.test',
      imageStore: store,
    });
    const seeded = await rowsOf<{ image_urls: string[] }>(
      database.db,
      sql`select image_urls from products where image_urls[1] like '%.webp'`,
    );
    expect(seeded).toHaveLength(30);
    for (const url of new Set(seeded.flatMap((r) => r.image_urls))) {
      expect(url).toMatch(/^http:\/\/portage\.test\/images\/[0-9a-f]{16}-400\.webp$/);
      const res = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('image/webp');
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['webp', 400, 300, undefined]);
    }
  });

  it('answers 404 for a name it does not hold, and for a name that is not one of its', async () => {
    for (const path of [
      '/images/sample-nothing-0123456789.svg',
      '/images/..%2Fetc%2Fpasswd',
      '/images/A.SVG',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
    }
  });

  it('the database refuses an image that is not a small SVG under a plain name', async () => {
    await expect(
      database.db.execute(
        sql`insert into images (name, content_type, body) values ('big.svg', 'image/svg+xml', ${'x'.repeat(65_537)})`,
      ),
    ).rejects.toThrow();
    await expect(
      database.db.execute(
        sql`insert into images (name, content_type, body) values ('page.html', 'text/html', '<p>')`,
      ),
    ).rejects.toThrow();
  });
});

describe('an image address in the seller’s console', () => {
  const form = (title: string, imageUrl: string) => ({
    title,
    description: 'Hand-carved from western red cedar.',
    price: '89.99',
    stockQuantity: '12',
    weight: '1.1',
    categoryId: '',
    imageUrl,
    status: 'active',
  });

  it('refuses plain http from another host, saying why, in both languages; https and the service’s own are taken', async () => {
    const s = await seller(t.api);
    const b = new Browser(t.app);
    await b.signIn(s);
    const title = `${uniqueWord()} paddle`;
    await b.get('/console/products/new');
    const refused = await b.post(
      '/console/products/new',
      form(title, 'http://images.example.com/paddle.jpg'),
    );
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="f-imageUrl"[^>]*aria-invalid="true"/);
    expect(refused.html).toContain(
      '<p class="field-error" id="f-imageUrl-error">This image would not show: the shop’s pages load images over https:// only (or from http://portage.test). Use an https:// address.</p>',
    );
    // What was typed stays in the form; nothing was made.
    expect(refused.html).toContain('value="http://images.example.com/paddle.jpg"');
    const made = () =>
      rowsOf<{ title: string }>(
        database.db,
        sql`select title from products where seller_id = ${s.id} order by title`,
      );
    expect(await made()).toEqual([]);

    await b.get('/console/products/new?lang=fr-CA');
    const fr = await b.post('/console/products/new', form(title, 'http://images.example.com/paddle.jpg'));
    expect(fr.status).toBe(400);
    expect(textOf(fr.html)).toContain(
      'Cette image ne s’afficherait pas : les pages de la boutique chargent les images seulement en https:// (ou depuis http://portage.test). Utilisez une adresse https://.',
    );

    // The service's own images (PUBLIC_BASE_URL, here http) and any https one are taken.
    await b.get('/console/products/new?lang=en-CA');
    const own = await b.post(
      '/console/products/new',
      form(`${title} own`, 'http://portage.test/images/x.svg'),
    );
    expect(own.status).toBe(200);
    expect(own.url).toBe('/console/products?done=created');
    await b.get('/console/products/new');
    const https = await b.post(
      '/console/products/new',
      form(`${title} https`, 'https://images.example.com/p.jpg'),
    );
    expect(https.url).toBe('/console/products?done=created');

    // The HTTP API keeps the interface's rule (any http or https URL): a program is not a page.
    const api = await t.api.as(s).post('/products', {
      title: `${title} api`,
      description: 'From a program.',
      priceCents: 1000,
      stockQuantity: 1,
      weight: 1,
      imageUrl: 'http://images.example.com/paddle.jpg',
    });
    expect(api.status, JSON.stringify(api.body)).toBe(201);
    expect(await made()).toEqual([
      { title: `${title} api` },
      { title: `${title} https` },
      { title: `${title} own` },
    ]);
  });
});
