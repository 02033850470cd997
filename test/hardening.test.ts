// The framework's own refusals, hostile input and stalled requests all end in the error
// model, never a 500 or a stack (docs/decisions.md "Security").
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, buyer, listen, type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { expectError, product, seller } from './helpers/builders.ts';

const { t, database } = useTestApp({ timeouts: { requestMs: 1_500, headersMs: 1_000 } });
let base: URL;

beforeAll(async () => {
  base = new URL(await listen(t));
});

/** Sends raw bytes over a socket, `gapMs` apart; answers the reply's status and JSON body once the server closed, and how many chunks had been written by then. */
function raw(
  chunks: Array<string | Buffer>,
  gapMs = 0,
): Promise<{ status: number; body: unknown; text: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname);
    let text = '';
    let i = 0;
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: unknown = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {}
      resolve({ status, body, text, sent: i });
    });
    const next = () => {
      if (socket.destroyed) return;
      if (i < chunks.length) {
        socket.write(chunks[i++]!);
        setTimeout(next, gapMs);
      }
    };
    next();
  });
}

const model = (statusCode: number, error: string | RegExp) => ({
  error: typeof error === 'string' ? error : expect.stringMatching(error),
  code: statusCode === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR',
  statusCode,
});

const get = (path: string) => raw([`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]);

describe("the framework's refusals are the error model", () => {
  it('malformed HTTP is 400 VALIDATION_ERROR', async () => {
    const res = await raw(['GARBAGE\r\n\r\n']);
    expect(res).toMatchObject({ status: 400, body: model(400, 'Malformed HTTP request') });
  });

  it('headers over 16 KB are 431 VALIDATION_ERROR', async () => {
    const res = await raw([`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(res).toMatchObject({
      status: 431,
      body: model(431, 'Request headers are larger than the 16 KB limit'),
    });
  });

  it('bad percent-encoding is 400 and does not echo the path', async () => {
    for (const path of ['/products/%zzSECRET', '/products/SECRET%c0%ae%E0%A4%A', '/products/SECRET%']) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        model(400, 'The URL is not valid: check its percent-encoding (%XX) and characters'),
      );
      expect(res.text).not.toContain('SECRET');
    }
  });

  it('a path parameter over 100 characters is 414 VALIDATION_ERROR', async () => {
    const res = await get(`/products/products:${'x'.repeat(200)}`);
    expect(res).toMatchObject({
      status: 414,
      body: model(414, 'A path segment is longer than 100 characters; no id is that long'),
    });
    expect(res.text).not.toContain('x'.repeat(200));
  });
});

describe('stalled requests are cut', () => {
  it('a body trickled byte by byte is answered 408 and the connection closed', async () => {
    const body = JSON.stringify({ email: 'slow@example.ca', password: 'a-password' });
    const head = `POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const res = await raw([head, ...body.split('')], 400);
    expect(res).toMatchObject({
      status: 408,
      body: model(408, 'The request took too long to arrive; send it again'),
    });
    // Cut by the 1.5 s limit of this app (checked every second), not after the whole body.
    expect(res.sent).toBeLessThan(1 + body.length);
  });

  it('headers that never end are cut too', async () => {
    const res = await raw(
      ['GET /health HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n', 'X-D: 4\r\n'],
      600,
    );
    expect(res.status).toBe(408);
    expect(res.body).toEqual(model(408, 'The request took too long to arrive; send it again'));
  });
});

describe('hostile JSON', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('10,000 levels of nesting, unauthenticated, is 400, never a 500', async () => {
    const res = await t.api.post('/auth/login', deep(10_000), { 'content-type': 'application/json' });
    expectError(res, 'VALIDATION_ERROR', 400, 'JSON must not be nested deeper than 32 levels');
  });

  it('refuses nesting past 32 levels and lets 32 through to validation', async () => {
    const b = await buyer(t.api);
    const body = (levels: number) => `{"product_id":"products:x","quantity":1,"variant":${deep(levels - 1)}}`;
    expectError(
      await t.api.as(b).post('/cart/items', body(33), { 'content-type': 'application/json' }),
      'VALIDATION_ERROR',
      400,
      'JSON must not be nested deeper than 32 levels',
    );
    const at32 = await t.api.as(b).post('/cart/items', body(32), { 'content-type': 'application/json' });
    expect(at32.status).toBe(400);
    expect(at32.body.details).toEqual([{ field: 'variant', message: expect.any(String) }]);
  });

  it('a lone surrogate in a specifications key or value is 400 and nothing is stored', async () => {
    const s = await seller(t.api);
    const surrogate = 'Text must be valid Unicode: a lone UTF-16 surrogate (\\ud800-\\udfff) is not allowed';
    for (const specifications of [{ 'wood\ud800': 'cedar' }, { wood: 'ced\udfffar' }]) {
      const res = await t.api
        .as(s)
        .post('/products', { title: 'Tray', priceCents: 100, weight: 1, specifications });
      expectError(res, 'VALIDATION_ERROR', 400, surrogate);
    }
    const listed = await t.api.as(s).get(`/products?sellerId=${s.id}`);
    expect(listed.body.total).toBe(0);
    // A pair (an emoji) is text like any other.
    const ok = await product(t.api, s, { specifications: { finish: 'oil 🌲' } });
    expect(ok.specifications).toEqual({ finish: 'oil 🌲' });
    // A surrogate's bytes percent-encoded in a URL are not UTF-8: they stay text as sent.
    const q = await t.api.as(s).get('/search/products?q=%ED%A0%80');
    expect(q.status).toBe(200);
  });
});

describe('TRUST_PROXY names the proxies to believe', () => {
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await testApp(database, { env: { TRUST_PROXY: '1', RATE_LIMITS: 'on' } });
  });
  afterAll(() => proxied?.close());

  const login = (forwardedFor: string): Promise<Answer> =>
    proxied.api
      .from('10.0.0.1')
      .post(
        '/auth/login',
        { email: 'nobody@example.ca', password: 'wrong-password' },
        { 'x-forwarded-for': forwardedFor },
      );

  it('rotating the leftmost X-Forwarded-For entry does not escape the per-address limit', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await login(`198.51.100.${i}, 203.0.113.9`)).status);
    expect(answers).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Another client behind the same proxy has a count of its own.
    expect((await login('203.0.113.10')).status).toBe(401);
  });
});
