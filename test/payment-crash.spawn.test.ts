// A crash between receiving a payment event and committing it: the real service runs as a child
// process on PostgreSQL, the webhook's transaction is held on the buyer's cart lock by another
// connection, the process is killed (SIGKILL), and the provider's redelivery to a restarted
// service makes exactly one set of orders (docs/api.md "Payments").
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../src/modules/payments/signature.ts';
import { uniqueEmail } from './helpers/app.ts';
import { ON_ADDRESS, paymentEvent } from './helpers/checkout.ts';
import { useTestDatabase } from './helpers/db.ts';
import { call, type Service, startService } from './helpers/service.ts';

const onPostgres = !!process.env.TEST_DATABASE_URL;
const SECRET = 'whsec_crash_test_secret';

/** `portage serve` on the test database, with the provider's webhook secret. */
const startOn = (databaseUrl: string, dataDir: string) =>
  startService({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    // One public URL for both runs: tokens name it as their issuer.
    PUBLIC_BASE_URL: 'http://portage.test',
    JOBS: 'off',
    RATE_LIMITS: 'off',
    PAYMENT_WEBHOOK_SECRET: SECRET,
  });

/** Posts the event signed now with the service's secret (raw bytes, as the provider sends them). */
function deliver(base: string, payload: string) {
  return fetch(`${base}/webhooks/payments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signatureHeader(payload, SECRET, Math.floor(Date.now() / 1000)),
    },
    body: payload,
  });
}

async function register(base: string, label: string) {
  const email = uniqueEmail(label);
  const res = await call(base, 'POST', '/auth/register', undefined, {
    email,
    password: 'correct horse battery',
    name: `Crash ${label}`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.user.id as string, token: res.body.token as string };
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!onPostgres)(
  'a crash while the webhook commits (PostgreSQL only: the embedded PGlite database cannot be shared with a second connection)',
  () => {
    const database = useTestDatabase();
    let dataDir: string;
    const running: Service[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-crash-'));
    });
    afterAll(async () => {
      for (const s of running) {
        if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
        await s.done.catch(() => undefined);
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('leaves nothing behind, and the redelivery to a restarted service makes exactly one set of orders', async () => {
      const url = database.url!;
      const first = await startOn(url, dataDir);
      running.push(first);

      // A paid-ready checkout, through the service's API.
      const s = await register(first.base, 'seller');
      const shop = await call(first.base, 'POST', '/me/seller', s.token, {
        shopName: 'Crash Goods',
        province: 'ON',
      });
      expect(shop.status).toBe(200);
      const sellerToken = shop.body.token as string;
      const created = await call(first.base, 'POST', '/products', sellerToken, {
        title: 'Cedar crash box',
        priceCents: 2500,
        stockQuantity: 4,
        weight: 1,
      });
      expect(created.status).toBe(201);
      const productId = created.body.id as string;
      const b = await register(first.base, 'buyer');
      expect(
        (await call(first.base, 'POST', '/cart/items', b.token, { product_id: productId, quantity: 2 }))
          .status,
      ).toBe(200);
      const session = await call(first.base, 'POST', '/checkout', b.token, {
        shipping_address: ON_ADDRESS,
      });
      expect(session.status).toBe(201);
      const checkoutId = session.body.sessionId as string;
      const payload = JSON.stringify(paymentEvent(checkoutId, session.body.totalCents));

      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const count = async (q: string, params: unknown[] = []) =>
          Number((await db.query(q, params)).rows[0].n);
        const product = async () =>
          (
            await db.query(
              'select stock_quantity as stock, reserved_quantity as reserved from product_variants where id = $1',
              [productId],
            )
          ).rows[0];
        expect(await product()).toEqual({ stock: 4, reserved: 2 });

        // Another connection holds the buyer's cart: the webhook's transaction records the event,
        // then waits for that lock before it creates anything.
        const locker = new pg.Client({ connectionString: url });
        await locker.connect();
        try {
          await locker.query('begin');
          await locker.query('select user_id from carts where user_id = $1 for update', [b.id]);
          const inFlight = deliver(first.base, payload).then(
            (r) => ({ status: r.status }),
            (err: Error) => ({ error: err.message }),
          );
          await until('the webhook waits on the cart lock', async () => {
            const n = await count(
              `select count(*) as n from pg_stat_activity
                 where datname = current_database() and wait_event_type = 'Lock' and query ilike '%portage_lock_cart%'`,
            );
            return n > 0;
          });

          first.child.kill('SIGKILL');
          const killed = await first.done;
          expect(killed.signal).toBe('SIGKILL');
          expect(await inFlight).toHaveProperty('error');
        } finally {
          await locker.query('rollback').catch(() => undefined);
          await locker.end();
        }
        // The killed service's transaction is rolled back once its backend finds the client gone.
        await until('no transaction is left open', async () => {
          const n = await count(
            `select count(*) as n from pg_stat_activity
               where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
          );
          return n === 0;
        });
        expect(await count('select count(*) as n from payment_events')).toBe(0);
        expect(await count('select count(*) as n from orders')).toBe(0);
        expect(await count("select count(*) as n from mail_outbox where kind = 'order-paid'")).toBe(0);
        expect(
          (await db.query('select status from checkout_sessions where id = $1', [checkoutId])).rows,
        ).toEqual([{ status: 'ready_for_payment' }]);
        expect(await product()).toEqual({ stock: 4, reserved: 2 });

        // The provider redelivers to the restarted service: one set of orders.
        const second = await startOn(url, dataDir);
        running.push(second);
        const redelivered = await deliver(second.base, payload);
        expect(redelivered.status).toBe(200);
        const answer = await redelivered.json();
        expect(answer).toEqual({ received: true, duplicate: false, orderIds: [expect.any(String)] });
        expect(await count('select count(*) as n from orders where checkout_id = $1', [checkoutId])).toBe(1);
        expect(await count('select count(*) as n from payment_events')).toBe(1);
        expect(await product()).toEqual({ stock: 2, reserved: 0 });
        const order = await call(second.base, 'GET', `/orders/${answer.orderIds[0]}`, b.token);
        expect(order.body).toMatchObject({
          status: 'confirmed',
          itemCount: 2,
          totalAmountCents: session.body.totalCents,
        });

        // Again: a duplicate, nothing changes.
        const again = await deliver(second.base, payload);
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual({ received: true, duplicate: true });
        expect(await count('select count(*) as n from orders')).toBe(1);
        expect(await count("select count(*) as n from mail_outbox where kind = 'order-paid'")).toBe(1);
        expect(await product()).toEqual({ stock: 2, reserved: 0 });

        second.child.kill('SIGTERM');
        expect((await second.done).code).toBe(0);
      } finally {
        await db.end();
      }
    });
  },
);
