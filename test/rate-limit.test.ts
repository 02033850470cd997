import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type TestApp, testApp, uniqueEmail, useTestApp } from './helpers/app.ts';

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

  it('answers a reset form sent too often with the form again and when to retry, not a dead link', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/auth/password/reset',
        remoteAddress: '203.0.113.30',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-CA' },
        payload: 'token=not-a-live-token&password=a-new-password&confirmPassword=a-new-password',
      });
    for (let i = 0; i < 5; i++) expect((await send()).statusCode).toBe(400);
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
    const redis1 = new Redis(process.env.REDIS_URL!);
    const redis2 = new Redis(process.env.REDIS_URL!);
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
