// Cross-cutting HTTP behaviour: one error model, limits on bodies, security headers, CORS,
// request ids, log redaction and the API reference.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../src/app.ts';
import { buyer, testApp, useTestApp } from './helpers/app.ts';
import { testDatabase } from './helpers/db.ts';

const { t, database } = useTestApp({ env: { CORS_ORIGINS: 'https://shop.example.ca' } });

describe('error model', () => {
  it('an unknown route is a JSON 404', async () => {
    const res = await t.api.get('/no/such/thing?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'No route GET /no/such/thing; see /docs for the API',
      code: 'NOT_FOUND',
      statusCode: 404,
    });
  });

  it('malformed JSON is 400 VALIDATION_ERROR', async () => {
    const res = await t.api.post('/auth/login', '{"email": "a@b.ca",', {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Request body is not valid JSON',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
    });
  });

  it('a JSON body with __proto__ is refused', async () => {
    const res = await t.api.post(
      '/auth/login',
      '{"email":"a@b.ca","password":"x","__proto__":{"admin":true}}',
      {
        'content-type': 'application/json',
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('a NUL character anywhere in the input is 400, never a 500', async () => {
    const expected = {
      error: 'Text must not contain NUL characters (\\u0000)',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
    };
    const register = await t.api.post('/auth/register', {
      email: 'nul@example.ca',
      password: 'password-1',
      name: 'a\u0000b',
    });
    expect(register).toMatchObject({ status: 400, body: expected });
    const b = await buyer(t.api);
    for (const url of ['/products?sellerId=%00', '/products?categoryId=a%00b', '/products/products:%00']) {
      expect(await t.api.as(b).get(url)).toMatchObject({ status: 400, body: expected });
    }
  });

  it('a body over 1 MiB is refused with 413', async () => {
    const big = JSON.stringify({ email: 'a@b.ca', password: 'x'.repeat(1024 * 1024), name: 'Big' });
    const res = await t.api.post('/auth/register', big, { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: 'Request body is larger than the 1 MiB limit',
      code: 'VALIDATION_ERROR',
      statusCode: 413,
    });
  });

  it('a body that is not JSON is 415', async () => {
    const res = await t.api.post('/auth/login', 'email=a', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('an unexpected failure is 500 INTERNAL_ERROR with a request id and no stack, SQL or secret', async () => {
    const d = await testDatabase();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const a = await testApp(d, { logger: { ...(loggerOptions('info') as object), stream } });
    try {
      const b = await buyer(a.api);
      // A statement that fails for a reason no handler expects (its table gone): not an outage
      // (the database answers; test/db-unavailable.test.ts takes it away), a defect.
      await d.db.execute(sql`alter table users rename to users_gone`);
      const res = await a.api.as(b).get('/me');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: 'Internal server error; quote the request id when reporting it',
        code: 'INTERNAL_ERROR',
        statusCode: 500,
        requestId: res.headers['x-request-id'],
      });
      expect(JSON.stringify(res.body)).not.toMatch(/select|users|at .*\.ts|postgres|pglite/i);
      // The failure is logged with the same request id.
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.level === 50);
      expect(logged).toMatchObject({ reqId: res.headers['x-request-id'], msg: 'unhandled error' });
    } finally {
      await a.close();
      await d.close();
    }
  });
});

describe('logs', () => {
  it('never contain passwords, tokens or authorization headers', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const a = await testApp(database, { logger: { ...(loggerOptions('trace') as object), stream } });
    try {
      const b = await buyer(a.api);
      await a.api.post('/auth/login', { email: b.email, password: b.password });
      await a.api.as(b).get('/me');
      await a.api.get('/auth/google/callback?code=SECRETCODE&state=SECRETSTATE');
      const all = lines.join('\n');
      expect(lines.length).toBeGreaterThan(4);
      expect(all).not.toContain(b.password);
      expect(all).not.toContain(b.token);
      expect(all).not.toContain('SECRETCODE');
      expect(all).not.toContain('SECRETSTATE');
      expect(all).toContain('"reqId"');
    } finally {
      await a.close();
    }
  });
});

describe('headers', () => {
  it('sends security headers and a request id on every answer', async () => {
    const res = await t.api.get('/health');
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'strict-transport-security': expect.stringContaining('max-age='),
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('keeps a sane caller-supplied request id and replaces an unsafe one', async () => {
    expect((await t.api.get('/health', { 'x-request-id': 'trace-123' })).headers['x-request-id']).toBe(
      'trace-123',
    );
    const hostile = await t.api.get('/health', { 'x-request-id': 'a\nb"<script>' });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers the icon browsers ask every site for (no 404 in the pages’ consoles)', async () => {
    const icon = await t.api.get('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(String(icon.body)).toMatch(/^<svg /);
  });

  it('allows the configured CORS origins only', async () => {
    const preflight = await t.api.send('OPTIONS', '/auth/login', undefined, {
      origin: 'https://shop.example.ca',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,authorization',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example.ca');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain(
      'authorization',
    );
    const other = await t.api.get('/health', { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a browser-based agent send the MCP headers to /mcp and read the challenge', async () => {
    const preflight = await t.api.send('OPTIONS', '/mcp', undefined, {
      origin: 'https://shop.example.ca',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,mcp-protocol-version,mcp-method,mcp-name',
    });
    expect(preflight.status).toBe(204);
    const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['mcp-protocol-version', 'mcp-method', 'mcp-name']) expect(allowed).toContain(h);
    const challenged = await t.api.send('POST', '/mcp', {}, { origin: 'https://shop.example.ca' });
    expect(challenged.status).toBe(401);
    expect(String(challenged.headers['access-control-expose-headers']).toLowerCase()).toContain(
      'www-authenticate',
    );
  });
});

describe('API reference', () => {
  it('GET /openapi.json documents every route', async () => {
    const res = await t.api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths).sort();
    expect(paths).toEqual(
      expect.arrayContaining([
        '/.well-known/jwks.json',
        '/admin/users/{id}',
        '/auth/google/callback',
        '/auth/google/start',
        '/auth/login',
        '/auth/refresh',
        '/auth/register',
        '/health',
        '/me',
        '/me/seller',
      ]),
    );
    expect(
      res.body.paths['/auth/register'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(['email', 'password', 'name']);
  });

  it('/openapi.json: real bounds, status descriptions, Idempotency-Key on the POSTs that take it, the protocol routes listed', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const text = JSON.stringify(doc);
    expect(text).not.toContain('9007199254740991');
    expect(text).not.toContain('Default Response');
    const paths = doc.paths as Record<
      string,
      Record<
        string,
        {
          parameters?: Array<{ in: string; name: string }>;
          responses?: Record<string, { description: string }>;
        }
      >
    >;
    for (const path of [
      '/mcp',
      '/oauth/token',
      '/oauth/revoke',
      '/oauth/authorize',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/sandbox/checkout/{sessionId}',
    ]) {
      expect(Object.keys(paths), path).toContain(path);
    }
    const headerOf = (path: string, method: string) =>
      (paths[path]?.[method]?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headerOf('/checkout', 'post')).toContain('Idempotency-Key');
    expect(headerOf('/cart/items', 'post')).toContain('Idempotency-Key');
    // Anonymous POSTs take none (the header is ignored there).
    expect(headerOf('/auth/login', 'post')).not.toContain('Idempotency-Key');
    expect(paths['/checkout']?.post?.responses?.['201']?.description).toBe('Created');
    // A bounded input keeps its bounds.
    const limit = (paths['/products']?.get?.parameters ?? []).find((p) => p.name === 'limit') as
      | { schema?: { minimum?: number; maximum?: number } }
      | undefined;
    expect(limit?.schema).toMatchObject({ minimum: 1, maximum: 100 });
  });

  it('GET /docs serves the reference page to anyone', async () => {
    const first = await t.api.get('/docs');
    const res = first.status === 301 ? await t.api.get(String(first.headers.location)) : first;
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    // Its own scripts and styles are allowed there, and only there.
    expect(res.headers['content-security-policy']).toContain("script-src 'self' 'unsafe-inline'");
    expect((await t.api.get('/health')).headers['content-security-policy']).toContain("default-src 'none'");
    // The page's script is served too, and the page points at this deployment's document.
    const script = String(res.body).match(/<script src="([^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const js = await t.api.get(new URL(script!, 'http://x/docs/').pathname);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toContain('javascript');
    expect(String(res.body)).toContain('/openapi.json');
    // Anything else under /docs is the error model's 404.
    expect(await t.api.get('/docs/no/such/page')).toMatchObject({
      status: 404,
      body: {
        error: 'No route GET /docs/no/such/page; see /docs for the API',
        code: 'NOT_FOUND',
        statusCode: 404,
      },
    });
  });
});
