// Traces (docs/operations.md "Traces"): `portage serve` started with OTEL_EXPORTER_OTLP_ENDPOINT
// exports its spans to a local OTLP receiver (helpers/otlp-receiver.ts). A platform's purchase
// sent with a `traceparent` is one trace: its HTTP request, the database's statements and
// transactions, the purchase's steps, and the order webhook back to the platform, which receives
// the trace's `traceparent` too. Every log line written in a request carries its trace's ids.
// Started without the variables, the service exports nothing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/index.ts';
import { ACP_ON, AcpClient, issuePlatform, type Receiver, startReceiver } from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { Api, admin, buyer, type SignedIn, type TestApp, testApp, testKeyPem } from './helpers/app.ts';
import { product, seller } from './helpers/builders.ts';
import { testDatabase } from './helpers/db.ts';
import { mcpMessage, postMcp, startToolServer, toolOk } from './helpers/mcp.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './helpers/otlp-receiver.ts';
import { type Service, startService, stopService } from './helpers/service.ts';

/** The test helpers' Api over a real socket: the same calls, sent to a process with fetch. */
function apiOver(base: string): Api {
  const app = {
    inject: async (o: { method: string; url: string; headers: Record<string, string>; payload?: string }) => {
      const res = await fetch(base + o.url, { method: o.method, headers: o.headers, body: o.payload });
      return {
        statusCode: res.status,
        body: await res.text(),
        headers: Object.fromEntries(res.headers),
      };
    },
  };
  return new Api(app as unknown as FastifyInstance);
}

const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('traces exported over OTLP', () => {
  const dirs: string[] = [];
  let otlp: OtlpReceiver;
  let webhooks: Receiver;
  let service: Service;
  let platform: { id: string; apiKey: string };
  let productId: string;
  let database: Database | undefined;
  let shopper: SignedIn;
  let agent: string;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    webhooks = await startReceiver();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-traces-'));
    dirs.push(dataDir);
    // The shop, its product and the platform, written by an app of the test's own over the
    // database the service then opens (on PGlite: the same data directory, once closed).
    const pg = Boolean(process.env.TEST_DATABASE_URL);
    const db = pg
      ? await testDatabase()
      : await (async () => {
          const { PGlite } = await import('@electric-sql/pglite');
          const template = await PGlite.create(path.join(dataDir, 'pg'), {
            loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]),
          });
          await template.close();
          const opened = await openDatabase({ dataDir });
          await opened.migrate();
          return { ...opened, url: undefined };
        })();
    const t: TestApp = await testApp(db);
    try {
      const shop = await seller(t.api);
      productId = (await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 })).id;
      platform = await issuePlatform(t.api, await admin(t.api, db), webhooks.url);
      shopper = await buyer(t.api, 'traced');
      agent = (await agentToken(t, db, shopper, ['shop', 'orders'])).token;
    } finally {
      await t.close();
    }
    if (pg) database = db;
    else await db.close();

    service = await startService({
      DATA_DIR: dataDir,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Spans go out within a fifth of a second of their end, not the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_SERVICE_NAME: 'portage-test',
      // The test app's key and address: the tokens it signed are the service's own.
      JWT_PRIVATE_KEY: testKeyPem(),
      PUBLIC_BASE_URL: 'http://portage.test',
    });
  }, 120_000);

  afterAll(async () => {
    if (service) await stopService(service);
    await database?.close();
    await otlp?.close();
    await webhooks?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const inTrace = (traceId: string) => otlp.spans.filter((s) => s.traceId === traceId);
  const childrenOf = (span: ReceivedSpan) => otlp.spans.filter((s) => s.parentSpanId === span.spanId);

  it("a platform's purchase is one trace: its request, the statements, the steps and the webhook back", async () => {
    const acp = new AcpClient(apiOver(service.base), platform.apiKey);
    const created = await acp.create({
      line_items: [{ id: productId, quantity: 1 }],
      buyer: { email: 'avery.traces@example.ca', first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sessionId = created.body.id as string;
    const vaulted = await acp.delegate(sessionId);
    expect(vaulted.status).toBe(201);

    // The platform's own trace: its span is the parent of our request's.
    const traceId = randomBytes(16).toString('hex');
    const platformSpan = randomBytes(8).toString('hex');
    const completed = await acp.complete(sessionId, vaulted.body.id, {
      traceparent: `00-${traceId}-${platformSpan}-01`,
    });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body.status).toBe('completed');

    const request = await otlp.waitFor(
      (s) => s.traceId === traceId && s.name === 'POST /acp/checkout_sessions/:checkout_session_id/complete',
    );
    expect(request).toMatchObject({
      parentSpanId: platformSpan,
      kind: 2, // SERVER
      service: 'portage-test',
      scope: '@fastify/otel',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/acp/checkout_sessions/:checkout_session_id/complete',
        'http.response.status_code': 200,
      },
    });

    // The payment applied, inside a transaction of the request's, with its statements.
    const payment = await otlp.waitFor(
      (s) => s.traceId === traceId && s.name === 'payment payment_succeeded',
    );
    const transactions = inTrace(traceId).filter((s) => s.name === 'db.transaction');
    expect(transactions.map((s) => s.spanId)).toContain(payment.parentSpanId);
    // PGlite's spans or the pg instrumentation's: the statement's text, never its values (the
    // card's token is nowhere in a span).
    const statements = inTrace(traceId).filter((s) => s.attributes['db.query.text'] !== undefined);
    // With REDIS_URL, the rate limit's counting: the command's name, never its keys (who is counted).
    const redis = statements.filter((s) => s.attributes['db.system.name'] === 'redis');
    expect(redis.length > 0).toBe(Boolean(process.env.REDIS_URL));
    for (const s of redis) expect(s.attributes['db.query.text']).toBe(s.attributes['db.operation.name']);
    const sql = statements.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(sql.length).toBeGreaterThan(3);
    expect(JSON.stringify(inTrace(traceId))).not.toContain(vaulted.body.id);
    expect(sql.some((s) => /insert into "orders"/i.test(String(s.attributes['db.query.text'])))).toBe(true);

    // The order webhook: sent by the outbox's job, in the purchase's trace, with its traceparent.
    const webhook = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'webhook acp', 30_000);
    expect(webhook.kind).toBe(4); // PRODUCER
    const post = await otlp.waitFor(
      (s) => s.traceId === traceId && s.parentSpanId === webhook.spanId && s.name === 'POST',
    );
    expect(post).toMatchObject({
      kind: 3, // CLIENT
      attributes: {
        'http.request.method': 'POST',
        'url.full': webhooks.url,
        'http.response.status_code': 200,
      },
    });
    const delivered = webhooks.received.find((r) => String(r.headers.traceparent ?? '').includes(traceId));
    expect(delivered?.headers.traceparent).toMatch(W3C);
    expect(String(delivered?.headers.traceparent).match(W3C)?.[2]).toBe(post.spanId);
    expect(JSON.parse(delivered!.body).type).toBe('order_create');

    // Every span of the trace hangs from the platform's: nothing is cut loose.
    const ids = new Set([platformSpan, ...inTrace(traceId).map((s) => s.spanId)]);
    for (const s of inTrace(traceId)) expect(ids.has(s.parentSpanId ?? ''), s.name).toBe(true);
    expect(childrenOf(request).length).toBeGreaterThan(0);
  });

  it("writes the trace's ids on every line a request logs", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${service.base}/llms.txt`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.status).toBe(200);
    const span = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'GET /llms.txt');
    const lines = linesOf(service, traceId);
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    for (const l of lines) expect(l).toMatchObject({ trace_id: traceId, span_id: span.spanId });
  });

  it("a tool call over /mcp goes on with the `traceparent` of its `_meta`, into the API's request", async () => {
    const traceId = randomBytes(16).toString('hex');
    const agentSpan = randomBytes(8).toString('hex');
    const res = await postMcp(
      service.base,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'search_products',
          arguments: { query: 'cedar' },
          _meta: { traceparent: `00-${traceId}-${agentSpan}-01` },
        },
      },
      agent,
    );
    expect(res.status).toBe(200);
    expect((await mcpMessage(res)).result.isError ?? false).toBe(false);
    const call = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'tools/call search_products');
    expect(call).toMatchObject({
      parentSpanId: agentSpan,
      kind: 2, // SERVER
      service: 'portage-test',
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'search_products' },
    });
    const api = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'GET /search/products');
    expect(api.parentSpanId).toBe(call.spanId);
  });

  it('`portage mcp` over stdio carries the trace across its HTTP hop to the service', async () => {
    const client = await startToolServer(service.base, shopper.token, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    try {
      const traceId = randomBytes(16).toString('hex');
      const agentSpan = randomBytes(8).toString('hex');
      toolOk(
        (await client.callTool({
          name: 'search_products',
          arguments: { query: 'cedar' },
          _meta: { traceparent: `00-${traceId}-${agentSpan}-01` },
        })) as Parameters<typeof toolOk>[0],
      );
      const call = await otlp.waitFor(
        (s) => s.traceId === traceId && s.name === 'tools/call search_products',
      );
      expect(call).toMatchObject({ parentSpanId: agentSpan, service: 'portage-mcp' });
      // undici's span of the fetch, then the service's request span under it, over the socket.
      const hop = await otlp.waitFor((s) => s.traceId === traceId && s.parentSpanId === call.spanId);
      expect(hop).toMatchObject({ kind: 3, attributes: { 'http.request.method': 'GET' } }); // CLIENT
      const served = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'GET /search/products');
      expect(served).toMatchObject({ parentSpanId: hop.spanId, service: 'portage-test' });
    } finally {
      await client.close();
    }
  });

  it("keeps a URL's query and an invoice link's token, which are credentials, out of every span and line", async () => {
    const traceId = randomBytes(16).toString('hex');
    const secret = `token-${randomBytes(8).toString('hex')}`;
    for (const url of [`/llms.txt?token=${secret}`, `/no/such/page?code=${secret}`, `/invoices/${secret}`]) {
      await fetch(`${service.base}${url}`, {
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      });
    }
    const page = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'GET /llms.txt');
    expect(page.attributes['url.path']).toBe('/llms.txt');
    const missing = await otlp.waitFor(
      (s) => s.traceId === traceId && s.attributes['url.path'] === '/no/such/page',
    );
    expect(missing.attributes['http.response.status_code']).toBe(404);
    const invoice = await otlp.waitFor((s) => s.traceId === traceId && s.name === 'GET /invoices/:token');
    expect(invoice.attributes['url.path']).toBe('/invoices/:token');
    expect(JSON.stringify(otlp.spans)).not.toContain(secret);
    // Nor in the log: the invoice's link is written redacted.
    expect(service.output()).toContain('"url":"/invoices/[redacted]"');
    expect(service.output()).not.toContain(secret);
    // Spans are named by routes and steps, never by a function's source.
    for (const s of otlp.spans) expect(s.name).not.toMatch(/[(){}]/);
    // Traces only: the SDK exports no metrics and no logs of its own.
    expect(otlp.otherPaths).toEqual([]);
    expect([...otlp.contentTypes]).toEqual(['application/json']);
  });

  it('a job pass is a trace of its own', async () => {
    const pass = await otlp.waitFor((s) => s.name === 'job acp-webhooks' && s.parentSpanId === undefined);
    expect(pass.kind).toBe(1); // INTERNAL
    expect(typeof pass.attributes['portage.job.handled']).toBe('number');
  });
});

/** The service's log lines of one request, by its trace id (its log is JSON Lines on stdout). */
function linesOf(service: Service, traceId: string): Array<Record<string, unknown>> {
  const out = service.output();
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const reqId = lines.find((l) => l.trace_id === traceId)?.reqId;
  return lines.filter((l) => reqId !== undefined && l.reqId === reqId);
}
