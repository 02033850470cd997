// External login (OpenID Connect: authorization code + state + nonce + PKCE), end to end against
// a real local provider: the app builds the URL, the provider redirects back, the app exchanges
// the code over HTTP and verifies the ID token against the provider's keys.
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcLogins, userIdentities, users } from '../src/modules/auth/tables.ts';
import { buyer, type TestApp, testApp, uniqueEmail } from './helpers/app.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

const APP = 'http://app.test';
const BACK = `${APP}/signed-in?next=%2Fcart`;
const CALLBACK = 'http://portage.test/auth/google/callback';

let database: TestDatabase;
let provider: OAuth2Server;
let issuer: string;
let t: TestApp;
/** Claims the provider puts in the next tokens it signs. */
let claims: Record<string, unknown>;

const oidcEnv = () => ({
  GOOGLE_CLIENT_ID: 'portage-client',
  GOOGLE_CLIENT_SECRET: 'portage-secret',
  OIDC_ISSUER: issuer,
  OIDC_AUTHORIZATION_ENDPOINT: `${issuer}/authorize`,
  OIDC_TOKEN_ENDPOINT: `${issuer}/token`,
  OIDC_JWKS_URI: `${issuer}/jwks`,
  AUTH_REDIRECT_ORIGINS: APP,
});

beforeAll(async () => {
  database = await testDatabase();
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  issuer = provider.issuer.url!;
  provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, claims));
  t = await testApp(database, { env: oidcEnv() });
});
afterAll(async () => {
  await t?.close();
  await provider?.stop();
  await database?.close();
});

let n = 0;
const identity = (over: Record<string, unknown> = {}) => ({
  sub: `google-${process.pid}-${Date.now()}-${++n}`,
  email: uniqueEmail('oidc'),
  email_verified: true,
  name: 'Ada Lovelace',
  ...over,
});
beforeEach(() => {
  claims = identity();
});

const startPath = (redirectUri: string) =>
  `/auth/google/start?redirectUri=${encodeURIComponent(redirectUri)}`;
const sha256 = (v: string) => createHash('sha256').update(v).digest('base64url');

/** GET /auth/google/start: answers the provider's authorization URL. */
async function start(redirectUri = BACK): Promise<URL> {
  const res = await t.api.get(startPath(redirectUri));
  expect(res.status).toBe(302);
  return new URL(String(res.headers.location));
}

/** The browser at the provider: it redirects to our callback; answers that path and query. */
async function authorize(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return `${back.pathname}${back.search}`;
}

/** A whole login; answers where the app sent the browser back, split at the fragment. */
async function login(redirectUri = BACK) {
  const callback = await authorize(await start(redirectUri));
  const res = await t.api.get(callback);
  expect(res.status).toBe(302);
  const location = String(res.headers.location);
  const [base, fragment = ''] = location.split('#');
  return { callback, base, fragment: new URLSearchParams(fragment) };
}

const usersWithEmail = (email: string) => database.db.select().from(users).where(eq(users.email, email));
const identitiesOf = (sub: string) =>
  database.db.select().from(userIdentities).where(eq(userIdentities.subject, sub));

describe('GET /auth/google/start', () => {
  it('redirects to the provider with code flow, state, nonce and S256 PKCE; keeps the state hashed', async () => {
    const url = await start();
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/authorize`);
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe('portage-client');
    expect(q.get('redirect_uri')).toBe(CALLBACK);
    expect(q.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
    expect(q.get('code_challenge_method')).toBe('S256');
    for (const p of ['state', 'nonce', 'code_challenge']) expect(q.get(p)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('state')).not.toBe(q.get('nonce'));
    const stateHash = sha256(q.get('state')!);
    const [row] = await database.db.select().from(oidcLogins).where(eq(oidcLogins.stateHash, stateHash));
    expect(row).toMatchObject({ nonce: q.get('nonce'), redirectUri: BACK });
    expect(sha256(row!.codeVerifier)).toBe(q.get('code_challenge'));
  });

  it('refuses a redirectUri of another origin, a non-URL and a missing one with 400', async () => {
    const evil = await t.api.get(startPath('https://evil.test/x'));
    expect(evil).toMatchObject({
      status: 400,
      body: {
        error: 'redirectUri origin https://evil.test is not allowed',
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'redirectUri', message: `origin must be one of ${APP}` }],
      },
    });
    const notUrl = await t.api.get(startPath('not a url'));
    expect(notUrl.status).toBe(400);
    expect(notUrl.body).toEqual({
      error: 'redirectUri must be an absolute URL',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'redirectUri', message: 'must be a URL' }],
    });
    const missing = await t.api.get('/auth/google/start');
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'redirectUri', message: 'is required' }]);
  });

  it('accepts an allowed origin configured with a trailing slash (config says it is valid)', async () => {
    const slash = await testApp(database, { env: { ...oidcEnv(), AUTH_REDIRECT_ORIGINS: `${APP}/` } });
    try {
      expect((await slash.api.get(startPath(BACK))).status).toBe(302);
    } finally {
      await slash.close();
    }
  });

  it('is 404 when no provider is configured', async () => {
    const bare = await testApp(database);
    try {
      const expected = {
        error: 'External login is not configured on this deployment',
        code: 'NOT_FOUND',
        statusCode: 404,
      };
      expect(await bare.api.get(startPath(BACK))).toMatchObject({ status: 404, body: expected });
      const callback = await bare.api.get('/auth/google/callback?state=x&code=y');
      expect(callback).toMatchObject({ status: 404, body: expected });
    } finally {
      await bare.close();
    }
  });
});

describe('GET /auth/google/callback', () => {
  it('creates a verified buyer, answers a working token, and signs the same user in next time', async () => {
    const { sub, email } = claims as { sub: string; email: string };
    const first = await login();
    expect(first.base).toBe(BACK);
    expect([...first.fragment.keys()]).toEqual(['token', 'expiresAt']);
    const token = first.fragment.get('token')!;
    expect(first.fragment.get('expiresAt')).toBe(String(decodeJwt(token).exp));
    const me = await t.api.as(token).get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: expect.stringMatching(/^users:/),
      email,
      name: 'Ada Lovelace',
      role: 'buyer',
      emailVerified: true,
      createdAt: expect.any(Number),
      seller: null,
    });

    const second = await login();
    expect(second.base).toBe(BACK);
    expect((await t.api.as(second.fragment.get('token')!).get('/me')).body.id).toBe(me.body.id);
    const rows = await usersWithEmail(email);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.passwordHash).toBeNull();
    expect(await identitiesOf(sub)).toMatchObject([{ provider: 'google', userId: me.body.id }]);
  });

  it('signs an existing password account in as itself when the provider vouches for its email', async () => {
    const b = await buyer(t.api);
    claims = identity({ email: b.email.toUpperCase() });
    const { fragment } = await login();
    const me = await t.api.as(fragment.get('token')!).get('/me');
    expect(me.body).toMatchObject({ id: b.id, email: b.email, name: 'Test buyer', emailVerified: true });
    expect(await usersWithEmail(b.email)).toHaveLength(1);
    expect(await identitiesOf(claims.sub as string)).toMatchObject([{ userId: b.id }]);
    // Its email was never verified: whoever set that password may not own the email. The
    // password and the tokens issued before are revoked.
    const oldPassword = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect(oldPassword.status).toBe(401);
    expect((await t.api.as(b).get('/me')).status).toBe(401);
  });

  it('refuses an unknown or missing state with 400, and consumes a state only once', async () => {
    const unknown = await t.api.get('/auth/google/callback?code=abc&state=forged-state');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: 'Unknown or expired login state; start the login again',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'state', message: 'unknown or expired' }],
    });
    const missing = await t.api.get('/auth/google/callback?code=abc');
    expect(missing).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', statusCode: 400 } });
    expect(missing.body.details).toEqual([{ field: 'state', message: 'required' }]);

    const { callback, fragment } = await login();
    expect(fragment.has('token')).toBe(true);
    const replay = await t.api.get(callback);
    expect(replay).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', statusCode: 400 } });
    expect(replay.body.details).toEqual([{ field: 'state', message: 'unknown or expired' }]);
  });

  it('refuses a state that expired (10 minutes) with 400', async () => {
    const callback = await authorize(await start());
    t.clock.advance(10 * 60 + 1);
    try {
      expect((await t.api.get(callback)).status).toBe(400);
    } finally {
      t.clock.advance(-(10 * 60 + 1));
    }
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
  });

  it('sends #error=email_not_verified back for an unverified email and creates no user', async () => {
    claims = identity({ email_verified: false });
    const { base, fragment } = await login();
    expect(`${base}#${fragment}`).toBe(`${BACK}#error=email_not_verified`);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
    expect(await identitiesOf(claims.sub as string)).toHaveLength(0);
  });

  it('sends the provider error back (access_denied) and consumes the state', async () => {
    const state = (await start()).searchParams.get('state')!;
    const path = `/auth/google/callback?error=access_denied&state=${encodeURIComponent(state)}`;
    const res = await t.api.get(path);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BACK}#error=access_denied`);
    expect((await t.api.get(path)).status).toBe(400);
  });

  it.each([
    ['another audience', { aud: 'someone-else' }],
    ['another nonce', { nonce: 'not-the-nonce-we-sent' }],
    ['another issuer', { iss: 'https://accounts.example' }],
  ])('sends #error=login_failed back for an ID token with %s and creates no user', async (_, tamper) => {
    claims = identity(tamper);
    const { base, fragment } = await login();
    expect(`${base}#${fragment}`).toBe(`${BACK}#error=login_failed`);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
    expect(await identitiesOf(claims.sub as string)).toHaveLength(0);
  });

  it('sends #error=login_failed back when the code is not exchanged with the matching PKCE verifier', async () => {
    const callback = await authorize(await start());
    // The same state, but another login's code: its challenge does not match this verifier.
    const other = new URL(await authorize(await start()), CALLBACK).searchParams.get('code')!;
    const swapped = callback.replace(/code=[^&]+/, `code=${other}`);
    const res = await t.api.get(swapped);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BACK}#error=login_failed`);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
  });
});
