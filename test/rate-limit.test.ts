import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/http/rate-limit.ts';
import { connectRedis } from '../src/http/redis.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { buyer, type TestApp, testApp, uniqueEmail, useTestApp } from './helpers/app.ts';
import { freePort } from './helpers/service.ts';

const { t, database } = useTestApp({ env: { RATE_LIMITS: 'on' } });

const login = (app: TestApp, ip: string) =>
  app.api.from(ip).post('/auth/login', { email: uniqueEmail('rl'), password: 'whatever-password' });

describe('rate limits', () => {
  it('answers the 6th authentication request within a minute with 429 and Retry-After', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 5; i++) expect((await login(t, ip)).status).toBe(401);
    const res = await login(t, ip);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      error: expect.stringMatching(/^Too many requests; retry in \d+ seconds? \(limit 5 a minute\)$/),
      code: 'RATE_LIMIT',
      statusCode: 429,
    });
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('counts every authentication route in one group, per client address', async () => {
    const ip = '203.0.113.20';
    await t.api
      .from(ip)
      .post('/auth/register', { email: uniqueEmail('rl'), password: 'password-123', name: 'R' });
    await t.api.from(ip).post('/auth/refresh');
    await t.api.from(ip).post('/auth/login', { email: uniqueEmail('rl'), password: 'x-password' });
    await t.api.from(ip).get('/auth/google/start?redirectUri=http://portage.test/');
    await t.api.from(ip).post('/auth/login', { email: uniqueEmail('rl'), password: 'x-password' });
    expect((await t.api.from(ip).post('/auth/refresh')).status).toBe(429);
    // Another address has its own count.
    expect((await login(t, '203.0.113.21')).status).toBe(401);
  });

  it('an email’s link works after its address spent the sign-in budget: following our own link is no sign-in', async () => {
    const ip = '203.0.113.25';
    const b = await buyer(t.api.from('203.0.113.26'), 'linked');
    const [mail] = await database.db
      .select({ text: outbox.textBody })
      .from(outbox)
      .where(and(eq(outbox.toAddress, b.email), eq(outbox.kind, 'email-verify')));
    const token = /\/auth\/email\/verify\?token=([A-Za-z0-9_-]{43})/.exec(mail!.text)![1]!;
    for (let i = 0; i < LIMITS.auth; i++) expect((await login(t, ip)).status).toBe(401);
    expect((await login(t, ip)).status).toBe(429);
    const page = await t.app.inject({
      method: 'GET',
      url: `/auth/email/verify?token=${token}`,
      remoteAddress: ip,
    });
    expect(page.statusCode).toBe(200);
    const verified = await t.app.inject({
      method: 'POST',
      url: '/auth/email/verify',
      remoteAddress: ip,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${token}`,
    });
    expect(verified.statusCode).toBe(200);
    expect(verified.body).toContain('Email address confirmed');
  });

  it('a link’s page over its own budget says when to try again, in the person’s language, not that the link is dead', async () => {
    const ip = '203.0.113.27';
    const open = () =>
      t.app.inject({
        method: 'GET',
        url: `/auth/email/verify?token=${'a'.repeat(43)}`,
        remoteAddress: ip,
        headers: { 'accept-language': 'fr-CA' },
      });
    for (let i = 0; i < LIMITS.emailLinks; i++) expect((await open()).statusCode).toBe(400);
    const res = await open();
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toMatch(/Trop d’essais depuis cette connexion : réessayez dans \d+ secondes?\./);
    expect(res.body).not.toContain('Ce lien');
  });

  it('a page over its budget says when to try again, in the person’s language', async () => {
    const ip = '203.0.113.28';
    const signIn = () =>
      t.app.inject({
        method: 'POST',
        url: '/account/sign-in',
        remoteAddress: ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-CA' },
        payload: `email=${encodeURIComponent(uniqueEmail('rl'))}&password=whatever-password`,
      });
    let res = await signIn();
    for (let i = 0; i < LIMITS.auth && res.statusCode !== 429; i++) res = await signIn();
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Trop d’essais');
    expect(res.body).toMatch(/réessayez dans \d+ secondes?/);
  });

  it('answers a reset form sent too often with the form again and when to retry, not a dead link', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/auth/password/reset',
        remoteAddress: '203.0.113.30',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-CA' },
        payload: 'token=not-a-live-token&password=a-new-password&confirmPassword=a-new-password',
      });
    for (let i = 0; i < LIMITS.emailLinks; i++) expect((await send()).statusCode).toBe(400);
    const res = await send();
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<form method="post" action="/auth/password/reset">');
    expect(res.body).toMatch(/Trop de requêtes/);
    expect(res.body).not.toContain('Ce lien ne fonctionne pas');
  });

  it('leaves health and discovery unlimited', async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < 12; i++) expect((await t.api.from(ip).get('/health')).status).toBe(200);
    expect((await t.api.from(ip).get('/.well-known/jwks.json')).status).toBe(200);
  });

  it('RATE_LIMITS=off turns them off', async () => {
    const off = await testApp(database, { env: { RATE_LIMITS: 'off' } });
    try {
      for (let i = 0; i < 7; i++) expect((await login(off, '203.0.113.40')).status).toBe(401);
    } finally {
      await off.close();
    }
  });

  it.skipIf(!process.env.REDIS_URL)('two instances sharing Redis hit one limit', async () => {
    const redis1 = await connectRedis(process.env.REDIS_URL!);
    const redis2 = await connectRedis(process.env.REDIS_URL!);
    const nameSpace = `portage-test-shared-${randomBytes(4).toString('hex')}:`;
    const a = await testApp(database, {
      env: { RATE_LIMITS: 'on' },
      redis: redis1,
      rateLimitNamespace: nameSpace,
    });
    const b = await testApp(database, {
      env: { RATE_LIMITS: 'on' },
      redis: redis2,
      rateLimitNamespace: nameSpace,
    });
    try {
      const ip = '203.0.113.50';
      for (const app of [a, b, a, b, a]) expect((await login(app, ip)).status).toBe(401);
      const sixth = await login(b, ip);
      expect(sixth.status).toBe(429);
      expect(sixth.headers['retry-after']).toBeDefined();
      expect((await login(a, ip)).status).toBe(429);
      expect(await redis1.keys(`${nameSpace}*`)).not.toHaveLength(0);
    } finally {
      await a.close();
      await b.close();
      await redis1.quit();
      await redis2.quit();
    }
  });
});

/** A Redis server of the test's own on a free port (the shared one of REDIS_URL is never stopped). */
async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const probe = await connectRedis(`redis://127.0.0.1:${port}`);
  try {
    await until('the Redis server answers', async () => (await probe.ping().catch(() => '')) === 'PONG');
  } finally {
    probe.disconnect();
  }
  return server;
}

async function until(what: string, check: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!process.env.REDIS_URL)(
  'rate limits while Redis is away (a Redis server of the test’s own)',
  () => {
    it('count on each instance while it is away, and are shared again once it is back', async () => {
      const port = await freePort();
      let server = await startRedis(port);
      const url = `redis://127.0.0.1:${port}`;
      const clients = [await connectRedis(url), await connectRedis(url)];
      const nameSpace = `portage-test-away-${randomBytes(4).toString('hex')}:`;
      const [a, b] = (await Promise.all(
        clients.map((redis) =>
          testApp(database, { env: { RATE_LIMITS: 'on' }, redis, rateLimitNamespace: nameSpace }),
        ),
      )) as [TestApp, TestApp];
      const ready = (redis: Redis) => redis.status === 'ready';
      try {
        await until('both instances are connected', () => clients.every(ready));
        server.kill('SIGKILL');
        await until('both instances know Redis is gone', () => !clients.some(ready));

        // Away: each instance counts on its own (not skipped), so a caller still meets a limit.
        const ip = '203.0.113.60';
        for (let i = 0; i < 5; i++) expect((await login(a, ip)).status).toBe(401);
        expect((await login(a, ip)).status).toBe(429);
        for (let i = 0; i < 5; i++) expect((await login(b, ip)).status).toBe(401);
        expect((await login(b, ip)).status).toBe(429);

        const restarted = Date.now();
        server = await startRedis(port);
        await until('both instances are connected again', () => clients.every(ready));
        console.log(`rate limits shared again ${Date.now() - restarted} ms after Redis was started again`);
        const shared = '203.0.113.61';
        for (const app of [a, b, a, b, a]) expect((await login(app, shared)).status).toBe(401);
        expect((await login(b, shared)).status).toBe(429);
      } finally {
        await a.close();
        await b.close();
        for (const redis of clients) redis.disconnect();
        server.kill('SIGKILL');
      }
    });
  },
);
