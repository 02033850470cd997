// Uploaded product images (issue 40): POST /products/:id/images (multipart), the gallery's
// order and alt texts, the files served at /images/:name, and the products' imageUrls.
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql.ts';
import { type SignedIn, useTestApp, withTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { jpegWithGps, type MultipartFile, multipart, picture } from './helpers/images.ts';

const { t, database } = useTestApp();

async function upload(
  who: SignedIn | undefined,
  productId: string,
  file: MultipartFile | undefined,
  fields: Record<string, string> = {},
  app = t.app,
) {
  const { payload, contentType } = multipart(fields, file);
  const res = await app.inject({
    method: 'POST',
    url: `/products/${encodeURIComponent(productId)}/images`,
    headers: { 'content-type': contentType, ...(who ? { authorization: `Bearer ${who.token}` } : {}) },
    payload,
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

const png = async (w = 800, h = 600): Promise<MultipartFile> => ({
  filename: 'photo.png',
  type: 'image/png',
  body: await picture(w, h, 'png'),
});

const served = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });

describe('uploading a product image', () => {
  it('stores WebP files at a few widths, never larger than the original, served immutable; the product shows it first', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { imageUrls: ['https://cdn.example.ca/paddle.jpg'] });
    const res = await upload(s, p.id, await png(800, 600), {
      altEn: 'A cedar paddle',
      altFr: 'Une pagaie en cèdre',
    });
    expect(res.status).toBe(201);
    const name = (w: number) =>
      expect.stringMatching(new RegExp(`^http://portage\\.test/images/[0-9a-f]{16}-${w}\\.webp$`));
    expect(res.body).toEqual({
      id: expect.stringMatching(/^images:[A-Za-z0-9_-]{20}$/),
      productId: p.id,
      variantId: null,
      position: 0,
      altEn: 'A cedar paddle',
      altFr: 'Une pagaie en cèdre',
      width: 800,
      height: 600,
      url: name(800),
      files: [
        { width: 320, height: 240, url: name(320), contentType: 'image/webp' },
        { width: 640, height: 480, url: name(640), contentType: 'image/webp' },
        { width: 800, height: 600, url: name(800), contentType: 'image/webp' },
      ],
      dateCreated: expect.any(Number),
    });
    for (const f of res.body.files) {
      const file = await served(f.url);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('image/webp');
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(file.headers['x-content-type-options']).toBe('nosniff');
      const meta = await sharp(file.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', f.width, f.height]);
    }
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.imageUrls).toEqual([res.body.url, 'https://cdn.example.ca/paddle.jpg']);
    expect(detail.body.imageUrl).toBe(res.body.url);
    // Anyone who sees the product sees its gallery, and the lists show the same first image.
    const b = await buyer(t.api);
    const gallery = await t.api.as(b).get(`/products/${p.id}/images`);
    expect(gallery.body).toEqual({ images: [res.body] });
    const list = await t.api.as(b).get(`/products?sellerId=${encodeURIComponent(s.id)}`);
    expect(list.body.products[0].imageUrls).toEqual(detail.body.imageUrls);
    expect(list.body.products[0].imageUrl).toBe(res.body.url);
  });

  it('strips EXIF and GPS from every stored file and turns the picture upright', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const original = await jpegWithGps(400, 200, 6);
    const exif = (await sharp(original).metadata()).exif!;
    // The upload does carry a camera and a GPS block (tag 0x8825 points to it).
    expect(exif.includes('PortageCam')).toBe(true);
    expect(exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]))).toBe(true);
    const res = await upload(s, p.id, { filename: 'IMG_0001.JPG', type: 'image/jpeg', body: original });
    expect(res.status).toBe(201);
    // Orientation 6: the 400×200 picture is 200×400 upright.
    expect([res.body.width, res.body.height]).toEqual([200, 400]);
    expect(res.body.files.map((f: { width: number; height: number }) => [f.width, f.height])).toEqual([
      [200, 400],
    ]);
    for (const f of res.body.files) {
      const file = (await served(f.url)).rawPayload;
      const meta = await sharp(file).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      expect(file.includes('PortageCam')).toBe(false);
      expect(file.includes('Exif')).toBe(false);
    }
  });

  it('reads the type from the bytes: a PNG named .gif is taken, a GIF or a text named .png is refused', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const disguised = await upload(s, p.id, {
      filename: 'x.gif',
      type: 'image/gif',
      body: await picture(50, 40),
    });
    expect(disguised.status).toBe(201);
    const gif = await upload(s, p.id, {
      filename: 'x.png',
      type: 'image/png',
      body: await picture(50, 40, 'gif'),
    });
    expectError(gif, 'VALIDATION_ERROR', 400, 'Images must be JPEG, PNG or WebP; this file is gif');
    const textFile = await upload(s, p.id, {
      filename: 'x.png',
      type: 'image/png',
      body: Buffer.from('<svg/>'),
    });
    expectError(
      textFile,
      'VALIDATION_ERROR',
      400,
      'The file is not an image we can read (JPEG, PNG or WebP)',
    );
    const truncated = (await picture(300, 300, 'jpeg')).subarray(0, 400);
    const cut = await upload(s, p.id, { filename: 'x.jpg', type: 'image/jpeg', body: truncated });
    expectError(cut, 'VALIDATION_ERROR', 400, 'The file is not an image we can read (JPEG, PNG or WebP)');
    const malformed = await t.app.inject({
      method: 'POST',
      url: `/products/${p.id}/images`,
      headers: { 'content-type': 'multipart/form-data', authorization: `Bearer ${s.token}` },
      payload: '--x\r\n\r\n',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('The upload is not a well-formed multipart/form-data body');
    const none = await upload(s, p.id, undefined, { altEn: 'nothing' });
    expectError(none, 'VALIDATION_ERROR', 400, 'Send the image as the multipart field “file”');
    const long = await upload(s, p.id, await png(20, 20), { altFr: 'é'.repeat(301) });
    expect(long.status).toBe(400);
    expect(long.body.details).toEqual([{ field: 'altFr', message: 'must be at most 300 characters' }]);
    const gallery = await t.api.as(s).get(`/products/${p.id}/images`);
    expect(gallery.body.images).toHaveLength(1);
  });

  it('refuses a file over 10 MB (413) and a picture over 25 megapixels, before decoding it', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const big = Buffer.concat([await picture(20, 20), Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload(s, p.id, { filename: 'big.png', type: 'image/png', body: big });
    expectError(res, 'VALIDATION_ERROR', 413, 'An image may be at most 10 MB in size');
    // 6000×5000 of one colour: a few kilobytes of PNG, 30 megapixels (a decompression bomb in small).
    const bomb = await sharp({ create: { width: 6000, height: 5000, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expect(bomb.length).toBeLessThan(200_000);
    const refused = await upload(s, p.id, { filename: 'bomb.png', type: 'image/png', body: bomb });
    expectError(refused, 'VALIDATION_ERROR', 400, 'An image may have at most 25 megapixels');
    const rows = await rowsOf<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from product_images where product_id = ${p.id}`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('only the owning seller (or an admin) uploads: another seller 404, a buyer 403, nobody 401; a deleted product 409', async () => {
    const owner = await seller(t.api);
    const other = await seller(t.api);
    const p = await product(t.api, owner);
    expectError(await upload(other, p.id, await png(30, 30)), 'NOT_FOUND', 404);
    expectError(await upload(await buyer(t.api), p.id, await png(30, 30)), 'AUTHZ_ERROR', 403);
    expectError(await upload(undefined, p.id, await png(30, 30)), 'AUTH_ERROR', 401);
    expectError(await upload(owner, 'products:nope', await png(30, 30)), 'NOT_FOUND', 404);
    const first = await upload(owner, p.id, await png(30, 30));
    expect(first.status).toBe(201);
    expectError(
      await t.api.as(other).patch(`/products/${p.id}/images/${first.body.id}`, { altEn: 'mine' }),
      'NOT_FOUND',
      404,
    );
    expectError(await t.api.as(other).delete(`/products/${p.id}/images/${first.body.id}`), 'NOT_FOUND', 404);
    await t.api.as(owner).delete(`/products/${p.id}`);
    expectError(await upload(owner, p.id, await png(30, 30)), 'CONFLICT', 409);
  });

  it('a gallery holds 10 images; the 11th is a CONFLICT', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    for (let i = 0; i < 10; i++) expect((await upload(s, p.id, await png(20 + i, 20))).status).toBe(201);
    expectError(
      await upload(s, p.id, await png(40, 40)),
      'CONFLICT',
      409,
      'A product holds at most 10 images; delete one first',
    );
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.imageUrls).toHaveLength(10);
  });
});

describe('the gallery', () => {
  it('reorders, changes alt texts and deletes; the product’s imageUrls follow, the seller’s own URLs after', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { imageUrl: 'https://cdn.example.ca/a.jpg' });
    const ids: string[] = [];
    const urls: string[] = [];
    for (const w of [100, 110, 120]) {
      const res = await upload(s, p.id, await png(w, 50));
      ids.push(res.body.id);
      urls.push(res.body.url);
    }
    const imageUrls = async () => (await t.api.as(s).get(`/products/${p.id}`)).body.imageUrls;
    expect(await imageUrls()).toEqual([...urls, 'https://cdn.example.ca/a.jpg']);

    const moved = await t.api.as(s).patch(`/products/${p.id}/images/${ids[2]}`, {
      position: 0,
      altEn: 'Side',
      altFr: 'Côté',
      variantId: p.id,
    });
    expect(moved.status).toBe(200);
    // A product sold one way: its one variant has the product's id.
    expect(moved.body).toMatchObject({ position: 0, altEn: 'Side', altFr: 'Côté', variantId: p.id });
    expect(await imageUrls()).toEqual([urls[2], urls[0], urls[1], 'https://cdn.example.ca/a.jpg']);
    const gallery = await t.api.as(s).get(`/products/${p.id}/images`);
    expect(gallery.body.images.map((i: { id: string; position: number }) => [i.id, i.position])).toEqual([
      [ids[2], 0],
      [ids[0], 1],
      [ids[1], 2],
    ]);
    const last = await t.api.as(s).patch(`/products/${p.id}/images/${ids[2]}`, { position: 99 });
    expect(last.body, JSON.stringify(last.body)).toMatchObject({ position: 2 });

    // The seller's own URLs change; the uploaded ones stay in front.
    const patched = await t.api
      .as(s)
      .patch(`/products/${p.id}`, { imageUrls: ['https://cdn.example.ca/b.jpg'] });
    expect(patched.body.imageUrls).toEqual([urls[0], urls[1], urls[2], 'https://cdn.example.ca/b.jpg']);

    const deleted = await t.api.as(s).delete(`/products/${p.id}/images/${ids[0]}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.images.map((i: { id: string; position: number }) => [i.id, i.position])).toEqual([
      [ids[1], 0],
      [ids[2], 1],
    ]);
    expect(await imageUrls()).toEqual([urls[1], urls[2], 'https://cdn.example.ca/b.jpg']);
    expectError(await t.api.as(s).delete(`/products/${p.id}/images/${ids[0]}`), 'NOT_FOUND', 404);
    const bad = await t.api.as(s).patch(`/products/${p.id}/images/${ids[1]}`, { altEn: 'x'.repeat(301) });
    expect(bad.status).toBe(400);
  });

  it('an image shows a variant of its own product only; once that variant is deleted, it shows the product', async () => {
    const s = await seller(t.api);
    const shirt = async (who: SignedIn) => {
      const res = await t.api.as(who).post('/products', {
        title: `Merino shirt ${Date.now().toString(36)}`,
        weight: 0.2,
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [
          { options: { Size: 'S' }, priceCents: 3900, stockQuantity: 5 },
          { options: { Size: 'M' }, priceCents: 4200, stockQuantity: 5 },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: string; variants: Array<{ id: string }> };
    };
    const p = await shirt(s);
    const [small, medium] = p.variants as [{ id: string }, { id: string }];
    const mine = await shirt(s);
    const theirs = await shirt(await seller(t.api));
    const refusal = [{ field: 'variantId', message: 'not a variant of this product' }];
    for (const other of [mine.variants[0]!.id, theirs.variants[1]!.id, 'variants:nope', mine.id]) {
      expectInvalid(await upload(s, p.id, await png(30, 30), { variantId: other }), refusal);
    }
    const variantOf = async (id: string) =>
      (await rowsOf(database.db, sql`select variant_id from product_images where id = ${id}`))[0]?.variant_id;

    const shown = await upload(s, p.id, await png(30, 30), { variantId: small.id });
    expect(shown.status, JSON.stringify(shown.body)).toBe(201);
    expect(shown.body.variantId).toBe(small.id);
    const image = `/products/${p.id}/images/${shown.body.id}`;
    expectInvalid(await t.api.as(s).patch(image, { variantId: theirs.variants[0]!.id }), refusal);
    expect(await variantOf(shown.body.id)).toBe(small.id);
    const moved = await t.api.as(s).patch(image, { variantId: medium.id });
    expect([moved.status, moved.body.variantId]).toEqual([200, medium.id]);
    expect(await variantOf(shown.body.id)).toBe(medium.id);

    // Deleted, the variant's row stays (its orders name it), and so does the image, as the product's.
    expect((await t.api.as(s).delete(`/products/${p.id}/variants/${medium.id}`)).status).toBe(200);
    const gallery = await t.api.as(await buyer(t.api)).get(`/products/${p.id}/images`);
    expect(
      gallery.body.images.map((i: { id: string; variantId: string | null }) => [i.id, i.variantId]),
    ).toEqual([[shown.body.id, null]]);
    expect((await t.api.as(s).get(`/products/${p.id}`)).body.imageUrls).toEqual([shown.body.url]);
    expectInvalid(await t.api.as(s).patch(image, { variantId: medium.id }), refusal);
    expect((await t.api.as(s).patch(image, { altEn: 'Front' })).body).toMatchObject({
      altEn: 'Front',
      variantId: null,
    });
    const cleared = await t.api.as(s).patch(image, { variantId: null });
    expect([cleared.status, cleared.body.variantId, await variantOf(shown.body.id)]).toEqual([
      200,
      null,
      null,
    ]);
  });

  it('a draft product’s gallery is not there for a buyer', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { status: 'draft' });
    expect((await upload(s, p.id, await png(30, 30))).status).toBe(201);
    expectError(await t.api.as(await buyer(t.api)).get(`/products/${p.id}/images`), 'NOT_FOUND', 404);
  });
});

describe('the image files', () => {
  it('answers 404 for names that are not an uploaded file’s', async () => {
    for (const path of [
      '/images/0123456789abcdef-320.webp',
      '/images/0123456789ABCDEF-320.webp',
      '/images/x.webp',
      '/images/..%2F..%2Fpg',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(404);
    }
  });

  it('rate-limits uploads: the 21st in a minute is 429', async () => {
    await withTestApp(
      async (app) => {
        const s = await seller(app.api);
        const p = await product(app.api, s);
        const file = await png(10, 10);
        const statuses: number[] = [];
        for (let i = 0; i < 21; i++) statuses.push((await upload(s, p.id, file, {}, app.app)).status);
        expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
        expect(statuses.slice(10, 20)).toEqual(Array(10).fill(409));
        expect(statuses[20]).toBe(429);
      },
      { env: { RATE_LIMITS: 'on' } },
    );
  });
});
