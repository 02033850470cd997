// The `portage` command, run as operators run it: a child process of `node bin/portage.js`.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { loadKeyRing } from '../src/modules/auth/keys.ts';
import { platforms } from '../src/modules/platforms/tables.ts';
import { Api, testApp, testKeyPem, testUcpKeyPem, uniqueEmail } from './helpers/app.ts';
import { ON_ADDRESS } from './helpers/checkout.ts';
import { testDatabase } from './helpers/db.ts';
import { finished } from './helpers/process.ts';
import { freePort } from './helpers/service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const onPostgres = !!process.env.TEST_DATABASE_URL;
const STACK_FRAME = '    at ';

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-cli-'));
  tempDirs.push(dir);
  return dir;
}

/** Only what the command needs: nothing leaks in from the environment of the test run. */
function cliEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), LOG_LEVEL: 'warn', ...env };
}

function start(args: string[], env: Record<string, string>, root = ROOT): ChildProcess {
  return spawn(process.execPath, ['bin/portage.js', ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const portage = (args: string[], env: Record<string, string>, root = ROOT) =>
  finished(start(args, env, root));

const lines = (s: string) => s.trimEnd().split('\n');

/** Waits until a started server answers 200 on /health; fails if it exits first. */
async function answering(port: number, done: Promise<{ stderr: string }>): Promise<void> {
  let exited = false;
  void done.then(() => {
    exited = true;
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`the server exited early: ${(await done).stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error('the server did not answer /health in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const password = 'correct horse battery';

describe('portage user create', () => {
  it('creates an admin who can log in as admin', async () => {
    const dataDir = freshDataDir();
    const database = onPostgres ? await testDatabase() : undefined;
    const env = { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) };
    try {
      const email = uniqueEmail('cli-admin');
      const created = await portage(
        [
          'user',
          'create',
          '--email',
          email,
          '--password',
          password,
          '--name',
          'Ada Admin',
          '--role',
          'admin',
        ],
        env,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(lines(created.stdout)).toEqual([
        expect.stringMatching(/^Created admin \S+ \(users:[A-Za-z0-9_-]{20}\)$/),
      ]);
      expect(created.stdout).toContain(`Created admin ${email} (`);
      const id = /\((users:[^)]+)\)/.exec(created.stdout)![1];

      // The same email again: refused with the API's message, no stack trace.
      const again = await portage(
        ['user', 'create', '--email', email, '--password', password, '--name', 'Twin', '--role', 'buyer'],
        env,
      );
      expect(again.code).toBe(1);
      expect(lines(again.stderr)).toEqual([
        `portage: An account with the email ${email} already exists; log in instead`,
      ]);

      // Log in through the real app over the database the command wrote to.
      if (database) {
        const t = await testApp(database);
        try {
          await expectAdminLogin(t.api, email, id!);
        } finally {
          await t.close();
        }
      } else {
        const config = loadConfig({
          DATA_DIR: dataDir,
          JWT_PRIVATE_KEY: testKeyPem(),
          LOG_LEVEL: 'silent',
          PUBLIC_BASE_URL: 'http://portage.test',
          RATE_LIMITS: 'off',
        });
        const keys = await loadKeyRing(config.jwtPrivateKey!);
        const db = await openDatabase({ dataDir });
        try {
          const app = await buildApp({ config, database: db, keys, logger: false });
          try {
            await expectAdminLogin(new Api(app), email, id!);
          } finally {
            await app.close();
          }
        } finally {
          await db.close();
        }
      }
    } finally {
      await database?.close();
    }
  });

  it('refuses an unknown role with exit code 2 and a usage message', async () => {
    const dataDir = freshDataDir();
    const res = await portage(
      ['user', 'create', '--email', uniqueEmail(), '--password', password, '--name', 'K', '--role', 'king'],
      { DATA_DIR: dataDir },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^portage: --role: must be one of buyer, seller, admin\n/);
    expect(res.stderr).toContain('Usage: portage <command>');
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(res.stdout).toBe('');
    // Nothing was opened: arguments are checked before the database.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('refuses a missing --email with exit code 2, naming the option', async () => {
    const dataDir = freshDataDir();
    const res = await portage(['user', 'create', '--password', password, '--name', 'Nobody'], {
      DATA_DIR: dataDir,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^portage: --email: /);
    expect(res.stderr).toContain('Usage: portage <command>');
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it.each([
    ['an unknown option', ['--email', 'x@example.ca', '--password', password, '--name', 'N', '--bogus']],
    ['an option without its value', ['--email']],
  ])('treats %s as a usage error: exit code 2, no stack trace', async (_label, args) => {
    const dataDir = freshDataDir();
    const res = await portage(['user', 'create', ...args], { DATA_DIR: dataDir });
    expect(res.stderr).toMatch(/^portage: /);
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(res.code).toBe(2);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('portage platform create', () => {
  it("prints the issued platform as JSON on stdout; only the key's SHA-256 is stored", async () => {
    const dataDir = freshDataDir();
    const database = onPostgres ? await testDatabase() : undefined;
    const env = { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) };
    try {
      const webhookUrl = 'http://127.0.0.1:4010/acp/webhooks';
      const ucpProfileUrl = 'https://chat.example.com/.well-known/ucp';
      const res = await portage(
        [
          'platform',
          'create',
          '--name',
          'Maple Chat',
          '--webhook-url',
          webhookUrl,
          '--ucp-profile',
          ucpProfileUrl,
        ],
        env,
      );
      expect(res.code).toBe(0);
      expect(lines(res.stderr)).toEqual([
        "The API key and webhook secret are shown once; only the key's SHA-256 is stored.",
      ]);
      const issued = JSON.parse(res.stdout);
      expect(issued).toEqual({
        id: expect.stringMatching(/^platforms:[A-Za-z0-9_-]{20}$/),
        name: 'Maple Chat',
        webhookUrl,
        ucpProfileUrl,
        feedUrl: null,
        createdAt: expect.any(Number),
        keyRotatedAt: null,
        revokedAt: null,
        apiKey: expect.stringMatching(/^acp_[A-Za-z0-9_-]{43}$/),
        webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      });

      const db = database ?? (await openDatabase({ dataDir }));
      try {
        const [row] = await db.db.select().from(platforms).where(eq(platforms.id, issued.id));
        expect(row?.keyHash).toBe(createHash('sha256').update(issued.apiKey).digest('hex'));
      } finally {
        if (!database) await db.close();
      }
    } finally {
      await database?.close();
    }
  });

  it('refuses a missing --name with exit code 2 and the usage, before opening the database', async () => {
    const dataDir = freshDataDir();
    const res = await portage(['platform', 'create', '--webhook-url', 'https://chat.example.com/hooks'], {
      DATA_DIR: dataDir,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^portage: --name: is required\n/);
    expect(res.stderr).toContain('platform create --name N --webhook-url U');
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(res.stdout).toBe('');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('names --webhook-url when the URL is refused', async () => {
    const dataDir = freshDataDir();
    const res = await portage(
      ['platform', 'create', '--name', 'N', '--webhook-url', 'http://chat.example.com/hooks'],
      { DATA_DIR: dataDir },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^portage: --webhook-url: must use https, or http on a loopback host \(127\.0\.0\.1, \[::1\], localhost\)\n/,
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('portage ledger check', () => {
  it('says the ledger balances (exit 0), then names what is wrong (exit 1)', async () => {
    const dataDir = freshDataDir();
    const database = onPostgres ? await testDatabase() : undefined;
    const env = { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) };
    try {
      const ok = await portage(['ledger', 'check'], env);
      expect(ok.code).toBe(0);
      expect(lines(ok.stdout)).toEqual([
        'The ledger balances: every transaction sums to zero and every balance agrees with its records.',
      ]);
      const db = database ?? (await openDatabase({ dataDir }));
      try {
        await db.db.execute(sql`insert into ledger_transactions (key, kind, seller_id, created_at)
          values ('sale:orders:cli', 'sale', 'users:cli', now())`);
        await db.db.execute(sql`insert into ledger_entries (transaction_key, account, seller_id, order_id, amount_cents, created_at)
          values ('sale:orders:cli', 'provider_cash', 'users:cli', 'orders:cli', 1000, now())`);
      } finally {
        if (!database) await db.close();
      }
      const wrong = await portage(['ledger', 'check'], env);
      expect(wrong.code).toBe(1);
      expect(lines(wrong.stdout)).toEqual([
        expect.stringMatching(
          /^a transaction does not sum to zero: \{"transaction_key":"sale:orders:cli","sum":"?1000"?\}$/,
        ),
      ]);
      expect(lines(wrong.stderr)).toEqual(['portage: the ledger check found 1 problem(s)']);
    } finally {
      await database?.close();
    }
  });
});

describe('portage serve', () => {
  it('refuses an invalid configuration with exit code 1, one line per problem and no stack trace', async () => {
    const dataDir = freshDataDir();
    const res = await portage(['serve'], { DATA_DIR: dataDir, PORT: 'abc', APP_ENV: 'prod' });
    expect(res.code).toBe(1);
    expect(lines(res.stderr)).toEqual([
      'portage: invalid configuration:',
      '  APP_ENV: must be one of development, staging, production (got "prod")',
      '  PORT: must be a whole number (got "abc")',
    ]);
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(res.stdout).toBe('');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it.skipIf(onPostgres)(
    'holds its PGlite data directory: a second process is refused until the server stops on SIGTERM',
    async () => {
      const dataDir = freshDataDir();
      const port = await freePort();
      const server = start(['serve'], { DATA_DIR: dataDir, PORT: String(port) });
      const serverDone = finished(server);
      let exited = false;
      void serverDone.then(() => {
        exited = true;
      });
      try {
        await answering(port, serverDone);

        const refused = await portage(['migrate'], { DATA_DIR: dataDir });
        expect(refused.code).toBe(1);
        const errLines = lines(refused.stderr);
        expect(errLines).toHaveLength(1);
        expect(errLines[0]).toMatch(/^portage: /);
        expect(errLines[0]).toContain('is in use by another Portage process');
        expect(errLines[0]).toContain(`(pid ${server.pid})`);

        // Graceful shutdown: exit code 0, lock released.
        server.kill('SIGTERM');
        const stopped = await serverDone;
        expect(stopped.signal).toBeNull();
        expect(stopped.code).toBe(0);
        expect(readdirSync(dataDir)).not.toContain('portage.pid');

        const migrated = await portage(['migrate'], { DATA_DIR: dataDir });
        expect(migrated.stderr).toBe('');
        expect(migrated.code).toBe(0);
        expect(lines(migrated.stdout)).toEqual(['Migrations applied.']);
      } finally {
        if (!exited) server.kill('SIGKILL');
      }
    },
  );
});

describe('portage serve, deployed', () => {
  it.skipIf(onPostgres)(
    'refuses to start without the platform’s tax profile, saying how to set it; starts once it is set',
    async () => {
      const dataDir = freshDataDir();
      const port = await freePort();
      const deployed = {
        DATA_DIR: dataDir,
        PORT: String(port),
        APP_ENV: 'staging',
        PUBLIC_BASE_URL: 'https://staging.portage.example',
        PAYMENT_WEBHOOK_SECRET: 'whsec_staging_test_0123456789',
        STRIPE_SECRET_KEY: 'sk_test_staging1',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_staging1',
        JWT_PRIVATE_KEY: testKeyPem(),
        UCP_SIGNING_KEY: testUcpKeyPem(),
      };
      const refused = await portage(['serve'], deployed);
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)).toEqual([
        "portage: the platform's tax profile is not set (APP_ENV=staging needs its legal name, address, GST/HST and QST numbers, which invoices print); set it with `portage tax-profile set` (see `portage help`), then start again",
      ]);

      const bad = await portage(
        ['tax-profile', 'set', '--legal-name', 'Portage Marketplace Inc.', '--street', '1 Place Ville Marie'],
        deployed,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^portage: --city: .+\n--province: .+\n--postal-code: .+\n/);

      const set = await portage(
        [
          'tax-profile',
          'set',
          '--legal-name',
          'Portage Marketplace Inc.',
          '--street',
          '1 Place Ville Marie',
          '--city',
          'Montréal',
          '--province',
          'QC',
          '--postal-code',
          'h3b 2b6',
          '--gst-hst-number',
          '876543216RT0001',
          '--qst-number',
          '1234567892TQ0001',
        ],
        deployed,
      );
      expect({ code: set.code, stderr: set.stderr, stdout: set.stdout }).toEqual({
        code: 0,
        stderr: '',
        stdout: 'Tax profile set: Portage Marketplace Inc.\n',
      });

      const server = start(['serve'], deployed);
      const serverDone = finished(server);
      try {
        await answering(port, serverDone);
      } finally {
        server.kill('SIGTERM');
        await serverDone;
      }
    },
  );
});

describe('portage', () => {
  it('answers an unknown command with exit code 2 and the usage', async () => {
    const res = await portage(['frobnicate'], { DATA_DIR: freshDataDir() });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^portage: Unknown command "frobnicate"\n/);
    expect(res.stderr).toContain('Usage: portage <command>');
    expect(res.stderr).toContain('user create --email E --password P --name N');
    expect(res.stderr).not.toContain(STACK_FRAME);
    expect(res.stdout).toBe('');
  });

  it('prints the usage on stdout and exits 0 when asked for help', async () => {
    const res = await portage(['--help'], { DATA_DIR: freshDataDir() });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: portage <command>\n/);
    expect(res.stderr).toBe('');
  });
});

describe('the build made at install time (bin/portage.js, scripts/build.mjs)', () => {
  // A copy of the package as a fresh clone has it: sources, no dist/; node_modules as installed.
  let clone: string;
  const builds = () => readdirSync(path.join(clone, 'dist', 'build'));
  const cliSource = () => path.join(clone, 'src', 'cli.ts');

  beforeAll(async () => {
    clone = mkdtempSync(path.join(os.tmpdir(), 'portage-clone-'));
    tempDirs.push(clone);
    for (const entry of ['bin', 'scripts', 'src', 'package.json', 'package-lock.json', 'tsconfig.json']) {
      cpSync(path.join(ROOT, entry), path.join(clone, entry), { recursive: true });
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    // What `npm install` runs for the package itself once its dependencies are in place.
    const prepared = await finished(
      spawn('npm', ['run', 'prepare'], { cwd: clone, env: cliEnv({}), stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    if (prepared.code !== 0) throw new Error(`npm run prepare failed: ${prepared.stderr}`);
  }, 300_000);

  it.skipIf(onPostgres)(
    'npm start answers /health on a new data directory after the set-up npm install runs',
    async () => {
      expect(builds()).toHaveLength(1);
      expect(existsSync(path.join(clone, 'dist', 'build', builds()[0]!, 'cli.js'))).toBe(true);
      const port = await freePort();
      const server = spawn('npm', ['start'], {
        cwd: clone,
        env: cliEnv({ DATA_DIR: freshDataDir(), PORT: String(port) }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const done = finished(server);
      try {
        await answering(port, done);
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: 'ok' });
      } finally {
        process.kill(-server.pid!, 'SIGTERM');
        await done;
      }
    },
  );

  it('runs the build only while it was made from the sources as they are: an edited source is never run stale', async () => {
    // A mark in the build, so that the answer tells which of the two ran.
    const built = path.join(clone, 'dist', 'build', builds()[0]!, 'cli.js');
    const original = readFileSync(built, 'utf8');
    expect(original).toContain('Usage: portage <command>');
    writeFileSync(built, original.replace('Usage: portage <command>', 'Usage: portage <command> [built]'));
    const source = readFileSync(cliSource(), 'utf8');
    const help = async () => (await portage(['--help'], {}, clone)).stdout;
    try {
      expect(await help()).toMatch(/^Usage: portage <command> \[built\]\n/);

      // An edited source: the sources run, edit included.
      writeFileSync(cliSource(), source.replace('run the HTTP API', 'run the HTTP API [edited]'));
      const edited = await help();
      expect(edited).toMatch(/^Usage: portage <command>\n/);
      expect(edited).toContain('run the HTTP API [edited]');

      // Undone: the build is again of the sources as they are.
      writeFileSync(cliSource(), source);
      expect(await help()).toMatch(/^Usage: portage <command> \[built\]\n/);

      // A file added to the sources counts as an edit too.
      writeFileSync(path.join(clone, 'src', 'added.ts'), 'export const added = 1;\n');
      expect(await help()).toMatch(/^Usage: portage <command>\n/);
    } finally {
      writeFileSync(cliSource(), source);
      rmSync(path.join(clone, 'src', 'added.ts'), { force: true });
      writeFileSync(built, original);
    }
  });

  it.skipIf(onPostgres)(
    'the build and the sources answer the same: /health 200, the same API description, an invoice drawn in a worker thread',
    async () => {
      const dataDir = freshDataDir();
      const answers = async () => {
        const port = await freePort();
        const server = start(
          ['serve'],
          {
            DATA_DIR: dataDir,
            PORT: String(port),
            PUBLIC_BASE_URL: 'http://portage.test',
            RATE_LIMITS: 'off',
          },
          clone,
        );
        const done = finished(server);
        try {
          await answering(port, done);
          const health = await fetch(`http://127.0.0.1:${port}/health`);
          const openapi = await fetch(`http://127.0.0.1:${port}/openapi.json`);
          return {
            health: [health.status, await health.json()],
            openapi: [openapi.status, await openapi.json()],
            invoice: await firstInvoice(port),
          };
        } finally {
          server.kill('SIGTERM');
          await done;
        }
      };
      const fromBuild = await answers();
      expect(fromBuild.health).toEqual([200, { status: 'ok' }]);
      expect(fromBuild.openapi[0]).toBe(200);
      // The build's worker thread runs its own bundled file (scripts/build.mjs), the sources' tsx.
      expect(fromBuild.invoice).toEqual([200, 'application/pdf', '%PDF-']);

      // Without a build, bin/portage.js runs the sources through tsx.
      renameSync(path.join(clone, 'dist', 'build'), path.join(clone, 'dist', 'build-aside'));
      try {
        expect(await answers()).toEqual(fromBuild);
      } finally {
        renameSync(path.join(clone, 'dist', 'build-aside'), path.join(clone, 'dist', 'build'));
      }
    },
  );
});

/** A purchase on the server at `port`, through its API, and the first answer to its invoice. */
async function firstInvoice(port: number): Promise<[number, string | null, string]> {
  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return res;
  };
  const json = async (res: Promise<Response>) => {
    const answer = await res;
    const body = await answer.json();
    if (answer.status >= 300) throw new Error(`${answer.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const register = (label: string) =>
    json(call('POST', '/auth/register', undefined, { email: uniqueEmail(label), password, name: label }));
  const seller = await register('seller');
  const shop = await json(call('POST', '/me/seller', seller.token, { shopName: 'Cedar', province: 'ON' }));
  const product = await json(
    call('POST', '/products', shop.token, {
      title: 'Cedar box',
      priceCents: 1000,
      stockQuantity: 5,
      weight: 1,
    }),
  );
  const buyer = await register('buyer');
  await json(call('POST', '/cart/items', buyer.token, { product_id: product.id, quantity: 1 }));
  const session = await json(call('POST', '/checkout', buyer.token, { shipping_address: ON_ADDRESS }));
  const paid = await json(
    call('POST', `/sandbox/checkout/${session.sessionId}/pay`, undefined, { card: '4242424242424242' }),
  );
  const invoice = await call('GET', `/orders/${encodeURIComponent(paid.orderIds[0])}/invoice`, buyer.token);
  const bytes = Buffer.from(await invoice.arrayBuffer());
  return [invoice.status, invoice.headers.get('content-type'), bytes.subarray(0, 5).toString()];
}

async function expectAdminLogin(api: Api, email: string, id: string) {
  const login = await api.post('/auth/login', { email, password });
  expect(login.status).toBe(200);
  expect(login.body).toMatchObject({
    user: { id, email, name: 'Ada Admin', role: 'admin' },
    userId: id,
    role: 'admin',
  });
  expect(decodeJwt(login.body.token).role).toBe('admin');
  const me = await api.as(login.body.token).get('/me');
  expect(me.body).toMatchObject({ id, role: 'admin' });
}
