// Where uploaded images' files live (src/modules/images/store.ts): an S3-compatible bucket when
// one is configured (tested against a local S3 speaking the wire format), the database on
// PostgreSQL, the data directory on the embedded database; several instances see the same files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { databaseStore, directoryStore } from '../src/modules/images/store.ts';
import { testApp, useTestApp } from './helpers/app.ts';
import { product, seller } from './helpers/builders.ts';
import { type FakeS3, fakeS3, multipart, picture } from './helpers/images.ts';

let s3: FakeS3;
beforeAll(async () => {
  s3 = await fakeS3('portage-images');
});
afterAll(() => s3.close());

const bucketEnv = () => ({
  IMAGE_BUCKET_URL: `${s3.url}/portage-images`,
  IMAGE_BUCKET_REGION: 'ca-central-1',
  IMAGE_BUCKET_ACCESS_KEY_ID: 'test-key',
  IMAGE_BUCKET_SECRET_ACCESS_KEY: 'test-secret',
});

async function uploadPng(app: Awaited<ReturnType<typeof testApp>>, token: string, productId: string) {
  const { payload, contentType } = multipart(
    { altEn: 'Paddle' },
    { filename: 'p.png', type: 'image/png', body: await picture(700, 300) },
  );
  const res = await app.app.inject({
    method: 'POST',
    url: `/products/${productId}/images`,
    headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { files: Array<{ url: string; width: number }> };
}

describe('a configured bucket', () => {
  const { t, database } = useTestApp(() => ({ env: bucketEnv() }));

  it('holds the files (signed, path-style PUTs with their type and cache policy); every instance serves them', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const image = await uploadPng(t, s.token, p.id);
    const names = image.files.map((f) => new URL(f.url).pathname.slice('/images/'.length));
    expect(names).toHaveLength(3);
    for (const name of names) {
      const object = s3.objects.get(name)!;
      expect(object.contentType).toBe('image/webp');
      expect(object.cacheControl).toBe('public, max-age=31536000, immutable');
    }
    expect(s3.requests.every((r) => r.signed && r.path.startsWith('/portage-images/'))).toBe(true);
    expect(s3.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(
      names.map((n) => `/portage-images/${n}`),
    );
    // Another instance (its own data directory) over the same database and bucket.
    const other = await testApp(database, { env: bucketEnv() });
    try {
      for (const f of image.files) {
        const res = await other.app.inject({ method: 'GET', url: new URL(f.url).pathname });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('image/webp');
        expect(res.rawPayload.equals(s3.objects.get(new URL(f.url).pathname.slice(8))!.body)).toBe(true);
      }
      const missing = await other.app.inject({ method: 'GET', url: '/images/0123456789abcdef-320.webp' });
      expect(missing.statusCode).toBe(404);
    } finally {
      await other.close();
    }
    // The same bytes again are not sent again.
    const puts = s3.requests.filter((r) => r.method === 'PUT').length;
    await uploadPng(t, s.token, p.id);
    expect(s3.requests.filter((r) => r.method === 'PUT').length).toBe(puts);
  });
});

describe('without a bucket', () => {
  const { t, database } = useTestApp();

  it('PostgreSQL keeps the files in the database, so a second instance serves them; the embedded database in its data directory', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const image = await uploadPng(t, s.token, p.id);
    const other = await testApp(database);
    try {
      const res = await other.app.inject({ method: 'GET', url: new URL(image.files[0]!.url).pathname });
      // The embedded database is one instance's (one process opens its data directory).
      expect(res.statusCode).toBe(database.kind === 'postgres' ? 200 : 404);
    } finally {
      await other.close();
    }
  });

  it('the database store and the directory store keep what they are given, once', async () => {
    const body = Buffer.from('RIFF....WEBPVP8 ');
    for (const store of [databaseStore(database.db), directoryStore(`${t.config.dataDir}/images-test`)]) {
      expect(await store.has('00000000000000aa-320.webp')).toBe(false);
      expect(await store.get('00000000000000aa-320.webp')).toBeUndefined();
      await store.put('00000000000000aa-320.webp', 'image/webp', body);
      await store.put('00000000000000aa-320.webp', 'image/webp', body);
      expect(await store.has('00000000000000aa-320.webp')).toBe(true);
      expect(await store.get('00000000000000aa-320.webp')).toEqual({ contentType: 'image/webp', body });
    }
    // The table takes only names of uploaded files.
    await expect(databaseStore(database.db).put('../x.webp', 'image/webp', body)).rejects.toThrow();
  });
});

describe('IMAGE_BUCKET_URL', () => {
  it('needs a bucket in its path and both keys', () => {
    const base = { APP_ENV: 'development' };
    expect(() => loadConfig({ ...base, IMAGE_BUCKET_URL: 'http://s3.local' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, IMAGE_BUCKET_URL: 'http://s3.local/b-1' })).toThrow(
      /IMAGE_BUCKET_ACCESS_KEY_ID: required[\s\S]*IMAGE_BUCKET_SECRET_ACCESS_KEY: required/,
    );
    const config = loadConfig({
      ...base,
      IMAGE_BUCKET_URL: 'https://s3.ca-central-1.amazonaws.com/portage-images/',
      IMAGE_BUCKET_ACCESS_KEY_ID: 'k',
      IMAGE_BUCKET_SECRET_ACCESS_KEY: 's',
    });
    expect(config.imageBucket).toEqual({
      endpoint: 'https://s3.ca-central-1.amazonaws.com',
      bucket: 'portage-images',
      region: 'us-east-1',
      accessKeyId: 'k',
      secretAccessKey: 's',
    });
  });
});
