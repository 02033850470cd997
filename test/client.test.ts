// src/client against the real service listening on a port: typed answers, the service's own
// error bodies, token refresh (once, shared), RATE_LIMIT retries, an unreachable address.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { inspect } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CreateCheckoutInput,
  canonicalJson,
  PortageApiError,
  PortageClient,
  type PortageClientOptions,
  tokenSubject,
} from '../src/client/index.ts';
import { userWithToken } from '../src/contract/auth.ts';
import { type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, payOk } from './helpers/checkout.ts';

const { t, database } = useTestApp();
let baseUrl: string;

async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address();
  if (!address || typeof address === 'string') throw new Error(`unexpected address ${address}`);
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  baseUrl = await listen(t);
});

/** The real global fetch, with every call written down (method and path) before it is made. */
function countingFetch() {
  const calls: string[] = [];
  const fetchAndCount: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return fetch(input, init);
  };
  return {
    calls,
    fetch: fetchAndCount,
    refreshes: () => calls.filter((c) => c === 'POST /auth/refresh').length,
  };
}

const client = (options: Partial<PortageClientOptions> & { token: string }) =>
  new PortageClient({ baseUrl, ...options });

async function caught(promise: Promise<unknown>): Promise<PortageApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PortageApiError);
    return err as PortageApiError;
  }
  throw new Error('expected the call to throw PortageApiError');
}

describe('typed calls', () => {
  it('answers the signed-in user and search results, parsed by the contract', async () => {
    const b = await buyer(t.api);
    const c = client({ token: b.token });
    expect(await c.me()).toEqual({
      id: b.id,
      email: b.email,
      name: 'Test buyer',
      role: 'buyer',
      emailVerified: false,
      createdAt: expect.any(Number),
      locale: null,
      seller: null,
    });
    const empty = await c.searchProducts({ q: 'x' });
    expect(empty).toMatchObject({
      results: expect.any(Array),
      total: expect.any(Number),
      limit: 20,
      offset: 0,
    });
    expect(Object.keys(empty.facets).sort()).toEqual([
      'categoryId',
      'inStock',
      'isDigital',
      'isPerishable',
      'priceRange',
      'sellerId',
    ]);
  });

  it('finds and reads a product by an id that needs encoding in the path', async () => {
    const s = await seller(t.api);
    const word = uniqueWord();
    const created = await t.api
      .as(s)
      .post('/products', { title: `Maple ${word}`, priceCents: 1999, weight: 1 });
    expect(created.status).toBe(201);
    const c = client({ token: (await buyer(t.api)).token });

    const found = await c.searchProducts({ q: word, sort: 'price_asc', limit: 5 });
    expect(found.total).toBe(1);
    expect(found.results[0]).toMatchObject({ id: created.body.id, title: `Maple ${word}`, priceCents: 1999 });
    // A buyer reads what the seller was answered, but for agentChannels (its seller's and admins' only).
    const { agentChannels: _, ...asBuyerReads } = created.body;
    expect(await c.getProduct(created.body.id)).toEqual(asBuyerReads);
  });

  it('throws NOT_FOUND with the service’s exact body for an unknown product, without retrying', async () => {
    const b = await buyer(t.api);
    const counter = countingFetch();
    const c = client({ token: b.token, fetch: counter.fetch });
    const id = 'products:doesNotExist0000000000';
    const err = await caught(c.getProduct(id));
    const server = await t.api.as(b).get(`/products/${encodeURIComponent(id)}`);
    expect(server.status).toBe(404);
    expect(err).toMatchObject({ code: 'NOT_FOUND', statusCode: 404, message: server.body.error });
    expect(err.body).toEqual(server.body);
    expect(err.body).toEqual({ error: `Product ${id} not found`, code: 'NOT_FOUND', statusCode: 404 });
    expect(err.toJSON()).toEqual(server.body);
    expect(JSON.parse(JSON.stringify(err))).toEqual(server.body);
    expect(counter.calls).toEqual([`GET /products/${encodeURIComponent(id)}`]);

    // `/`, `?` and `#` in an id stay inside the one path segment.
    const odd = await caught(c.getProduct('products:a/b?c=1#d'));
    expect(odd.body).toEqual({
      error: 'Product products:a/b?c=1#d not found',
      code: 'NOT_FOUND',
      statusCode: 404,
    });
  });

  it('passes validation errors through with their details', async () => {
    const c = client({ token: (await buyer(t.api)).token });
    const err = await caught(c.searchProducts({ q: 'x', limit: 500 }));
    expect(err.toJSON()).toEqual({
      error: expect.stringMatching(/^Invalid querystring/),
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'limit', message: 'must be at most 100' }],
    });
  });

  it('request() sends JSON bodies and validates answers with the given schema', async () => {
    const b = await buyer(t.api);
    const c = client({ token: b.token });
    const answer = await c.request('POST', '/me/seller', {
      body: { shopName: 'Client Shop', province: 'BC' },
      schema: userWithToken,
    });
    expect(answer.user).toEqual({ id: b.id, email: b.email, name: 'Test buyer', role: 'seller' });
    // Without a schema the parsed JSON comes back as is.
    expect(await client({ token: answer.token }).request('GET', '/me')).toMatchObject({
      role: 'seller',
      seller: { shopName: 'Client Shop', province: 'BC' },
    });
  });
});

/** The real global fetch, keeping each POST /checkout's Idempotency-Key. */
const address: CreateCheckoutInput['shipping_address'] = { ...ON_ADDRESS, province: 'ON', country: 'CA' };

function keyRecordingFetch() {
  const keys: (string | null)[] = [];
  const recording: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    if (init?.method === 'POST' && url.pathname === '/checkout') {
      keys.push(new Headers(init.headers).get('idempotency-key'));
    }
    return fetch(input, init);
  };
  return { keys, fetch: recording };
}

describe('checkout and orders', () => {
  it('createCheckout sends a key derived from the user, the input and the cart; an explicit key as given', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 2500, stockQuantity: 5 });
    const b = await buyer(t.api);
    expect(tokenSubject(b.token)).toBe(b.id);
    await addToCart(t.api, b, p.id, 1);
    const rec = keyRecordingFetch();
    const c = client({ token: b.token, fetch: rec.fetch });

    const input = { shipping_address: address };
    const key = await c.checkoutKey(input);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const reordered = { shipping_address: Object.fromEntries(Object.entries(address).reverse()) };
    expect(await c.checkoutKey(reordered as typeof input)).toBe(key);
    expect(await c.checkoutKey({ ...input, coupon: 'SAVE10' })).not.toBe(key);

    // A second later: a checkout that stamped the cart as changed would show in its lastUpdated.
    t.clock.advance(1);
    const session = await c.createCheckout(input);
    expect(session).toMatchObject({ status: 'ready_for_payment', subtotalCents: 2500, orderIds: [] });
    // Checking out leaves the cart as it was: a retry derives the same key.
    expect(await c.checkoutKey(input)).toBe(key);
    expect((await c.createCheckout(input)).sessionId).toBe(session.sessionId);
    expect((await c.createCheckout(input, 'my-own-key-1')).sessionId).toBe(session.sessionId);
    expect(rec.keys).toEqual([key, key, 'my-own-key-1']);

    // Another buyer with the same cart and input: another key.
    const other = await buyer(t.api);
    await addToCart(t.api, other, p.id, 1);
    expect(await client({ token: other.token }).checkoutKey(input)).not.toBe(key);
    // The cart changed: another key.
    await addToCart(t.api, b, p.id, 1);
    expect(await c.checkoutKey(input)).not.toBe(key);
  });

  it('canonicalJson sorts keys at every depth and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    expect(tokenSubject('not.a.jwt')).toBeUndefined();
    expect(tokenSubject('')).toBeUndefined();
  });

  it('a token without a subject asks /me, so a garbage token is AUTH_ERROR and nothing is posted', async () => {
    const rec = keyRecordingFetch();
    const err = await caught(
      client({ token: 'not.a.jwt', fetch: rec.fetch }).createCheckout({ shipping_address: address }),
    );
    expect(err.code).toBe('AUTH_ERROR');
    expect(rec.keys).toEqual([]);
  });

  it('lists, reads and cancels orders, typed by the contract', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 4000, stockQuantity: 3 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 2);
    const c = client({ token: b.token });
    const session = await c.createCheckout({ shipping_address: address });
    const [orderId] = await payOk(t.api, session.sessionId);

    const list = await c.listOrders({ status: 'confirmed', sort: 'oldest', limit: 5 });
    expect(list).toMatchObject({ total: 1, limit: 5, offset: 0, orders: [{ id: orderId, itemCount: 2 }] });
    expect((await c.getCheckout(session.sessionId)).orderIds).toEqual([orderId]);
    const detail = await c.getOrder(orderId!);
    expect(detail).toMatchObject({ id: orderId, status: 'confirmed', subtotalCents: 8000 });

    const cancelled = await c.cancelOrder(orderId!, 'Ordered by mistake');
    expect(cancelled).toMatchObject({
      id: orderId,
      status: 'cancelled',
      refund_amount_cents: detail.totalAmountCents,
    });
    expect((await caught(c.cancelOrder(orderId!))).code).toBe('CONFLICT');
    const stranger = client({ token: (await buyer(t.api)).token });
    expect((await caught(stranger.getOrder(orderId!))).code).toBe('NOT_FOUND');
    expect((await caught(stranger.cancelOrder(orderId!))).code).toBe('NOT_FOUND');
    expect((await caught(c.getOrder('..'))).code).toBe('VALIDATION_ERROR');
  });
});

describe('token refresh', () => {
  it('renews an expired token once, transparently, and keeps using the new one', async () => {
    const b = await buyer(t.api);
    const counter = countingFetch();
    const onTokenRefreshed = vi.fn();
    const c = client({ token: b.token, onTokenRefreshed, fetch: counter.fetch });
    t.clock.advance(3601);

    expect((await c.me()).id).toBe(b.id);
    expect(counter.calls).toEqual(['GET /me', 'POST /auth/refresh', 'GET /me']);
    expect(onTokenRefreshed).toHaveBeenCalledTimes(1);
    expect(onTokenRefreshed).toHaveBeenCalledWith(c.token);
    expect(c.token).not.toBe(b.token);
    expect((await t.api.as(c.token).get('/me')).status).toBe(200);
    expect((await t.api.as(b.token).get('/me')).status).toBe(401);

    await c.searchProducts({ q: 'x' });
    expect(counter.refreshes()).toBe(1);
    expect(onTokenRefreshed).toHaveBeenCalledTimes(1);
  });

  it('shares one refresh among concurrent calls that all got 401', async () => {
    const b = await buyer(t.api);
    const counter = countingFetch();
    const onTokenRefreshed = vi.fn();
    const c = client({ token: b.token, onTokenRefreshed, fetch: counter.fetch });
    t.clock.advance(3601);

    const answers = await Promise.all([
      c.me(),
      c.me(),
      c.searchProducts({ q: 'x' }),
      c.searchProducts({ q: 'y' }),
      c.me(),
    ]);
    expect(answers[0]).toMatchObject({ id: b.id });
    expect(answers[2]).toMatchObject({ results: expect.any(Array) });
    expect(counter.refreshes()).toBe(1);
    expect(counter.calls).toHaveLength(5 + 1 + 5);
    expect(onTokenRefreshed).toHaveBeenCalledTimes(1);
    expect(onTokenRefreshed).toHaveBeenCalledWith(c.token);
  });

  it('throws the original 401 when the token expired too long ago to refresh, after one attempt', async () => {
    const b = await buyer(t.api);
    const counter = countingFetch();
    const onTokenRefreshed = vi.fn();
    const c = client({ token: b.token, onTokenRefreshed, fetch: counter.fetch });
    t.clock.advance(3600 + 7 * 86_400 + 10);

    const err = await caught(c.me());
    expect(err.body).toEqual({ error: 'AUTH_ERROR: Token expired', code: 'AUTH_ERROR', statusCode: 401 });
    expect(counter.calls).toEqual(['GET /me', 'POST /auth/refresh']);
    expect(onTokenRefreshed).not.toHaveBeenCalled();
    expect(c.token).toBe(b.token);

    // The service refused that token for good: later calls do not ask again.
    const again = await caught(c.searchProducts({ q: 'x' }));
    expect(again.code).toBe('AUTH_ERROR');
    expect(counter.refreshes()).toBe(1);
  });

  it('throws AUTH_ERROR for a garbage token after one refresh attempt, without looping', async () => {
    const counter = countingFetch();
    const c = client({ token: 'not-a-jwt', fetch: counter.fetch });
    const err = await caught(c.me());
    expect(err).toMatchObject({ code: 'AUTH_ERROR', statusCode: 401 });
    expect(err.body).toEqual({ error: 'AUTH_ERROR: Invalid token', code: 'AUTH_ERROR', statusCode: 401 });
    expect(counter.calls).toEqual(['GET /me', 'POST /auth/refresh']);
  });
});

describe('RATE_LIMIT', () => {
  it('retries maxRetries times with bounded waits, then throws the service’s 429', async () => {
    const limited = await testApp(database, { env: { RATE_LIMITS: 'on' } });
    try {
      const url = await listen(limited);
      const b = await buyer(limited.api);
      const plain = new PortageClient({ baseUrl: url, token: b.token, maxRetries: 0 });
      for (let i = 0; i < 30; i++) await plain.searchProducts({ q: 'x' });

      const counter = countingFetch();
      const c = new PortageClient({
        baseUrl: url,
        token: b.token,
        maxRetries: 2,
        maxBackoffMs: 50,
        fetch: counter.fetch,
      });
      const started = performance.now();
      const err = await caught(c.searchProducts({ q: 'x' }));
      const elapsed = performance.now() - started;

      expect(err.body).toEqual({
        error: expect.stringMatching(/^Too many requests; retry in \d+ seconds? \(limit 30 a minute\)$/),
        code: 'RATE_LIMIT',
        statusCode: 429,
      });
      expect(counter.calls).toEqual(Array(3).fill('GET /search/products'));
      // Retry-After is about 60 s; each wait is capped at 50 ms (waiting the full minute would
      // run into the test's timeout). Only the floor is asserted: a busy machine is never early.
      expect(elapsed).toBeGreaterThanOrEqual(95);
      const raw = await fetch(`${url}/search/products?q=x`, {
        headers: { authorization: `Bearer ${b.token}` },
      });
      expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(1);
    } finally {
      await limited.close();
    }
  });

  it('without Retry-After backs off 250 ms, then 500 ms (a bare HTTP server standing in)', async () => {
    let hits = 0;
    const stand = http.createServer((_req, res) => {
      hits++;
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Slow down', code: 'RATE_LIMIT', statusCode: 429 }));
    });
    await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stand.address() as net.AddressInfo;
      const c = new PortageClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'x', maxRetries: 2 });
      const started = performance.now();
      const err = await caught(c.me());
      const elapsed = performance.now() - started;
      expect(err.toJSON()).toEqual({ error: 'Slow down', code: 'RATE_LIMIT', statusCode: 429 });
      expect(hits).toBe(3);
      expect(elapsed).toBeGreaterThanOrEqual(740);
    } finally {
      stand.closeAllConnections();
      await new Promise((resolve) => stand.close(resolve));
    }
  });
});

describe('an unreachable service', () => {
  it('says the address is wrong or the service is down, naming the base URL', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const nowhere = `http://127.0.0.1:${port}`;
    const c = new PortageClient({ baseUrl: nowhere, token: 'x' });
    const err = await caught(c.me());
    expect(err).toMatchObject({ code: 'INTERNAL_ERROR', statusCode: 503 });
    expect(err.message).toContain(nowhere);
    expect(err.message).toContain('SERVICE_URL');
    expect(err.message).toMatch(/address .* is wrong or the service is down/);
    expect(err.cause).toBeInstanceOf(Error);
    expect(err.toJSON()).toEqual({ error: err.message, code: 'INTERNAL_ERROR', statusCode: 503 });
  });
});

// docs/decisions.md "Agents (MCP)": tokens, passwords and URL userinfo are masked
// in every error and log.
describe('credentials never appear in an error', () => {
  /** Everything a caller could print of an error: message, JSON, stack and causes. */
  const printed = (err: unknown) => `${String(err)}\n${JSON.stringify(err)}\n${inspect(err, { depth: 10 })}`;

  function expectMasked(text: string, secrets: string[]) {
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const secret of secrets) expect(text).not.toContain(encodeURIComponent(secret));
  }

  it('a token with a line break inside: AUTH_ERROR naming the variable, the token nowhere', async () => {
    const b = await buyer(t.api);
    const tail = `tail${randomBytes(8).toString('hex')}`;
    const token = `${b.token}\n${tail}`;
    const counter = countingFetch();
    const err = await caught(client({ token, fetch: counter.fetch }).me());
    expect(err.toJSON()).toEqual({
      error: expect.stringMatching(/SERVICE_JWT_TOKEN.*line break/),
      code: 'AUTH_ERROR',
      statusCode: 401,
    });
    expectMasked(printed(err), [b.token, tail, token]);
    expect(counter.calls).toEqual([]);
  });

  it('a base URL with a user name and password: refused, the password nowhere', async () => {
    const password = `pw${randomBytes(8).toString('hex')}`;
    const b = await buyer(t.api);
    const withUser = baseUrl.replace('http://', `http://portage-user:${password}@`);
    const err = await caught(new PortageClient({ baseUrl: withUser, token: b.token }).me());
    expect(err.toJSON()).toEqual({
      error: expect.stringMatching(/SERVICE_URL.*user name or password/),
      code: 'VALIDATION_ERROR',
      statusCode: 400,
    });
    expect(err.message).toContain(baseUrl.replace('http://', 'http://[redacted]@'));
    expectMasked(printed(err), [password, 'portage-user', b.token]);
  });

  it('an unparseable base URL with a password is not echoed', () => {
    const password = `pw${randomBytes(8).toString('hex')}`;
    let thrown: unknown;
    try {
      new PortageClient({ baseUrl: `http://user:${password}/x@127.0.0.1:1`, token: 'x' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(/baseUrl must be an absolute URL/);
    expectMasked(printed(thrown), [password]);
  });

  it('fetch’s own error is masked too, and its cause (a fetch standing in)', async () => {
    const token = `eyJ${randomBytes(12).toString('hex')}.eyJ${randomBytes(12).toString('hex')}.sig`;
    const failing: typeof fetch = async (input, init) => {
      const auth = new Headers(init?.headers).get('authorization');
      throw new TypeError('fetch failed', {
        cause: new Error(`connect refused while sending "${auth}" to ${String(input)}`),
      });
    };
    const err = await caught(client({ token, fetch: failing }).me());
    expect(err).toMatchObject({ code: 'INTERNAL_ERROR', statusCode: 503 });
    expect(err.message).toContain('Bearer [redacted]');
    expect(err.cause).toBeInstanceOf(Error);
    expectMasked(printed(err), [token]);
  });

  it('a proxy page that quotes the Authorization header is masked in the error', async () => {
    const b = await buyer(t.api);
    const stand = http.createServer((req, res) => {
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end(`<p>Bad request: header authorization: ${req.headers.authorization}</p>`);
    });
    await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stand.address() as net.AddressInfo;
      const c = new PortageClient({ baseUrl: `http://127.0.0.1:${port}`, token: b.token });
      const err = await caught(c.me());
      expect(err.toJSON()).toEqual({
        error:
          'The service answered HTTP 400 Bad Request: <p>Bad request: header authorization: Bearer [redacted]</p>',
        code: 'VALIDATION_ERROR',
        statusCode: 400,
      });
      expectMasked(printed(err), [b.token]);
    } finally {
      stand.closeAllConnections();
      await new Promise((resolve) => stand.close(resolve));
    }
  });
});

describe('a connection reset by the server', () => {
  /** A server that resets the first `resets` connections as soon as a request arrives, then answers. */
  async function resettingServer(resets: number) {
    let seen = 0;
    const server = net.createServer((socket) => {
      socket.once('data', () => {
        seen++;
        if (seen <= resets) return socket.resetAndDestroy();
        socket.end(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n' +
            JSON.stringify({
              items: [],
              itemCount: 0,
              subtotalCents: 0,
              discount_cents: 0,
              discounts: [],
              coupon_applied: null,
              coupon_problem: null,
              shippingCostCents: 0,
              shipping_problem: null,
              taxAmountCents: 0,
              taxLines: [],
              taxProvince: 'ON',
              totalAmountCents: 0,
              lastUpdated: 1,
            }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    return { url: `http://127.0.0.1:${port}`, requests: () => seen, close: () => server.close() };
  }

  it('sends a GET once more, and never a POST without an Idempotency-Key', async () => {
    const get = await resettingServer(1);
    const reader = new PortageClient({ baseUrl: get.url, token: 'a.b.c' });
    await expect(reader.getCart()).resolves.toMatchObject({ itemCount: 0 });
    expect(get.requests()).toBe(2);
    get.close();

    const post = await resettingServer(1);
    const writer = new PortageClient({ baseUrl: post.url, token: 'a.b.c' });
    const err = await caught(writer.applyCoupon('SAVE10'));
    expect(err.code).toBe('INTERNAL_ERROR');
    expect(post.requests()).toBe(1);
    post.close();
  });
});
