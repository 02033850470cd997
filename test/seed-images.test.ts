// The sample shop's images (src/modules/images): `portage seed` draws them (no network) and the
// service serves them at /images/:name, inert even when opened on their own.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SAMPLE_IMAGES, seedCatalog } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { useTestApp } from './helpers/app.ts';

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
