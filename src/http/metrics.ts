// Metrics in Prometheus's text format at GET /metrics (docs/operations.md "Metrics"): a registry
// of this app's own, not prom-client's global one, so that two apps in one process (the tests)
// count apart. The route exists only with METRICS_TOKEN, and answers only its bearer.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { unauthenticated } from '../contract/errors.ts';
import type { LimitGroup } from './rate-limit.ts';

export interface Metrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status_code'>;
  orders: Counter;
  refunds: Counter;
  rateLimitRefusals: Counter<'group'>;
  jobRuns: Counter<'name' | 'outcome'>;
  jobLastSuccess: Gauge<'name'>;
  transactionDuration: Histogram<'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portage_' });
  const registers = [registry];
  return {
    registry,
    requestDuration: new Histogram({
      name: 'portage_http_request_duration_seconds',
      help: 'Time from a request received to its answer sent, by route pattern and status',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers,
    }),
    orders: new Counter({
      name: 'portage_orders_total',
      help: 'Orders paid (counted once their purchase committed)',
      registers,
    }),
    refunds: new Counter({
      name: 'portage_refunds_total',
      help: 'Refunds the payment provider confirmed',
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'portage_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate-limit group',
      labelNames: ['group'] as const,
      registers,
    }),
    jobRuns: new Counter({
      name: 'portage_job_runs_total',
      help: "Background jobs' passes, by how they ended",
      // Not `job`: Prometheus gives that label to the scrape's job.
      labelNames: ['name', 'outcome'] as const,
      registers,
    }),
    transactionDuration: new Histogram({
      name: 'portage_db_transaction_duration_seconds',
      help: 'Time from a database transaction begun to its commit or rollback, by how it ended',
      labelNames: ['outcome'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    jobLastSuccess: new Gauge({
      name: 'portage_job_last_success_timestamp_seconds',
      help: "Unix time of a job's last pass that ran through on this instance",
      labelNames: ['name'] as const,
      registers,
    }),
  };
}

/** What counts requests with an unmatched URL: the raw URL would be an unbounded label. */
const UNMATCHED = 'unmatched';

/**
 * Times every request (one histogram observation, labelled by the route's pattern) and, when
 * `token` is set, serves GET /metrics to its bearer. Without a token there is no route: 404, as
 * for any unknown URL.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined) {
  const { requestDuration, registry } = metrics;
  app.addHook('onResponse', (req, reply, done) => {
    requestDuration.observe(
      {
        method: req.method,
        route: req.routeOptions.url ?? UNMATCHED,
        status_code: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  if (token === undefined) return;
  const expected = Buffer.from(`Bearer ${token}`);
  app.get(
    '/metrics',
    // Public to the guard (the token is ours, not a user's); no rate group: a refusal costs a compare.
    { config: { auth: 'public' }, schema: { hide: true } },
    async (req, reply) => {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw unauthenticated();
      }
      const body = await registry.metrics();
      return reply
        .header('content-type', registry.contentType)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}

/** A rate-limit refusal counted (src/http/rate-limit.ts's onRefused). */
export const countRefusal = (metrics: Metrics) => (group: LimitGroup) =>
  metrics.rateLimitRefusals.inc({ group });
