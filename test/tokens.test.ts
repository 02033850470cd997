// The forged-token matrix: every way a token can be wrong answers 401 AUTH_ERROR.
import { createHmac, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeJwt, importPKCS8, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type Answer, type SignedIn, testApp, testKeyPem, useTestApp } from './helpers/app.ts';
import { buyer, expectError } from './helpers/builders.ts';

const { t, database } = useTestApp();
let b: SignedIn;

beforeAll(async () => {
  b = await buyer(t.api);
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** The one answer to every wrong token: nothing about what was wrong with it. */
const expectInvalidToken = (res: Answer) => expectError(res, 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');

/** Signs claims like ours, with any key and header. */
async function sign(claims: Record<string, unknown>, pem = testKeyPem(), kid = t.keys.kid) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: b.email, role: 'buyer', ver: 0, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .setSubject((claims.sub as string) ?? b.id)
    .setIssuer((claims.iss as string) ?? 'portage')
    .setAudience((claims.aud as string) ?? 'http://portage.test')
    .setIssuedAt((claims.iat as number) ?? now)
    .setExpirationTime((claims.exp as number) ?? now + 3600)
    .sign(await importPKCS8(pem, 'RS256'));
}

describe('a token is refused when', () => {
  it('it is well formed and ours (control)', async () => {
    expect((await t.api.as(await sign({})).get('/me')).status).toBe(200);
  });

  // A token of ours changed, or one we never signed, sent on a request: the one invalid-token answer.
  it.each<[string, () => string | Promise<string>]>([
    [
      'its payload was tampered with (role raised to admin)',
      () => {
        const [h, , s] = b.token.split('.');
        return `${h}.${b64({ ...decodeJwt(b.token), role: 'admin' })}.${s}`;
      },
    ],
    [
      'its signature was altered',
      () => {
        const [h, p, s] = b.token.split('.');
        const flipped = s!.startsWith('A') ? `B${s!.slice(1)}` : `A${s!.slice(1)}`;
        return `${h}.${p}.${flipped}`;
      },
    ],
    [
      'it uses alg "none"',
      () => {
        const [, p] = b.token.split('.');
        return `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`;
      },
    ],
    [
      'it is HS256-signed with our public key as the secret (algorithm confusion)',
      () => {
        const publicPem = createPublicKey(testKeyPem()).export({ type: 'spki', format: 'pem' }).toString();
        const [, p] = b.token.split('.');
        const header = b64({ alg: 'HS256', typ: 'JWT', kid: t.keys.kid });
        const mac = createHmac('sha256', publicPem).update(`${header}.${p}`).digest('base64url');
        return `${header}.${p}.${mac}`;
      },
    ],
    ['its claims are incomplete (no role)', () => sign({ role: undefined })],
  ])('%s', async (_, token) => {
    expectInvalidToken(await t.api.as(await token()).get('/me'));
  });

  it('it is signed by another key, even one claiming our kid', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    expectInvalidToken(await t.api.as(await sign({}, other)).get('/me'));
    expectInvalidToken(await t.api.as(await sign({}, other, 'some-other-kid')).get('/me'));
  });

  it('it has expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 7200;
    const res = await t.api.as(await sign({ iat: past, exp: past + 3600 })).get('/me');
    expectError(res, 'AUTH_ERROR', 401, 'AUTH_ERROR: Token expired');
  });

  it('it belongs to another deployment (audience) or another issuer', async () => {
    const staging = await sign({ aud: 'https://staging.portage.example' });
    expectInvalidToken(await t.api.as(staging).get('/me'));
    expectInvalidToken(await t.api.as(staging).post('/auth/refresh'));
    expectInvalidToken(await t.api.as(await sign({ iss: 'someone-else' })).get('/me'));
  });

  it('another deployment signed it with its own key', async () => {
    const prod = await testApp(database, {
      env: {
        PUBLIC_BASE_URL: 'https://portage.example',
        JWT_PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 })
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
      },
    });
    try {
      const login = await prod.api.post('/auth/login', { email: b.email, password: b.password });
      expect(login.status).toBe(200);
      expectInvalidToken(await t.api.as(login.body).get('/me'));
    } finally {
      await prod.close();
    }
  });

  it('its user no longer exists', async () => {
    const gone = await buyer(t.api, 'gone');
    await database.db.delete(users).where(eq(users.id, gone.id));
    expectInvalidToken(await t.api.as(gone).get('/me'));
  });

  it('its user was deleted by hand after the token was used: within AUTH_CACHE_MS (1 s)', async () => {
    const gone = await buyer(t.api, 'gone-later');
    expect((await t.api.as(gone).get('/me')).status).toBe(200);
    await database.db.delete(users).where(eq(users.id, gone.id));
    // This instance may trust what it read of the user for AUTH_CACHE_MS; then it reads again.
    t.clock.advance(1);
    try {
      expectInvalidToken(await t.api.as(gone).get('/me'));
    } finally {
      t.clock.advance(-1);
    }
  });

  it('AUTH_CACHE_MS=0 reads the user on every request', async () => {
    const strict = await testApp(database, { env: { AUTH_CACHE_MS: '0' } });
    try {
      const gone = await buyer(strict.api, 'gone-strict');
      expect((await strict.api.as(gone).get('/me')).status).toBe(200);
      await database.db.delete(users).where(eq(users.id, gone.id));
      expectInvalidToken(await strict.api.as(gone).get('/me'));
    } finally {
      await strict.close();
    }
  });

  it('its auth_time is not a time, or lies after its iat', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectInvalidToken(await t.api.as(await sign({ auth_time: 'yesterday' })).get('/me'));
    expectInvalidToken(await t.api.as(await sign({ iat: now, auth_time: now + 1 })).get('/me'));
    expectInvalidToken(await t.api.as(await sign({ iat: now, auth_time: now + 1 })).post('/auth/refresh'));
  });
});

describe('keys', () => {
  it('publishes the public key with its kid at /.well-known/jwks.json, and nothing private', async () => {
    const res = await t.api.get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys).toEqual([
      { kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: t.keys.kid, alg: 'RS256', use: 'sig' },
    ]);
  });

  it('still accepts tokens of a retired key listed in JWT_PREVIOUS_PUBLIC_KEYS, and signs with the new one', async () => {
    const newPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const oldPublic = createPublicKey(testKeyPem()).export({ type: 'spki', format: 'pem' }).toString();
    const rotated = await testApp(database, {
      env: { JWT_PRIVATE_KEY: newPem, JWT_PREVIOUS_PUBLIC_KEYS: oldPublic },
    });
    try {
      expect((await rotated.api.as(b).get('/me')).status).toBe(200);
      const jwks = await rotated.api.get('/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([rotated.keys.kid, t.keys.kid]);
      const login = await rotated.api.post('/auth/login', { email: b.email, password: b.password });
      expect(login.body.token.split('.')[0]).not.toBe(b.token.split('.')[0]);
    } finally {
      await rotated.close();
    }
  });
});
