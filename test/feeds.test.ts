// The ACP Feed API pushes (docs/acp.md "Product feeds"): a platform registered with its Feed API
// gets one feed per language, the whole catalog, then its changes; every request is checked
// against the official ACP 2026-04-17 feed schemas by the local receiver that plays the platform.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFeeds } from '../src/modules/platforms/tables.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, product, seller } from './helpers/builders.ts';
import { type FeedReceiver, startFeedReceiver } from './helpers/feed-receiver.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ env: { FEED_SETTLE_MS: '0' } });

let boss: SignedIn;
let shop: SignedIn;
let receiver: FeedReceiver;
let platformId: string;
let tee: { id: string; variants: Array<{ id: string; sku: string }> };
let box: { id: string; variants: Array<{ id: string }> };
let draft: { id: string };

const BASE = 'http://portage.test';

/** `who` signed in again: the clock these tests move ends access tokens. */
async function again(who: SignedIn): Promise<SignedIn> {
  const res = await t.api.post('/auth/login', { email: who.email, password: who.password });
  expect(res.status).toBe(200);
  return { ...who, token: res.body.token };
}

/** Runs the feeds job until a pass sends nothing more. */
async function push(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const handled = await t.app.jobs.runOnce('agent-feeds');
    if ((handled['agent-feeds'] ?? 0) < 10) return;
  }
}

const feedOf = (locale: 'en-CA' | 'fr-CA') => {
  const created = receiver.requests.filter((r) => r.method === 'POST' && r.path === '/feeds');
  expect(created.length).toBeGreaterThanOrEqual(2);
  return [...receiver.feeds.values()][locale === 'en-CA' ? 0 : 1]!;
};
const seen = (locale: 'en-CA' | 'fr-CA', id: string) => feedOf(locale).products.get(id);

beforeAll(async () => {
  receiver = await startFeedReceiver();
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  const res = await t.api.as(shop).post('/products', {
    title: 'Wool tee',
    description: 'Soft merino.',
    weight: 0.2,
    imageUrls: ['https://img.example/tee.jpg'],
    translations: {
      'fr-CA': {
        title: 'T-shirt en laine',
        description: 'Mérinos doux.',
        options: [{ name: 'Taille', values: ['P', 'M'] }],
      },
    },
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      {
        sku: 'TEE-S',
        options: { Size: 'S' },
        priceCents: 2000,
        compareAtPriceCents: 2500,
        stockQuantity: 3,
        barcode: '00012345600012',
      },
      { sku: 'TEE-M', options: { Size: 'M' }, priceCents: 2200, stockQuantity: 3 },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  tee = res.body;
  box = (await product(t.api, shop, {
    title: 'Cedar box',
    priceCents: 1500,
    stockQuantity: 1,
  })) as unknown as typeof box;
  draft = await product(t.api, shop, { title: 'Draft lamp', status: 'draft' });
  const made = await t.api.as(boss).post('/admin/platforms', {
    name: 'Maple Chat',
    webhookUrl: 'http://127.0.0.1:9/hooks',
    feedUrl: receiver.url,
    feedToken: receiver.token,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.feedUrl).toBe(receiver.url);
  expect(JSON.stringify(made.body)).not.toContain(receiver.token);
  platformId = made.body.id;
});
afterAll(() => receiver.close());

describe('a platform with a Feed API', () => {
  it('gets one feed a language for Canada, and the whole catalog in each, as the official schema says', async () => {
    await push();
    expect(receiver.problems).toEqual([]);
    const created = receiver.requests.filter((r) => r.method === 'POST');
    expect(created.map((r) => r.body)).toEqual([{ target_country: 'CA' }, { target_country: 'CA' }]);
    expect(receiver.feeds.size).toBe(2);
    const shopUrl = `${BASE}/shops/${encodeURIComponent(shop.id)}`;
    const seller = {
      name: 'Maple Goods',
      links: [
        { type: 'refund_policy', url: `${shopUrl}#returns` },
        { type: 'faq', url: `${shopUrl}?lang=en` },
      ],
    };
    const marketplace = {
      name: 'Portage',
      links: [
        { type: 'terms_of_service', url: `${BASE}/policies/terms` },
        { type: 'privacy_policy', url: `${BASE}/policies/privacy` },
      ],
    };
    const page = `${BASE}/shop/products/${encodeURIComponent(tee.id)}?lang=en`;
    const media = [{ type: 'image', url: 'https://img.example/tee.jpg', alt_text: 'Wool tee' }];
    const [s, m] = tee.variants;
    expect(seen('en-CA', tee.id)).toEqual({
      id: tee.id,
      title: 'Wool tee',
      description: { plain: 'Soft merino.' },
      url: page,
      media,
      variants: [
        {
          id: s!.id,
          title: 'Wool tee, S',
          description: { plain: 'Soft merino.' },
          url: `${page}&variant=${encodeURIComponent(s!.id)}`,
          barcodes: [{ type: 'GTIN', value: '00012345600012' }],
          price: { amount: 2000, currency: 'CAD' },
          list_price: { amount: 2500, currency: 'CAD' },
          availability: { available: true, status: 'in_stock' },
          condition: ['new'],
          variant_options: [{ name: 'Size', value: 'S' }],
          media,
          seller,
          marketplace,
        },
        {
          id: m!.id,
          title: 'Wool tee, M',
          description: { plain: 'Soft merino.' },
          url: `${page}&variant=${encodeURIComponent(m!.id)}`,
          price: { amount: 2200, currency: 'CAD' },
          availability: { available: true, status: 'in_stock' },
          condition: ['new'],
          variant_options: [{ name: 'Size', value: 'M' }],
          media,
          seller,
          marketplace,
        },
      ],
    });
    const fr = seen('fr-CA', tee.id)!;
    expect(fr.title).toBe('T-shirt en laine');
    expect(fr.description).toEqual({ plain: 'Mérinos doux.' });
    expect(fr.url).toBe(`${BASE}/shop/products/${encodeURIComponent(tee.id)}?lang=fr`);
    expect(fr.variants.map((v) => [v.title, v.variant_options])).toEqual([
      ['T-shirt en laine, P', [{ name: 'Taille', value: 'P' }]],
      ['T-shirt en laine, M', [{ name: 'Taille', value: 'M' }]],
    ]);
    expect(seen('en-CA', box.id)?.variants.map((v) => v.id)).toEqual(box.variants.map((v) => v.id));
    expect(seen('en-CA', draft.id)).toBeUndefined();
    const patches = receiver.requests.filter((r) => r.method === 'PATCH');
    expect(patches.every((r) => typeof r.headers['idempotency-key'] === 'string')).toBe(true);

    const states = await t.api.as(boss).get(`/admin/platforms/${platformId}/feeds`);
    expect(states.status).toBe(200);
    expect(
      states.body.feeds.map((f: Record<string, unknown>) => [
        f.locale,
        f.snapshot,
        f.productsSent,
        f.failures,
      ]),
    ).toEqual([
      ['en-CA', 'done', 2, 0],
      ['fr-CA', 'done', 2, 0],
    ]);
  });

  it('sends what changed at the next pass: a price, a sell-out, an unpublished product, one kept from agents', async () => {
    const before = receiver.requests.length;
    await push();
    expect(receiver.requests.length).toBe(before); // nothing changed, nothing sent

    const [s] = tee.variants;
    expect(
      (await t.api.as(shop).patch(`/products/${tee.id}/variants/${s!.id}`, { priceCents: 1800 })).status,
    ).toBe(200);
    expect((await t.api.as(shop).patch(`/products/${box.id}`, { stockQuantity: 0 })).status).toBe(200);
    expect((await t.api.as(shop).patch(`/products/${draft.id}`, { status: 'active' })).status).toBe(200);
    await push();
    expect(receiver.problems).toEqual([]);
    expect(seen('en-CA', tee.id)!.variants[0]!.price).toEqual({ amount: 1800, currency: 'CAD' });
    expect(seen('fr-CA', tee.id)!.variants[0]!.price).toEqual({ amount: 1800, currency: 'CAD' });
    expect(seen('en-CA', box.id)!.variants[0]!.availability).toEqual({
      available: false,
      status: 'out_of_stock',
    });
    expect(seen('en-CA', draft.id)!.title).toBe('Draft lamp');

    expect((await t.api.as(shop).patch(`/products/${draft.id}`, { status: 'draft' })).status).toBe(200);
    expect((await t.api.as(shop).patch(`/products/${box.id}`, { agentChannels: false })).status).toBe(200);
    await push();
    for (const id of [draft.id, box.id]) {
      expect(seen('en-CA', id)!.variants.map((v) => v.availability)).toEqual([
        { available: false, status: 'discontinued' },
      ]);
    }
    expect(receiver.problems).toEqual([]);
  });

  it("sends a shop's products as discontinued when it is suspended, and back when reinstated", async () => {
    const suspended = await t.api
      .as(boss)
      .post(`/admin/shops/${shop.id}/suspend`, { reason: 'Counterfeits' });
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);
    await push();
    expect(seen('en-CA', tee.id)!.variants.map((v) => v.availability?.status)).toEqual([
      'discontinued',
      'discontinued',
    ]);
    expect(seen('fr-CA', tee.id)!.variants.map((v) => v.availability?.status)).toEqual([
      'discontinued',
      'discontinued',
    ]);
    expect((await t.api.as(boss).post(`/admin/shops/${shop.id}/reinstate`, {})).status).toBe(200);
    await push();
    expect(seen('en-CA', tee.id)!.variants.map((v) => v.availability?.status)).toEqual([
      'in_stock',
      'in_stock',
    ]);
    expect(receiver.problems).toEqual([]);
  });

  it('backs off after a failure, says why on the desk, and sends once the platform answers again', async () => {
    const [, m] = tee.variants;
    expect(
      (await t.api.as(shop).patch(`/products/${tee.id}/variants/${m!.id}`, { priceCents: 2100 })).status,
    ).toBe(200);
    receiver.failNext = 1;
    const from = t.clock.now().getTime();
    await t.app.jobs.runOnce('agent-feeds');
    const to = t.clock.now().getTime();
    const [state] = await database.db.select().from(platformFeeds).where(eq(platformFeeds.language, 'en-CA'));
    const [frState] = await database.db
      .select()
      .from(platformFeeds)
      .where(eq(platformFeeds.language, 'fr-CA'));
    // One of the two feeds met the failure; the other was sent.
    const failed = state!.failures === 1 ? state! : frState!;
    expect(failed.failures).toBe(1);
    expect(failed.lastError).toMatch(/^PATCH \/feeds\/feed_\d\/products answered 503$/);
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(from + 30_000);
    expect(failed.nextAttemptAt.getTime()).toBeLessThanOrEqual(to + 30_000);
    const states = await t.api.as(boss).get(`/admin/platforms/${platformId}/feeds`);
    expect(states.body.feeds.find((f: { failures: number }) => f.failures === 1).lastError).toBe(
      failed.lastError,
    );

    const count = receiver.requests.length;
    await t.app.jobs.runOnce('agent-feeds');
    expect(receiver.requests.length).toBe(count); // not before its time
    t.clock.advance(31_000);
    await push();
    expect(seen('en-CA', tee.id)!.variants[1]!.price).toEqual({ amount: 2100, currency: 'CAD' });
    expect(seen('fr-CA', tee.id)!.variants[1]!.price).toEqual({ amount: 2100, currency: 'CAD' });
    const after = await database.db.select().from(platformFeeds);
    expect(after.map((f) => [f.failures, f.lastError])).toEqual([
      [0, null],
      [0, null],
    ]);
  });

  it('makes a feed the platform lost again, and sends it the whole catalog; a full snapshot again each day', async () => {
    [boss, shop] = [await again(boss), await again(shop)];
    const lostId = [...receiver.feeds.keys()][0]!;
    receiver.feeds.delete(lostId);
    const [s] = tee.variants;
    expect(
      (await t.api.as(shop).patch(`/products/${tee.id}/variants/${s!.id}`, { priceCents: 1900 })).status,
    ).toBe(200);
    await push();
    t.clock.advance(31_000);
    await push();
    expect(receiver.feeds.size).toBe(2);
    const remade = [...receiver.feeds.values()].find((f) => !f.products.has(draft.id))!;
    expect([...remade.products.keys()]).toEqual([tee.id]); // the one product in the feeds now
    expect(remade.products.get(tee.id)!.variants[0]!.price).toEqual({ amount: 1900, currency: 'CAD' });

    const patches = () => receiver.requests.filter((r) => r.method === 'PATCH').length;
    const before = patches();
    t.clock.advance(24 * 60 * 60_000);
    await push();
    expect(patches()).toBe(before + 2); // each feed's snapshot: one request of its one product in the feeds
    expect(receiver.problems).toEqual([]);
  });

  it('stops at once for a revoked platform, and starts again at a new Feed API address', async () => {
    [boss, shop] = [await again(boss), await again(shop)];
    const other = await t.api.as(boss).post('/admin/platforms', {
      name: 'Birch Chat',
      webhookUrl: 'http://127.0.0.1:9/hooks',
      feedUrl: receiver.url,
      feedToken: receiver.token,
    });
    expect((await t.api.as(boss).delete(`/admin/platforms/${other.body.id}`)).status).toBe(200);
    const before = receiver.requests.length;
    await push();
    expect(receiver.requests.length).toBe(before);

    const second = await startFeedReceiver('other-token');
    try {
      const moved = await t.api
        .as(boss)
        .patch(`/admin/platforms/${platformId}`, { feedUrl: second.url, feedToken: second.token });
      expect(moved.status).toBe(200);
      expect(moved.body.feedUrl).toBe(second.url);
      await push();
      expect(second.feeds.size).toBe(2);
      expect([...second.feeds.values()].map((f) => [...f.products.keys()])).toEqual([[tee.id], [tee.id]]);
      expect(second.problems).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('refuses a feed URL without its token, a token without its URL, and an empty change', async () => {
    [boss, shop] = [await again(boss), await again(shop)];
    const bad = await t.api.as(boss).post('/admin/platforms', {
      name: 'Oak Chat',
      webhookUrl: 'http://127.0.0.1:9/hooks',
      feedUrl: 'https://feeds.example/api',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'feedToken', message: 'required with feedUrl' }]);
    const tokenOnly = await t.api.as(boss).patch(`/admin/platforms/${platformId}`, { feedToken: 'abc' });
    expect(tokenOnly.status).toBe(400);
    expect(tokenOnly.body.details).toEqual([{ field: 'feedUrl', message: 'required with feedToken' }]);
    const empty = await t.api.as(boss).patch(`/admin/platforms/${platformId}`, {});
    expect(empty.status).toBe(400);
    const notAdmin = await t.api.as(shop).get(`/admin/platforms/${platformId}/feeds`);
    expect(notAdmin.status).toBe(403);
    const none = await t.api.as(boss).get('/admin/platforms/platforms_nope/feeds');
    expect(none.status).toBe(404);
  });
});

describe("the desk's platforms page", () => {
  it('registers a platform with its Feed API, and shows each feed, in English and French', async () => {
    boss = await again(boss);
    const third = await startFeedReceiver('desk-token');
    try {
      const desk = new Browser(t.app);
      await desk.signIn(boss);
      await desk.get('/desk/platforms');
      const tokenless = await desk.post('/desk/platforms', {
        name: 'Spruce Chat',
        webhookUrl: 'https://chat.example/hooks',
        feedUrl: third.url,
        feedToken: '',
      });
      expect(tokenless.status).toBe(400);
      expect(tokenless.html).toMatch(/id="f-feedToken"[^>]*aria-invalid="true"/);
      expect(textOf(tokenless.html)).toContain('required with feedUrl');
      const made = await desk.post('/desk/platforms', {
        name: 'Spruce Chat',
        webhookUrl: 'https://chat.example/hooks',
        feedUrl: third.url,
        feedToken: third.token,
      });
      expect(made.status).toBe(201);
      await push();
      expect(third.feeds.size).toBe(2);
      const page = await desk.get('/desk/platforms');
      expect(page.html).not.toContain(third.token);
      expect(textOf(page.html)).toMatch(
        /Product feeds .* Spruce Chat English Sent .* 1 Up to date Spruce Chat Français Sent .* 1 Up to date/,
      );
      const fr = new Browser(t.app, { 'accept-language': 'fr-CA' });
      await fr.signIn(boss);
      expect(textOf((await fr.get('/desk/platforms')).html)).toMatch(
        /Flux de produits .* Spruce Chat English Envoyé .* 1 À jour/,
      );
    } finally {
      await third.close();
    }
  });
});
