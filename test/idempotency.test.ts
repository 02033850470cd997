// Idempotency-Key on POST requests (docs/api.md "Idempotency"; src/http/idempotency.ts):
// replays, conflicts, races, expiry, what is not stored.
// The app is the real one (buildApp), with a few routes of its own added before it starts, for
// what no real route does on demand: a server error, an answer over 1 MiB, a handler that
// waits until the test lets it go.
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { rateLimited } from '../src/contract/errors.ts';
import {
  IDEMPOTENCY_TTL_MS,
  idempotencyCleanupJob,
  MAX_STORED_BYTES,
  RUNNING_LEASE_MS,
} from '../src/http/idempotency.ts';
import { loadKeyRing } from '../src/modules/auth/keys.ts';
import { cartItems } from '../src/modules/cart/tables.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { idempotencyKeys } from '../src/modules/system/tables.ts';
import { Api, type SignedIn, TestClock, testKeyPem } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product, seller, uniqueWord } from './helpers/builders.ts';
import { useTestDatabase } from './helpers/db.ts';

const database = useTestDatabase();
let app: FastifyInstance;
let api: Api;
const clock = new TestClock();

/** The test routes' state: calls per route, a switch to fail, a gate to hold a handler. */
const calls = { boom: 0, big: 0, slow: 0, busy: 0 };
let busy = true;
let failing = true;
let bigBytes = 0;
let gate: { open: () => void; promise: Promise<void> } = makeGate();
const entered: Array<() => void> = [];

function makeGate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, promise };
}
/** Resolves when the slow route's handler has been entered once more. */
const nextEntered = () => new Promise<void>((resolve) => entered.push(resolve));

beforeAll(async () => {
  const config = loadConfig({
    APP_ENV: 'development',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'portage-data-')),
    PUBLIC_BASE_URL: 'http://portage.test',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'silent',
    JWT_PRIVATE_KEY: testKeyPem(),
  });
  const keys = await loadKeyRing(config.jwtPrivateKey!, config.jwtPreviousPublicKeys);
  app = await buildApp({ config, database, keys, now: clock.now, logger: false });
  await app.register(async (f) => {
    f.post('/test/boom', { config: { auth: 'user' } }, async () => {
      calls.boom++;
      if (failing) throw new Error('the database went away');
      return { calls: calls.boom };
    });
    f.post('/test/big', { config: { auth: 'user' } }, async () => {
      calls.big++;
      return { calls: calls.big, filler: 'x'.repeat(bigBytes) };
    });
    f.post('/test/slow', { config: { auth: 'user' } }, async () => {
      const call = ++calls.slow;
      for (const resolve of entered.splice(0)) resolve();
      await gate.promise;
      return { call };
    });
    f.post('/test/empty', { config: { auth: 'user' } }, async (_req, reply) => reply.code(204).send());
    f.post('/test/busy', { config: { auth: 'user' } }, async () => {
      calls.busy++;
      if (busy) throw rateLimited('error.http.rateLimited', { seconds: 30, max: 10 });
      return { calls: calls.busy };
    });
  });
  await app.ready();
  api = new Api(app);
});
afterAll(async () => {
  await app?.close();
});

interface Raw {
  status: number;
  text: string;
  /** The answer's JSON (an object for every route these tests call). */
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A POST through inject, answering the exact text of the answer as well as its JSON. */
async function post(who: SignedIn | undefined, url: string, body: unknown, key?: string): Promise<Raw> {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: {
      ...(who ? { authorization: `Bearer ${who.token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(res.body);
  } catch {}
  return { status: res.statusCode, text: res.body, body: parsed, headers: res.headers };
}

const addItem = (who: SignedIn, productId: string, quantity: number, key?: string) =>
  post(who, '/cart/items', { product_id: productId, quantity }, key);

async function inCart(who: SignedIn, productId: string): Promise<number> {
  const [row] = await database.db
    .select({ quantity: cartItems.quantity })
    .from(cartItems)
    .where(and(eq(cartItems.userId, who.id), eq(cartItems.productId, productId)));
  return row?.quantity ?? 0;
}

const keyRows = (who: SignedIn) =>
  database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, who.id));

const newKey = () => `key-${uniqueWord()}`;

/** Signs in again: after the clock moves a day, the earlier tokens have expired. */
async function signIn(who: SignedIn): Promise<SignedIn> {
  const res = await api.post('/auth/login', { email: who.email, password: who.password });
  expect(res.status).toBe(200);
  return { ...who, token: res.body.token };
}

const expectReplayOf = (replay: Raw, first: Raw) => {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.headers['content-type']).toBe('application/json; charset=utf-8');
};

describe('replays', () => {
  it('the same key and body: the first answer again, byte for byte, and the cart changed once', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const b = await buyer(api);
    const key = newKey();
    const first = await addItem(b, p.id, 2, key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body).toMatchObject({ product_id: p.id, quantity: 2, added: true });

    clock.advance(60);
    const again = await addItem(b, p.id, 2, key);
    expectReplayOf(again, first);
    expect(await inCart(b, p.id)).toBe(2);

    // The same JSON with its keys in another order and other spacing is the same request.
    const reordered = await post(b, '/cart/items', `{ "quantity": 2,\n "product_id": "${p.id}" }`, key);
    expectReplayOf(reordered, first);
    expect(await inCart(b, p.id)).toBe(2);
  });

  it('a 201 is replayed with its status, and one product is created', async () => {
    const s = await seller(api);
    const key = newKey();
    const title = `Idempotent box ${uniqueWord()}`;
    const body = { title, priceCents: 1500, stockQuantity: 3, weight: 1 };
    const first = await post(s, '/products', body, key);
    expect(first.status).toBe(201);
    const again = await post(s, '/products', body, key);
    expectReplayOf(again, first);
    const rows = await database.db.select().from(products).where(eq(products.title, title));
    expect(rows).toHaveLength(1);
  });

  it('a 4xx answer is stored and replayed, even after what refused it has changed', async () => {
    const s = await seller(api);
    const p = await product(api, s, { stockQuantity: 10 });
    const b = await buyer(api);
    const key = newKey();
    const first = await addItem(b, p.id, 11, key);
    expectError(
      first,
      'CONFLICT',
      409,
      `Only 10 left of ${p.title} (${p.id}); you have 0 in your cart and asked for 11 more`,
    );
    expect((await api.as(s).patch(`/products/${p.id}`, { stockQuantity: 20 })).status).toBe(200);
    const again = await addItem(b, p.id, 11, key);
    expectReplayOf(again, first);
    expect(await inCart(b, p.id)).toBe(0);
    // A new key is a new request.
    expect((await addItem(b, p.id, 11, newKey())).status).toBe(200);
    expect(await inCart(b, p.id)).toBe(11);
  });

  it('an empty answer is replayed empty, with its status', async () => {
    const b = await buyer(api);
    const key = newKey();
    const first = await post(b, '/test/empty', undefined, key);
    expect(first.status).toBe(204);
    const again = await post(b, '/test/empty', undefined, key);
    expect(again.status).toBe(204);
    expect(again.text).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('conflicts', () => {
  it('the same key with another body, path or query is 409 and changes nothing', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const b = await buyer(api);
    const key = newKey();
    expect((await addItem(b, p.id, 1, key)).status).toBe(200);
    const other = await addItem(b, p.id, 3, key);
    expectError(other, 'CONFLICT', 409, 'This Idempotency-Key was used with another request');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expectError(
      await post(b, '/cart/coupon', { code: 'SAVE10' }, key),
      'CONFLICT',
      409,
      'This Idempotency-Key was used with another request',
    );
    expectError(
      await post(b, '/cart/items?x=1', { product_id: p.id, quantity: 1 }, key),
      'CONFLICT',
      409,
      'This Idempotency-Key was used with another request',
    );
    expect(await inCart(b, p.id)).toBe(1);
    // The first answer is still there for the first request.
    expect((await addItem(b, p.id, 1, key)).headers['idempotent-replayed']).toBe('true');
  });

  it('while the first is still running: 409 for the same request and for another', async () => {
    const b = await buyer(api);
    const key = newKey();
    gate = makeGate();
    const running = nextEntered();
    const first = post(b, '/test/slow', { n: 1 }, key);
    await running;
    expectError(
      await post(b, '/test/slow', { n: 1 }, key),
      'CONFLICT',
      409,
      'A request with this Idempotency-Key is still running',
    );
    expectError(
      await post(b, '/test/slow', { n: 2 }, key),
      'CONFLICT',
      409,
      'This Idempotency-Key was used with another request',
    );
    const rows = await keyRows(b);
    expect(rows).toMatchObject([{ key, responseStatus: null, responseBody: null }]);
    gate.open();
    const done = await first;
    expect(done.status).toBe(200);
    expectReplayOf(await post(b, '/test/slow', { n: 1 }, key), done);
    expect(calls.slow).toBe(done.body.call);
  });

  it('two at once with one key: the handler runs once, the cart changes once', async () => {
    const s = await seller(api);
    const p = await product(api, s, { stockQuantity: 50 });
    const b = await buyer(api);
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => addItem(b, p.id, 3, key)));
    const ran = answers.filter((a) => a.status === 200 && a.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const a of answers) {
      if (a === ran[0]) continue;
      if (a.status === 409) {
        expectError(a, 'CONFLICT', 409, 'A request with this Idempotency-Key is still running');
      } else {
        expectReplayOf(a, ran[0]!);
      }
    }
    expect(await inCart(b, p.id)).toBe(3);
  });
});

describe('scope', () => {
  it('another user with the same key is independent', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const [b1, b2] = [await buyer(api), await buyer(api)];
    const key = newKey();
    expect((await addItem(b1, p.id, 1, key)).status).toBe(200);
    const second = await addItem(b2, p.id, 2, key);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect([await inCart(b1, p.id), await inCart(b2, p.id)]).toEqual([1, 2]);
  });

  it('an anonymous caller: the header is ignored', async () => {
    const email = `${uniqueWord()}@example.ca`;
    const key = newKey();
    const register = await post(
      undefined,
      '/auth/register',
      { email, password: 'correct horse battery', name: 'A' },
      key,
    );
    expect(register.status).toBe(201);
    const login = () => post(undefined, '/auth/login', { email, password: 'correct horse battery' }, key);
    const [one, two] = [await login(), await login()];
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    const rows = await database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
    expect(rows).toEqual([]);
  });

  it('without the header nothing changes: each request runs', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const b = await buyer(api);
    expect((await addItem(b, p.id, 1)).status).toBe(200);
    expect((await addItem(b, p.id, 1)).status).toBe(200);
    expect(await inCart(b, p.id)).toBe(2);
    expect(await keyRows(b)).toEqual([]);
  });

  it('an invalid key is 400 naming the header; 255 printable characters are fine', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const b = await buyer(api);
    for (const bad of ['', 'x'.repeat(256), 'clé', 'tab\there']) {
      expectInvalid(await addItem(b, p.id, 1, bad), [
        { field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' },
      ]);
    }
    expect(await inCart(b, p.id)).toBe(0);
    const longest = 'a b'.padEnd(255, '~');
    expect((await addItem(b, p.id, 1, longest)).status).toBe(200);
    expect((await addItem(b, p.id, 1, longest)).headers['idempotent-replayed']).toBe('true');
    expect(await inCart(b, p.id)).toBe(1);
  });

  it('an invalid body is a plain 400, not stored: the key then serves the valid request', async () => {
    const s = await seller(api);
    const p = await product(api, s);
    const b = await buyer(api);
    const key = newKey();
    expectInvalid(await addItem(b, p.id, 0, key), [{ field: 'quantity', message: expect.any(String) }]);
    expect(await keyRows(b)).toEqual([]);
    const ok = await addItem(b, p.id, 1, key);
    expect(ok.status).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('what is not stored', () => {
  it('a server error: the row is deleted and a retry runs again', async () => {
    const b = await buyer(api);
    const key = newKey();
    failing = true;
    const before = calls.boom;
    const failed = await post(b, '/test/boom', { n: 1 }, key);
    expect(failed.status).toBe(500);
    expect(failed.body.code).toBe('INTERNAL_ERROR');
    expect(await keyRows(b)).toEqual([]);
    failing = false;
    const retry = await post(b, '/test/boom', { n: 1 }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(calls.boom).toBe(before + 2);
    expectReplayOf(await post(b, '/test/boom', { n: 1 }, key), retry);
    expect(calls.boom).toBe(before + 2);
  });

  it('a rate limit (429): nothing is kept under the key, and the retry runs', async () => {
    const b = await buyer(api);
    const key = newKey();
    busy = true;
    const refused = await post(b, '/test/busy', {}, key);
    expect(refused.status).toBe(429);
    expect(await keyRows(b)).toEqual([]);
    busy = false;
    const retry = await post(b, '/test/busy', {}, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expectReplayOf(await post(b, '/test/busy', {}, key), retry);
  });

  it('an answer over 1 MiB: not stored, a retry runs again; one at the limit is replayed', async () => {
    const b = await buyer(api);
    const key = newKey();
    const before = calls.big;
    bigBytes = MAX_STORED_BYTES; // with the rest of the JSON, just over the limit
    const first = await post(b, '/test/big', {}, key);
    expect(first.status).toBe(200);
    expect(first.text.length).toBeGreaterThan(MAX_STORED_BYTES);
    expect(await keyRows(b)).toEqual([]);
    expect((await post(b, '/test/big', {}, key)).headers['idempotent-replayed']).toBeUndefined();
    expect(calls.big).toBe(before + 2);

    const key2 = newKey();
    bigBytes = MAX_STORED_BYTES - JSON.stringify({ calls: calls.big + 1, filler: '' }).length;
    const fits = await post(b, '/test/big', {}, key2);
    expect(fits.text.length).toBe(MAX_STORED_BYTES);
    expectReplayOf(await post(b, '/test/big', {}, key2), fits);
    expect(calls.big).toBe(before + 3);
  });
});

describe('time', () => {
  it('a key is replayed for 24 hours, then runs again (with any body)', async () => {
    const s = await seller(api);
    const p = await product(api, s, { stockQuantity: 50 });
    let b = await buyer(api);
    const key = newKey();
    expect((await addItem(b, p.id, 1, key)).status).toBe(200);
    clock.advance(IDEMPOTENCY_TTL_MS / 1000 - 60);
    b = await signIn(b);
    expect((await addItem(b, p.id, 1, key)).headers['idempotent-replayed']).toBe('true');
    expect(await inCart(b, p.id)).toBe(1);
    clock.advance(60);
    b = await signIn(b);
    const again = await addItem(b, p.id, 2, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await inCart(b, p.id)).toBe(3);
    expect((await addItem(b, p.id, 2, key)).headers['idempotent-replayed']).toBe('true');
    expect(await inCart(b, p.id)).toBe(3);
  });

  it('a row left running past the lease is taken over by the same request; the old run cannot overwrite it', async () => {
    let b = await buyer(api);
    const key = newKey();
    gate = makeGate();
    let running = nextEntered();
    const abandoned = post(b, '/test/slow', { n: 1 }, key);
    await running;
    clock.advance(RUNNING_LEASE_MS / 1000 - 1);
    b = await signIn(b);
    expectError(
      await post(b, '/test/slow', { n: 1 }, key),
      'CONFLICT',
      409,
      'A request with this Idempotency-Key is still running',
    );
    clock.advance(1);
    expectError(
      await post(b, '/test/slow', { n: 2 }, key),
      'CONFLICT',
      409,
      'This Idempotency-Key was used with another request',
    );
    running = nextEntered();
    const takeover = post(b, '/test/slow', { n: 1 }, key);
    await running;
    gate.open();
    const [old, fresh] = [await abandoned, await takeover];
    expect(fresh.body.call).toBe(Number(old.body.call) + 1);
    expectReplayOf(await post(b, '/test/slow', { n: 1 }, key), fresh);
  });

  it('a client that disconnects: the handler finishes and its answer is stored for the retry', async () => {
    const b = await buyer(api);
    const key = newKey();
    // Listening from here on; afterAll's close stops it.
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    gate = makeGate();
    const running = nextEntered();
    const sent = http.request(`${base}/test/slow`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${b.token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
    });
    const gone = new Promise<string>((resolve) => sent.on('error', (err) => resolve(err.message)));
    sent.end(JSON.stringify({ n: 1 }));
    await running;
    sent.destroy();
    expect(await gone).toBe('socket hang up');
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
      );
    await expect.poll(connections).toBe(0);
    gate.open();
    // The handler goes on to its answer, which is stored.
    await expect.poll(async () => (await keyRows(b))[0]?.responseStatus).toBe(200);
    const retry = await post(b, '/test/slow', { n: 1 }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.call).toBe(calls.slow);
  });

  it('the cleanup job deletes expired keys in bounded batches and keeps the rest', async () => {
    const b = await buyer(api);
    const now = clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms);
    await database.db.insert(idempotencyKeys).values(
      ['a', 'b', 'c', 'd', 'e'].map((k, i) => ({
        userId: b.id,
        key: k,
        requestHash: 'h',
        responseStatus: 200,
        responseBody: '{}',
        createdAt: at(-IDEMPOTENCY_TTL_MS),
        // Three have expired (the last exactly now), two have not.
        expiresAt: at([-2000, -1000, 0, 1000, 2000][i]!),
      })),
    );
    const job = idempotencyCleanupJob({ batch: 2 });
    const ctx = { db: database.db, now: clock.now, log: app.log };
    // Other tests' keys may have expired too: run until a pass finds less than a batch.
    let handled = await job.run(ctx);
    expect(handled).toBe(2);
    while (handled >= job.batch) handled = await job.run(ctx);
    expect((await keyRows(b)).map((r) => r.key).sort()).toEqual(['d', 'e']);
  });
});
