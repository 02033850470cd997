// PostgreSQL restarted under load: the real service runs as a child process over a PostgreSQL
// server of the test's own, buyers check out and pay in parallel loops, the server is stopped
// (`pg_ctl stop -m fast`, as a restart does) and started again. The process must live through it,
// every request during the outage must answer 503 in the error model with Retry-After (never 500),
// the service must serve again once the server is back without being restarted, and nothing paid
// may be lost: every payment answered has its orders, and every unit is sold, held or in stock.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers/app.ts';
import { ON_ADDRESS } from './helpers/checkout.ts';
import { createCluster, type PgCluster, postgresBinaries } from './helpers/pg-cluster.ts';
import { call, type Service, type ServiceAnswer, startService, stopService } from './helpers/service.ts';

const bin = postgresBinaries();
// The PostgreSQL run of the suite (CI's second pass) only: a server of its own costs seconds.
const run = !!process.env.TEST_DATABASE_URL && !!bin;

const BUYERS = 6;
const PRODUCTS = 3;
const STOCK = 500;

type Answer = ServiceAnswer;

describe.skipIf(!run)(
  'PostgreSQL restarted under load (the PostgreSQL run only: a server of the test’s own is started and stopped)',
  () => {
    let cluster: PgCluster;
    let service: Service | undefined;
    let dataDir: string;

    beforeAll(async () => {
      cluster = await createCluster(bin!);
      await cluster.start();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-outage-'));
    });
    afterAll(async () => {
      if (service) await stopService(service);
      await cluster?.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    // A budget of its own: a server started twice, seven sign-ups and the load take 15-40 s.
    it('ends no process, answers 503 with Retry-After meanwhile, serves again after, and loses nothing', async () => {
      service = await startService({
        DATABASE_URL: cluster.url,
        DATA_DIR: dataDir,
        PUBLIC_BASE_URL: 'http://portage.test',
        RATE_LIMITS: 'off',
        JOBS: 'on',
      });
      const base = service.base;

      // A seller with a few products, and buyers.
      const register = async (label: string) => {
        const res = await call(base, 'POST', '/auth/register', undefined, {
          email: uniqueEmail(label),
          password: 'correct horse battery',
          name: `Outage ${label}`,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.token as string;
      };
      const shop = await call(base, 'POST', '/me/seller', await register('seller'), {
        shopName: 'Outage Goods',
        province: 'ON',
      });
      expect(shop.status).toBe(200);
      const productIds: string[] = [];
      for (let i = 0; i < PRODUCTS; i++) {
        const made = await call(base, 'POST', '/products', shop.body.token, {
          title: `Cedar box ${i}`,
          priceCents: 1500 + i,
          stockQuantity: STOCK,
          weight: 1,
        });
        expect(made.status).toBe(201);
        productIds.push(made.body.id);
      }
      const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => register(`buyer${i}`)));

      // Every answer, by phase; the orders each paid answer named.
      const answers: Array<Answer & { what: string; phase: string }> = [];
      const paidOrders = new Set<string>();
      let phase = 'before';
      let paidAfter = 0;
      let firstPaidAfter = 0;
      let stopping = false;
      const record = (what: string, a: Answer) => {
        answers.push({ ...a, what, phase });
        return a;
      };
      const loop = async (token: string, n: number) => {
        for (let i = 0; !stopping && service?.alive(); i++) {
          const productId = productIds[(n + i) % PRODUCTS]!;
          const added = record(
            'cart',
            await call(base, 'POST', '/cart/items', token, { product_id: productId, quantity: 1 }),
          );
          if (added.status !== 200) continue;
          const session = record(
            'checkout',
            await call(base, 'POST', '/checkout', token, { shipping_address: ON_ADDRESS }),
          );
          if (session.status !== 201 && session.status !== 200) continue;
          const paid = record(
            'pay',
            await call(base, 'POST', `/sandbox/checkout/${session.body.sessionId}/pay`, undefined, {
              card: '4242424242424242',
            }),
          );
          if (paid.status === 200) {
            for (const id of paid.body.orderIds) paidOrders.add(id);
            if (phase === 'after' && paidAfter++ === 0) firstPaidAfter = Date.now();
          }
        }
      };
      const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 90_000) => {
        const deadline = Date.now() + ms;
        while (!(await check())) {
          if (!service?.alive()) throw new Error(`the service exited: ${(await service?.done)?.stderr}`);
          if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };

      const loops = buyers.map((token, n) => loop(token, n));
      await until('purchases go through', () => paidOrders.size >= 10);

      phase = 'outage';
      await cluster.stop('fast');
      await until('requests meet the outage', () => answers.filter((a) => a.phase === 'outage').length >= 30);
      const health = await call(base, 'GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'unavailable', code: 'INTERNAL_ERROR', statusCode: 503 });

      await cluster.start();
      const back = Date.now();
      phase = 'after';
      await until('purchases go through again', () => paidAfter >= 10);
      const servedAgainMs = firstPaidAfter - back;
      stopping = true;
      await Promise.all(loops);
      expect(service.alive()).toBe(true);

      // What the requests answered: never a 500; during the outage, 503 in the error model.
      const failures = answers.filter((a) => a.status >= 500);
      const counts = new Map<string, number>();
      for (const a of answers) {
        const k = `${a.phase} ${a.what} ${a.status}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      const summary = [...counts].map(([k, n]) => `${k}: ${n}`);
      console.log(`first purchase ${servedAgainMs} ms after the server was back; ${summary.join(', ')}`);
      expect(
        failures.filter((a) => a.status !== 503),
        JSON.stringify(failures.slice(0, 3)),
      ).toEqual([]);
      expect(answers.filter((a) => a.phase === 'outage' && a.status === 503).length).toBeGreaterThan(0);
      for (const a of failures) {
        expect(a.retryAfter).toBe('5');
        expect(a.body).toEqual({
          error: 'The service is briefly unavailable; retry in 5 seconds',
          code: 'INTERNAL_ERROR',
          statusCode: 503,
        });
      }
      // Before and after the outage, everything worked.
      expect(answers.filter((a) => a.phase === 'before' && a.status >= 400)).toEqual([]);

      // Nothing lost: every payment answered has its orders; the stock adds up.
      const db = new pg.Client({ connectionString: cluster.url });
      await db.connect();
      try {
        const orders = await db.query<{ id: string; status: string }>(
          'select id, status from orders where id = any($1)',
          [[...paidOrders]],
        );
        expect(orders.rows.length).toBe(paidOrders.size);
        expect(new Set(orders.rows.map((o) => o.status))).toEqual(new Set(['confirmed']));
        // A paid checkout has its orders, whether or not its answer reached the buyer.
        const paidWithout = await db.query(
          `select s.id from checkout_sessions s where s.status = 'complete'
             and not exists (select 1 from orders o where o.checkout_id = s.id)`,
        );
        expect(paidWithout.rows).toEqual([]);
        const stock = await db.query<{
          id: string;
          stock: number;
          reserved: number;
          sold: number;
          held: number;
        }>(
          `select p.id, p.stock_quantity as stock, p.reserved_quantity as reserved,
             (select coalesce(sum(i.quantity), 0)::int from order_items i join orders o on o.id = i.order_id
                where i.variant_id = p.id) as sold,
             (select coalesce(sum(r.quantity), 0)::int from reservations r
                where r.variant_id = p.id and r.released_at is null and r.committed_at is null) as held
           from product_variants p where p.id = any($1)`,
          [productIds],
        );
        for (const p of stock.rows) {
          expect(p.stock + p.sold, p.id).toBe(STOCK);
          expect(p.reserved, p.id).toBe(p.held);
        }
      } finally {
        await db.end();
      }

      service.child.kill('SIGTERM');
      expect((await service.done).code).toBe(0);
    }, 300_000);
  },
);
