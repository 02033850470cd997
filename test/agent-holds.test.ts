// Nobody hoards stock through the agent protocols, and nobody makes us work for nothing: an
// unverified person's cap counts all their open holds of a product, whatever the channel; a
// canceled hold starts the cool-down as a lapse does; a person's agent creating sessions spends
// the person's checkout budget; refusals of unknown callers are counted before the work that
// refuses them; a UCP profile that could not be fetched is refused again without a fetch.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/http/rate-limit.ts';
import { idempotencyKeys } from '../src/modules/system/tables.ts';
import { FAILURE_SECONDS } from '../src/modules/ucp/agent.ts';
import { ACP_ON, ACP_VERSION, AcpClient, issuePlatform } from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { type SignedIn, useTestApp, withTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, product, seller, uniqueEmail } from './helpers/builders.ts';
import { addToCart, checkout } from './helpers/checkout.ts';
import { liveReservedUnits } from './helpers/orders.ts';
import { issueUcpPlatform, platformProfile, startProfileServer } from './helpers/ucp.ts';

const { t, database } = useTestApp();

let shop: SignedIn;
let platform: AcpClient;
beforeAll(async () => {
  t.clock.freeze();
  shop = await seller(t.api);
  platform = new AcpClient(
    t.api,
    (await issuePlatform(t.api, await admin(t.api, database))).apiKey,
    t.clock.now,
  );
});

const paddle = () =>
  product(t.api, shop, { title: 'Birch canoe paddle', priceCents: 5000, stockQuantity: 100 });
const lines = (productId: string, quantity: number) => ({ line_items: [{ id: productId, quantity }] });

describe('an unverified person holds at most 5 units of a product in all their checkouts together', () => {
  it('through their own agent: a second session of the product is refused; so is their own cart', async () => {
    const p = await paddle();
    const person = await buyer(t.api, 'hoarder');
    const agent = new AcpClient(t.api, (await agentToken(t, database, person, ['shop'])).token, t.clock.now);
    const first = await agent.create({ ...lines(p.id, 4), fulfillment_details: ACP_ON });
    expect(first.body.status).toBe('ready_for_payment');
    const second = await agent.create({ ...lines(p.id, 2), fulfillment_details: ACP_ON });
    expect(second.body.status).toBe('not_ready_for_payment');
    expect(second.body.messages).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'quantity_exceeded',
        param: '$.line_items[0]',
        resolution: 'requires_buyer_input',
        content: `Verify your email address to check out more than 5 of a product: Birch canoe paddle (${p.id}): 2 asked for, and 4 held by your other checkouts`,
      }),
    ]);
    expect(await liveReservedUnits(database, p.id)).toBe(4);

    await addToCart(t.api, person, p.id, 2);
    expectError(
      await checkout(t.api, person),
      'CONFLICT',
      409,
      `Verify your email address to check out more than 5 of a product: Birch canoe paddle (${p.id}): 2 asked for, and 4 held by your other checkouts`,
    );
    // One more unit still fits.
    await t.api.as(person).put(`/cart/items/${encodeURIComponent(p.id)}`, { quantity: 1 });
    expect((await checkout(t.api, person)).status).toBe(201);
    expect(await liveReservedUnits(database, p.id)).toBe(5);
    // A session's own quote replaces its own hold: changing its quantity within the cap holds.
    const changed = await agent.update(first.body.id, lines(p.id, 3));
    expect(changed.body.status).toBe('ready_for_payment');
    expect(await liveReservedUnits(database, p.id)).toBe(4);
  });

  it('through a platform naming the address: four sessions of 5 units hold 5, not 20', async () => {
    const p = await paddle();
    const email = uniqueEmail('guest');
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await platform.create({
        ...lines(p.id, 5),
        buyer: { email, first_name: 'Avery' },
        fulfillment_details: ACP_ON,
      });
      statuses.push(res.body.status);
    }
    expect(statuses).toEqual([
      'ready_for_payment',
      'not_ready_for_payment',
      'not_ready_for_payment',
      'not_ready_for_payment',
    ]);
    expect(await liveReservedUnits(database, p.id)).toBe(5);
  });
});

describe('a canceled hold', () => {
  it('starts the cool-down as a lapse does: the same product is not held again for 15 minutes', async () => {
    const p = await paddle();
    const buyerOf = { email: uniqueEmail('canceler'), first_name: 'Avery' };
    const body = { ...lines(p.id, 5), buyer: buyerOf, fulfillment_details: ACP_ON };
    const held = await platform.create(body);
    expect(held.body.status).toBe('ready_for_payment');
    expect((await platform.cancel(held.body.id)).body.status).toBe('canceled');
    expect(await liveReservedUnits(database, p.id)).toBe(0);

    const again = await platform.create(body);
    expect(again.body.status).toBe('not_ready_for_payment');
    expect(again.body.messages).toEqual([
      expect.objectContaining({ code: 'conflict', param: '$.line_items[0]' }),
    ]);
    expect(await liveReservedUnits(database, p.id)).toBe(0);

    t.clock.advance(15 * 60);
    expect((await platform.create(body)).body.status).toBe('ready_for_payment');
  });
});

describe('with rate limits on', () => {
  it('a person’s agent creating sessions spends the person’s checkout budget', async () => {
    await withTestApp(
      async (app, db) => {
        const s = await seller(app.api);
        const p = await product(app.api, s, { stockQuantity: 100 });
        const person = await buyer(app.api, 'busy');
        const agent = new AcpClient(
          app.api,
          (await agentToken(app, db, person, ['shop'])).token,
          app.clock.now,
        );
        const first = { 'idempotency-key': randomUUID() };
        expect((await agent.create({ ...lines(p.id, 1), fulfillment_details: ACP_ON }, first)).status).toBe(
          201,
        );
        // A retry replays the session it made, and spends nothing.
        for (let i = 0; i < 3; i++) {
          const replay = await agent.create({ ...lines(p.id, 1), fulfillment_details: ACP_ON }, first);
          expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
        }
        for (let i = 1; i < LIMITS.checkout; i++) {
          expect((await agent.create({ ...lines(p.id, 1), fulfillment_details: ACP_ON })).status).toBe(201);
        }
        const over = await agent.create({ ...lines(p.id, 1), fulfillment_details: ACP_ON });
        expect(over.status).toBe(429);
        expect(over.body).toMatchObject({ type: 'invalid_request', code: 'rate_limited' });
        expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
        // The same budget as the person's own checkout.
        await addToCart(app.api, person, p.id, 1);
        expect((await checkout(app.api, person)).status).toBe(429);
        // A rate limit ran nothing: nothing is kept under its key, which runs once the minute has passed.
        const key = randomUUID();
        const again = await agent.create(
          { ...lines(p.id, 1), fulfillment_details: ACP_ON },
          { 'idempotency-key': key },
        );
        expect(again.status).toBe(429);
        expect(await db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key))).toEqual([]);
      },
      { env: { RATE_LIMITS: 'on' } },
    );
  });

  it('refusals of callers not yet known are counted first: past 30 from an address, 429 before any lookup', async () => {
    await withTestApp(
      async (app, db) => {
        const known = (await issuePlatform(app.api, await admin(app.api, db))).apiKey;
        const ip = '203.0.113.70';
        const acp = (key: string, version = ACP_VERSION) =>
          app.api
            .from(ip)
            .as(key)
            .get(
              `/acp/checkout_sessions/acp_cs_${'x'.repeat(15)}`,
              version ? { 'api-version': version } : {},
            );
        // The platform's good key was accepted from this address before the junk came.
        expect((await acp(known)).status).toBe(404);
        for (let i = 0; i < LIMITS.agentRefusals / 2; i++) {
          expect((await acp(`acp_unknown_${i}`)).status).toBe(401);
          expect((await acp(known, '')).status).toBe(400);
        }
        const over = await acp('acp_unknown_last');
        expect(over.status).toBe(429);
        expect(over.body).toMatchObject({ type: 'invalid_request', code: 'rate_limited' });
        // A key accepted here lately still works behind that address.
        expect((await acp(known)).status).toBe(404);
        const ucp = await app.api
          .from(ip)
          .get('/ucp/v1/checkout-sessions/ucp_cs_x', { 'x-api-key': 'acp_nope' });
        expect(ucp.status).toBe(429);
        expect(ucp.body).toMatchObject({ code: 'rate_limited' });
        // Another address is not concerned.
        expect(
          (await app.api.from('203.0.113.71').as('acp_unknown').get('/acp/checkout_sessions/x')).status,
        ).toBe(401);
      },
      { env: { RATE_LIMITS: 'on' } },
    );
  });
});

describe('a UCP profile that could not be fetched', () => {
  it(`is refused again for ${FAILURE_SECONDS} s without another fetch`, async () => {
    const server = await startProfileServer();
    try {
      const profileUrl = `${server.base}/down.json`;
      const registered = await issueUcpPlatform(t.api, await admin(t.api, database), profileUrl);
      const ask = () =>
        t.api.get('/ucp/v1/checkout-sessions/ucp_cs_x', {
          'x-api-key': registered.apiKey,
          'ucp-agent': `profile="${profileUrl}"`,
        });
      for (let i = 0; i < 3; i++) {
        const res = await ask();
        expect(res.status).toBe(424);
        expect(res.body.code).toBe('profile_unreachable');
      }
      expect(server.hits.get('/down.json')).toBe(1);
      // Back up: found once the refusal is no longer remembered.
      server.documents.set('/down.json', { body: platformProfile('http://127.0.0.1:9/hooks') });
      expect((await ask()).status).toBe(424);
      t.clock.advance(FAILURE_SECONDS);
      expect((await ask()).status).not.toBe(424);
      expect(server.hits.get('/down.json')).toBe(2);
    } finally {
      await server.close();
    }
  });
});
