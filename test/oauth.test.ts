// Portage as the OAuth 2.1 authorization server for its own users
// (docs/api.md "OAuth authorization server"):
// metadata, the authorization pages, PKCE, redirect URIs, codes, rotating refresh tokens,
// registration, revocation and the person's list of agents, over the real app and database.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, testApp, useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError } from './helpers/builders.ts';
import {
  agentTokens,
  authorize,
  authorizeUrl,
  cookieOf,
  csrfOf,
  exchange,
  FORM,
  form,
  pkce,
  REDIRECT,
  refresh,
  registerClient,
  signInToConsent,
} from './helpers/oauth.ts';

const { t, database } = useTestApp();
let shopper: SignedIn;

beforeAll(async () => {
  shopper = await buyer(t.api);
});

const bearer = (token: string) => t.api.as(token);

describe('metadata', () => {
  it('publishes the authorization server (RFC 8414) and the protected resource (RFC 9728)', async () => {
    const as = await t.api.get('/.well-known/oauth-authorization-server');
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: 'http://portage.test',
      authorization_endpoint: 'http://portage.test/oauth/authorize',
      token_endpoint: 'http://portage.test/oauth/token',
      registration_endpoint: 'http://portage.test/oauth/register',
      revocation_endpoint: 'http://portage.test/oauth/revoke',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [
        'shop',
        'orders',
        'analytics',
        'dev.ucp.shopping.checkout:manage',
        'dev.ucp.shopping.order:read',
        'dev.ucp.shopping.order:manage',
      ],
      client_id_metadata_document_supported: true,
    });
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const pr = await t.api.get(path);
      expect(pr.body).toMatchObject({
        resource: 'http://portage.test/mcp',
        authorization_servers: ['http://portage.test'],
        scopes_supported: ['shop', 'orders', 'analytics'],
        bearer_methods_supported: ['header'],
      });
    }
  });
});

describe('the authorization code flow', () => {
  it('issues an agent token that calls the API within its scopes, and rotates its refresh token', async () => {
    const tokens = await agentTokens(t.api, shopper, ['shop']);
    expect(tokens.scope).toBe('shop');
    expect((await bearer(tokens.access_token).get('/cart')).status).toBe(200);
    // A shop-only token calling what list_orders calls: 403 naming the scope.
    expectError(await bearer(tokens.access_token).get('/orders'), 'AUTHZ_ERROR', 403, /"orders" scope/);

    const renewed = await refresh(t.api, { clientId: tokens.clientId, refreshToken: tokens.refresh_token });
    expect(renewed.status).toBe(200);
    expect(renewed.headers['cache-control']).toBe('no-store');
    expect(renewed.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'shop' });
    expect(renewed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await bearer(renewed.body.access_token).get('/cart')).status).toBe(200);
  });

  it('refuses a missing challenge, plain, and a wrong or missing verifier', async () => {
    const { clientId } = await registerClient(t.api);
    // Refused on a page, never redirected: anyone may register a redirect URI (no open redirector).
    const missing = await t.api.get(authorizeUrl({ clientId }));
    expect(missing.status).toBe(400);
    expect(missing.headers.location).toBeUndefined();
    expect(missing.body).toMatch(/invalid_request: code_challenge is required/);

    const plain = await t.api.get(authorizeUrl({ clientId, challenge: 'x'.repeat(43), method: 'plain' }));
    expect(plain.status).toBe(400);
    expect(plain.headers.location).toBeUndefined();
    expect(plain.body).toMatch(/invalid_request: code_challenge_method must be &#34;S256&#34;/);

    const { verifier, challenge } = pkce();
    const { code } = await authorize(t.api, shopper, { clientId, challenge });
    const wrong = await exchange(t.api, { clientId, code, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/code_verifier/),
    });
    const none = await t.api.post(
      '/oauth/token',
      form({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT }),
      FORM,
    );
    expect(none.body).toMatchObject({ error: 'invalid_request' });
    expect((await exchange(t.api, { clientId, code, verifier })).status).toBe(200);
  });

  it("renews the pending authorization at sign-in: a planted cookie cannot answer the victim's consent", async () => {
    const { clientId } = await registerClient(t.api);
    const { challenge } = pkce();
    // The attacker opens an authorization and keeps its cookie and CSRF token...
    const opened = await t.api.get(authorizeUrl({ clientId, challenge, method: 'S256' }));
    const planted = cookieOf(opened);
    const plantedCsrf = csrfOf(opened.body)!;
    // ...which the victim's browser carries when the victim signs in.
    const signIn = await t.api.post(
      '/oauth/sign-in',
      form({ csrf: plantedCsrf, email: shopper.email, password: shopper.password }),
      { ...FORM, cookie: planted },
    );
    expect(signIn.status).toBe(303);
    const renewed = cookieOf(signIn);
    expect(renewed).not.toBe(planted);
    const attacker = await t.api.post('/oauth/consent', form({ csrf: plantedCsrf, decision: 'allow' }), {
      ...FORM,
      cookie: planted,
    });
    expect(attacker.status).toBe(403);
    expect(attacker.headers.location).toBeUndefined();
    const consent = await t.api.get('/oauth/consent', { cookie: renewed });
    expect(csrfOf(consent.body)).not.toBe(plantedCsrf);
    const victim = await t.api.post(
      '/oauth/consent',
      form({ csrf: csrfOf(consent.body)!, decision: 'allow' }),
      {
        ...FORM,
        cookie: renewed,
      },
    );
    expect(victim.status).toBe(303);
    expect(new URL(String(victim.headers.location)).searchParams.get('code')).toBeTruthy();
  });

  it('refuses a redirect URI that is not exactly a registered one, on a page, without redirecting', async () => {
    const { clientId } = await registerClient(t.api);
    const { challenge } = pkce();
    for (const redirectUri of [
      `${REDIRECT}/`,
      `${REDIRECT}?x=1`,
      'http://127.0.0.1:8124/callback',
      'https://evil.example/cb',
    ]) {
      const res = await t.api.get(authorizeUrl({ clientId, challenge, method: 'S256', redirectUri }));
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toMatch(/did not register/);
    }
    const unknown = await t.api.get(authorizeUrl({ clientId: 'client_nobody', challenge, method: 'S256' }));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.location).toBeUndefined();
  });

  it('refuses another resource, and unknown scopes', async () => {
    const { clientId } = await registerClient(t.api);
    const { challenge } = pkce();
    const other = await t.api.get(
      authorizeUrl({ clientId, challenge, method: 'S256', resource: 'https://elsewhere.example/mcp' }),
    );
    expect([other.status, other.headers.location]).toEqual([400, undefined]);
    expect(other.body).toMatch(/invalid_target/);
    const scope = await t.api.get(authorizeUrl({ clientId, challenge, method: 'S256', scope: 'shop admin' }));
    expect([scope.status, scope.headers.location]).toEqual([400, undefined]);
    expect(scope.body).toMatch(/invalid_scope/);
    const noType = await t.api.get(
      authorizeUrl({ clientId, challenge, method: 'S256' }).replace(
        'response_type=code',
        'response_type=token',
      ),
    );
    expect([noType.status, noType.headers.location]).toEqual([400, undefined]);
  });

  it('drops analytics for a buyer and grants it to an admin', async () => {
    const mine = await agentTokens(t.api, shopper, ['shop', 'analytics']);
    expect(mine.scope).toBe('shop');
    const boss = await admin(t.api, database);
    const theirs = await agentTokens(t.api, boss, ['analytics']);
    expect(theirs.scope).toBe('analytics');
    expect((await bearer(theirs.access_token).get('/admin/analytics?period=day')).status).toBe(200);
  });

  it('Deny goes back to the agent with access_denied', async () => {
    const { clientId } = await registerClient(t.api);
    const { cookie, consent } = await signInToConsent(
      t.api,
      authorizeUrl({ clientId, challenge: pkce().challenge, method: 'S256' }),
      shopper,
    );
    const denied = await t.api.post(
      '/oauth/consent',
      form({ csrf: csrfOf(consent.body)!, decision: 'deny' }),
      {
        ...FORM,
        cookie,
      },
    );
    expect(denied.status).toBe(303);
    const back = new URL(String(denied.headers.location));
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe('http://portage.test');
  });
});

describe('reuse', () => {
  it('a code used twice is refused, and what it issued is revoked', async () => {
    const { clientId } = await registerClient(t.api);
    const { verifier, challenge } = pkce();
    const { code } = await authorize(t.api, shopper, { clientId, challenge });
    const first = await exchange(t.api, { clientId, code, verifier });
    expect(first.status).toBe(200);
    expect((await bearer(first.body.access_token).get('/cart')).status).toBe(200);

    const again = await exchange(t.api, { clientId, code, verifier });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expectError(await bearer(first.body.access_token).get('/cart'), 'AUTH_ERROR', 401);
    const dead = await refresh(t.api, { clientId, refreshToken: first.body.refresh_token });
    expect(dead.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('a refresh token used twice revokes the family: old and new refresh tokens, and the access tokens', async () => {
    const tokens = await agentTokens(t.api, shopper);
    const rotated = await refresh(t.api, { clientId: tokens.clientId, refreshToken: tokens.refresh_token });
    expect(rotated.status).toBe(200);
    const replay = await refresh(t.api, { clientId: tokens.clientId, refreshToken: tokens.refresh_token });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant' });
    const next = await refresh(t.api, {
      clientId: tokens.clientId,
      refreshToken: rotated.body.refresh_token,
    });
    expect(next.body).toMatchObject({ error: 'invalid_grant' });
    expectError(await bearer(tokens.access_token).get('/cart'), 'AUTH_ERROR', 401);
    expectError(await bearer(rotated.body.access_token).get('/cart'), 'AUTH_ERROR', 401);
  });
});

describe('the token endpoint', () => {
  it('answers RFC 6749 errors', async () => {
    const unsupported = await t.api.post('/oauth/token', form({ grant_type: 'password' }), FORM);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toMatchObject({ error: 'unsupported_grant_type' });
    const unknown = await t.api.post(
      '/oauth/token',
      form({
        grant_type: 'authorization_code',
        code: 'x',
        client_id: 'client_nobody',
        redirect_uri: REDIRECT,
        code_verifier: 'v'.repeat(43),
      }),
      FORM,
    );
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'invalid_client' });
    const expired = await (async () => {
      const { clientId } = await registerClient(t.api);
      const { verifier, challenge } = pkce();
      const { code } = await authorize(t.api, shopper, { clientId, challenge });
      t.clock.advance(121);
      try {
        return await exchange(t.api, { clientId, code, verifier });
      } finally {
        t.clock.advance(-121);
      }
    })();
    expect(expired.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/expired/),
    });
  });
});

describe('cleanup', () => {
  it('removes expired pending authorizations and codes a day after they expired', async () => {
    const { clientId } = await registerClient(t.api);
    const { verifier, challenge } = pkce();
    const { code } = await authorize(t.api, shopper, { clientId, challenge });
    await t.api.get(authorizeUrl({ clientId, challenge, method: 'S256' }));
    t.clock.advance(2 * 86_400);
    try {
      const done = await t.app.jobs.runOnce();
      expect(done['oauth-cleanup']).toBeGreaterThan(0);
      const res = await exchange(t.api, { clientId, code, verifier });
      expect(res.body).toMatchObject({
        error: 'invalid_grant',
        error_description: 'Unknown authorization code',
      });
    } finally {
      t.clock.advance(-2 * 86_400);
    }
  });

  it('removes a registered client no one authorised within 30 days, and keeps one that was', async () => {
    const unused = await registerClient(t.api);
    const used = await registerClient(t.api);
    const { verifier, challenge } = pkce();
    const { code } = await authorize(t.api, shopper, { clientId: used.clientId, challenge });
    expect((await exchange(t.api, { clientId: used.clientId, code, verifier })).status).toBe(200);
    t.clock.advance(31 * 86_400);
    try {
      await t.app.jobs.runOnce();
      const gone = await t.api.get(authorizeUrl({ clientId: unused.clientId, challenge, method: 'S256' }));
      expect(gone.status).toBe(400);
      expect(gone.body).toMatch(/not registered/);
      const kept = await t.api.get(authorizeUrl({ clientId: used.clientId, challenge, method: 'S256' }));
      expect(kept.status).toBe(200);
    } finally {
      t.clock.advance(-31 * 86_400);
    }
  });
});

describe('registration', () => {
  it('registers public clients with https or loopback redirect URIs only', async () => {
    const ok = await registerClient(t.api, {
      redirect_uris: ['https://agent.example/cb', 'http://[::1]:9000/cb'],
    });
    expect(ok.body).toMatchObject({ token_endpoint_auth_method: 'none', client_name: 'Shopping Helper' });
    for (const [metadata, error] of [
      [{ redirect_uris: ['http://agent.example/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://agent.example/cb#x'] }, 'invalid_redirect_uri'],
      [
        { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
        'invalid_client_metadata',
      ],
      [{ redirect_uris: [REDIRECT], client_name: 'x'.repeat(101) }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], logo_uri: 'http://agent.example/logo.png' }, 'invalid_client_metadata'],
      [
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
        'invalid_redirect_uri',
      ],
    ] as const) {
      const res = await t.api.post('/oauth/register', metadata);
      expect(res.status, JSON.stringify(metadata)).toBe(400);
      expect(res.body).toMatchObject({ error });
    }
    const notJson = await t.api.post('/oauth/register', 'x', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toHaveProperty('error');
  });
});

describe('rate limits', () => {
  it('registration: 10 a minute per address; the sign-in page: the auth group, answered as a page', async () => {
    const limited = await testApp(database, { env: { RATE_LIMITS: 'on' } });
    try {
      const api = limited.api.from('203.0.113.77');
      for (let i = 0; i < 10; i++) expect((await registerClient(api)).clientId).toBeTruthy();
      const over = await api.post('/oauth/register', { redirect_uris: [REDIRECT] });
      expect(over.status).toBe(429);
      expect(over.headers['retry-after']).toBeDefined();

      const other = limited.api.from('203.0.113.78');
      let last = await other.post('/oauth/sign-in', form({ csrf: 'x' }), FORM);
      for (let i = 0; i < 5; i++) last = await other.post('/oauth/sign-in', form({ csrf: 'x' }), FORM);
      expect(last.status).toBe(429);
      expect(last.headers['content-type']).toMatch(/text\/html/);
      expect(last.body).toMatch(/Too many/);
    } finally {
      await limited.close();
    }
  });
});

describe('the pages', () => {
  it('escape the agent name and logo URL, and carry CSRF tokens the forms need', async () => {
    const hostileLogo = 'https://evil.example/logo.png?"><script>alert(2)</script>';
    const { clientId } = await registerClient(t.api, {
      client_name: '<script>alert(1)</script>',
      logo_uri: hostileLogo,
    });
    const url = authorizeUrl({ clientId, challenge: pkce().challenge, method: 'S256' });
    const opened = await t.api.get(url);
    expect(opened.body).not.toContain('<script>');
    expect(opened.body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(opened.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(opened.headers['content-security-policy']).not.toMatch(/script-src/);
    const cookie = cookieOf(opened);
    expect(String(opened.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);

    // The sign-in form without, or with a wrong, CSRF token.
    for (const csrf of [undefined, 'wrong']) {
      const res = await t.api.post(
        '/oauth/sign-in',
        form({ ...(csrf ? { csrf } : {}), email: shopper.email, password: shopper.password }),
        { ...FORM, cookie },
      );
      expect(res.status).toBe(403);
    }
    const { cookie: c2, consent } = await signInToConsent(t.api, url, shopper);
    expect(consent.status).toBe(200);
    expect(consent.body).not.toContain('<script>');
    expect(consent.body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(consent.body).toContain(
      `src="https://evil.example/logo.png?&#34;&#62;&#60;script&#62;alert(2)&#60;/script&#62;"`,
    );
    expect(consent.body).toMatch(/shop.*search products/s);
    expect(consent.headers['content-security-policy']).toMatch(
      /form-action 'self' http:\/\/127\.0\.0\.1:8123/,
    );
    for (const csrf of [undefined, 'wrong', csrfOf(opened.body)]) {
      const res = await t.api.post('/oauth/consent', form({ ...(csrf ? { csrf } : {}), decision: 'allow' }), {
        ...FORM,
        cookie: c2,
      });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
    }
    // The right token without the cookie (another browser) is refused too.
    const noCookie = await t.api.post(
      '/oauth/consent',
      form({ csrf: csrfOf(consent.body)!, decision: 'allow' }),
      FORM,
    );
    expect(noCookie.status).toBe(403);
  });

  it('a wrong password shows the sign-in page again', async () => {
    const { clientId } = await registerClient(t.api);
    const opened = await t.api.get(authorizeUrl({ clientId, challenge: pkce().challenge, method: 'S256' }));
    const res = await t.api.post(
      '/oauth/sign-in',
      form({ csrf: csrfOf(opened.body)!, email: shopper.email, password: 'wrong password!' }),
      { ...FORM, cookie: cookieOf(opened) },
    );
    expect(res.status).toBe(401);
    expect(res.body).toMatch(/Invalid email or password/);
    expect(csrfOf(res.body)).toBe(csrfOf(opened.body));
  });
});

describe('revocation (RFC 7009)', () => {
  it('a refresh token revokes its grant; an access token too; unknown tokens are 200', async () => {
    const a = await agentTokens(t.api, shopper);
    expect((await t.api.post('/oauth/revoke', form({ token: a.refresh_token }), FORM)).status).toBe(200);
    expectError(await bearer(a.access_token).get('/cart'), 'AUTH_ERROR', 401);
    expect((await refresh(t.api, { clientId: a.clientId, refreshToken: a.refresh_token })).status).toBe(400);

    const b = await agentTokens(t.api, shopper);
    expect((await t.api.post('/oauth/revoke', form({ token: b.access_token }), FORM)).status).toBe(200);
    expectError(await bearer(b.access_token).get('/cart'), 'AUTH_ERROR', 401);
    expect((await t.api.post('/oauth/revoke', form({ token: 'nothing' }), FORM)).status).toBe(200);
  });
});

describe('/me/agents', () => {
  it('lists the agents with scopes and last use; DELETE revokes at once', async () => {
    const me = await buyer(t.api);
    const a = await agentTokens(t.api, me, ['shop', 'orders']);
    expect((await bearer(a.access_token).get('/cart')).status).toBe(200);
    const list = await t.api.as(me).get('/me/agents');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      agents: [
        {
          clientId: a.clientId,
          name: 'Shopping Helper',
          scopes: ['shop', 'orders'],
          grantedAt: expect.any(Number),
          lastUsedAt: expect.any(Number),
        },
      ],
    });
    // An agent's token cannot list or revoke agents.
    expectError(await bearer(a.access_token).get('/me/agents'), 'AUTHZ_ERROR', 403);

    expect((await t.api.as(me).delete(`/me/agents/${encodeURIComponent(a.clientId)}`)).status).toBe(204);
    expectError(await bearer(a.access_token).get('/cart'), 'AUTH_ERROR', 401);
    expect(
      (await refresh(t.api, { clientId: a.clientId, refreshToken: a.refresh_token })).body,
    ).toMatchObject({
      error: 'invalid_grant',
    });
    expect((await t.api.as(me).get('/me/agents')).body).toEqual({ agents: [] });
    expectError(await t.api.as(me).delete(`/me/agents/${a.clientId}`), 'NOT_FOUND', 404);
  });
});

describe('client ID metadata documents', () => {
  let server: Server;
  let docUrl: string;
  let document: Record<string, unknown>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/client.json') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
        res.end(JSON.stringify(document));
      } else if (req.url === '/big.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ pad: 'x'.repeat(70_000) }));
      } else {
        res.writeHead(302, { location: '/client.json' });
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    docUrl = `http://127.0.0.1:${port}/client.json`;
    document = { client_id: docUrl, client_name: 'Document Agent', redirect_uris: [REDIRECT] };
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('authorizes a client named by its document (development: http on loopback)', async () => {
    const { verifier, challenge } = pkce();
    const { cookie, consent } = await signInToConsent(
      t.api,
      authorizeUrl({ clientId: docUrl, challenge, method: 'S256' }),
      shopper,
    );
    expect(consent.body).toContain('Document Agent');
    expect(consent.body).toContain('Described by 127.0.0.1');
    const answered = await t.api.post(
      '/oauth/consent',
      form({ csrf: csrfOf(consent.body)!, decision: 'allow' }),
      {
        ...FORM,
        cookie,
      },
    );
    const code = new URL(String(answered.headers.location)).searchParams.get('code')!;
    const res = await exchange(t.api, { clientId: docUrl, code, verifier });
    expect(res.status).toBe(200);
    expect((await bearer(res.body.access_token).get('/cart')).status).toBe(200);
  });

  it('refuses a document whose client_id differs, one too large, and a redirect', async () => {
    const base = docUrl.replace('/client.json', '');
    for (const url of [`${base}/big.json`, `${base}/moved.json`]) {
      const res = await t.api.get(
        authorizeUrl({ clientId: url, challenge: pkce().challenge, method: 'S256' }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('refuses a document at a private address outside development', async () => {
    const staging = await testApp(database, {
      env: { APP_ENV: 'staging', PAYMENT_WEBHOOK_SECRET: 'whsec_staging_test_secret' },
    });
    try {
      for (const clientId of [
        docUrl.replace('http:', 'https:'),
        'https://10.1.2.3/client.json',
        'https://localhost/client.json',
        'https://[::1]/c.json',
        'https://[::ffff:7f00:1]/c.json', // 127.0.0.1, IPv4-mapped
        'https://[::7f00:1]/c.json', // 127.0.0.1, IPv4-compatible
        'https://[64:ff9b::a01:203]/c.json', // 10.1.2.3 through NAT64
        'https://[2002:a01:203::1]/c.json', // 10.1.2.3 through 6to4
        'https://[fec0::1]/c.json', // site-local
        'https://[::ffff:0:7f00:1]/c.json', // 127.0.0.1, IPv4-translated (SIIT)
        'https://[::ffff:0:a01:203]/c.json', // 10.1.2.3, IPv4-translated
        'https://[64:ff9b:1::a01:203]/c.json', // local-use NAT64
        'https://[2001::1]/c.json', // Teredo
        'https://[100::1]/c.json', // discard
        'https://[::]/c.json', // unspecified
        'https://[ff02::1]/c.json', // multicast
        'https://100.64.0.1/c.json', // carrier-grade NAT
        'https://169.254.169.254/c.json', // link-local: cloud metadata
        'https://0.0.0.0/c.json',
        'https://[fd00:ec2::254]/c.json', // unique-local: cloud metadata over IPv6
      ]) {
        const res = await staging.api.get(
          authorizeUrl({ clientId, challenge: pkce().challenge, method: 'S256' }),
        );
        expect(res.status, clientId).toBe(400);
        expect(res.body).toMatch(/private address/);
      }
      // Plain http is no metadata document outside development.
      const http = await staging.api.get(
        authorizeUrl({ clientId: docUrl, challenge: pkce().challenge, method: 'S256' }),
      );
      expect(http.status).toBe(400);
      expect(http.body).toMatch(/not registered/);
    } finally {
      await staging.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'two instances on one PostgreSQL (PostgreSQL only: the embedded database belongs to one process)',
  () => {
    it('a code issued by one is exchanged on the other; its tokens work and rotate on either', async () => {
      const b = await testApp(database);
      try {
        const { clientId } = await registerClient(t.api);
        const { verifier, challenge } = pkce();
        const { code } = await authorize(t.api, shopper, { clientId, challenge });
        const issued = await exchange(b.api, { clientId, code, verifier });
        expect(issued.status).toBe(200);
        expect((await t.api.as(issued.body.access_token).get('/cart')).status).toBe(200);
        expect((await b.api.as(issued.body.access_token).get('/cart')).status).toBe(200);
        const rotated = await refresh(t.api, { clientId, refreshToken: issued.body.refresh_token });
        expect(rotated.status).toBe(200);
        // The replay reaches the other instance: the family is revoked there for both.
        expect((await refresh(b.api, { clientId, refreshToken: issued.body.refresh_token })).status).toBe(
          400,
        );
        expectError(await t.api.as(rotated.body.access_token).get('/cart'), 'AUTH_ERROR', 401);
        expectError(await b.api.as(rotated.body.access_token).get('/cart'), 'AUTH_ERROR', 401);
      } finally {
        await b.close();
      }
    });
  },
);
