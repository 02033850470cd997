// The probes (docs/operations.md "Health checks"): /livez answers without the database, /readyz
// names the check that failed (the database, its migrations, Redis, the search index) and
// nothing else, and turns ready again when the failure ends.
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { connectRedis } from '../src/http/redis.ts';
import { createReadiness, newestShippedMigration } from '../src/modules/system/readiness.ts';
import { type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { testDatabase } from './helpers/db.ts';
import { createCluster, type PgCluster, postgresBinaries } from './helpers/pg-cluster.ts';
import { freePort } from './helpers/service.ts';

const READY = { status: 'ok', checks: { database: 'ok', migrations: 'ok', search: 'ok' } };

describe('the probes of a running app', () => {
  const { t, database } = useTestApp();

  it('/livez and /readyz answer 200, uncached, and /health keeps its answer', async () => {
    const live = await t.api.get('/livez');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await t.api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual(READY);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect((await t.api.get('/health')).body).toEqual({ status: 'ok' });
  });

  it('are public and listed in the API reference beside /health', async () => {
    const doc = await t.api.get('/openapi.json');
    for (const path of ['/livez', '/readyz', '/health']) {
      expect(doc.body.paths[path].get.tags).toEqual(['system']);
      expect(doc.body.paths[path].get.security).toBeUndefined();
    }
    expect(Object.keys(doc.body.paths['/readyz'].get.responses)).toContain('503');
  });

  it('a database whose newest migration is missing is 503 migrations failed, and ready again once it is back', async () => {
    const [newest] = await rowsOf<{ id: number; hash: string; created_at: string }>(
      database.db,
      sql`select id, hash, created_at::text from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    );
    expect(Number(newest!.created_at)).toBe(newestShippedMigration());
    await database.db.execute(sql`delete from drizzle.__drizzle_migrations where id = ${newest!.id}`);
    try {
      const behind = await t.api.get('/readyz');
      expect(behind.status).toBe(503);
      expect(behind.body).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', migrations: 'failed', search: 'ok' },
      });
      // The process itself is fine.
      expect((await t.api.get('/livez')).status).toBe(200);
    } finally {
      await database.db.execute(
        sql`insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${newest!.id}, ${newest!.hash}, ${newest!.created_at}::bigint)`,
      );
    }
    expect((await t.api.get('/readyz')).body).toEqual(READY);
  });

  it('a search index not yet loaded fails the search check (the SQL engine has none to load)', async () => {
    const log = pino({ level: 'silent' });
    const loading = createReadiness({ database, search: { ready: () => false }, log });
    expect(await loading.check()).toEqual({
      ready: false,
      checks: { database: 'ok', migrations: 'ok', search: 'failed' },
    });
    await withSql(async (sqlApp) => {
      expect((await sqlApp.api.get('/readyz')).body).toEqual(READY);
    });
  });

  async function withSql(fn: (app: TestApp) => Promise<void>) {
    const app = await testApp(database, { env: { SEARCH_INDEX: 'sql' } });
    try {
      await fn(app);
    } finally {
      await app.close();
    }
  }
});

describe('Redis', () => {
  it('unreachable (a closed port): 503 redis failed, and nothing of why', async () => {
    const port = await freePort();
    const redis = await connectRedis(`redis://127.0.0.1:${port}`);
    const database = await testDatabase();
    try {
      const t = await testApp(database, { redis });
      try {
        const res = await t.api.get('/readyz');
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          status: 'unavailable',
          checks: { database: 'ok', migrations: 'ok', redis: 'failed', search: 'ok' },
        });
        expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|redis:\/\//);
      } finally {
        await t.close();
      }
    } finally {
      redis.disconnect();
      await database.close();
    }
  });

  it.skipIf(!process.env.REDIS_URL)('reachable (REDIS_URL): redis ok', async () => {
    const redis = await connectRedis(process.env.REDIS_URL!);
    const database = await testDatabase();
    try {
      const t = await testApp(database, { redis });
      try {
        const res = await t.api.get('/readyz');
        expect(res.status).toBe(200);
        expect(res.body.checks).toEqual({ database: 'ok', migrations: 'ok', redis: 'ok', search: 'ok' });
      } finally {
        await t.close();
      }
    } finally {
      redis.disconnect();
      await database.close();
    }
  });
});

describe('the database taken away (PGlite closed under the app, as test/db-unavailable.test.ts does)', () => {
  it('/readyz is 503 database failed, migrations unknown; /livez still 200', async () => {
    const database = await testDatabase();
    const t = await testApp(database);
    let closed = false;
    try {
      expect((await t.api.get('/readyz')).status).toBe(200);
      if (database.url) {
        // On PostgreSQL the shared server is never stopped: the cluster test below stops its own.
        return;
      }
      await database.close();
      closed = true;
      const res = await t.api.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: 'unavailable',
        checks: { database: 'failed', migrations: 'unknown', search: 'ok' },
      });
      expect(await t.api.get('/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await t.close();
      if (!closed) await database.close();
    }
  });
});

const bin = postgresBinaries();
// The PostgreSQL run of the suite only, as test/db-outage.spawn.test.ts: a server of its own costs seconds.
describe.skipIf(!process.env.TEST_DATABASE_URL || !bin)(
  'PostgreSQL stopped and started under the app (a server of the test’s own)',
  () => {
    let cluster: PgCluster;
    let t: TestApp;
    let close: () => Promise<void>;

    beforeAll(async () => {
      cluster = await createCluster(bin!);
      await cluster.start();
      const database = await openDatabase({ databaseUrl: cluster.url, poolSize: 3 });
      await database.migrate();
      t = await testApp({ ...database, url: cluster.url });
      close = async () => {
        await t.close();
        await database.close();
      };
    });
    afterAll(async () => {
      await close?.();
      await cluster?.destroy();
    });

    it('is 503 database failed while it is down, within the check’s second, and 200 once it is back', async () => {
      expect((await t.api.get('/readyz')).status).toBe(200);
      await cluster.stop();
      const down = await t.api.get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body.checks).toEqual({ database: 'failed', migrations: 'unknown', search: 'ok' });
      expect((await t.api.get('/livez')).status).toBe(200);
      await cluster.start();
      // The pool opens new connections on the next request: no restart of the app.
      const deadline = Date.now() + 30_000;
      let back = await t.api.get('/readyz');
      while (back.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        back = await t.api.get('/readyz');
      }
      expect(back.body).toEqual(READY);
    });
  },
);
