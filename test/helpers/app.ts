// Builds the real app over a real database for tests, with a clock the test can move.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type KeyRing, loadKeyRing } from '../../src/modules/auth/keys.ts';
import { users } from '../../src/modules/auth/tables.ts';
import { standIn, type TestDatabase, testDatabase } from './db.ts';

let testPem: string | undefined;
/** One RSA key per test process, generated at test time (never committed). */
export function testKeyPem(): string {
  testPem ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  return testPem;
}

let testUcpPem: string | undefined;
/** One EC P-256 key for UCP signing, shared by the test files of a run. */
export function testUcpKeyPem(): string {
  testUcpPem ??= generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  return testUcpPem;
}

export class TestClock {
  offsetMs = 0;
  private frozenAt: number | undefined;
  now = () => new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  advance(seconds: number) {
    this.offsetMs += seconds * 1000;
  }
  /** Stops the clock (at a whole second), so that edges to the second do not depend on the machine's speed. */
  freeze() {
    this.frozenAt = Math.floor(Date.now() / 1000) * 1000;
  }
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  keys: KeyRing;
  clock: TestClock;
  api: Api;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Environment variables over the tests' defaults (e.g. `{ RATE_LIMITS: 'on' }`). */
  env?: Record<string, string>;
  redis?: Redis;
  rateLimitNamespace?: string;
  logger?: FastifyServerOptions['logger'];
  timeouts?: AppOptions['timeouts'];
}

export async function testApp(database: TestDatabase, opts: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    APP_ENV: 'development',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'portage-data-')),
    PUBLIC_BASE_URL: 'http://portage.test',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'silent',
    // Tests run the jobs' passes themselves (t.app.jobs.runOnce()), at the clock they set.
    JOBS: 'off',
    JWT_PRIVATE_KEY: testKeyPem(),
    UCP_SIGNING_KEY: testUcpKeyPem(),
    ...opts.env,
  });
  const keys = await loadKeyRing(config.jwtPrivateKey!, config.jwtPreviousPublicKeys);
  const clock = new TestClock();
  const app = await buildApp({
    config,
    database,
    keys,
    now: clock.now,
    redis: opts.redis,
    rateLimitNamespace: opts.rateLimitNamespace ?? `portage-test-${randomBytes(4).toString('hex')}:`,
    logger: opts.logger ?? false,
    timeouts: opts.timeouts,
  });
  await app.ready();
  return { app, config, keys, clock, api: new Api(app), close: () => app.close() };
}

/**
 * The app of a test file over a database of its own, opened in beforeAll and closed in afterAll
 * (of the file, or of the describe it is called in): `const { t, database } = useTestApp();`.
 * `t` and `database` stand for them inside hooks and tests (see standIn in ./db.ts).
 *
 * `options` are testApp's, or a function answering them when the hook runs (for a value that
 * an earlier beforeAll sets, such as a server's URL). More setup goes in the file's own
 * beforeAll after this call: beforeAll hooks run in the order written, afterAll hooks in the
 * reverse order, so the file's own afterAll runs before the app and database close.
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions) = {}): {
  t: TestApp;
  database: TestDatabase;
} {
  let database: TestDatabase | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    database = await testDatabase();
    app = await testApp(database, typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    const [openApp, openDatabase] = [app, database];
    app = undefined;
    database = undefined;
    await openApp?.close();
    await openDatabase?.close();
  });
  return {
    t: standIn('useTestApp(): the app', () => app),
    database: standIn('useTestApp(): the database', () => database),
  };
}

/**
 * A fresh database and app for one test, when the file's own will not do (a clock or setting of
 * its own, a database no other test touched): runs `fn` with them, then closes both.
 */
export async function withTestApp<R>(
  fn: (t: TestApp, database: TestDatabase) => Promise<R>,
  options: TestAppOptions = {},
): Promise<R> {
  const database = await testDatabase();
  try {
    const t = await testApp(database, options);
    try {
      return await fn(t, database);
    } finally {
      await t.close();
    }
  } finally {
    await database.close();
  }
}

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are asserted by the tests
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A small HTTP client over Fastify's inject: real routing, hooks, validation and serialisation. */
export class Api {
  constructor(
    private readonly app: FastifyInstance,
    private readonly token?: string,
    private readonly ip = '127.0.0.1',
  ) {}

  as(token: string | { token: string }): Api {
    return new Api(this.app, typeof token === 'string' ? token : token.token, this.ip);
  }

  from(ip: string): Api {
    return new Api(this.app, this.token, ip);
  }

  get = (url: string, headers: Record<string, string> = {}) => this.send('GET', url, undefined, headers);
  post = (url: string, body?: unknown, headers: Record<string, string> = {}) =>
    this.send('POST', url, body, headers);
  put = (url: string, body?: unknown, headers: Record<string, string> = {}) =>
    this.send('PUT', url, body, headers);
  patch = (url: string, body?: unknown, headers: Record<string, string> = {}) =>
    this.send('PATCH', url, body, headers);
  delete = (url: string, headers: Record<string, string> = {}) =>
    this.send('DELETE', url, undefined, headers);

  async send(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    const res = await this.app.inject({
      method: method as 'GET',
      url,
      remoteAddress: this.ip,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    let parsed: unknown = res.body;
    try {
      parsed = JSON.parse(res.body);
    } catch {}
    return { status: res.statusCode, body: parsed, headers: res.headers };
  }
}

let counter = 0;
export const uniqueEmail = (label = 'user') =>
  `${label}.${process.pid}.${Date.now()}.${++counter}@example.ca`;

export interface SignedIn {
  id: string;
  email: string;
  password: string;
  token: string;
}

/**
 * Listens on a free loopback port (for tests that need a real socket), once per app: a second
 * call answers the same base URL.
 */
export async function listen(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error(`unexpected address ${address}`);
  return `http://127.0.0.1:${address.port}`;
}

/** Registers a buyer through the API. */
export async function buyer(api: Api, label = 'buyer'): Promise<SignedIn> {
  const email = uniqueEmail(label);
  const password = 'correct horse battery';
  const res = await api.post('/auth/register', { email, password, name: `Test ${label}` });
  if (res.status !== 201) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, email, password, token: res.body.token };
}

/** Registers a buyer and opens a shop for them through the API. */
export async function seller(api: Api, province = 'ON'): Promise<SignedIn> {
  const b = await buyer(api, 'seller');
  const res = await api.as(b).post('/me/seller', { shopName: 'Maple Goods', province });
  if (res.status !== 200) throw new Error(`become seller failed: ${JSON.stringify(res.body)}`);
  return { ...b, token: res.body.token };
}

/** Marks a person's address verified in the database, as following the emailed link does. */
export async function verified(database: TestDatabase, who: SignedIn): Promise<SignedIn> {
  await database.db.update(users).set({ emailVerified: true }).where(eq(users.id, who.id));
  return who;
}

/** An admin: registered through the API, promoted in the database (as the CLI does), signed in. */
export async function admin(api: Api, database: TestDatabase): Promise<SignedIn> {
  const b = await buyer(api, 'admin');
  await database.db
    .update(users)
    .set({ role: 'admin', tokenVersion: sql`${users.tokenVersion} + 1` })
    .where(eq(users.id, b.id));
  const res = await api.post('/auth/login', { email: b.email, password: b.password });
  return { ...b, token: res.body.token };
}
