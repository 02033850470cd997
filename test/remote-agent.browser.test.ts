// A remote agent end to end, as a hosted agent platform meets Portage (issue 10's first test):
// the official MCP SDK v2 client and its OAuth client support against the real service on a
// loopback port. The agent connects to /mcp with no token; the 401's challenge leads the SDK
// to the protected resource metadata and the authorization server's metadata; it registers
// (dynamically, or by its client ID metadata document served from its own web server); the
// person signs in and allows on the pages in headless Chromium; the SDK exchanges the code,
// shops and checks out through the tools, refreshes its token when it expires, and meets 401
// once the person takes the access back (docs/api.md "Remote agents").
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  validateClientMetadataUrl,
} from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import type { SignedIn, TestApp } from './helpers/app.ts';
import { browserUnavailable, launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { ON_ADDRESS } from './helpers/checkout.ts';
import { useTestDatabase } from './helpers/db.ts';
import { type Era, toolOk } from './helpers/mcp.ts';
import {
  type AgentHost,
  agentHost,
  type Exchange,
  listeningApp,
  recordingFetch,
  signInAndAllow,
  TestOAuthProvider,
} from './helpers/remote-agent.ts';

const unavailable = browserUnavailable();
/** The name the agent registers under, and the one its metadata document gives. */
const NAME = 'Aisle Assistant';
const DOCUMENT_NAME = 'Trailhead Concierge';

describe.skipIf(unavailable !== undefined)('a remote agent at /mcp through the SDK’s OAuth client', () => {
  const database = useTestDatabase();
  let t: TestApp;
  let base: string;
  let browser: TestBrowser;
  let host: AgentHost;
  const word = uniqueWord();
  let productId: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ t, base } = await listeningApp(database));
    browser = await launchBrowser();
    host = await agentHost(DOCUMENT_NAME);
    const shop = await seller(t.api);
    productId = (
      await product(t.api, shop, { title: `Birch ${word} canoe`, priceCents: 129_900, stockQuantity: 3 })
    ).id;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await browser?.close();
    await host?.close();
    await t?.close();
  });

  /** A client and transport at {base}/mcp with `provider`, every exchange recorded in `log`. */
  function agentClient(provider: TestOAuthProvider, log: Exchange[], era: Era) {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      authProvider: provider,
      fetch: recordingFetch(log),
    });
    const client = new Client(
      { name: 'aisle-assistant', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    clients.push(client);
    return { client, transport };
  }

  // biome-ignore lint/suspicious/noExplicitAny: tool outputs are asserted by the tests
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> =>
    toolOk((await client.callTool({ name, arguments: args })) as never);

  const path = (e: Exchange) => `${e.method} ${e.url.pathname}`;

  /** The person's own API token, signed in now (the test clock moves). */
  async function ownToken(who: SignedIn): Promise<string> {
    const res = await t.api.post('/auth/login', { email: who.email, password: who.password });
    expect(res.status).toBe(200);
    return res.body.token;
  }

  /**
   * Discovery from the 401, registration, the pages in Chromium, the code exchanged: answers
   * a connected client. `clientId` is the metadata document's URL, or undefined to register.
   */
  async function signIn(who: SignedIn, era: Era, clientId?: string) {
    const log: Exchange[] = [];
    const provider = new TestOAuthProvider({
      redirectUri: host.redirectUri,
      clientName: NAME,
      client: clientId === undefined ? undefined : { client_id: clientId, issuer: base },
      authorize: (url) => signInAndAllow(browser, url, who, host.redirectUri),
    });

    // 1. No token: /mcp answers 401 and the SDK follows the challenge to the metadata.
    const first = agentClient(provider, log, era);
    const refused = await first.client.connect(first.transport).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused, String(refused)).toBeInstanceOf(UnauthorizedError);
    const challenge = log[0]!;
    expect(path(challenge)).toBe('POST /mcp');
    expect(challenge.status).toBe(401);
    expect(challenge.authorization).toBeNull();
    expect(challenge.wwwAuthenticate).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const discovery = log.slice(1).map((e) => `${path(e)} ${e.status}`);
    expect(discovery.slice(0, 2)).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);

    // 2. Registration: dynamic (RFC 7591) without client information; none with a document's URL.
    if (clientId === undefined) {
      expect(discovery[2]).toBe('POST /oauth/register 201');
      expect(provider.clientId).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    } else {
      expect(discovery).not.toContain('POST /oauth/register 201');
      expect(provider.clientId).toBe(clientId);
      expect(host.documentFetches).toBeGreaterThan(0);
    }

    // 3. The authorization went through the pages: the consent named the agent and the scopes
    // (the SDK asks for every scope the resource lists; a buyer is offered shop and orders).
    expect(provider.consents).toHaveLength(1);
    const [consent] = provider.consents;
    const asked = consent!.authorizationUrl;
    expect(asked.origin + asked.pathname).toBe(`${base}/oauth/authorize`);
    expect(asked.searchParams.get('client_id')).toBe(provider.clientId);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${base}/mcp`);
    expect(asked.searchParams.get('scope')).toBe('shop orders analytics');
    const name = clientId === undefined ? NAME : DOCUMENT_NAME;
    expect(consent!.consentText).toContain(name);
    expect(consent!.consentText).not.toContain(clientId === undefined ? DOCUMENT_NAME : NAME);
    expect(consent!.consentText).toContain(who.email);
    expect(consent!.consentText).toMatch(/shop\s*search products/);
    expect(consent!.consentText).toMatch(/orders\s*see and cancel your orders/);
    expect(consent!.consentText).not.toMatch(/analytics/);
    const back = consent!.callback;
    expect(back.origin + back.pathname).toBe(host.redirectUri);
    expect(back.searchParams.get('iss')).toBe(base);
    expect(back.searchParams.get('state')).toBe(provider.states.at(-1));
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(host.landed.at(-1)?.href).toBe(back.href);

    // The code exchanged at /oauth/token (the SDK checks iss against the issuer first).
    await first.transport.finishAuth(back.searchParams);
    const exchange = log.at(-1)!;
    expect(`${path(exchange)} ${exchange.status}`).toBe('POST /oauth/token 200');
    expect(exchange.form?.get('grant_type')).toBe('authorization_code');
    expect(exchange.form?.get('client_id')).toBe(provider.clientId);
    expect(exchange.form?.get('code_verifier')).toBeTruthy();
    expect(exchange.form?.get('resource')).toBe(`${base}/mcp`);
    expect(provider.savedTokens).toHaveLength(1);
    const tokens = provider.savedTokens[0]!;
    expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'shop orders' });
    expect(tokens.refresh_token).toBeTruthy();

    // Connected with the token.
    const connected = agentClient(provider, log, era);
    await connected.client.connect(connected.transport);
    expect(connected.client.getProtocolEra()).toBe(era);
    return { client: connected.client, provider, log };
  }

  /** 4. The tools: search, fill the cart, check out; one checkout session in the database. */
  async function shop(client: Client, who: SignedIn) {
    const found = await call(client, 'search_products', { query: word });
    expect(found.items.map((p: { id: string }) => p.id)).toEqual([productId]);

    const added = await call(client, 'add_to_cart', { product_id: productId, quantity: 1 });
    const cart = added.cart ?? added;
    expect(cart.items).toEqual([expect.objectContaining({ product_id: productId, quantity: 1 })]);

    const session = await call(client, 'create_checkout', { shipping_address: ON_ADDRESS });
    expect(session).toMatchObject({
      sessionId: expect.any(String),
      sessionUrl: expect.stringMatching(/^https?:\/\//),
      status: 'ready_for_payment',
    });
    const rows = await database.db
      .select({ id: checkoutSessions.id, status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.buyerId, who.id)));
    expect(rows).toEqual([{ id: session.sessionId, status: 'ready_for_payment' }]);
  }

  /** 5. The access token expires; the next call refreshes through /oauth/token and succeeds. */
  async function refreshes(client: Client, provider: TestOAuthProvider, log: Exchange[]) {
    const before = provider.savedTokens.at(-1)!;
    t.clock.advance(t.config.agentTokenTtlSeconds + 1);
    const from = log.length;
    const cart = await call(client, 'get_cart');
    expect(cart.items).toHaveLength(1);
    const steps = log.slice(from);
    expect(steps.map((e) => `${path(e)} ${e.status}`)).toContain('POST /mcp 401');
    const expired = steps.find((e) => e.status === 401)!;
    expect(expired.authorization).toBe(`Bearer ${before.access_token}`);
    expect(expired.wwwAuthenticate).toMatch(/error="invalid_token"/);
    const renewal = steps.find((e) => path(e) === 'POST /oauth/token')!;
    expect(renewal.status).toBe(200);
    expect(renewal.form?.get('grant_type')).toBe('refresh_token');
    expect(renewal.form?.get('refresh_token')).toBe(before.refresh_token);
    const after = provider.savedTokens.at(-1)!;
    expect(provider.savedTokens.length).toBeGreaterThan(1);
    expect(after.access_token).not.toBe(before.access_token);
    // Rotation: a new refresh token with each use.
    expect(after.refresh_token).toBeTruthy();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(steps.at(-1)).toMatchObject({ status: 200, authorization: `Bearer ${after.access_token}` });
  }

  /** 6. After the revocation the next call is 401 and the SDK raises UnauthorizedError. */
  async function refusedAfterRevocation(client: Client, provider: TestOAuthProvider, log: Exchange[]) {
    provider.interactive = false;
    const revoked = provider.savedTokens.at(-1)!;
    const from = log.length;
    // The SDK warns on the console when it drops the refused refresh token: kept, and checked.
    const warnings: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((m) => warnings.push(String(m)));
    const failed = await client
      .callTool({ name: 'get_cart', arguments: {} })
      .then(
        () => undefined,
        (err: unknown) => err,
      )
      .finally(() => warn.mockRestore());
    expect(failed, String(failed)).toBeInstanceOf(UnauthorizedError);
    expect(warnings.join('\n')).toMatch(/invalid_grant/);
    const steps = log.slice(from);
    const denied = steps[0]!;
    expect(`${path(denied)} ${denied.status}`).toBe('POST /mcp 401');
    expect(denied.authorization).toBe(`Bearer ${revoked.access_token}`);
    expect(denied.wwwAuthenticate).toMatch(/error="invalid_token"/);
    // The SDK tried its refresh token, which the revocation ended too, then wanted the person again.
    const retry = steps.find((e) => path(e) === 'POST /oauth/token');
    expect(retry?.status).toBe(400);
    expect(retry?.oauthError).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/revoked/),
    });
    expect(retry?.form?.get('grant_type')).toBe('refresh_token');
    expect(provider.redirected.length).toBe(provider.consents.length + 1);
    expect(steps.filter((e) => path(e) === 'POST /mcp' && e.status === 200)).toEqual([]);
  }

  it('registers dynamically, signs the buyer in, shops, refreshes, and is revoked from /me/agents (2025-11-25)', async () => {
    const shopper = await buyer(t.api);
    const { client, provider, log } = await signIn(shopper, 'legacy');
    await shop(client, shopper);
    await refreshes(client, provider, log);

    const token = await ownToken(shopper);
    const listed = await t.api.as(token).get('/me/agents');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(provider.clientId!);
    const revoked = await t.api.as(token).delete(`/me/agents/${encodeURIComponent(provider.clientId!)}`);
    expect(revoked.status).toBe(204);
    await refusedAfterRevocation(client, provider, log);
    expect(JSON.stringify((await t.api.as(token).get('/me/agents')).body)).not.toContain(provider.clientId!);
  });

  it('uses its client ID metadata document, signs the buyer in, shops, refreshes, and revokes at /oauth/revoke (2026-07-28)', async () => {
    // The SDK's own path for URL client ids takes https only; Portage takes a loopback http URL
    // in development, so the agent knows its client_id (the URL) as its client information.
    expect(() => validateClientMetadataUrl(host.metadataUrl)).toThrow(/HTTPS/);
    const shopper = await buyer(t.api);
    const { client, provider, log } = await signIn(shopper, 'modern', host.metadataUrl);
    await shop(client, shopper);
    await refreshes(client, provider, log);

    // RFC 7009, as the agent's "sign out" does: the refresh token ends the grant and its tokens.
    const current = provider.savedTokens.at(-1)!;
    const res = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: current.refresh_token!,
        token_type_hint: 'refresh_token',
        client_id: host.metadataUrl,
      }),
    });
    expect(res.status).toBe(200);
    await refusedAfterRevocation(client, provider, log);
  });
});
