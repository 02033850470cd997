// The file feed (docs/acp.md "File feed"): the job writes a snapshot of every product in the
// feeds, one row per variant on sale, as gzipped JSON Lines and CSV in each language; a platform
// gets the files' signed URLs from GET /acp/feed and downloads them over HTTP. Every JSON line is
// validated against the documented fields (docs/feed-file.schema.json), the CSV's header is the
// same list, and the signed URLs refuse what they must.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'csv-parse/sync';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { products } from '../src/modules/catalog/tables.ts';
import { writeFeedSnapshot } from '../src/modules/feeds/file-feed.ts';
import { feedFileUrl } from '../src/modules/feeds/file-links.ts';
import { FILE_FEED_FIELDS } from '../src/modules/feeds/file-rows.ts';
import { ACP_VERSION, issuePlatform, type Platform } from './helpers/acp.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, errorBody, product, seller, uniqueWord } from './helpers/builders.ts';

const { t, database } = useTestApp();
const schema = JSON.parse(readFileSync(new URL('../docs/feed-file.schema.json', import.meta.url), 'utf8'));
const validateRow = new Ajv2020({ allErrors: true }).compile(schema);

let boss: SignedIn;
let maker: SignedIn;
let base: string;
let platform: Platform;
let other: Platform;
const word = uniqueWord();
// biome-ignore lint/suspicious/noExplicitAny: products as the API answers them
let tee: any;
// biome-ignore lint/suspicious/noExplicitAny: products as the API answers them
let ebook: any;
// biome-ignore lint/suspicious/noExplicitAny: products as the API answers them
let formula: any;
const absent: Record<string, string> = {};

const feed = (p: Platform) => t.api.as(p.apiKey).get('/acp/feed', { 'api-version': ACP_VERSION });

beforeAll(async () => {
  boss = await admin(t.api, database);
  maker = await seller(t.api);
  base = await listen(t);
  platform = await issuePlatform(t.api, boss);
  other = await issuePlatform(t.api, boss);
  const flat = await t.api.as(maker).put('/sellers/me/shipping', {
    originPostalCode: 'M5H 2N2',
    originProvince: 'ON',
    rates: 'flat',
    flatCents: 700,
    freeOverCents: 5000,
  });
  expect(flat.status).toBe(200);
  const made = await t.api.as(maker).post('/products', {
    title: `Wool tee ${word}`,
    description: 'Soft merino',
    weight: 0.2,
    imageUrls: ['https://img.example/tee.jpg', 'https://img.example/tee-back.jpg'],
    options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
    translations: {
      'fr-CA': {
        title: `T-shirt en laine ${word}`,
        description: 'Mérinos doux',
        options: [{ name: 'Taille', values: ['P', 'M', 'G'] }],
      },
    },
    variants: [
      {
        sku: `TEE-S-${word}`,
        options: { Size: 'S' },
        priceCents: 2000,
        compareAtPriceCents: 2500,
        barcode: '0123456789012',
        stockQuantity: 3,
      },
      { sku: `TEE-M-${word}`, options: { Size: 'M' }, priceCents: 2200, stockQuantity: 0 },
      {
        sku: `TEE-L-${word}`,
        options: { Size: 'L' },
        priceCents: 2200,
        stockQuantity: 5,
        status: 'inactive',
      },
    ],
  });
  expect(made.status).toBe(201);
  tee = made.body;
  ebook = await product(t.api, maker, { title: `Field guide ${word}`, isDigital: true, priceCents: 999 });
  formula = await product(t.api, maker, { title: '=HYPERLINK("https://evil.example","open")' });
  absent.draft = (await product(t.api, maker, { title: `Draft ${word}`, status: 'draft' })).id;
  const kept = await product(t.api, maker, { title: `Kept from agents ${word}` });
  await database.db.update(products).set({ agentChannels: false }).where(eq(products.id, kept.id));
  absent.agentChannelsOff = kept.id;
  const closed = await seller(t.api);
  absent.suspendedShop = (await product(t.api, closed, { title: `Closed shop ${word}` })).id;
  const suspended = await t.api
    .as(boss)
    .post(`/admin/shops/${encodeURIComponent(closed.id)}/suspend`, { reason: 'Counterfeit goods reported' });
  expect(suspended.status).toBe(200);
});

// biome-ignore lint/suspicious/noExplicitAny: rows as parsed
type Row = Record<string, any>;
const download = async (url: string) => {
  const res = await fetch(url.replace('http://portage.test', base));
  return { res, body: Buffer.from(await res.arrayBuffer()) };
};
const jsonLines = (gz: Buffer): Row[] =>
  gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const csvRecords = (gz: Buffer): string[][] =>
  parse(gunzipSync(gz).toString('utf8'), { relax_quotes: false });
// biome-ignore lint/suspicious/noExplicitAny: the answer's files
const fileOf = (body: any, locale: string, format: string) =>
  body.files.find((f: Row) => f.locale === locale && f.format === format);

describe('before the first snapshot', () => {
  it('GET /acp/feed is 404 not_found in ACP error shape', async () => {
    const res = await feed(platform);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: {
        type: 'invalid_request',
        code: 'not_found',
        message: 'No product feed file has been written yet: try again in a few minutes',
      },
    });
  });
});

describe('a snapshot', () => {
  // biome-ignore lint/suspicious/noExplicitAny: the answer as parsed
  let links: any;
  beforeAll(async () => {
    expect(await t.app.jobs.runOnce('feed-file')).toEqual({ 'feed-file': 1 });
    // Not due again before FEED_FILE_HOURS.
    expect(await t.app.jobs.runOnce('feed-file')).toEqual({ 'feed-file': 0 });
    const res = await feed(platform);
    expect(res.status).toBe(200);
    links = res.body;
  });

  it('lists both languages in both formats, at signed URLs valid a day', () => {
    const now = t.clock.now().getTime();
    expect(links.files.map((f: Row) => `${f.locale}.${f.format}`).sort()).toEqual([
      'en-CA.csv',
      'en-CA.jsonl',
      'fr-CA.csv',
      'fr-CA.jsonl',
    ]);
    for (const f of links.files) {
      expect(f).toEqual({
        locale: f.locale,
        format: f.format,
        url: expect.stringMatching(
          new RegExp(
            `^http://portage\\.test/feeds/files/products-\\d{8}T\\d{9}Z-${f.locale}\\.${f.format}\\.gz\\?platform=${encodeURIComponent(platform.id)}&expires=\\d+&signature=[0-9a-f]{64}$`,
          ),
        ),
        expires_at: expect.any(String),
        generated_at: links.generated_at,
        rows: 4,
        bytes: expect.any(Number),
      });
      const expires = Date.parse(f.expires_at);
      expect(Math.abs(expires - (now + 86_400_000))).toBeLessThan(2_000);
    }
  });

  it('serves each file over HTTP, streamed with its length, and every JSON line is a documented row', async () => {
    for (const f of links.files) {
      const { res, body } = await download(f.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      expect(Number(res.headers.get('content-length'))).toBe(f.bytes);
      expect(body.length).toBe(f.bytes);
      if (f.format === 'jsonl') {
        const rows = jsonLines(body);
        expect(rows).toHaveLength(f.rows);
        for (const row of rows) {
          expect(validateRow(row) ? [] : validateRow.errors).toEqual([]);
          expect(Object.keys(row)).toEqual([...FILE_FEED_FIELDS]);
          expect(row.language).toBe(f.locale);
        }
      } else {
        const [header, ...records] = csvRecords(body);
        expect(header).toEqual([...FILE_FEED_FIELDS]);
        expect(records).toHaveLength(f.rows);
      }
    }
  });

  it('the documented schema lists the fields in the files’ order', () => {
    expect(Object.keys(schema.properties)).toEqual([...FILE_FEED_FIELDS]);
    expect(schema.required).toEqual([...FILE_FEED_FIELDS]);
  });

  it('has one row per variant on sale; unpublished, kept from agents and suspended shops’ products are absent', async () => {
    const rows = jsonLines((await download(fileOf(links, 'en-CA', 'jsonl').url)).body);
    const [small, medium] = tee.variants;
    expect(rows.map((r) => r.id).sort()).toEqual(
      [small.id, medium.id, ebook.variants[0].id, formula.variants[0].id].sort(),
    );
    const groups = rows.map((r) => r.item_group_id);
    for (const id of Object.values(absent)) expect(groups).not.toContain(id);
  });

  it('writes a known product’s rows exactly, in English and in French', async () => {
    const [small, medium] = tee.variants;
    const en = jsonLines((await download(fileOf(links, 'en-CA', 'jsonl').url)).body);
    const fr = jsonLines((await download(fileOf(links, 'fr-CA', 'jsonl').url)).body);
    const shop = `http://portage.test/shops/${encodeURIComponent(maker.id)}`;
    const page = (lang: string, v: { id: string }) =>
      `http://portage.test/shop/products/${encodeURIComponent(tee.id)}?lang=${lang}&variant=${encodeURIComponent(v.id)}`;
    const common = {
      item_group_id: tee.id,
      image_link: 'https://img.example/tee.jpg',
      additional_image_links: ['https://img.example/tee-back.jpg'],
      currency: 'CAD',
      product_category: null,
      seller_name: 'Maple Goods',
      return_policy: `${shop}#returns`,
      marketplace: 'Portage',
      ships_to: 'CA',
      shipping: 'CA:::7.00 CAD',
      shipping_calculated: false,
      free_shipping_threshold: '50.00 CAD',
      is_digital: false,
      condition: 'new',
      enable_search: true,
      enable_checkout: true,
    };
    expect(en.find((r) => r.id === small.id)).toEqual({
      ...common,
      id: small.id,
      title: `Wool tee ${word}, S`,
      description: 'Soft merino',
      link: page('en', small),
      price: '20.00 CAD',
      price_cents: 2000,
      list_price: '25.00 CAD',
      list_price_cents: 2500,
      availability: 'in_stock',
      gtin: '0123456789012',
      variant_options: [{ name: 'Size', value: 'S' }],
      seller_url: `${shop}?lang=en`,
      language: 'en-CA',
    });
    expect(fr.find((r) => r.id === medium.id)).toEqual({
      ...common,
      id: medium.id,
      title: `T-shirt en laine ${word}, M`,
      description: 'Mérinos doux',
      link: page('fr', medium),
      price: '22.00 CAD',
      price_cents: 2200,
      list_price: null,
      list_price_cents: null,
      availability: 'out_of_stock',
      gtin: null,
      variant_options: [{ name: 'Taille', value: 'M' }],
      seller_url: `${shop}?lang=fr`,
      language: 'fr-CA',
    });
    const book = en.find((r) => r.id === ebook.variants[0].id)!;
    expect(book).toMatchObject({
      is_digital: true,
      ships_to: null,
      shipping: null,
      shipping_calculated: false,
      free_shipping_threshold: null,
    });

    // The CSV says the same, lists as text.
    const [header, ...records] = csvRecords((await download(fileOf(links, 'fr-CA', 'csv').url)).body);
    const record = records.find((r) => r[0] === medium.id)!;
    expect(Object.fromEntries(header!.map((h, n) => [h, record[n]]))).toEqual({
      id: medium.id,
      item_group_id: tee.id,
      title: `T-shirt en laine ${word}, M`,
      description: 'Mérinos doux',
      link: page('fr', medium),
      image_link: 'https://img.example/tee.jpg',
      additional_image_links: 'https://img.example/tee-back.jpg',
      price: '22.00 CAD',
      price_cents: '2200',
      list_price: '',
      list_price_cents: '',
      currency: 'CAD',
      availability: 'out_of_stock',
      gtin: '',
      condition: 'new',
      product_category: '',
      variant_options: 'Taille: M',
      seller_name: 'Maple Goods',
      seller_url: `${shop}?lang=fr`,
      return_policy: `${shop}#returns`,
      marketplace: 'Portage',
      ships_to: 'CA',
      shipping: 'CA:::7.00 CAD',
      shipping_calculated: 'false',
      free_shipping_threshold: '50.00 CAD',
      is_digital: 'false',
      language: 'fr-CA',
      enable_search: 'true',
      enable_checkout: 'true',
    });
  });

  it('neutralises a cell a spreadsheet would run as a formula', async () => {
    const [, ...records] = csvRecords((await download(fileOf(links, 'en-CA', 'csv').url)).body);
    const record = records.find((r) => r[0] === formula.variants[0].id)!;
    expect(record[2]).toBe('\'=HYPERLINK("https://evil.example","open")');
    // JSON Lines keeps the text as it is: no spreadsheet reads it.
    const rows = jsonLines((await download(fileOf(links, 'en-CA', 'jsonl').url)).body);
    expect(rows.find((r) => r.id === formula.variants[0].id)!.title).toBe(
      '=HYPERLINK("https://evil.example","open")',
    );
  });

  describe('a signed URL', () => {
    const refused = (message: string) => ({ status: 403, body: errorBody('AUTHZ_ERROR', 403, message) });
    const BAD = "This feed link's signature does not hold: ask GET /acp/feed for the current links";
    const answer = async (url: string) => {
      const res = await t.api.get(url.replace('http://portage.test', ''));
      return { status: res.status, body: res.body };
    };

    it('is refused tampered, for another platform, or past its expiry', async () => {
      const url = new URL(fileOf(links, 'en-CA', 'jsonl').url);
      const tampered = new URL(url);
      const sig = tampered.searchParams.get('signature')!;
      tampered.searchParams.set('signature', `${sig[0] === 'a' ? 'b' : 'a'}${sig.slice(1)}`);
      expect(await answer(tampered.href)).toEqual(refused(BAD));

      const later = new URL(url);
      later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      expect(await answer(later.href)).toEqual(refused(BAD));

      const theirs = new URL(url);
      theirs.searchParams.set('platform', other.id);
      expect(await answer(theirs.href)).toEqual(refused(BAD));

      const otherFile = new URL(fileOf(links, 'fr-CA', 'jsonl').url);
      otherFile.search = url.search;
      expect(await answer(otherFile.href)).toEqual(refused(BAD));

      const unsigned = new URL(url);
      unsigned.search = '';
      expect(await answer(unsigned.href)).toEqual(refused(BAD));

      t.clock.advance(86_401);
      try {
        expect(await answer(url.href)).toEqual(
          refused('This feed link has expired: ask GET /acp/feed for new links'),
        );
      } finally {
        t.clock.advance(-86_401);
      }
    });

    it('never opens a name the writer does not give', async () => {
      const url = new URL(fileOf(links, 'en-CA', 'jsonl').url);
      const NO_FILE = "No such feed file: ask GET /acp/feed for the current snapshot's files";
      for (const name of ['..%2F..%2F..%2Fetc%2Fpasswd', '..%2Fportage.pid', 'products-x.jsonl.gz']) {
        expect(await answer(`/feeds/files/${name}${url.search}`)).toEqual({
          status: 404,
          body: errorBody('NOT_FOUND', 404, NO_FILE),
        });
      }
    });

    it('stops working once its platform is revoked', async () => {
      const doomed = await issuePlatform(t.api, boss);
      const mine = (await feed(doomed)).body;
      const url = fileOf(mine, 'en-CA', 'csv').url;
      expect((await download(url)).res.status).toBe(200);
      expect((await t.api.as(boss).delete(`/admin/platforms/${doomed.id}`)).status).toBe(200);
      expect(await answer(url)).toEqual(refused(BAD));
      expect((await feed(doomed)).status).toBe(401);
    });
  });

  it('an admin gets a platform’s links; an unknown platform is 404', async () => {
    const res = await t.api.as(boss).get(`/admin/platforms/${platform.id}/feed-files`);
    expect(res.status).toBe(200);
    expect(res.body.files).toHaveLength(4);
    expect((await download(res.body.files[0].url)).res.status).toBe(200);
    const unknown = await t.api.as(boss).get('/admin/platforms/platforms:nope/feed-files');
    expect(unknown.status).toBe(404);
  });

  it('writes the same files in worker threads (a catalog of more than a page) as in this one', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-feed-threads-'));
    const ctx = { db: database.db, now: t.clock.now, log: t.app.log };
    const deps = { dir, publicBaseUrl: 'http://portage.test', fileHours: 24 };
    const written = await writeFeedSnapshot(ctx, deps, { force: true, threads: true });
    for (const f of written!.files) {
      const mine = gunzipSync(readFileSync(path.join(dir, f.name))).toString('utf8');
      const served = gunzipSync((await download(fileOf(links, f.locale, f.format).url)).body).toString(
        'utf8',
      );
      expect(mine).toBe(served);
    }
    // This snapshot is now the current one: the next test's starts from it.
    rmSync(dir, { recursive: true, force: true });
    await database.db.execute(sql`delete from feed_snapshots where id = ${written!.id}`);
  });

  it('writes the next snapshot when due, keeping the one before for downloads under way', async () => {
    const names = () => readdirSync(t.config.feeds.dir).sort();
    expect(names()).toHaveLength(4);
    // A link to the first snapshot's file, signed as GET /acp/feed would sign it a day later.
    const deps = { secret: t.keys.derive('feed-files'), publicBaseUrl: base, dir: t.config.feeds.dir };
    const firstName = new URL(fileOf(links, 'en-CA', 'jsonl').url).pathname.split('/').pop()!;
    const first = feedFileUrl(deps, platform.id, firstName, Math.floor(Date.now() / 1000) + 3 * 86_400);
    t.clock.advance(25 * 3600);
    try {
      expect(await t.app.jobs.runOnce('feed-file')).toEqual({ 'feed-file': 1 });
      expect(names()).toHaveLength(8);
      expect((await download(first)).res.status).toBe(200);
      t.clock.advance(25 * 3600);
      expect(await t.app.jobs.runOnce('feed-file')).toEqual({ 'feed-file': 1 });
      // The first snapshot's files are gone; its links answer 404.
      expect(names()).toHaveLength(8);
      expect((await download(first)).res.status).toBe(404);
      expect((await feed(platform)).body.generated_at).not.toBe(links.generated_at);
    } finally {
      t.clock.advance(-50 * 3600);
    }
  });
});
