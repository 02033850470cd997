// The database taken away under a running app (PGlite closed; PostgreSQL's connections cut and
// refused by a proxy in front of it): every face answers 503 in its own error format with
// Retry-After, never 500; /health says unavailable; on PostgreSQL the app serves again once the
// server is reachable. test/db-outage.spawn.test.ts restarts a real server under load.
import net from 'node:net';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { enqueueMail } from '../src/modules/mail/outbox.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { createMailTransport } from '../src/modules/mail/transports.ts';
import { mailJob } from '../src/modules/mail/worker.ts';
import { ACP_VERSION, issuePlatform } from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { admin, buyer, type SignedIn, seller, type TestApp, testApp } from './helpers/app.ts';
import { product } from './helpers/builders.ts';
import { addToCart } from './helpers/checkout.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';
import { startSmtpServer } from './helpers/smtp.ts';

/**
 * A TCP proxy to `target` that can cut its connections and refuse new ones, then take them again;
 * or go silent (a network cut that sends no reset: nothing passes, nothing is closed).
 */
async function startProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let silent = false;
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      sockets.add(from);
      from.on('close', () => sockets.delete(from));
      from.on('error', () => from.destroy());
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
      from.on('end', () => to.end());
    }
  });
  const listen = (port = 0) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen();
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    async cut() {
      // The sockets first: the server's close waits for its connections to end.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: () => listen(port),
    goSilent: () => {
      silent = true;
    },
    speakAgain: () => {
      silent = false;
    },
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

  it('answers the pages an email or an agent’s sign-in opens with a page to come back to, 503 with Retry-After', async () => {
    for (const url of [
      `/auth/email/verify?token=${'a'.repeat(43)}`,
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'client_some0client',
        redirect_uri: 'http://127.0.0.1:9/cb',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        scope: 'shop',
        state: 's1',
        resource: 'http://portage.test/mcp',
      })}`,
    ]) {
      const res = await t.api.get(url, { 'accept-language': 'fr-CA' });
      expect(res.status, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('5');
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('De retour dans un instant');
      expect(res.body, url).toContain(UNAVAILABLE.fr);
    }
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

describe.skipIf(!process.env.TEST_DATABASE_URL)('a network cut that sends no reset (PostgreSQL only)', () => {
  it('answers 503 once a statement goes unanswered, instead of holding the request, and serves again after', async () => {
    const direct = await testDatabase();
    const proxy = await startProxy(new URL(direct.url!));
    const through = new URL(direct.url!);
    through.host = `127.0.0.1:${proxy.port}`;
    // A second for a statement's answer here, not a minute: the test waits it out.
    const proxied = await openDatabase({ databaseUrl: through.href, poolSize: 2, queryTimeoutMs: 1_000 });
    const t = await testApp({ ...proxied, url: through.href });
    try {
      const person = await buyer(t.api);
      expect((await t.api.as(person).get('/cart')).status).toBe(200);
      proxy.goSilent();
      const cut = await t.api.as(person).get('/cart');
      expect(cut.status).toBe(503);
      expect(cut.headers['retry-after']).toBe('5');
      proxy.speakAgain();
      expect((await t.api.as(person).get('/cart')).status).toBe(200);
    } finally {
      await t.close();
      await proxied.close();
      await proxy.close();
      await direct.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'mail the server accepted while the database is away (PostgreSQL only)',
  () => {
    it('is recorded sent once the database is back, not sent again', async () => {
      const direct = await testDatabase();
      const proxy = await startProxy(new URL(direct.url!));
      const through = new URL(direct.url!);
      through.host = `127.0.0.1:${proxy.port}`;
      const proxied = await openDatabase({ databaseUrl: through.href, poolSize: 2 });
      const smtp = await startSmtpServer();
      const transport = createMailTransport(
        { smtpUrl: smtp.url, from: 'Portage <orders@portage.test>' },
        '/none',
      );
      try {
        const ctx = { db: proxied.db, now: () => new Date(), log: pino({ level: 'silent' }) as never };
        await enqueueMail(ctx, {
          dedupeKey: 'away:1',
          kind: 'test',
          to: 'buyer@example.ca',
          subject: 'Sent while the database was away',
          text: 'Hello',
          html: '<p>Hello</p>',
        });
        const hold = smtp.holdNext();
        const pass = mailJob({ transport, from: 'Portage <orders@portage.test>' }).run(ctx);
        await hold.arrived;
        await proxy.cut();
        hold.release(true);
        // The server has the message; the record waits for the database.
        await new Promise((r) => setTimeout(r, 1_500));
        await proxy.restore();
        expect(await pass).toBe(1);
        const [row] = await direct.db.select().from(outbox).where(eq(outbox.dedupeKey, 'away:1'));
        expect(row).toMatchObject({ status: 'sent', attempts: 1 });
        expect(smtp.messages).toHaveLength(1);
      } finally {
        transport.close();
        await smtp.close();
        await proxied.close();
        await proxy.close();
        await direct.close();
      }
    });
  },
);
