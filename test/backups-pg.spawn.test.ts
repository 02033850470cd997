// The PostgreSQL backup recipe of docs/operations.md "Backups" (pg_dump -Fc, pg_restore into a
// new database), on the PostgreSQL run when those binaries are here: an app on the restored
// database serves the same orders. A file of its own: a process holds one kind of database
// driver, and test/backups.spawn.test.ts runs PGlite.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { admin, listen, testApp } from './helpers/app.ts';
import { testDatabase } from './helpers/db.ts';
import { paidOrder } from './helpers/orders.ts';
import { onServer } from './helpers/pg-admin.ts';
import { call } from './helpers/service.ts';

const run = promisify(execFile);
const dumps = mkdtempSync(path.join(os.tmpdir(), 'portage-pg-dump-'));
afterAll(() => rmSync(dumps, { recursive: true, force: true }));

/** The buyer's orders as a service answers them, after signing in there. */
async function ordersOn(base: string, who: { email: string; password: string }): Promise<string[]> {
  const login = await call(base, 'POST', '/auth/login', undefined, {
    email: who.email,
    password: who.password,
  });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const orders = await call(base, 'GET', '/orders', login.body.token);
  expect(orders.status).toBe(200);
  return orders.body.orders.map((o: { id: string }) => o.id);
}

const pgDump = ['/usr/bin/pg_dump', '/usr/bin/pg_restore'].every((f) => existsSync(f));

describe.skipIf(!process.env.TEST_DATABASE_URL || !pgDump)(
  'PostgreSQL: the recipe of docs/operations.md (pg_dump -Fc, pg_restore into a new database)',
  () => {
    it('restores the orders, served by an app on the restored database; /admin/backup refuses, naming the recipe', async () => {
      const source = await testDatabase();
      const restoredName = `portage_restored_${process.pid}_${Date.now()}`;
      const target = new URL(source.url!);
      target.pathname = `/${restoredName}`;
      const file = path.join(dumps, 'portage.dump');
      try {
        const t = await testApp(source);
        let order: Awaited<ReturnType<typeof paidOrder>>;
        try {
          order = await paidOrder(t);
          const adminToken = (await admin(t.api, source)).token;
          const refused = await t.api.as(adminToken).post('/admin/backup');
          expect(refused.status).toBe(409);
          expect(refused.body).toEqual({
            error:
              'This service runs on PostgreSQL: back it up with the database\'s own dump tool (docs/operations.md, "Backups")',
            code: 'CONFLICT',
            statusCode: 409,
          });
        } finally {
          await t.close();
        }
        await run('pg_dump', ['-Fc', '-f', file, `--dbname=${source.url}`]);
        await onServer(process.env.TEST_DATABASE_URL!, `create database ${restoredName} template template0`);
        await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${target.href}`, file]);
        const restored = await openDatabase({ databaseUrl: target.href, poolSize: 2 });
        try {
          await restored.migrate();
          const r = await testApp({ ...restored, url: target.href });
          try {
            const base = await listen(r);
            expect(await ordersOn(base, order.buyer)).toEqual([order.orderId]);
          } finally {
            await r.close();
          }
        } finally {
          await restored.close();
        }
      } finally {
        await source.close();
        await onServer(
          process.env.TEST_DATABASE_URL!,
          `drop database if exists ${restoredName} with (force)`,
        );
      }
    });
  },
);
