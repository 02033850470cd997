// Agent platforms: an admin issues, lists, rotates and revokes their API keys (docs/api.md "Platforms").
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../src/modules/context.ts';
import { authenticatePlatform, platformWebhookTarget } from '../src/modules/platforms/service.ts';
import { platforms } from '../src/modules/platforms/tables.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid } from './helpers/builders.ts';

const { t, database } = useTestApp();

let boss: SignedIn;
beforeAll(async () => {
  t.clock.freeze();
  boss = await admin(t.api, database);
});

const RECEIVER = 'http://127.0.0.1:4010/acp/webhooks';
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const ctx = (): RequestContext => ({ db: database.db, now: t.clock.now, log: t.app.log });
const nowUnix = () => Math.floor(t.clock.now().getTime() / 1000);

/** Registers a platform as the admin; answers it as issued. */
async function issue(fields: Record<string, unknown> = {}) {
  const res = await t.api
    .as(boss)
    .post('/admin/platforms', { name: 'Chat Platform', webhookUrl: RECEIVER, ...fields });
  expect(res.status).toBe(201);
  return res.body;
}

const rowOf = async (id: string) =>
  (await database.db.select().from(platforms).where(eq(platforms.id, id)))[0];

describe('creating a platform', () => {
  it('answers 201 with the platform, its key and its webhook secret, shown once', async () => {
    const res = await t.api.as(boss).post('/admin/platforms', {
      name: '  Maple Chat  ',
      webhookUrl: 'https://chat.example.com/acp/hooks?v=1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^platforms:[A-Za-z0-9_-]{20}$/),
      name: 'Maple Chat',
      webhookUrl: 'https://chat.example.com/acp/hooks?v=1',
      ucpProfileUrl: null,
      feedUrl: null,
      createdAt: nowUnix(),
      keyRotatedAt: null,
      revokedAt: null,
      apiKey: expect.stringMatching(/^acp_[A-Za-z0-9_-]{43}$/),
      webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    expect(res.body.apiKey).toHaveLength(47);
    expect(res.body.webhookSecret).not.toBe(res.body.apiKey.replace(/^acp_/, 'whsec_'));
  });

  it('keeps a UCP profile URL given (https, or http on a loopback host), and refuses another', async () => {
    const profile = 'https://agent.example.com/.well-known/ucp';
    expect((await issue({ ucpProfileUrl: profile })).ucpProfileUrl).toBe(profile);
    const res = await t.api.as(boss).post('/admin/platforms', {
      name: 'Bad',
      webhookUrl: RECEIVER,
      ucpProfileUrl: 'http://agent.example.com/p',
    });
    expectInvalid(res, [
      {
        field: 'ucpProfileUrl',
        message: 'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)',
      },
    ]);
  });

  it('PATCH sets, changes and takes away the UCP profile; a revoked platform is 409, an unknown one 404', async () => {
    const p = await issue();
    const set = await t.api
      .as(boss)
      .patch(`/admin/platforms/${p.id}`, { ucpProfileUrl: 'https://agent.example.com/p.json' });
    expect(set.status).toBe(200);
    expect(set.body.ucpProfileUrl).toBe('https://agent.example.com/p.json');
    expect((await authenticatePlatform(ctx(), p.apiKey))?.ucpProfileUrl).toBe(
      'https://agent.example.com/p.json',
    );
    expect(
      (await t.api.as(boss).patch(`/admin/platforms/${p.id}`, { ucpProfileUrl: null })).body.ucpProfileUrl,
    ).toBeNull();
    expectInvalid(await t.api.as(boss).patch(`/admin/platforms/${p.id}`, { ucpProfileUrl: 'ftp://x' }), [
      {
        field: 'ucpProfileUrl',
        message: 'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)',
      },
    ]);
    await t.api.as(boss).delete(`/admin/platforms/${p.id}`);
    expect((await t.api.as(boss).patch(`/admin/platforms/${p.id}`, { ucpProfileUrl: null })).status).toBe(
      409,
    );
    expect(
      (await t.api.as(boss).patch('/admin/platforms/platforms:AAAAAAAAAAAAAAAAAAAA', { ucpProfileUrl: null }))
        .status,
    ).toBe(404);
  });

  it('stores the SHA-256 of the key, never the key; the webhook secret as issued', async () => {
    const p = await issue();
    const row = await rowOf(p.id);
    expect(row).toEqual({
      id: p.id,
      name: 'Chat Platform',
      webhookUrl: RECEIVER,
      ucpProfileUrl: null,
      feedUrl: null,
      feedToken: null,
      keyHash: sha256(p.apiKey),
      webhookSecret: p.webhookSecret,
      createdAt: new Date(nowUnix() * 1000),
      keyRotatedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(row)).not.toContain(p.apiKey);
    expect(JSON.stringify(row)).not.toContain(p.apiKey.slice(4));
  });

  it('gives each platform its own key and secret', async () => {
    const [a, b] = [await issue(), await issue()];
    expect(new Set([a.apiKey, b.apiKey, a.webhookSecret, b.webhookSecret]).size).toBe(4);
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:4010/hooks'],
    ['[::1]', 'http://[::1]:8080/hooks'],
    ['localhost', 'http://localhost/hooks'],
  ])('takes an http webhook URL on the loopback host %s', async (_host, webhookUrl) => {
    expect((await issue({ webhookUrl })).webhookUrl).toBe(webhookUrl);
  });

  const https = 'https://chat.example.com/';
  it.each([
    [
      'http to a public host',
      'http://chat.example.com/hooks',
      'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)',
    ],
    [
      'http to another address of the machine',
      'http://10.0.0.5/hooks',
      'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)',
    ],
    [
      'another scheme',
      'ftp://chat.example.com/hooks',
      'must use https, or http on a loopback host (127.0.0.1, [::1], localhost)',
    ],
    ['credentials', 'https://user:pass@chat.example.com/hooks', 'must not hold credentials'],
    ['a user name alone', 'https://user@chat.example.com/hooks', 'must not hold credentials'],
    ['a fragment', 'https://chat.example.com/hooks#events', 'must not have a fragment'],
    ['an empty fragment', 'https://chat.example.com/hooks#', 'must not have a fragment'],
    ['not a URL', 'chat.example.com/hooks', 'must be an absolute URL'],
    ['an empty string', '', 'must be an absolute URL'],
    ['2001 characters', https + 'a'.repeat(2001 - https.length), 'must be at most 2,000 characters'],
  ])('refuses a webhook URL with %s: 400 naming webhookUrl', async (_label, webhookUrl, message) => {
    const res = await t.api.as(boss).post('/admin/platforms', { name: 'Bad', webhookUrl });
    expectInvalid(res, [{ field: 'webhookUrl', message }]);
  });

  it('takes a webhook URL of exactly 2000 characters', async () => {
    const webhookUrl = https + 'a'.repeat(2000 - https.length);
    expect((await issue({ webhookUrl })).webhookUrl).toBe(webhookUrl);
  });

  it('refuses a missing or blank name, a name over 100 characters and an unknown field', async () => {
    expectInvalid(await t.api.as(boss).post('/admin/platforms', { webhookUrl: RECEIVER }), [
      { field: 'name', message: 'is required' },
    ]);
    expectInvalid(await t.api.as(boss).post('/admin/platforms', { name: '   ', webhookUrl: RECEIVER }), [
      { field: 'name', message: 'must not be empty' },
    ]);
    expectInvalid(
      await t.api.as(boss).post('/admin/platforms', { name: 'n'.repeat(101), webhookUrl: RECEIVER }),
      [{ field: 'name', message: 'must be at most 100 characters' }],
    );
    // A strict body: a key cannot be chosen by the caller.
    const extra = await t.api
      .as(boss)
      .post('/admin/platforms', { name: 'N', webhookUrl: RECEIVER, apiKey: 'acp_x' });
    expectInvalid(extra, [{ field: 'body', message: 'Unrecognized key: "apiKey"' }]);
  });
});

describe('who may call', () => {
  const routes = (id: string) =>
    [
      [
        'POST /admin/platforms',
        (api: ReturnType<typeof t.api.as>) =>
          api.post('/admin/platforms', { name: 'X', webhookUrl: RECEIVER }),
      ],
      ['GET /admin/platforms', (api: ReturnType<typeof t.api.as>) => api.get('/admin/platforms')],
      [
        'POST rotate-key',
        (api: ReturnType<typeof t.api.as>) => api.post(`/admin/platforms/${id}/rotate-key`),
      ],
      ['DELETE', (api: ReturnType<typeof t.api.as>) => api.delete(`/admin/platforms/${id}`)],
    ] as const;

  it('a buyer is 403 and an anonymous caller 401 on every route; nothing changes', async () => {
    const p = await issue();
    const b = await buyer(t.api);
    for (const [, call] of routes(p.id)) {
      expectError(
        await call(t.api.as(b)),
        'AUTHZ_ERROR',
        403,
        'AUTHZ_ERROR: This needs the admin role; you are buyer',
      );
      expectError(
        await call(t.api),
        'AUTH_ERROR',
        401,
        'AUTH_ERROR: Missing token; send Authorization: Bearer <token>',
      );
    }
    expect(await rowOf(p.id)).toMatchObject({ keyHash: sha256(p.apiKey), revokedAt: null });
  });
});

describe('listing', () => {
  it('lists platforms newest first, without keys or secrets', async () => {
    const older = await issue({ name: 'Older' });
    t.clock.advance(1);
    const newer = await issue({ name: 'Newer' });
    const res = await t.api.as(boss).get('/admin/platforms');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['platforms']);
    const listed = res.body.platforms;
    expect(listed[0]).toEqual({
      id: newer.id,
      name: 'Newer',
      webhookUrl: RECEIVER,
      ucpProfileUrl: null,
      feedUrl: null,
      createdAt: newer.createdAt,
      keyRotatedAt: null,
      revokedAt: null,
    });
    expect(listed.findIndex((p: { id: string }) => p.id === older.id)).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toMatch(/acp_|whsec_/);
    const times = listed.map((p: { createdAt: number }) => p.createdAt);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe('authenticating a platform by its key', () => {
  it('answers the platform of a live key, and nothing for an unknown key', async () => {
    const p = await issue({ name: 'Keyed' });
    expect(await authenticatePlatform(ctx(), p.apiKey)).toEqual({
      id: p.id,
      name: 'Keyed',
      webhookUrl: RECEIVER,
      ucpProfileUrl: null,
    });
    // Another last character (a key that ends in A must not be "changed" into itself).
    const other = p.apiKey.endsWith('A') ? 'B' : 'A';
    expect(await authenticatePlatform(ctx(), `${p.apiKey.slice(0, -1)}${other}`)).toBeUndefined();
    expect(await authenticatePlatform(ctx(), 'acp_')).toBeUndefined();
    expect(await platformWebhookTarget(ctx(), p.id)).toEqual({
      webhookUrl: RECEIVER,
      webhookSecret: p.webhookSecret,
    });
    expect(await platformWebhookTarget(ctx(), 'platforms:AAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await platformWebhookTarget(ctx(), 'users:AAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
  });

  it('answers a key without the acp_ prefix without a query', async () => {
    const p = await issue();
    // A database that fails whatever it is asked: the answer comes before any query.
    const noDb = { ...ctx(), db: undefined as never };
    expect(await authenticatePlatform(noDb, p.apiKey.slice(4))).toBeUndefined();
    expect(await authenticatePlatform(noDb, `sk_${p.apiKey}`)).toBeUndefined();
    expect(await authenticatePlatform(noDb, '')).toBeUndefined();
    await expect(authenticatePlatform(noDb, p.apiKey)).rejects.toThrow();
  });
});

describe('rotating a key', () => {
  it('issues a different key; the old one stops working at once', async () => {
    const p = await issue();
    t.clock.advance(5);
    const res = await t.api.as(boss).post(`/admin/platforms/${p.id}/rotate-key`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: p.id, apiKey: expect.stringMatching(/^acp_[A-Za-z0-9_-]{43}$/) });
    expect(res.body.apiKey).not.toBe(p.apiKey);
    expect(await authenticatePlatform(ctx(), p.apiKey)).toBeUndefined();
    expect(await authenticatePlatform(ctx(), res.body.apiKey)).toMatchObject({ id: p.id });

    const row = await rowOf(p.id);
    expect(row).toMatchObject({
      keyHash: sha256(res.body.apiKey),
      webhookSecret: p.webhookSecret,
      revokedAt: null,
    });
    const listed = (await t.api.as(boss).get('/admin/platforms')).body.platforms.find(
      (x: { id: string }) => x.id === p.id,
    );
    expect(listed).toMatchObject({ keyRotatedAt: nowUnix(), createdAt: p.createdAt, revokedAt: null });
  });

  it('is 404 for an unknown or malformed id', async () => {
    for (const id of ['platforms:AAAAAAAAAAAAAAAAAAAA', 'nope', 'users:AAAAAAAAAAAAAAAAAAAA']) {
      const res = await t.api.as(boss).post(`/admin/platforms/${encodeURIComponent(id)}/rotate-key`);
      expectError(res, 'NOT_FOUND', 404, `Platform ${id} not found`);
    }
  });

  it('is 409 after the platform was revoked; its key stays dead', async () => {
    const p = await issue();
    expect((await t.api.as(boss).delete(`/admin/platforms/${p.id}`)).status).toBe(200);
    const res = await t.api.as(boss).post(`/admin/platforms/${p.id}/rotate-key`);
    expectError(res, 'CONFLICT', 409, `Platform ${p.id} is revoked; its key cannot be rotated`);
    expect(await rowOf(p.id)).toMatchObject({ keyHash: sha256(p.apiKey), keyRotatedAt: null });
  });
});

describe('revoking', () => {
  it('answers the platform revoked; again answers it as it is; its key and webhooks stop at once', async () => {
    const p = await issue();
    t.clock.advance(3);
    const revokedAt = nowUnix();
    const first = await t.api.as(boss).delete(`/admin/platforms/${p.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: p.id,
      name: p.name,
      webhookUrl: p.webhookUrl,
      ucpProfileUrl: null,
      feedUrl: null,
      createdAt: p.createdAt,
      keyRotatedAt: null,
      revokedAt,
    });
    expect(await authenticatePlatform(ctx(), p.apiKey)).toBeUndefined();
    expect(await platformWebhookTarget(ctx(), p.id)).toBeUndefined();

    t.clock.advance(60);
    const again = await t.api.as(boss).delete(`/admin/platforms/${p.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const listed = (await t.api.as(boss).get('/admin/platforms')).body.platforms.find(
      (x: { id: string }) => x.id === p.id,
    );
    expect(listed).toEqual(first.body);
  });

  it('is 404 for an unknown id', async () => {
    const id = 'platforms:AAAAAAAAAAAAAAAAAAAA';
    expectError(
      await t.api.as(boss).delete(`/admin/platforms/${id}`),
      'NOT_FOUND',
      404,
      `Platform ${id} not found`,
    );
  });
});
