// The database taken away under a running app (PGlite closed; PostgreSQL's connections cut and
// refused by a proxy in front of it): every face answers 503 in its own error format with
// Retry-After, never 500; /health says unavailable; on PostgreSQL the app serves again once the
// server is reachable. test/db-outage.spawn.test.ts restarts a real server under load.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { ACP_VERSION, issuePlatform } from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { admin, buyer, type SignedIn, seller, type TestApp, testApp } from './helpers/app.ts';
import { product } from './helpers/builders.ts';
import { addToCart } from './helpers/checkout.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

/** A TCP proxy to `target` that can cut its connections and refuse new ones, then take them again. */
async function startProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  const listen = (port = 0) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen();
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
    },
    restore: () => listen(port),
    close: () =>
      new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

describe('the database unreachable under a running app', () => {
  let direct: TestDatabase;
  let t: TestApp;
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  let closeApp: () => Promise<void>;
  let takeAway: () => Promise<void>;
  let person: SignedIn;
  let platformKey: string;
  let agent: string;
  let productId: string;

  beforeAll(async () => {
    direct = await testDatabase();
    if (direct.url) {
      // The app reaches PostgreSQL through the proxy; the test's own reads go direct.
      const target = new URL(direct.url);
      proxy = await startProxy(target);
      const through = new URL(direct.url);
      through.host = `127.0.0.1:${proxy.port}`;
      const proxied = await openDatabase({ databaseUrl: through.href, poolSize: 3 });
      t = await testApp({ ...proxied, url: through.href });
      closeApp = async () => {
        await t.close();
        await proxied.close();
        await proxy?.close();
        await direct.close();
      };
      takeAway = () => proxy!.cut();
    } else {
      t = await testApp(direct);
      let closed = false;
      closeApp = async () => {
        await t.close();
        if (!closed) await direct.close();
      };
      takeAway = async () => {
        closed = true;
        await direct.close();
      };
    }
    const s = await seller(t.api);
    productId = (await product(t.api, s)).id;
    person = await buyer(t.api);
    await addToCart(t.api, person, productId, 1);
    platformKey = (await issuePlatform(t.api, await admin(t.api, direct))).apiKey;
    agent = (await agentToken(t, direct, person, ['shop'])).token;
    await takeAway();
  });
  afterAll(async () => {
    await closeApp?.();
  });

  const UNAVAILABLE = {
    en: 'The service is briefly unavailable; retry in 5 seconds',
    fr: 'Le service est momentanément indisponible; réessayez dans 5 secondes',
  };

  it('answers the API with 503 in the error model and Retry-After, in the reader’s language', async () => {
    for (const [lang, words] of [
      ['en-CA', UNAVAILABLE.en],
      ['fr-CA', UNAVAILABLE.fr],
    ] as const) {
      const res = await t.api.as(person).get('/cart', { 'accept-language': lang });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ error: words, code: 'INTERNAL_ERROR', statusCode: 503 });
    }
    const read = await t.api.as(person).get(`/products/${productId}`);
    expect(read.status).toBe(503);
    expect(read.body.code).toBe('INTERNAL_ERROR');
  });

  it('answers ACP in its error format, UCP in its own, and the pages with a page, each 503 with Retry-After', async () => {
    const acp = await t.api.as(platformKey).get('/acp/checkout_sessions/acp_cs_nothing', {
      'api-version': ACP_VERSION,
    });
    expect(acp.status).toBe(503);
    expect(acp.headers['retry-after']).toBe('5');
    expect(acp.body).toEqual({
      type: 'service_unavailable',
      code: 'internal_error',
      message: UNAVAILABLE.en,
    });
    // A person's agent token could not be checked: no 401 (its token is fine).
    const byAgent = await t.api
      .as(agent)
      .get('/acp/checkout_sessions/acp_cs_nothing', { 'api-version': ACP_VERSION });
    expect(byAgent.status).toBe(503);

    const ucp = await t.api.get('/ucp/v1/checkout-sessions/ucp_cs_nothing', { 'x-api-key': platformKey });
    expect(ucp.status).toBe(503);
    expect(ucp.headers['retry-after']).toBe('5');
    expect(ucp.body).toEqual({ code: 'internal_error', content: UNAVAILABLE.en });

    const page = await t.api.get('/account', {
      cookie: `portage_session=${'a'.repeat(43)}`,
      'accept-language': 'fr-CA',
    });
    expect(page.status).toBe(503);
    expect(page.headers['retry-after']).toBe('5');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(UNAVAILABLE.fr);
  });

  it('says unavailable on /health', async () => {
    const res = await t.api.get('/health');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'unavailable', code: 'INTERNAL_ERROR', statusCode: 503 });
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'serves again once PostgreSQL is reachable, without a restart (PostgreSQL only)',
    async () => {
      await proxy!.restore();
      const res = await t.api.as(person).get('/cart');
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(1);
      expect((await t.api.get('/health')).status).toBe(200);
    },
  );
});
