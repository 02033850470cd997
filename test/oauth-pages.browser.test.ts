// The authorization pages in headless Chromium, used as a person uses them: an agent sends the
// browser to /oauth/authorize; the person signs in, reads what the agent asks for, and allows
// (or denies); the browser lands on the agent's redirect URI (a local server here) with a code
// the agent exchanges for a token that calls the API (docs/api.md "OAuth authorization server").
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { browserUnavailable, launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { buyer } from './helpers/builders.ts';
import { authorizeUrl, exchange, pkce, registerClient } from './helpers/oauth.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the authorization pages in Chromium', () => {
  const { t } = useTestApp();
  let base: string;
  let browser: TestBrowser;
  let agent: Server;
  let redirectUri: string;
  let shopper: SignedIn;
  const landed: string[] = [];

  beforeAll(async () => {
    base = await listen(t);
    browser = await launchBrowser();
    // The agent's redirect URI: a local server that records where the browser lands.
    agent = createServer((req, res) => {
      landed.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Agent</title><p>You can close this tab.</p>');
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(agent.address() as { port: number }).port}/callback`;
    shopper = await buyer(t.api);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (agent ? agent.close(() => resolve()) : resolve()));
  });

  async function openAuthorization(clientId: string, challenge: string) {
    const page = await browser.page();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(
      base +
        authorizeUrl({
          clientId,
          challenge,
          method: 'S256',
          redirectUri,
          scope: 'shop orders',
          state: 'st-9',
        }),
    );
    await page.getByLabel('Email').fill(shopper.email);
    await page.getByLabel('Password').fill(shopper.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Allow Aisle Assistant to use your account\?/ }).waitFor();
    return { page, problems };
  }

  it('sign in, consent, land on the agent with a code, exchange it, call the API', async () => {
    const { clientId } = await registerClient(t.api, {
      client_name: 'Aisle Assistant',
      redirect_uris: [redirectUri],
    });
    const { verifier, challenge } = pkce();
    const { page, problems } = await openAuthorization(clientId, challenge);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain(shopper.email);
    expect(text).toMatch(/shop\s*search products/);
    expect(text).toMatch(/orders\s*see and cancel your orders/);
    expect(text).not.toMatch(/analytics/);

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('st-9');
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(problems).toEqual([]);

    const tokens = await exchange(t.api, { clientId, code: code!, verifier, redirectUri });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('shop orders');
    expect((await t.api.as(tokens.body.access_token).get('/cart')).status).toBe(200);
    await page.close();
  });

  it('Deny lands on the agent with error=access_denied', async () => {
    const { clientId } = await registerClient(t.api, {
      client_name: 'Aisle Assistant',
      redirect_uris: [redirectUri],
    });
    const { page } = await openAuthorization(clientId, pkce().challenge);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    await page.close();
  });
});
