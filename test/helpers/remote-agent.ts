// A remote agent as a hosted agent platform runs one, for the end-to-end test of /mcp with
// OAuth (test/remote-agent.browser.test.ts): the service listening on a loopback port whose
// origin is its PUBLIC_BASE_URL (the issuer and the /mcp resource must be the URLs the agent
// reaches), the agent's own web server (its redirect URI, and its client ID metadata document),
// an OAuthClientProvider of the official SDK v2 that keeps what it is given in memory and
// sends the person to the authorization pages in headless Chromium, and a fetch that records
// every exchange the SDK makes.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { SignedIn, TestApp } from './app.ts';
import { testApp } from './app.ts';
import type { TestBrowser } from './browser.ts';
import type { TestDatabase } from './db.ts';
import { freePort } from './service.ts';

/**
 * The real app listening on 127.0.0.1 with PUBLIC_BASE_URL equal to its origin: the SDK
 * checks that the authorization server's metadata names the issuer it fetched it from (RFC
 * 8414 section 3.3) and that the protected resource is the server URL it connects to.
 */
export async function listeningApp(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; base: string }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await testApp(database, { env: { PUBLIC_BASE_URL: base, ...env } });
    try {
      await t.app.listen({ port, host: '127.0.0.1' });
      return { t, base };
    } catch (err) {
      await t.close();
      // Another process took the port between the probe and the listen: try another.
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 3) throw err;
    }
  }
}

/**
 * The agent's own web server on 127.0.0.1: `/callback` is its redirect URI (it records where
 * the browser lands), and `/oauth/client.json` serves its client ID metadata document.
 */
export interface AgentHost {
  origin: string;
  redirectUri: string;
  metadataUrl: string;
  /** Every URL the browser landed on at /callback. */
  landed: URL[];
  /** How many times the authorization server fetched the metadata document. */
  documentFetches: number;
  close(): Promise<void>;
}

export async function agentHost(clientName: string): Promise<AgentHost> {
  let server: Server | undefined;
  const host: AgentHost = {
    origin: '',
    redirectUri: '',
    metadataUrl: '',
    landed: [],
    documentFetches: 0,
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', host.origin);
    if (url.pathname === '/callback') {
      host.landed.push(url);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Agent</title><p>Signed in. You can close this tab.</p>');
      return;
    }
    if (url.pathname === '/oauth/client.json') {
      host.documentFetches++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(
        JSON.stringify({
          client_id: host.metadataUrl,
          client_name: clientName,
          redirect_uris: [host.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.redirectUri = `${host.origin}/callback`;
  host.metadataUrl = `${host.origin}/oauth/client.json`;
  return host;
}

/** What the person saw and where the browser landed after pressing Allow. */
export interface Consent {
  /** The authorization URL the SDK built. */
  authorizationUrl: URL;
  /** The text of the consent page's main element. */
  consentText: string;
  /** The redirect URI with the code, state and iss. */
  callback: URL;
}

/**
 * Uses the authorization pages in Chromium as the person does: opens the URL the agent sent
 * them to, signs in with email and password, reads the consent page, presses Allow, and
 * waits until the browser is back at the agent's redirect URI.
 */
export async function signInAndAllow(
  browser: TestBrowser,
  authorizationUrl: URL,
  who: SignedIn,
  redirectUri: string,
): Promise<Consent> {
  const page = await browser.page();
  const problems: string[] = [];
  page.on('console', (m) => {
    // Chromium asks every origin it visits (Portage, the agent's redirect) for /favicon.ico, at a
    // moment of its own choosing: that 404 says nothing of the pages.
    const at = m.location().url;
    if (m.type() === 'error' && !at.endsWith('/favicon.ico')) problems.push(`${m.text()} (${at})`);
  });
  try {
    await page.goto(authorizationUrl.href);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /to use your account\?/ }).waitFor();
    const consentText = (await page.locator('main').textContent()) ?? '';
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(`${redirectUri}?`));
    if (problems.length) throw new Error(`the pages logged errors: ${problems.join('; ')}`);
    return { authorizationUrl, consentText, callback: new URL(page.url()) };
  } finally {
    await page.close();
  }
}

/**
 * The SDK's OAuthClientProvider for one agent and one MCP server, everything in memory. It
 * registers dynamically when it starts without client information; given `client` (the URL of
 * its metadata document as client_id) it uses that instead. Sending the person to the
 * authorization URL is `authorize`, which answers the callback the browser landed on.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  private client: StoredOAuthClientInformation | undefined;
  private current: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** Every token set the SDK saved, oldest first. */
  readonly savedTokens: StoredOAuthTokens[] = [];
  /** Every authorization the SDK started, with what the person saw. */
  readonly consents: Consent[] = [];
  /** Every credential the SDK threw away, and why. */
  readonly invalidated: string[] = [];
  /** While false, a redirect is recorded but nobody signs in (after a revocation). */
  interactive = true;
  readonly redirected: URL[] = [];

  constructor(
    private readonly o: {
      redirectUri: string;
      clientName: string;
      /** Known client information (the metadata document's URL as client_id), stamped with its issuer. */
      client?: StoredOAuthClientInformation;
      authorize: (url: URL) => Promise<Consent>;
    },
  ) {
    this.client = o.client;
  }

  /** The state of each authorization started (the SDK leaves checking it to the host). */
  readonly states: string[] = [];
  state() {
    const value = randomBytes(16).toString('base64url');
    this.states.push(value);
    return value;
  }

  get redirectUrl() {
    return this.o.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.o.clientName,
      redirect_uris: [this.o.redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
  async redirectToAuthorization(url: URL) {
    this.redirected.push(url);
    if (this.interactive) this.consents.push(await this.o.authorize(url));
  }

  /** The client_id the SDK used (registered, or the metadata document's URL). */
  get clientId(): string | undefined {
    return this.client?.client_id;
  }
  /** The last consent's callback. */
  get lastCallback(): URL {
    const last = this.consents.at(-1);
    if (!last) throw new Error('no authorization completed');
    return last.callback;
  }
}

/** One HTTP exchange the SDK made. */
export interface Exchange {
  method: string;
  url: URL;
  status: number;
  wwwAuthenticate: string | null;
  /** The request's Authorization header, if any. */
  authorization: string | null;
  /** The form the SDK posted to /oauth/*, if any. */
  form?: URLSearchParams;
  /** The RFC 6749 error answer of /oauth/*, if any. */
  oauthError?: { error: string; error_description?: string };
}

/** A fetch for the SDK that records each request and its answer in `log`. */
export function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === 'POST' ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const url = new URL(request.url);
    const oauthError =
      url.pathname.startsWith('/oauth/') && response.status >= 400
        ? await response
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    log.push({
      oauthError,
      method: request.method,
      url,
      status: response.status,
      wwwAuthenticate: response.headers.get('www-authenticate'),
      authorization: request.headers.get('authorization'),
      form:
        body !== undefined && url.pathname.startsWith('/oauth/') && !url.pathname.endsWith('/register')
          ? new URLSearchParams(body)
          : undefined,
    });
    return response;
  };
}
