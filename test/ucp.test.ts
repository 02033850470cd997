// UCP v2026-04-08 over Portage's one checkout (docs/ucp.md): a platform whose profile is served
// on a local port discovers us, creates, updates (PUT), completes and cancels checkout sessions.
// Every answer goes through test/helpers/ucp.ts, which checks it against our zod contract.
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { httpbis } from 'http-message-signatures';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ucpBusinessProfile,
  ucpCatalogLookupResponse,
  ucpCatalogSearchResponse,
  ucpGetProductResponse,
  ucpOrder,
} from '../src/contract/ucp.ts';
import { agentSessions } from '../src/modules/agent-checkout/tables.ts';
import { sandboxPaymentIntent } from '../src/modules/payments/providers/sandbox.ts';
import { ucpOrderEventBody } from '../src/modules/ucp/webhooks.ts';
import {
  ACP_ON,
  AcpClient,
  issuePlatform,
  ordersReadBack,
  outboxOf,
  type Receiver,
  startReceiver,
} from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp, withTestApp } from './helpers/app.ts';
import { admin, buyer, product, seller, uniqueEmail, verified } from './helpers/builders.ts';
import { paymentEvent, postEvent } from './helpers/checkout.ts';
import { agentTokens, authorizeUrl, pkce, registerClient, signInToConsent } from './helpers/oauth.ts';
import { expectOfficial, ucpProfileProblems, ucpRestProblems } from './helpers/official-schemas.ts';
import { liveReservedUnits, ordersOfCheckout, ship, stockOf } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UCP_QC,
  UcpClient,
  type UcpPlatform,
  verifiedUcpWebhook,
} from './helpers/ucp.ts';

// UCP wants https URLs in answers (continue_url, endpoints): the app's public URL is one.
const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

let boss: SignedIn;
let shop: SignedIn;
let profiles: ProfileServer;
let platform: UcpPlatform;
let ucp: UcpClient;
let vault: AcpClient;
let hooks: Receiver;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  profiles = await startProfileServer();
  hooks = await startReceiver();
  profiles.documents.set('/agent.json', { body: platformProfile(hooks.url) });
  platform = await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`);
  ucp = new UcpClient(t.api, platform);
  vault = new AcpClient(t.api, platform.apiKey, t.clock.now);
});
afterAll(async () => {
  await profiles.close();
  await hooks.close();
});

type Total = { type: string; amount: number };
const amount = (body: { totals: Total[] }, type: string) => body.totals.find((x) => x.type === type)?.amount;
const buyerNamed = (email = uniqueEmail('ucp')) => ({ email, first_name: 'Avery', last_name: 'Tremblay' });
const shipTo = (destination: Record<string, string>) => ({
  methods: [{ type: 'shipping', destinations: [destination] }],
});
const checkoutOf = async (id: string) =>
  (await database.db.select().from(agentSessions).where(eq(agentSessions.id, id)))[0]!.checkoutId!;

describe('discovery', () => {
  it('/.well-known/ucp is our business profile: REST and MCP services, capabilities, the sandbox handler, our key', async () => {
    const res = await t.api.get('/.well-known/ucp');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expectOfficial(ucpProfileProblems(res.body), res.body);
    const profile = ucpBusinessProfile.parse(res.body);
    const binding = (transport: string, endpoint: string, schema: string) => ({
      version: '2026-04-08',
      spec: 'https://ucp.dev/2026-04-08/specification/overview',
      transport,
      schema: `https://ucp.dev/2026-04-08/services/shopping/${schema}`,
      endpoint,
    });
    expect(profile.ucp.services['dev.ucp.shopping']).toEqual([
      binding('rest', 'https://portage.test/ucp/v1', 'rest.openapi.json'),
      binding('mcp', 'https://portage.test/ucp/mcp', 'mcp.openrpc.json'),
    ]);
    expect(Object.keys(profile.ucp.capabilities ?? {})).toEqual([
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.fulfillment',
      'dev.ucp.shopping.discount',
      'dev.ucp.shopping.order',
      'dev.ucp.shopping.catalog.search',
      'dev.ucp.shopping.catalog.lookup',
      'dev.ucp.common.identity_linking',
    ]);
    expect(
      Object.keys(profile.ucp.capabilities?.['dev.ucp.common.identity_linking']?.[0]?.config?.scopes ?? {}),
    ).toEqual(['dev.ucp.shopping.order:read', 'dev.ucp.shopping.order:manage']);
    expect(profile.ucp.payment_handlers['dev.portage.sandbox_card']).toEqual([
      expect.objectContaining({ id: 'portage_sandbox_card', version: '2026-04-08' }),
    ]);
    expect(profile.signing_keys).toEqual([
      expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' }),
    ]);
  });
});

describe('a platform buys through UCP', () => {
  it('create (201, ready) → PUT to Quebec (tax changes) → complete: completed with one order', async () => {
    const p = await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 2 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers['request-id']).toBeDefined();
    expect(created.body).toMatchObject({ status: 'ready_for_complete', currency: 'CAD' });
    expect(created.body.id).toMatch(/^ucp_cs_/);
    // The platform's own policies, as pages a person opens (not the API reference); the returns
    // of the one shop sold from, on its page.
    expect(created.body.links).toEqual([
      { type: 'terms_of_service', url: 'https://portage.test/policies/terms' },
      { type: 'privacy_policy', url: 'https://portage.test/policies/privacy' },
      { type: 'refund_policy', url: `https://portage.test/shops/${encodeURIComponent(shop.id)}#returns` },
    ]);
    expect(created.body.ucp.capabilities).toEqual({
      'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
      'dev.ucp.shopping.fulfillment': [{ version: '2026-04-08' }],
      'dev.ucp.shopping.discount': [{ version: '2026-04-08' }],
    });
    expect(created.body.line_items).toEqual([
      {
        id: `line_${p.id}`,
        item: expect.objectContaining({ id: p.id, title: p.title, price: 2500 }),
        quantity: 2,
        totals: [
          { type: 'subtotal', amount: 5000 },
          { type: 'total', amount: 5000 },
        ],
      },
    ]);
    const shipping = amount(created.body, 'fulfillment')!;
    expect(amount(created.body, 'subtotal')).toBe(5000);
    expect(amount(created.body, 'tax')).toBe(Math.round((5000 + shipping) * 0.13));
    expect(created.body.fulfillment.methods[0].groups[0].selected_option_id).toBe('portage:standard');
    expect(await liveReservedUnits(database, p.id)).toBe(2);

    const body = {
      line_items: [{ id: `line_${p.id}`, item: { id: p.id }, quantity: 2 }],
      buyer: created.body.buyer,
      fulfillment: {
        methods: [
          { id: 'shipping', type: 'shipping', line_item_ids: [`line_${p.id}`], destinations: [UCP_QC] },
        ],
      },
    };
    const moved = await ucp.update(created.body.id, body);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.status).toBe('ready_for_complete');
    const qcTax = amount(moved.body, 'tax')!;
    expect(qcTax).not.toBe(amount(created.body, 'tax'));
    // Each tax line names the parcel by its shop's name, never the seller's id.
    const shopName = (await t.api.as(shop).get('/me')).body.seller.shopName;
    expect(
      moved.body.totals
        .find((x: Total) => x.type === 'tax')
        .lines.map((l: { display_text: string }) => l.display_text),
    ).toEqual([`GST 5% (QC, parcel of ${shopName})`, `QST 9.975% (QC, parcel of ${shopName})`]);

    const token = await vault.delegate(created.body.id);
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const done = await ucp.complete(created.body.id, token.body.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe('completed');
    const checkoutId = await checkoutOf(created.body.id);
    expect(done.body.order).toEqual({
      id: `order_${checkoutId.split(':')[1]}`,
      permalink_url: `https://portage.test/account/purchases/${encodeURIComponent(checkoutId)}`,
    });
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });

    // Completed again (a retry with another key): the same order, no second.
    const again = await ucp.complete(created.body.id, token.body.id);
    expect(again.body.status).toBe('completed');
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
  });

  it('what the buyer must fix is a message with its UCP path; nothing is held until it is fixed', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const res = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: buyerNamed(),
      fulfillment: shipTo({ ...UCP_ON, postal_code: '12345' }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('incomplete');
    expect(res.body.messages).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'invalid_address',
        path: '$.fulfillment.methods[0].destinations[0].postal_code',
        severity: 'recoverable',
      }),
    ]);
    expect(res.body.line_items[0].item).toMatchObject({ id: p.id, title: p.title, price: 1500 });
    expect(await liveReservedUnits(database, p.id)).toBe(0);
  });

  it('a body the contract refuses is 400 naming the problem; a buyer email that is no address is 400; one with spaces around is taken trimmed', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const shapeless = await t.api.post(
      '/ucp/v1/checkout-sessions',
      { line_items: [{ item: { id: 7 }, quantity: 1 }] },
      ucp.headers(),
    );
    expect(shapeless.status).toBe(400);
    expect(shapeless.body).toEqual({
      code: 'invalid_request',
      content: 'Invalid request: $.line_items[0].item.id: must be a string',
    });
    const bad = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: 'x'.repeat(300) },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      code: 'invalid_request',
      content: 'buyer.email must be an email address (at most 254 characters)',
    });
    const email = uniqueEmail('trimmed');
    const ok = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: `  ${email} ` },
      fulfillment: shipTo(UCP_ON),
    });
    expect(ok.body.buyer.email).toBe(email);
  });

  it('cancel gives the stock back at once; a canceled session cannot be completed or canceled again', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 3 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    expect(await liveReservedUnits(database, p.id)).toBe(3);
    const canceled = await ucp.cancel(created.body.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(await liveReservedUnits(database, p.id)).toBe(0);
    const again = await ucp.cancel(created.body.id);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_state');
  });

  it('cancel needs no body (the OpenAPI defines none), and takes an empty one or an object too', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const open = async () =>
      (
        await ucp.create({
          line_items: [{ item: { id: p.id }, quantity: 1 }],
          buyer: buyerNamed(),
          fulfillment: shipTo(UCP_ON),
        })
      ).body.id as string;
    const bodies: Array<[unknown, Record<string, string>]> = [
      [undefined, {}],
      ['', { 'content-type': 'application/json' }],
      ['', {}],
      [{}, {}],
    ];
    for (const [body, headers] of bodies) {
      const id = await open();
      const res = await t.api.post(`/ucp/v1/checkout-sessions/${id}/cancel`, body, ucp.headers(headers));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id, status: 'canceled' });
    }
    expect(await liveReservedUnits(database, p.id)).toBe(0);
  });

  it('a declined card is payment_failed on the checkout (200), nothing charged; another token then pays', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    const declined = await vault.delegate(created.body.id, { card: '4000000000000002' });
    const res = await ucp.complete(created.body.id, declined.body.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('ready_for_complete');
    expect(res.body.messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'payment_failed', path: '$.payment.instruments[0]' }),
    ]);
    expect(await ordersOfCheckout(database, await checkoutOf(created.body.id))).toHaveLength(0);
    const good = await vault.delegate(created.body.id);
    expect((await ucp.complete(created.body.id, good.body.id)).body.status).toBe('completed');
  });
});

describe('who may call, for which profile', () => {
  it('refuses a missing UCP-Agent (400 invalid_profile_url), an unknown key (401), another profile (403)', async () => {
    const missing = await t.api.get('/ucp/v1/checkout-sessions/ucp_cs_x', { 'x-api-key': platform.apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('invalid_profile_url');
    const unknown = await ucp.get('ucp_cs_x', { 'x-api-key': 'acp_nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Bearer realm="ucp"');
    const other = await ucp.get('ucp_cs_x', { 'ucp-agent': `profile="${profiles.base}/other.json"` });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('profile_not_trusted');
  });

  it("another platform's session, or an ACP session, is not found (200, ucp.status error)", async () => {
    const res = await ucp.get('acp_cs_abc');
    expect(res.status).toBe(200);
    expect(res.body.ucp.status).toBe('error');
    expect(res.body.messages[0]).toMatchObject({ code: 'not_found', severity: 'unrecoverable' });
  });

  it('requires an Idempotency-Key on POST and PUT; replays the first answer', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const body = {
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    };
    const { 'idempotency-key': _, ...keyless } = ucp.headers();
    const none = await t.api.post('/ucp/v1/checkout-sessions', body, keyless);
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('idempotency_key_required');
    const first = await ucp.create(body, { 'idempotency-key': 'ucp-replay-1' });
    const replay = await ucp.create(body, { 'idempotency-key': 'ucp-replay-1' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const conflict = await ucp.create(
      { ...body, line_items: [{ item: { id: p.id }, quantity: 2 }] },
      { 'idempotency-key': 'ucp-replay-1' },
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('idempotency_conflict');
  });

  it('a profile of another UCP version is version_unsupported (422); one without checkout is capabilities_incompatible (200)', async () => {
    profiles.documents.set('/old.json', {
      body: platformProfile('https://x.example/h', undefined, '2026-01-11'),
    });
    const old = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/old.json`));
    const refused = await old.get('ucp_cs_x');
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('version_unsupported');

    profiles.documents.set('/orders-only.json', {
      body: platformProfile('https://x.example/h', {
        'dev.ucp.shopping.order': [
          {
            version: '2026-04-08',
            spec: 'https://ucp.dev/2026-04-08/specification/order',
            schema: 'https://ucp.dev/2026-04-08/schemas/shopping/order.json',
            config: { webhook_url: 'https://x.example/h' },
          },
        ],
      }),
    });
    const ordersOnly = new UcpClient(
      t.api,
      await issueUcpPlatform(t.api, boss, `${profiles.base}/orders-only.json`),
    );
    const incompatible = await ordersOnly.get('ucp_cs_x');
    expect(incompatible.status).toBe(200);
    expect(incompatible.body.messages[0].code).toBe('capabilities_incompatible');
    // A write too, whose answer is stored under its Idempotency-Key.
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const create = { line_items: [{ item: { id: p.id }, quantity: 1 }] };
    const key = { 'idempotency-key': randomUUID() };
    for (const res of [await ordersOnly.create(create, key), await ordersOnly.create(create, key)]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ucp: { version: '2026-04-08', status: 'error', capabilities: {} },
        messages: [
          {
            type: 'error',
            code: 'capabilities_incompatible',
            content: expect.stringContaining('dev.ucp.shopping.checkout'),
            severity: 'unrecoverable',
          },
        ],
      });
    }
    expect(await liveReservedUnits(database, p.id)).toBe(0);
  });

  it('outside development, a profile at a private address is never fetched (424), by address or by name', async () => {
    await withTestApp(
      async (staging, db) => {
        const boss2 = await admin(staging.api, db);
        for (const profileUrl of ['https://127.0.0.1:9/agent.json', 'https://localhost:9/agent.json']) {
          const p = await issueUcpPlatform(staging.api, boss2, profileUrl);
          const res = await new UcpClient(staging.api, p).get('ucp_cs_x');
          expect(res.status, JSON.stringify(res.body)).toBe(424);
          expect(res.body).toEqual({
            code: 'profile_unreachable',
            content: "The platform's profile is at a private address, which is refused",
          });
        }
      },
      {
        env: {
          APP_ENV: 'staging',
          PUBLIC_BASE_URL: 'https://portage.test',
          PAYMENT_WEBHOOK_SECRET: 'whsec_staging_test_secret',
        },
      },
    );
  });

  it('requests that miss the profile cache together share one fetch of it', async () => {
    profiles.documents.set('/shared.json', { body: platformProfile(hooks.url) });
    const shared = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/shared.json`));
    const answers = await Promise.all(Array.from({ length: 8 }, () => shared.get('ucp_cs_x')));
    expect(answers.map((a) => a.body.messages[0].code)).toEqual(Array(8).fill('not_found'));
    expect(profiles.hits.get('/shared.json')).toBe(1);
  });

  it('a profile that is not JSON is profile_malformed (422); one that cannot be fetched, profile_unreachable (424)', async () => {
    profiles.documents.set('/broken.json', { body: 'not json' });
    const broken = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/broken.json`));
    expect((await broken.get('ucp_cs_x')).body.code).toBe('profile_malformed');
    const gone = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/gone.json`));
    const res = await gone.get('ucp_cs_x');
    expect(res.status).toBe(424);
    expect(res.body.code).toBe('profile_unreachable');
  });
});

/** Verifies a webhook as a platform would (test/helpers/ucp.ts), with our published keys. */
const verifiedHook = (hook: Receiver['received'][number]) => verifiedUcpWebhook(t.api, hooks.url, hook);

describe('orders', () => {
  it("the created event is written from the purchase's orders as written: the body the orders read back make, two sellers", async () => {
    const other = await seller(t.api, 'QC');
    const a = await product(t.api, shop, { priceCents: 1999, stockQuantity: 5 });
    const b = await product(t.api, other, { priceCents: 4550, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [
        { item: { id: b.id }, quantity: 1 },
        { item: { id: a.id }, quantity: 2 },
      ],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    const token = await vault.delegate(created.body.id);
    expect((await ucp.complete(created.body.id, token.body.id)).body.status).toBe('completed');
    const checkoutId = await checkoutOf(created.body.id);
    const read = await ordersReadBack(database, checkoutId);
    expect(read).toHaveLength(2);
    const expected = ucpOrderEventBody(
      { type: 'checkout.completed', checkoutId, buyerId: read[0]!.buyerId, orderIds: read.map((o) => o.id) },
      { id: created.body.id },
      checkoutId,
      read,
    );
    expect(await outboxOf(database, created.body.id)).toEqual([expected]);
  });

  it('a completed checkout is one order: GET /orders/{id}, and signed webhooks of its creation and shipping', async () => {
    const p = await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 2 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    const token = await vault.delegate(created.body.id);
    const done = await ucp.complete(created.body.id, token.body.id);
    const orderId = done.body.order.id;

    const read = await t.api.get(`/ucp/v1/orders/${orderId}`, ucp.headers({}, false));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expectOfficial(ucpRestProblems('get_order', 200, read.body), read.body);
    const order = ucpOrder.parse(read.body);
    expect(order).toMatchObject({
      id: orderId,
      checkout_id: created.body.id,
      currency: 'CAD',
      line_items: [
        { id: `line_${p.id}`, quantity: { original: 2, total: 2, fulfilled: 0 }, status: 'processing' },
      ],
    });
    expect(order.totals.find((x) => x.type === 'total')?.amount).toBe(amount(done.body, 'total'));

    const mine = () => hooks.received.filter((r) => JSON.parse(r.body).checkout_id === created.body.id);
    // A minute after the event: the header carries the attempt's time, not the event's.
    t.clock.advance(60);
    const attemptFrom = Math.floor(t.clock.now().getTime() / 1000);
    await t.app.jobs.runOnce();
    const attemptTo = Math.floor(t.clock.now().getTime() / 1000);
    expect(mine()).toHaveLength(1);
    const first = mine()[0]!;
    expect(first.headers['webhook-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const stamped = Number(first.headers['webhook-timestamp']);
    expect(stamped).toBeGreaterThanOrEqual(attemptFrom);
    expect(stamped).toBeLessThanOrEqual(attemptTo);
    expect(first.headers['ucp-agent']).toBe('profile="https://portage.test/.well-known/ucp"');
    expect((await verifiedHook(first)).line_items[0]!.status).toBe('processing');

    const checkoutId = await checkoutOf(created.body.id);
    const [portageOrder] = await ordersOfCheckout(database, checkoutId);
    await ship(t, shop, portageOrder!.id);
    await t.app.jobs.runOnce();
    expect(mine()).toHaveLength(2);
    const second = mine()[1]!;
    const shipped = await verifiedHook(second);
    expect(shipped.line_items[0]).toMatchObject({
      quantity: { total: 2, fulfilled: 2 },
      status: 'fulfilled',
    });
    expect(shipped.fulfillment.events).toEqual([
      expect.objectContaining({ type: 'shipped', tracking_number: expect.any(String) }),
    ]);
    expect(second.headers['webhook-id']).not.toBe(first.headers['webhook-id']);

    // A tampered body no longer matches its digest or signature.
    const forged = { ...second, body: second.body.replace('"fulfilled"', '"processing"') };
    await expect(verifiedHook(forged)).rejects.toThrow();
  });

  it("another platform's order, or an unknown one, is not found (200, ucp.status error)", async () => {
    const res = await t.api.get('/ucp/v1/orders/order_nope', ucp.headers({}, false));
    expect(res.status).toBe(200);
    expectOfficial(ucpRestProblems('get_order', 200, res.body), res.body);
    expect(res.body).toMatchObject({ ucp: { status: 'error' }, messages: [{ code: 'not_found' }] });
  });
});

describe('signed requests', () => {
  const platformKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let signer: UcpClient;
  beforeAll(async () => {
    const jwk = await exportJWK(platformKey.publicKey);
    const signed = {
      ...platformProfile(hooks.url),
      signing_keys: [{ ...jwk, kid: 'platform-2026', alg: 'ES256', use: 'sig' }],
    };
    profiles.documents.set('/signing.json', { body: signed });
    signer = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/signing.json`));
  });

  /** Sends a request signed as the spec asks (method, authority, path, UCP-Agent, Idempotency-Key, digest, type). */
  async function signedCreate(body: string, opts: { kid?: string; digestOf?: string; created?: Date } = {}) {
    const url = 'http://portage.test/ucp/v1/checkout-sessions';
    const headers: Record<string, string> = {
      ...signer.headers(),
      host: 'portage.test',
      'content-type': 'application/json',
      'content-digest': `sha-256=:${createHash('sha256')
        .update(opts.digestOf ?? body)
        .digest('base64')}:`,
    };
    const signedReq = await httpbis.signMessage(
      {
        key: {
          id: opts.kid ?? 'platform-2026',
          sign: async (data: Buffer) =>
            sign('sha256', data, { key: platformKey.privateKey, dsaEncoding: 'ieee-p1363' }),
        },
        fields: [
          '@method',
          '@authority',
          '@path',
          'ucp-agent',
          'idempotency-key',
          'content-digest',
          'content-type',
        ],
        params: ['keyid', 'created'],
        paramValues: { created: opts.created ?? new Date() },
      },
      { method: 'POST', url, headers },
    );
    return t.api.post('/ucp/v1/checkout-sessions', body, signedReq.headers as Record<string, string>);
  }

  it('takes a request signed with a key of the platform profile; refuses a changed body, a stale signature, an unknown key, a bad signature', async () => {
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const body = JSON.stringify({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    const ok = await signedCreate(body);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);

    const changed = await signedCreate(body.replace('"quantity":1', '"quantity":2'), { digestOf: body });
    expect(changed.status).toBe(400);
    expect(changed.body.code).toBe('digest_mismatch');

    const stale = await signedCreate(body, { created: new Date(Date.now() - 3600_000) });
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe('signature_invalid');

    const unknown = await signedCreate(body, { kid: 'someone-else' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('key_not_found');

    const headers = { ...signer.headers(), host: 'portage.test', 'content-type': 'application/json' };
    const forged = await t.api.post('/ucp/v1/checkout-sessions', body, {
      ...headers,
      'content-digest': `sha-256=:${createHash('sha256').update(body).digest('base64')}:`,
      'signature-input': 'sig1=("@method" "@authority" "@path" "content-digest");keyid="platform-2026"',
      signature: `sig1=:${Buffer.alloc(64, 7).toString('base64')}:`,
      'idempotency-key': randomUUID(),
    });
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe('signature_invalid');
    expect(await liveReservedUnits(database, p.id)).toBe(1);
  });
});

describe('identity linking', () => {
  it("a platform linked to a person's account buys as that person and reads the order; a link without order:read cannot", async () => {
    const person = await buyer(t.api, 'linked');
    // Linked through our OAuth server as a platform would: authorization code with PKCE, the
    // person signing in and consenting on our pages.
    const tokens = await agentTokens(
      t.api,
      person,
      ['dev.ucp.shopping.checkout:manage', 'dev.ucp.shopping.order:read'],
      'https://portage.test/mcp',
    );
    expect(tokens.scope).toBe('dev.ucp.shopping.checkout:manage dev.ucp.shopping.order:read');
    const linked = { token: tokens.access_token };
    const asPerson = (token: string) => ({ authorization: `Bearer ${token}`, 'x-api-key': '' });
    const p = await product(t.api, shop, { priceCents: 1500, stockQuantity: 5 });
    const created = await ucp.create(
      { line_items: [{ item: { id: p.id }, quantity: 1 }], fulfillment: shipTo(UCP_ON) },
      asPerson(linked.token),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.status).toBe('ready_for_complete');
    const vaulted = await new AcpClient(t.api, linked.token, t.clock.now).delegate(created.body.id);
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(201);
    const done = await ucp.complete(created.body.id, vaulted.body.id, asPerson(linked.token));
    expect(done.body.status).toBe('completed');
    const order = await t.api.get(`/ucp/v1/orders/${done.body.order.id}`, {
      ...ucp.headers({}, false),
      ...asPerson(linked.token),
    });
    expect(order.status).toBe(200);
    expect(ucpOrder.parse(order.body).checkout_id).toBe(created.body.id);
    const [row] = await database.db.select().from(agentSessions).where(eq(agentSessions.id, created.body.id));
    expect(row).toMatchObject({ buyerId: person.id, agentUserId: person.id, platformId: null });

    // The platform's key does not see the person's session, nor the person's link the platform's.
    expect((await ucp.get(created.body.id)).body.ucp.status).toBe('error');

    const orderOnly = await agentToken(t, database, person, ['dev.ucp.shopping.checkout:manage']);
    const refused = await t.api.get('/ucp/v1/orders/order_whatever', {
      ...ucp.headers({}, false),
      ...asPerson(orderOnly.token),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="ucp", error="insufficient_scope", scope="dev.ucp.shopping.checkout:manage dev.ucp.shopping.order:read"',
    );
    // A linked token names a profile too: only a registered platform's (none other is fetched).
    const unregistered = await t.api.get('/ucp/v1/orders/order_whatever', {
      ...ucp.headers({}, false),
      ...asPerson(linked.token),
      'ucp-agent': 'profile="https://attacker.example/anything.json"',
    });
    expect(unregistered.status).toBe(403);
    expect(unregistered.body.code).toBe('profile_not_trusted');
    const expired = await t.api.get('/ucp/v1/orders/order_whatever', {
      ...ucp.headers({}, false),
      ...asPerson('not-a-token'),
    });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('identity_required');
  });
});

describe('the consent page', () => {
  it("says UCP's scopes in plain words", async () => {
    const person = await buyer(t.api, 'consent');
    const { clientId } = await registerClient(t.api);
    const url = authorizeUrl({
      clientId,
      challenge: pkce().challenge,
      method: 'S256',
      scope: 'dev.ucp.shopping.order:read dev.ucp.shopping.order:manage',
    });
    const { consent } = await signInToConsent(t.api, url, person);
    expect(consent.status).toBe(200);
    expect(consent.body).toContain('see the orders you placed and where they are');
    expect(consent.body).toContain('see and cancel your orders, ask for returns and write reviews');
  });
});

describe('exactly once', () => {
  /** A held UCP session of one unit of a new product (stock 5). */
  async function held(quantity = 1) {
    const p = await product(t.api, shop, { priceCents: 2000, stockQuantity: 5 });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity }],
      buyer: buyerNamed(),
      fulfillment: shipTo(UCP_ON),
    });
    expect(created.body.status).toBe('ready_for_complete');
    return { session: created.body, product: p };
  }

  it('20 concurrent completes of one session make one order, and all answer it', async () => {
    const { session, product: p } = await held(2);
    const token = await vault.delegate(session.id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => ucp.complete(session.id, token.body.id)),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.map((a) => a.body.status)).toEqual(Array(20).fill('completed'));
    expect(new Set(answers.map((a) => a.body.order.id)).size).toBe(1);
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });
  });

  it("a complete racing the provider's webhook of the same payment: one order", async () => {
    const { session } = await held();
    const checkoutId = await checkoutOf(session.id);
    const token = await vault.delegate(session.id);
    const [completed, hooked] = await Promise.all([
      ucp.complete(session.id, token.body.id),
      postEvent(
        t,
        paymentEvent(checkoutId, amount(session, 'total')!, { pi: sandboxPaymentIntent(checkoutId) }),
      ),
    ]);
    expect(completed.body.status).toBe('completed');
    expect(hooked.status).toBe(200);
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
  });
});

describe('a service on plain http (development, as `npm start` runs it)', () => {
  it('holds and answers 201 without a continue_url (UCP demands https); a retry of the key replays, holding nothing more', async () => {
    await withTestApp(
      async (dev, db) => {
        const devBoss = await admin(dev.api, db);
        const devShop = await seller(dev.api, 'ON');
        const client = new UcpClient(
          dev.api,
          await issueUcpPlatform(dev.api, devBoss, `${profiles.base}/agent.json`),
        );
        const p = await product(dev.api, devShop, { priceCents: 1500, stockQuantity: 5 });
        const body = {
          line_items: [{ item: { id: p.id }, quantity: 2 }],
          buyer: buyerNamed(),
          fulfillment: shipTo(UCP_ON),
        };
        const key = { 'idempotency-key': `dev-${p.id}` };
        const created = await client.create(body, key);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body.status).toBe('ready_for_complete');
        expect(created.body).not.toHaveProperty('continue_url');
        const again = await client.create(body, key);
        expect(again.status).toBe(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body.id).toBe(created.body.id);
        expect(await stockOf(db, p.id)).toEqual({ stock: 5, reserved: 2 });
      },
      { env: { PUBLIC_BASE_URL: 'http://localhost:3000' } },
    );
  });
});

describe('one buyer, two protocols', () => {
  it('a person bought for through ACP and through UCP sees both orders in one history', async () => {
    const person = await verified(database, await buyer(t.api, 'both'));
    const acp = new AcpClient(t.api, (await issuePlatform(t.api, boss)).apiKey, t.clock.now);
    const p = await product(t.api, shop, { priceCents: 1200, stockQuantity: 5 });
    const viaAcp = await acp.create({
      line_items: [{ id: p.id, quantity: 1 }],
      buyer: { email: person.email, first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
    });
    expect((await acp.pay(viaAcp.body.id)).body.status).toBe('completed');
    const viaUcp = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: person.email },
      fulfillment: shipTo(UCP_ON),
    });
    const token = await vault.delegate(viaUcp.body.id);
    expect((await ucp.complete(viaUcp.body.id, token.body.id)).body.status).toBe('completed');
    const history = await t.api.as(person).get('/orders');
    expect(history.status).toBe(200);
    const checkouts = new Set(history.body.orders.map((o: { checkoutId?: string; id: string }) => o.id));
    expect(checkouts.size).toBe(2);
  });
});

describe('the catalog', () => {
  const operations: Record<string, string> = {
    search: 'search_catalog',
    lookup: 'lookup_catalog',
    product: 'get_product',
  };
  /** A catalog operation's answer, also as the official REST binding defines it when 200. */
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await t.api.post(`/ucp/v1/catalog/${path}`, body, ucp.headers(headers, false));
    if (res.status === 200) expectOfficial(ucpRestProblems(operations[path]!, 200, res.body), res.body);
    return res;
  };

  it('searches by words and a price range, one variant per product, and pages with the cursor', async () => {
    const word = `tuque${Date.now().toString(36)}`;
    const made = [];
    for (const price of [1500, 2500, 3500]) {
      made.push(
        await product(t.api, shop, { title: `Wool ${word} ${price}`, priceCents: price, stockQuantity: 3 }),
      );
    }
    const first = await post('search', {
      query: word,
      filters: { price: { min: 2000 } },
      pagination: { limit: 1 },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const page1 = ucpCatalogSearchResponse.parse(first.body);
    expect(page1.ucp.capabilities).toEqual({
      'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }],
    });
    expect(page1.pagination).toMatchObject({ has_next_page: true, total_count: 2 });
    const [shown] = page1.products;
    expect(shown!.variants).toEqual([
      expect.objectContaining({
        id: shown!.id,
        price: { amount: shown!.price_range.min.amount, currency: 'CAD' },
        availability: { available: true, status: 'in_stock' },
      }),
    ]);
    const second = ucpCatalogSearchResponse.parse(
      (
        await post('search', {
          query: word,
          filters: { price: { min: 2000 } },
          pagination: { limit: 1, cursor: page1.pagination!.cursor },
        })
      ).body,
    );
    expect(second.pagination?.has_next_page).toBe(false);
    expect([shown!.id, second.products[0]!.id].sort()).toEqual([made[1]!.id, made[2]!.id].sort());
    expect((await post('search', { query: word, pagination: { cursor: 'not-ours' } })).body.code).toBe(
      'invalid_request',
    );
  });

  it('looks products up by id, naming those not found; one product; an unknown one is not_found', async () => {
    const p = await product(t.api, shop, { priceCents: 1900, stockQuantity: 0 });
    const looked = ucpCatalogLookupResponse.parse(
      (await post('lookup', { ids: [p.id, 'products:nope'] })).body,
    );
    expect(looked.products.map((x) => x.id)).toEqual([p.id]);
    expect(looked.products[0]!.variants[0]).toMatchObject({
      inputs: [{ id: p.id, match: 'exact' }],
      availability: { available: false, status: 'out_of_stock' },
    });
    expect(looked.messages).toEqual([
      { type: 'info', code: 'not_found', content: 'Not found: products:nope' },
    ]);
    const one = ucpGetProductResponse.parse((await post('product', { id: p.id })).body);
    expect(one.product).toMatchObject({
      id: p.id,
      title: p.title,
      description: { plain: expect.any(String) },
    });
    const none = await post('product', { id: 'products:nope' });
    expect(none.body).toMatchObject({ ucp: { status: 'error' }, messages: [{ code: 'not_found' }] });
  });

  it('takes variant ids: lookup answers the variant (exact) beside a product id’s featured one; get_product selects it', async () => {
    const made = await t.api.as(shop).post('/products', {
      title: `Merino tuque ${Date.now().toString(36)}`,
      weight: 0.2,
      options: [{ name: 'Size', values: ['S', 'M', 'L', 'XL'] }],
      variants: [
        { options: { Size: 'S' }, priceCents: 3900, stockQuantity: 5 },
        { options: { Size: 'M' }, priceCents: 4200, stockQuantity: 0 },
        { options: { Size: 'L' }, priceCents: 4500, stockQuantity: 2 },
        { options: { Size: 'XL' }, priceCents: 4800, stockQuantity: 2 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const p = made.body as { id: string; variants: Array<{ id: string; sku: string }> };
    const [small, medium, large, xl] = p.variants as [
      { id: string; sku: string },
      { id: string; sku: string },
      { id: string; sku: string },
      { id: string; sku: string },
    ];
    const ids = (v: { id: string; inputs: unknown }) => [v.id, v.inputs];

    const looked = ucpCatalogLookupResponse.parse(
      (await post('lookup', { ids: [medium.id, p.id, medium.id, 'variants:nope', small.id] })).body,
    );
    expect(looked.products.map((x) => x.id)).toEqual([p.id]);
    expect(looked.products[0]!.variants.map(ids)).toEqual([
      [
        small.id,
        [
          { id: p.id, match: 'featured' },
          { id: small.id, match: 'exact' },
        ],
      ],
      [medium.id, [{ id: medium.id, match: 'exact' }]],
    ]);
    expect(looked.products[0]!.variants[1]).toMatchObject({
      sku: medium.sku,
      price: { amount: 4200, currency: 'CAD' },
      availability: { available: false, status: 'out_of_stock' },
      options: [{ name: 'Size', label: 'M' }],
    });
    expect(looked.messages).toEqual([
      { type: 'info', code: 'not_found', content: 'Not found: variants:nope' },
    ]);
    const byVariantOnly = ucpCatalogLookupResponse.parse((await post('lookup', { ids: [large.id] })).body);
    expect(byVariantOnly.products[0]!.variants.map(ids)).toEqual([
      [large.id, [{ id: large.id, match: 'exact' }]],
    ]);
    expect(byVariantOnly.messages).toBeUndefined();

    // The variant's own options win over `selected`; the signals are relative to them.
    const one = ucpGetProductResponse.parse(
      (await post('product', { id: medium.id, selected: [{ name: 'Size', label: 'S' }] })).body,
    );
    expect(one.product.id).toBe(p.id);
    expect(one.product.selected).toEqual([{ name: 'Size', label: 'M' }]);
    expect(one.product.variants.map((v) => v.id)).toEqual([medium.id]);
    expect(one.product.options).toEqual([
      {
        name: 'Size',
        values: [
          { label: 'S', exists: true, available: true },
          { label: 'M', exists: true, available: false },
          { label: 'L', exists: true, available: true },
          { label: 'XL', exists: true, available: true },
        ],
      },
    ]);
    // By the product's id: every variant on sale, the first selected.
    const whole = ucpGetProductResponse.parse((await post('product', { id: p.id })).body);
    expect(whole.product.selected).toEqual([{ name: 'Size', label: 'S' }]);
    expect(whole.product.variants.map((v) => v.id)).toEqual([small.id, medium.id, large.id, xl.id]);

    // A variant taken off sale or deleted is not found, like an unknown one; its product still is.
    expect(
      (await t.api.as(shop).patch(`/products/${p.id}/variants/${large.id}`, { status: 'inactive' })).status,
    ).toBe(200);
    expect((await t.api.as(shop).delete(`/products/${p.id}/variants/${xl.id}`)).status).toBe(200);
    for (const gone of [large.id, xl.id, 'variants:nope', 'orders:nope']) {
      const none = await post('product', { id: gone });
      expect(none.body, gone).toMatchObject({
        ucp: { status: 'error' },
        messages: [{ type: 'error', code: 'not_found', severity: 'unrecoverable' }],
      });
      const missed = ucpCatalogLookupResponse.parse((await post('lookup', { ids: [gone, p.id] })).body);
      expect(
        missed.products.map((x) => x.variants.map(ids)),
        gone,
      ).toEqual([[[small.id, [{ id: p.id, match: 'featured' }]]]]);
      expect(missed.messages, gone).toEqual([
        { type: 'info', code: 'not_found', content: `Not found: ${gone}` },
      ]);
    }
  });
  it('answers in the language context.language names (fr, fr-CA: French; en: English), else Accept-Language’s: titles, descriptions, options', async () => {
    const word = `mitt${Date.now().toString(36)}`;
    const made = await t.api.as(shop).post('/products', {
      title: `Wool mittens ${word}`,
      description: 'Warm and soft',
      language: 'en-CA',
      weight: 0.2,
      options: [{ name: 'Size', values: ['Small', 'Large'] }],
      variants: [
        { options: { Size: 'Small' }, priceCents: 2400, stockQuantity: 4 },
        { options: { Size: 'Large' }, priceCents: 2600, stockQuantity: 4 },
      ],
      translations: {
        'fr-CA': {
          title: `Mitaines de laine ${word}`,
          description: 'Chaudes et douces',
          options: [{ name: 'Taille', values: ['Petite', 'Grande'] }],
        },
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const p = made.body as { id: string; variants: Array<{ id: string }> };
    const [small, large] = p.variants as [{ id: string }, { id: string }];
    // Each language's text, and its variants' titles and option names and values.
    const text = (title: string, plain: string, name: string, values: [string, string]) => ({
      product: {
        title,
        description: { plain },
        options: [{ name, values: values.map((label) => ({ label })) }],
      },
      variants: [small.id, large.id].map((id, n) => ({
        id,
        title: values[n]!,
        options: [{ name, label: values[n]! }],
      })),
    });
    const english = text(`Wool mittens ${word}`, 'Warm and soft', 'Size', ['Small', 'Large']);
    const french = text(`Mitaines de laine ${word}`, 'Chaudes et douces', 'Taille', ['Petite', 'Grande']);
    const FR = { 'accept-language': 'fr-CA' };
    // [context.language, Accept-Language, the language answered]
    const cases = [
      ['fr', {}, french],
      ['fr-CA', {}, french],
      [undefined, {}, english],
      ['en', FR, english],
      ['de-DE', FR, french],
      [undefined, FR, french],
    ] as const;
    for (const [language, headers, want] of cases) {
      const context = language ? { context: { language } } : {};
      const at = `${language} ${JSON.stringify(headers)}`;
      const found = ucpCatalogSearchResponse.parse(
        (await post('search', { query: word, ...context }, headers)).body,
      );
      expect(found.products, at).toEqual([
        expect.objectContaining({
          ...want.product,
          variants: want.variants.map((v) => expect.objectContaining(v)),
        }),
      ]);
      const looked = ucpCatalogLookupResponse.parse(
        (await post('lookup', { ids: [small.id, large.id], ...context }, headers)).body,
      );
      expect(looked.products, at).toEqual([
        expect.objectContaining({
          ...want.product,
          variants: want.variants.map((v) =>
            expect.objectContaining({ ...v, inputs: [{ id: v.id, match: 'exact' }] }),
          ),
        }),
      ]);
      const one = ucpGetProductResponse.parse(
        (await post('product', { id: p.id, ...context }, headers)).body,
      );
      const { name, values } = want.product.options[0]!;
      expect(one.product, at).toMatchObject({
        title: want.product.title,
        description: want.product.description,
        selected: [{ name, label: values[0]!.label }],
        options: [{ name, values: values.map((v) => ({ ...v, exists: true, available: true })) }],
      });
      expect(one.product.variants, at).toEqual(want.variants.map((v) => expect.objectContaining(v)));
    }
    // Selections name the options as the answer did: in French, in French.
    const picked = ucpGetProductResponse.parse(
      (
        await post('product', {
          id: p.id,
          context: { language: 'fr' },
          selected: [{ name: 'Taille', label: 'Grande' }],
        })
      ).body,
    );
    expect(picked.product.selected).toEqual([{ name: 'Taille', label: 'Grande' }]);
    // A product not found is said in the context's language.
    const none = await post('product', { id: 'products:nope', context: { language: 'fr-CA' } });
    expect(none.body.messages).toEqual([
      expect.objectContaining({ code: 'not_found', content: expect.stringContaining('introuvable') }),
    ]);
  });
});
