// The metrics read from the database, at scrape time only (never on a request): the outboxes'
// depth and oldest age, the live holds, the PostgreSQL pool (docs/operations.md "Metrics").
// One small read each, one at a time (a scrape arriving while a read runs shares it), given up
// after a second; a read that fails leaves its metric out of that scrape, never the scrape.
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../context.ts';
import { type Backlogs, liveHolds, outboxBacklogs } from './queries.ts';

const READ_TIMEOUT_MS = 1_000;

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** A gauge set from a read at each scrape; answers no sample when the read failed. */
class ScrapedGauge extends Gauge<string> {
  private reading: Promise<Sample[]> | undefined;
  private readonly metric: string;

  constructor(
    opts: { name: string; help: string; labelNames?: string[]; registry: Registry },
    private readonly read: () => Promise<Sample[]>,
    private readonly log: FastifyBaseLogger,
  ) {
    super({
      name: opts.name,
      help: opts.help,
      labelNames: opts.labelNames ?? [],
      registers: [opts.registry],
    });
    this.metric = opts.name;
  }

  override async get() {
    // A read that hangs stays the one read: later scrapes wait on it (1 s each), none starts another.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    try {
      const samples = await withTimeout(this.reading);
      this.reset();
      for (const s of samples) this.set(s.labels, s.value);
      return await super.get();
    } catch (err) {
      this.log.warn({ err, metric: this.metric }, 'metrics: a database read failed; left out of this scrape');
      return { ...(await super.get()), values: [] };
    }
  }
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function registerDatabaseMetrics(
  registry: Registry,
  deps: { database: Database; now: Clock; log: FastifyBaseLogger },
) {
  const { database, now, log } = deps;
  const db = database.db;

  // Both outboxes in one read, shared by their two gauges.
  let backlog: Promise<Backlogs> | undefined;
  const readBacklog = () => {
    backlog ??= outboxBacklogs(db, now()).finally(() => {
      backlog = undefined;
    });
    return backlog;
  };
  const outboxes = ['mail', 'webhooks'] as const;
  new ScrapedGauge(
    {
      name: 'portage_outbox_depth',
      help: 'Messages waiting in an outbox (mail; webhooks to agent platforms)',
      labelNames: ['outbox'],
      registry,
    },
    async () => {
      const b = await readBacklog();
      return outboxes.map((o) => ({ labels: { outbox: o }, value: b[o].depth }));
    },
    log,
  );
  new ScrapedGauge(
    {
      name: 'portage_outbox_oldest_age_seconds',
      help: "Age of an outbox's oldest waiting message (0 when none waits)",
      labelNames: ['outbox'],
      registry,
    },
    async () => {
      const b = await readBacklog();
      return outboxes.map((o) => ({ labels: { outbox: o }, value: Math.max(0, b[o].age ?? 0) }));
    },
    log,
  );
  new ScrapedGauge(
    {
      name: 'portage_holds',
      help: 'Checkout sessions holding stock now (live, unexpired reservations)',
      registry,
    },
    async () => {
      return [{ labels: {}, value: await liveHolds(db, now()) }];
    },
    log,
  );

  const poolStats = database.poolStats;
  if (poolStats) {
    new Gauge({
      name: 'portage_db_pool_connections',
      help: "The PostgreSQL pool's connections, by state (idle, busy; waiting: requests queued for one)",
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const { total, idle, waiting } = poolStats();
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'busy' }, total - idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }
}
