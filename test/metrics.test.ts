// GET /metrics (docs/operations.md "Metrics"): off without METRICS_TOKEN, its bearer only, and the
// counters and gauges read back from the exposition text after real purchases, refunds, refusals
// and job passes.
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/index.ts';
import { createJobRunner } from '../src/jobs/runner.ts';
import { inTransaction } from '../src/modules/context.ts';
import { publish, subscribeCommitted } from '../src/modules/events.ts';
import { registerDatabaseMetrics } from '../src/modules/system/metrics.ts';
import { testApp, uniqueEmail, useTestApp } from './helpers/app.ts';
import { openCheckout } from './helpers/checkout.ts';
import { cancelledOrder, filledCart, paidOrder } from './helpers/orders.ts';

const TOKEN = 'metrics-token-for-the-tests-0123456789';
const { t, database } = useTestApp({ env: { METRICS_TOKEN: TOKEN } });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, samples only: `name{a="b",c="d"} value`. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!;
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape() {
  const res = await t.api.get('/metrics', { authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parse(res.body as string);
}

/** The value of the sample named so whose labels include `labels`; 0 when there is none (a counter not yet counted). */
function sampleOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value ?? 0;
}

describe('GET /metrics', () => {
  it('is 404 without METRICS_TOKEN, as any unknown URL', async () => {
    const off = await testApp(database, {});
    try {
      const res = await off.api.get('/metrics', { authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('is 401 without the bearer token, or with another', async () => {
    const tries: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${'y'.repeat(38)}` },
    ];
    for (const headers of tries) {
      const res = await t.api.get('/metrics', headers);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR', statusCode: 401 });
    }
  });

  it('is absent from the OpenAPI document', async () => {
    const res = await t.api.get('/openapi.json');
    expect(Object.keys(res.body.paths)).not.toContain('/metrics');
  });

  it('has the process metrics, prefixed', async () => {
    const samples = await scrape();
    expect(samples.some((s) => s.name === 'portage_process_cpu_seconds_total')).toBe(true);
  });

  it('counts a paid order once, and its refund once', async () => {
    const before = await scrape();
    const { orderId } = await cancelledOrder(t);
    expect(orderId).toBeTruthy();
    const after = await scrape();
    expect(sampleOf(after, 'portage_orders_total') - sampleOf(before, 'portage_orders_total')).toBe(1);
    expect(sampleOf(after, 'portage_refunds_total') - sampleOf(before, 'portage_refunds_total')).toBe(1);
  });

  it('times requests by route pattern, never by the raw URL', async () => {
    const { product, buyer } = await paidOrder(t);
    expect((await t.api.as(buyer).get(`/products/${product.id}`)).status).toBe(200);
    await t.api.get('/no/such/route/a1b2c3');
    const samples = await scrape();
    const routes = new Set(
      samples
        .filter((s) => s.name === 'portage_http_request_duration_seconds_count')
        .map((s) => s.labels.route),
    );
    expect(routes).toContain('/products/:productId');
    expect(routes).toContain('unmatched');
    expect([...routes].some((r) => r?.includes(product.id) || r?.includes('a1b2c3'))).toBe(false);
    expect(
      sampleOf(samples, 'portage_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/products/:productId',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts a rate-limit refusal by its group', async () => {
    // An app of its own with the limits on (the file's registers many users from one address).
    const limited = await testApp(database, { env: { METRICS_TOKEN: TOKEN, RATE_LIMITS: 'on' } });
    try {
      const refusals = async () => {
        const res = await limited.api.get('/metrics', { authorization: `Bearer ${TOKEN}` });
        return sampleOf(parse(res.body as string), 'portage_rate_limit_refusals_total', { group: 'auth' });
      };
      const before = await refusals();
      const login = () =>
        limited.api
          .from('203.0.113.45')
          .post('/auth/login', { email: uniqueEmail('metrics'), password: 'whatever-password' });
      for (let i = 0; i < 5; i++) expect((await login()).status).toBe(401);
      expect((await login()).status).toBe(429);
      expect((await login()).status).toBe(429);
      expect((await refusals()) - before).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it('reads the mail outbox depth at scrape time, and the job pass that sends it', async () => {
    await t.app.jobs.runOnce('mail');
    const before = await scrape();
    expect(sampleOf(before, 'portage_outbox_depth', { outbox: 'mail' })).toBe(0);
    const res = await t.api
      .from('203.0.113.46')
      .post('/auth/register', { email: uniqueEmail('metrics'), password: 'password-123', name: 'M' });
    expect(res.status).toBe(201);
    t.clock.advance(30);
    const queued = await scrape();
    expect(sampleOf(queued, 'portage_outbox_depth', { outbox: 'mail' })).toBe(1);
    expect(sampleOf(queued, 'portage_outbox_oldest_age_seconds', { outbox: 'mail' })).toBeGreaterThanOrEqual(
      29,
    );
    expect(sampleOf(queued, 'portage_outbox_depth', { outbox: 'webhooks' })).toBe(0);

    await t.app.jobs.runOnce('mail');
    const sent = await scrape();
    expect(sampleOf(sent, 'portage_outbox_depth', { outbox: 'mail' })).toBe(0);
    expect(sampleOf(sent, 'portage_outbox_oldest_age_seconds', { outbox: 'mail' })).toBe(0);
    const runs = (s: typeof sent) => sampleOf(s, 'portage_job_runs_total', { name: 'mail', outcome: 'ok' });
    expect(runs(sent) - runs(queued)).toBe(1);
    expect(sampleOf(sent, 'portage_job_last_success_timestamp_seconds', { name: 'mail' })).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
  });

  it('reads the live holds at scrape time', async () => {
    const before = sampleOf(await scrape(), 'portage_holds');
    const { buyer } = await filledCart(t);
    await openCheckout(t.api, buyer);
    expect(sampleOf(await scrape(), 'portage_holds') - before).toBe(1);
    // Past its expiry a hold no longer counts, though no job has released it yet.
    t.clock.advance(24 * 3600);
    expect(sampleOf(await scrape(), 'portage_holds')).toBe(0);
  });
});

describe('the job runner', () => {
  it('tells its observer of each pass, failed or not', async () => {
    const seen: string[] = [];
    let fail = true;
    const runner = createJobRunner(
      [
        {
          name: 'flaky',
          everyMs: 60_000,
          batch: 10,
          run: async () => {
            if (fail) throw new Error('the test asked for a failure');
            return 0;
          },
        },
      ],
      {
        db: database.db,
        now: () => new Date(),
        log: t.app.log,
        observe: (job, outcome) => seen.push(`${job}:${outcome}`),
      },
    );
    await runner.runOnce();
    fail = false;
    await runner.runOnce();
    expect(seen).toEqual(['flaky:failed', 'flaky:ok']);
  });
});

describe('events heard after commit', () => {
  const paid = {
    type: 'order.paid',
    orderId: 'orders:metrics',
    checkoutId: 'checkouts:metrics',
    buyerId: 'users:b',
    sellerId: 'users:s',
    status: 'confirmed',
  } as const;

  it('hears an event once its transaction committed, and never one rolled back', async () => {
    const heard: string[] = [];
    const unsubscribe = subscribeCommitted('order.paid', (event) => heard.push(event.orderId));
    try {
      const ctx = { db: database.db, now: () => new Date(), log: t.app.log };
      await inTransaction(ctx, async (tx) => {
        await publish(tx, paid);
        expect(heard).toEqual([]);
      });
      expect(heard).toEqual(['orders:metrics']);
      await expect(
        inTransaction(ctx, async (tx) => {
          await publish(tx, { ...paid, orderId: 'orders:rolled-back' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(heard).toEqual(['orders:metrics']);
    } finally {
      unsubscribe();
    }
  });
});

describe('the database metrics', () => {
  it('leave out what a failed read would say, and answer the rest of the scrape', async () => {
    const registry = new Registry();
    const warned: string[] = [];
    const log = { ...t.app.log, warn: (obj: { metric: string }) => warned.push(obj.metric) };
    // A handle no statement can run on: every read fails.
    const broken = { db: {}, kind: 'pglite' } as unknown as Database;
    registerDatabaseMetrics(registry, { database: broken, now: () => new Date(), log: log as never });
    new Counter({ name: 'portage_still_here_total', help: 'answered', registers: [registry] }).inc();
    const samples = parse(await registry.metrics());
    expect(samples.map((s) => s.name)).toEqual(['portage_still_here_total']);
    expect(warned.sort()).toEqual([
      'portage_holds',
      'portage_outbox_depth',
      'portage_outbox_oldest_age_seconds',
    ]);
  });
});
