// External login (OpenID Connect: authorization code + state + nonce + PKCE), end to end against
// a real local provider: the app builds the URL, the provider redirects back, the app exchanges
// the code over HTTP and verifies the ID token against the provider's keys.
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcLogins, userIdentities, users } from '../src/modules/auth/tables.ts';
import { type Answer, type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, uniqueEmail } from './helpers/builders.ts';

const APP = 'http://app.test';
const BACK = `${APP}/signed-in?next=%2Fcart`;
const CALLBACK = 'http://portage.test/auth/google/callback';

let provider: OAuth2Server;
let issuer: string;
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

// The provider starts first: the app's settings name its URL.
beforeAll(async () => {
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  issuer = provider.issuer.url!;
  provider.service.on('beforeTokenSigning', (token) => Object.assign(token.payload, claims));
});
afterAll(async () => {
  await provider?.stop();
});
const { t, database } = useTestApp(() => ({ env: oidcEnv() }));

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

/** A browser's start of a login: the provider's authorization URL and the cookie it was given. */
interface Started {
  url: URL;
  /** `name=value`, as the browser sends it back to the callback. */
  cookie: string;
  setCookie: string;
}

/** GET /auth/google/start in a browser. */
async function start(redirectUri = BACK, app: TestApp = t): Promise<Started> {
  const res = await app.api.get(startPath(redirectUri));
  expect(res.status).toBe(302);
  const setCookie = String(res.headers['set-cookie']);
  return { url: new URL(String(res.headers.location)), cookie: setCookie.split(';')[0]!, setCookie };
}

/** The browser at the provider: it redirects to our callback; answers that path and query. */
async function authorize(started: Started): Promise<string> {
  const res = await fetch(started.url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return `${back.pathname}${back.search}`;
}

/** The provider sends a browser holding `cookie` (or none) to the callback path. */
const callbackIn = (cookie: string | undefined, path: string) => t.api.get(path, cookie ? { cookie } : {});

/** A whole login; answers where the app sent the browser back, split at the fragment. */
async function login(redirectUri = BACK) {
  const started = await start(redirectUri);
  const callback = await authorize(started);
  const res = await callbackIn(started.cookie, callback);
  expect(res.status).toBe(302);
  const location = String(res.headers.location);
  const [base, fragment = ''] = location.split('#');
  return { callback, cookie: started.cookie, base, fragment: new URLSearchParams(fragment) };
}

const usersWithEmail = (email: string) => database.db.select().from(users).where(eq(users.email, email));
const identitiesOf = (sub: string) =>
  database.db.select().from(userIdentities).where(eq(userIdentities.subject, sub));

describe('GET /auth/google/start', () => {
  it('redirects to the provider with code flow, state, nonce and S256 PKCE; keeps the state hashed', async () => {
    const { url } = await start();
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
    expectInvalid(await t.api.get('/auth/google/start'), [{ field: 'redirectUri', message: 'is required' }]);
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
      const message = 'External login is not configured on this deployment';
      expectError(await bare.api.get(startPath(BACK)), 'NOT_FOUND', 404, message);
      expectError(await bare.api.get('/auth/google/callback?state=x&code=y'), 'NOT_FOUND', 404, message);
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
      locale: null,
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
    expectInvalid(await t.api.get('/auth/google/callback?code=abc'), [
      { field: 'state', message: 'required' },
    ]);

    const { callback, cookie, fragment } = await login();
    expect(fragment.has('token')).toBe(true);
    expectInvalid(await callbackIn(cookie, callback), [{ field: 'state', message: 'unknown or expired' }]);
  });

  it('refuses a state that expired (10 minutes) with 400', async () => {
    const started = await start();
    const callback = await authorize(started);
    t.clock.advance(10 * 60 + 1);
    try {
      expect((await callbackIn(started.cookie, callback)).status).toBe(400);
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
    const started = await start();
    const state = started.url.searchParams.get('state')!;
    const path = `/auth/google/callback?error=access_denied&state=${encodeURIComponent(state)}`;
    const res = await callbackIn(started.cookie, path);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BACK}#error=access_denied`);
    expect((await callbackIn(started.cookie, path)).status).toBe(400);
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
    const started = await start();
    const callback = await authorize(started);
    // The same state, but another login's code: its challenge does not match this verifier.
    const other = new URL(await authorize(await start()), CALLBACK).searchParams.get('code')!;
    const swapped = callback.replace(/code=[^&]+/, `code=${other}`);
    const res = await callbackIn(started.cookie, swapped);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${BACK}#error=login_failed`);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
  });
});

describe('login CSRF: the state belongs to the browser that started the login', () => {
  /** The refusal of a callback that does not come with the cookie of its own start. */
  const expectNotThisBrowser = (res: Answer) =>
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: {
        error: 'This login was started in another browser; start the login again',
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'state', message: 'not started in this browser' }],
      },
    });
  const cookieName = (started: Started) => started.cookie.split('=')[0]!;

  it('start sets a short-lived HttpOnly SameSite=Lax cookie for the callback path only', async () => {
    const started = await start();
    const state = started.url.searchParams.get('state')!;
    const [pair, ...attributes] = started.setCookie.split(';').map((a) => a.trim());
    expect(pair).toMatch(/^[A-Za-z_]+=[A-Za-z0-9_-]{40,}$/);
    // The cookie binds the state without carrying it.
    expect(pair).not.toContain(state);
    expect(attributes.sort()).toEqual([
      'HttpOnly',
      'Max-Age=600',
      'Path=/auth/google/callback',
      'SameSite=Lax',
    ]);
  });

  it('the cookie is Secure when PUBLIC_BASE_URL is https, with the path of the public callback', async () => {
    const https = await testApp(database, {
      env: { ...oidcEnv(), PUBLIC_BASE_URL: 'https://shop.example/api' },
    });
    try {
      const { setCookie, url } = await start(BACK, https);
      expect(url.searchParams.get('redirect_uri')).toBe('https://shop.example/api/auth/google/callback');
      expect(setCookie.split(';').map((a) => a.trim())).toEqual(
        expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/api/auth/google/callback']),
      );
    } finally {
      await https.close();
    }
  });

  it("refuses the attacker's callback URL in a victim browser without the cookie; nobody is signed in", async () => {
    // The attacker starts a login in their own browser and stops at the provider's redirect.
    const attacker = await start();
    const callback = await authorize(attacker);
    // The victim's browser is made to open that callback URL.
    const res = await callbackIn(undefined, callback);
    expectNotThisBrowser(res);
    expect(res.headers.location).toBeUndefined();
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
    expect(await identitiesOf(claims.sub as string)).toHaveLength(0);
    // The state is spent: not even the browser that started it can finish now.
    expectInvalid(await callbackIn(attacker.cookie, callback), [
      { field: 'state', message: 'unknown or expired' },
    ]);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
  });

  it("refuses a cookie of another login (the victim's own), and a forged one", async () => {
    const attacker = await start();
    const callback = await authorize(attacker);
    const victim = await start();
    const res = await callbackIn(victim.cookie, callback);
    expectNotThisBrowser(res);
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);

    const again = await start();
    const forged = `${cookieName(again)}=${'A'.repeat(again.cookie.length - cookieName(again).length - 1)}`;
    expectNotThisBrowser(await callbackIn(forged, await authorize(again)));
    expect(await usersWithEmail(claims.email as string)).toHaveLength(0);
  });

  it('signs in with the cookie of the same browser, among other cookies, and clears it', async () => {
    const started = await start();
    const callback = await authorize(started);
    const res = await callbackIn(`theme=dark; ${started.cookie}; other=1`, callback);
    expect(res.status).toBe(302);
    expect(String(res.headers.location)).toMatch(new RegExp(`^${BACK.replace(/[?]/g, '\\?')}#token=`));
    expect(await usersWithEmail(claims.email as string)).toHaveLength(1);
    expect(String(res.headers['set-cookie'])).toBe(
      `${cookieName(started)}=; Max-Age=0; Path=/auth/google/callback; HttpOnly; SameSite=Lax`,
    );
  });

  it('clears the cookie when it refuses the callback too', async () => {
    const started = await start();
    const res = await callbackIn(started.cookie, '/auth/google/callback?code=abc&state=forged-state');
    expect(res.status).toBe(400);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`^${cookieName(started)}=; Max-Age=0;`));
  });
});
