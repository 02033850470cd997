// Backups (docs/operations.md "Backups"): `portage backup` of an embedded database while the
// service holding it runs (the service takes the copy: POST /admin/backup with an admin's token)
// and while it is stopped, `portage restore` into a fresh data directory, a service started on it
// serving the same orders. The PostgreSQL recipe is test/backups-pg.spawn.test.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/index.ts';
import { admin, listen, type TestApp, testApp } from './helpers/app.ts';
import { paidOrder } from './helpers/orders.ts';
import { finished } from './helpers/process.ts';
import { call, type Service, startService, stopService } from './helpers/service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const tempDirs: string[] = [];
const tempDir = (label: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `portage-${label}-`));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const portage = (args: string[], env: Record<string, string>) =>
  finished(
    spawn(process.execPath, ['bin/portage.js', ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? os.tmpdir(),
        LOG_LEVEL: 'warn',
        APP_ENV: 'development',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );

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

/** The tests' migrated PGlite template; on the PostgreSQL run (which makes none) one made here. */
async function migratedPglite(): Promise<Blob> {
  const template = inject('pgliteTemplate');
  if (existsSync(template)) return new Blob([readFileSync(template)]);
  const pglite = await PGlite.create();
  try {
    await (await openDatabase({ pglite })).migrate();
    return await pglite.dumpDataDir('none');
  } finally {
    await pglite.close();
  }
}

describe('the embedded database', () => {
  let dataDir: string;
  let database: Database;
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    // A data directory of its own, started from the tests' migrated template (no initdb).
    dataDir = tempDir('backup-a');
    const seeded = await PGlite.create(path.join(dataDir, 'pg'), { loadDataDir: await migratedPglite() });
    await seeded.close();
    database = await openDatabase({ dataDir });
    await database.migrate();
    t = await testApp({ ...database, url: undefined });
    base = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
  });

  it('is refused to anyone but an admin, and answers a gzipped tarball PGlite opens', async () => {
    const order = await paidOrder(t);
    expect((await t.api.post('/admin/backup')).status).toBe(401);
    expect((await t.api.as(order.buyer).post('/admin/backup')).status).toBe(403);
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/backup',
      headers: { authorization: `Bearer ${(await admin(t.api, { ...database, url: undefined })).token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="portage-[0-9TZ-]+\.tar\.gz"$/);
    const copy = await PGlite.create({ loadDataDir: new Blob([new Uint8Array(res.rawPayload)]) });
    try {
      const { rows } = await copy.query<{ id: string }>('select id from orders where id = $1', [
        order.orderId,
      ]);
      expect(rows).toEqual([{ id: order.orderId }]);
      const audit = await copy.query("select 1 from admin_actions where action = 'database.backup'");
      expect(audit.rows).toHaveLength(1);
    } finally {
      await copy.close();
    }
  });

  // A budget of its own: seven commands and a service started, 15-25 s.
  it('`portage backup` while the service runs, `restore` into a fresh directory, the same orders served there', async () => {
    const first = await paidOrder(t);
    const second = await paidOrder(t, { buyer: first.buyer });
    const adminToken = (await admin(t.api, { ...database, url: undefined })).token;
    const file = path.join(tempDir('backup-files'), 'portage.tar.gz');

    // The data directory is held by this process's service: the copy must come from it.
    const noToken = await portage(['backup', file], { DATA_DIR: dataDir });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(
      /^portage: the data directory .* is in use by the running service.*SERVICE_JWT_TOKEN/,
    );
    const buyerToken = await portage(['backup', file], {
      DATA_DIR: dataDir,
      SERVICE_URL: base,
      SERVICE_JWT_TOKEN: first.buyer.token,
    });
    expect(buyerToken.code).toBe(1);
    expect(buyerToken.stderr).toMatch(/refused the backup: 403 AUTHZ_ERROR/);
    expect(existsSync(file)).toBe(false);

    const taken = await portage(['backup', file], {
      DATA_DIR: dataDir,
      SERVICE_URL: base,
      SERVICE_JWT_TOKEN: adminToken,
    });
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    // A file of that name is never overwritten.
    const again = await portage(['backup', file], {
      DATA_DIR: dataDir,
      SERVICE_URL: base,
      SERVICE_JWT_TOKEN: adminToken,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists; give a new file name/);

    // A restore needs the service stopped.
    const busy = await portage(['restore', file], { DATA_DIR: dataDir });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/is in use by another Portage process \(pid \d+\)\. Stop it, then restore\./);

    const fresh = tempDir('backup-b');
    const restored = await portage(['restore', file], { DATA_DIR: fresh });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);

    let service: Service | undefined;
    try {
      service = await startService({
        DATA_DIR: fresh,
        PUBLIC_BASE_URL: 'http://portage.test',
        RATE_LIMITS: 'off',
      });
      expect((await ordersOn(service.base, first.buyer)).sort()).toEqual(
        [first.orderId, second.orderId].sort(),
      );
      expect((await call(service.base, 'GET', '/readyz')).status).toBe(200);
    } finally {
      if (service) await stopService(service);
    }

    // Stopped: `backup` takes the copy itself; `restore` over a database keeps it aside.
    const direct = path.join(path.dirname(file), 'direct.tar.gz');
    const stopped = await portage(['backup', direct], { DATA_DIR: fresh });
    expect(stopped.stderr).toBe('');
    expect(stopped.stdout).toMatch(/taken directly/);
    const over = await portage(['restore', direct], { DATA_DIR: fresh });
    expect(over.code).toBe(0);
    expect(readdirSync(fresh).filter((f) => f.startsWith('pg.before-restore-'))).toHaveLength(1);
    expect(existsSync(path.join(fresh, 'pg', 'PG_VERSION'))).toBe(true);

    // A file that is no backup changes nothing.
    const junk = path.join(path.dirname(file), 'junk.tar.gz');
    writeFileSync(junk, 'not a backup');
    const refused = await portage(['restore', junk], { DATA_DIR: fresh });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/could not be opened as a Portage backup .*nothing was changed/);
    expect(readdirSync(fresh).filter((f) => f.startsWith('pg.'))).toHaveLength(1);
  }, 300_000);
});
