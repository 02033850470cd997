// Each kind of answer of both protocols against the official schemas of the versions we claim
// (ACP 2026-04-17, UCP v2026-04-08: test/official-schemas/README.md), from the real app over
// HTTP: ACP's five session operations, its errors, delegate payment and its errors, discovery and
// the order events we send; UCP's five checkout operations, its business outcomes, orders, order
// webhooks, the catalog and our profile; and the results of both protocols' MCP tools. The ACP,
// UCP and MCP test files check every answer they get the same way (through their helpers); this
// file sees each kind at least once, and first shows that the checks refuse what they should.
// UCP's protocol errors (4xx/5xx `{code, content}`) have no official schema, and are not here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACP_ON,
  ACP_VERSION,
  AcpClient,
  CAPABILITIES,
  checkoutOfSession,
  issuePlatform,
  type Receiver,
  startReceiver,
} from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { type Answer, listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, product, seller, uniqueEmail, uniqueWord } from './helpers/builders.ts';
import { mcpMessage, postMcp } from './helpers/mcp.ts';
import {
  type AcpDefinition,
  acpProblems,
  acpToolProblems,
  expectOfficial,
  ucpOrderProblems,
  ucpProfileProblems,
  ucpRestProblems,
  ucpToolProblems,
} from './helpers/official-schemas.ts';
import { cancel, ordersOfCheckout, ship } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UcpClient,
  type UcpPlatform,
  verifiedUcpWebhook,
} from './helpers/ucp.ts';

// UCP wants https URLs in its answers: the app's public URL is one.
const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

let baseUrl: string;
let boss: SignedIn;
let shop: SignedIn;
let hooks: Receiver;
let profiles: ProfileServer;
let acpKey: string;
let acp: AcpClient;
let ucpPlatform: UcpPlatform;
let ucp: UcpClient;
beforeAll(async () => {
  baseUrl = await listen(t);
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  hooks = await startReceiver();
  profiles = await startProfileServer();
  acpKey = (await issuePlatform(t.api, boss, hooks.url)).apiKey;
  acp = new AcpClient(t.api, acpKey, t.clock.now);
  profiles.documents.set('/agent.json', { body: platformProfile(hooks.url) });
  ucpPlatform = await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`);
  ucp = new UcpClient(t.api, ucpPlatform);
});
afterAll(async () => {
  await hooks.close();
  await profiles.close();
});

const newProduct = () => product(t.api, shop, { priceCents: 2500, stockQuantity: 20 });
const acpBuyer = () => ({ email: uniqueEmail('official'), first_name: 'Avery', last_name: 'Tremblay' });
const shipTo = { methods: [{ type: 'shipping', destinations: [UCP_ON] }] };

/** Asserts an answer's status, then that the official ACP schema takes its body as `kind`. */
function acpAnswer(res: Answer, status: number, kind: AcpDefinition) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expectOfficial(acpProblems(kind, res.body), res.body);
  return res.body;
}

/** Asserts an answer's status, then that the official UCP REST binding takes its body as `operation`'s. */
function ucpAnswer(res: Answer, status: number, operation: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expectOfficial(ucpRestProblems(operation, status, res.body), res.body);
  return res.body;
}

/** An ACP session of ours, held and ready to pay. */
async function acpSession() {
  const p = await newProduct();
  const res = await acp.create({
    line_items: [{ id: p.id, quantity: 2 }],
    buyer: acpBuyer(),
    fulfillment_details: ACP_ON,
  });
  return acpAnswer(res, 201, 'session');
}

/** A UCP checkout of ours, ready for complete. */
async function ucpCheckout() {
  const p = await newProduct();
  const res = await ucp.create({
    line_items: [{ item: { id: p.id }, quantity: 2 }],
    buyer: { email: uniqueEmail('official') },
    fulfillment: shipTo,
  });
  return ucpAnswer(res, 201, 'create_checkout');
}

describe('the checks refuse what the official schemas refuse', () => {
  it("an ACP line item's item with quantity, over REST and as an MCP tool's result", async () => {
    const session = await acpSession();
    const echoed = structuredClone(session);
    echoed.line_items[0].item.quantity = 2;
    const complaint = expect.stringMatching(
      /^\/line_items\/0\/item must NOT have additional properties \(quantity\)/,
    );
    expect(acpProblems('session', echoed)).toContainEqual(complaint);
    expect(acpToolProblems('create_checkout_session', echoed)).toContainEqual(complaint);
  });

  it('an ACP complete answer without its order; an error of another type; a delegate error of another code', async () => {
    const session = await acpSession();
    expect(acpProblems('completed', { ...session, status: 'completed' })).toContainEqual(
      expect.stringMatching(/must have required property 'order'/),
    );
    expect(acpProblems('error', { type: 'not_found', code: 'not_found', message: 'No' })).not.toEqual([]);
    expect(
      acpProblems('delegateError', { type: 'invalid_request', code: 'unauthorized', message: 'No' }),
    ).not.toEqual([]);
  });

  it("an ACP order event whose line quantity is 2026-04-17's first model (ordered/shipped)", () => {
    const event = {
      type: 'order_create',
      data: {
        type: 'order',
        id: 'order_1',
        checkout_session_id: 'acp_cs_1',
        permalink_url: 'https://portage.test/checkout/1',
        status: 'confirmed',
        line_items: [{ id: 'line_1', title: 'Paddle', quantity: { ordered: 1, shipped: 0 } }],
      },
    };
    expect(acpProblems('webhookEvent', event)).not.toEqual([]);
    event.data.line_items[0]!.quantity = { ordered: 1, current: 1, fulfilled: 0 } as never;
    expect(acpProblems('webhookEvent', event)).toEqual([]);
  });

  it('a UCP checkout of a status UCP lacks; a malformed fulfillment once the extension is negotiated; an empty error response', async () => {
    const checkout = await ucpCheckout();
    expect(ucpRestProblems('get_checkout', 200, { ...checkout, status: 'expired' })).not.toEqual([]);
    // checkout.json takes any field: only the fulfillment extension's schema knows this one.
    expect(
      ucpRestProblems('get_checkout', 200, { ...checkout, fulfillment: { methods: 'ship it' } }),
    ).toContainEqual(expect.stringMatching(/^\/fulfillment\/methods must be array/));
    const empty = { ucp: { version: '2026-04-08', status: 'error' }, messages: [] };
    expect(ucpRestProblems('get_checkout', 200, empty)).not.toEqual([]);
    expect(ucpToolProblems('get_order', checkout)).not.toEqual([]);
  });

  it('a UCP profile whose MCP binding has no endpoint; an order without its checkout', async () => {
    const profile = (await t.api.get('/.well-known/ucp')).body;
    const noEndpoint = structuredClone(profile);
    delete noEndpoint.ucp.services['dev.ucp.shopping'][1].endpoint;
    expect(noEndpoint.ucp.services['dev.ucp.shopping'][1].transport).toBe('mcp');
    expect(ucpProfileProblems(noEndpoint)).toContainEqual(
      expect.stringMatching(/must have required property 'endpoint'/),
    );
    const order = {
      ucp: { version: '2026-04-08' },
      id: 'order_1',
      permalink_url: 'https://portage.test/orders/1',
      line_items: [],
      fulfillment: {},
      currency: 'CAD',
      totals: [],
    };
    expect(ucpOrderProblems(order)).toContainEqual(expect.stringMatching(/required property 'checkout_id'/));
  });
});

describe('ACP over REST', () => {
  it('discovery is the spec DiscoveryResponse', async () => {
    acpAnswer(await t.api.get('/.well-known/acp.json'), 200, 'discovery');
  });

  it('create, update, retrieve, complete and cancel answer CheckoutSession (complete CheckoutSessionWithOrder)', async () => {
    const created = await acpSession();
    acpAnswer(
      await acp.update(created.id, { line_items: [{ id: created.line_items[0].item.id, quantity: 1 }] }),
      200,
      'session',
    );
    acpAnswer(await acp.get(created.id), 200, 'session');
    const done = acpAnswer(await acp.pay(created.id), 200, 'completed');
    expect(done.status).toBe('completed');
    const other = await acpSession();
    expect(acpAnswer(await acp.cancel(other.id), 200, 'session').status).toBe('canceled');
    // Not ready for payment: no buyer, no address.
    const p = await newProduct();
    const bare = acpAnswer(await acp.create({ line_items: [{ id: p.id }] }), 201, 'session');
    expect(bare.status).toBe('not_ready_for_payment');
    // A coupon applied and one refused.
    const { code } = await coupon(t.api, boss, { discountPercent: 10, expirationDate: '2099-12-31' });
    const discounted = await acp.create({
      line_items: [{ id: p.id }],
      buyer: acpBuyer(),
      fulfillment_details: ACP_ON,
      discounts: { codes: [code, 'NOPE'] },
    });
    expect(acpAnswer(discounted, 201, 'session').discounts.applied).toHaveLength(1);
    // A card that needs its holder refused at complete (402), the session as it was.
    const vaulted = await acp.delegate(discounted.body.id, { card: '4000002760003184' });
    acpAnswer(await acp.complete(discounted.body.id, vaulted.body.id), 402, 'error');
  });

  it('every refusal is the spec Error', async () => {
    const completed = await acpSession();
    await acp.pay(completed.id);
    const post = (path: string, body: unknown, headers: Record<string, string>, key = acpKey) =>
      t.api.as(key).post(`/acp${path}`, body, headers);
    const create = { currency: 'cad', capabilities: CAPABILITIES, line_items: [{ id: 'x' }] };
    const answers: Array<[Answer, number]> = [
      [await acp.get('acp_cs_nope'), 404],
      [await post('/checkout_sessions', create, { 'idempotency-key': 'k-1' }), 400],
      [
        await post('/checkout_sessions', create, { 'idempotency-key': 'k-2', 'api-version': '2020-01-01' }),
        400,
      ],
      [await post('/checkout_sessions', create, { 'api-version': ACP_VERSION }), 400],
      [await post('/checkout_sessions', create, acp.headers(), 'acp_nope'), 401],
      [await post('/checkout_sessions', { ...create, line_items: [{ id: 7 }] }, acp.headers()), 400],
      [await acp.cancel(completed.id), 405],
      [await t.api.as(acpKey).get('/acp/nowhere', acp.headers({}, false)), 404],
    ];
    const key = acp.headers();
    await post('/checkout_sessions', create, key);
    answers.push([await post('/checkout_sessions', { ...create, locale: 'fr-CA' }, key), 422]);
    for (const [res, status] of answers) acpAnswer(res, status, 'error');
  });

  it('delegate payment answers the spec DelegatePaymentResponse, and refuses in its Error', async () => {
    const session = await acpSession();
    acpAnswer(await acp.delegate(session.id), 201, 'delegated');
    acpAnswer(await acp.delegate(session.id, { card: '5555555555554444' }), 400, 'delegateError');
    const noKey = await t.api
      .as(acpKey)
      .post('/agentic_commerce/delegate_payment', { payment_method: {} }, { 'api-version': ACP_VERSION });
    acpAnswer(noKey, 400, 'delegateError');
    // Delegate payment's Error has no code for a refused credential (its list is closed): that
    // refusal is said as the checkout API's Error.
    const stranger = await new AcpClient(t.api, 'acp_nope', t.clock.now).delegate(session.id);
    acpAnswer(stranger, 401, 'error');
  });

  it('the order events we send are the webhook WebhookEvent: order_create, then order_update', async () => {
    const session = await acpSession();
    await acp.pay(session.id);
    const [order] = await ordersOfCheckout(database, await checkoutOfSession(database, session.id));
    await ship(t, shop, order!.id);
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();
    const events = hooks.received
      .map((r) => JSON.parse(r.body))
      .filter((e) => e.data?.checkout_session_id === session.id);
    expect(events.map((e) => e.type)).toEqual(['order_create', 'order_update']);
    for (const event of events) expectOfficial(acpProblems('webhookEvent', event), event);
  });
});

describe('UCP over REST', () => {
  it('our profile is the discovery schema business profile', async () => {
    const res = await t.api.get('/.well-known/ucp');
    expect(res.status).toBe(200);
    expectOfficial(ucpProfileProblems(res.body), res.body);
  });

  it('create, update, get, complete and cancel answer the checkout with its negotiated extensions', async () => {
    const created = await ucpCheckout();
    const line = created.line_items[0];
    const updated = await ucp.update(created.id, {
      line_items: [{ id: line.id, item: { id: line.item.id }, quantity: 1 }],
      buyer: created.buyer,
      fulfillment: {
        methods: [{ id: 'shipping', type: 'shipping', line_item_ids: [line.id], destinations: [UCP_ON] }],
      },
    });
    ucpAnswer(updated, 200, 'update_checkout');
    ucpAnswer(await ucp.get(created.id), 200, 'get_checkout');
    const token = await new AcpClient(t.api, ucpPlatform.apiKey, t.clock.now).delegate(created.id);
    const done = ucpAnswer(await ucp.complete(created.id, token.body.id), 200, 'complete_checkout');
    expect(done.status).toBe('completed');
    const other = await ucpCheckout();
    expect(ucpAnswer(await ucp.cancel(other.id), 200, 'cancel_checkout').status).toBe('canceled');
  });

  it('a discount applied, and an escalation with its continue_url, are the checkout with its extensions', async () => {
    const p = await newProduct();
    const { code } = await coupon(t.api, boss, { discountPercent: 10, expirationDate: '2099-12-31' });
    const created = await ucp.create({
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: uniqueEmail('official') },
      fulfillment: shipTo,
      discounts: { codes: [code] },
    });
    expect(ucpAnswer(created, 201, 'create_checkout').discounts.applied).toHaveLength(1);
    const vault = new AcpClient(t.api, ucpPlatform.apiKey, t.clock.now);
    const needsHolder = await vault.delegate(created.body.id, { card: '4000002760003184' });
    const escalated = ucpAnswer(
      await ucp.complete(created.body.id, needsHolder.body.id),
      200,
      'complete_checkout',
    );
    expect(escalated).toMatchObject({ status: 'requires_escalation', continue_url: expect.any(String) });
  });

  it('a business outcome is the error response: not found, capabilities incompatible, a declined card on the checkout', async () => {
    expect(ucpAnswer(await ucp.get('ucp_cs_nope'), 200, 'get_checkout').messages[0].code).toBe('not_found');
    profiles.documents.set('/orders-only.json', {
      body: platformProfile(hooks.url, {
        'dev.ucp.shopping.order': [
          {
            version: '2026-04-08',
            spec: 'https://ucp.dev/2026-04-08/specification/order',
            schema: 'https://ucp.dev/2026-04-08/schemas/shopping/order.json',
            config: { webhook_url: hooks.url },
          },
        ],
      }),
    });
    const ordersOnly = new UcpClient(
      t.api,
      await issueUcpPlatform(t.api, boss, `${profiles.base}/orders-only.json`),
    );
    const p = await newProduct();
    const incompatible = await ordersOnly.create({ line_items: [{ item: { id: p.id }, quantity: 1 }] });
    expect(ucpAnswer(incompatible, 200, 'create_checkout').messages[0].code).toBe(
      'capabilities_incompatible',
    );
    const created = await ucpCheckout();
    const vault = new AcpClient(t.api, ucpPlatform.apiKey, t.clock.now);
    const declined = await vault.delegate(created.id, { card: '4000000000000002' });
    const failed = ucpAnswer(await ucp.complete(created.id, declined.body.id), 200, 'complete_checkout');
    expect(failed.messages).toEqual([expect.objectContaining({ code: 'payment_failed' })]);
  });

  it('an order, its not found, and the order webhooks we send are the order schema', async () => {
    const created = await ucpCheckout();
    const vault = new AcpClient(t.api, ucpPlatform.apiKey, t.clock.now);
    const done = await ucp.complete(created.id, (await vault.delegate(created.id)).body.id);
    const read = (id: string) => t.api.get(`/ucp/v1/orders/${id}`, ucp.headers({}, false));
    ucpAnswer(await read(done.body.order.id), 200, 'get_order');
    ucpAnswer(await read('order_nope'), 200, 'get_order');

    const [order] = await ordersOfCheckout(database, await checkoutOfSession(database, created.id));
    await ship(t, shop, order!.id);
    await t.app.jobs.runOnce();
    await t.app.jobs.runOnce();
    const hooksOf = (id: string) => hooks.received.filter((r) => JSON.parse(r.body).checkout_id === id);
    expect(hooksOf(created.id)).toHaveLength(2);
    // verifiedUcpWebhook checks each body against order.json as well as its signature.
    for (const hook of hooksOf(created.id)) await verifiedUcpWebhook(t.api, hooks.url, hook);

    // Cancelled by its seller and refunded: the events, then the order with its adjustment.
    const other = await ucpCheckout();
    const paid = await ucp.complete(other.id, (await vault.delegate(other.id)).body.id);
    const [second] = await ordersOfCheckout(database, await checkoutOfSession(database, other.id));
    await cancel(t, shop, second!.id);
    for (let pass = 0; pass < 4; pass++) await t.app.jobs.runOnce();
    expect(hooksOf(other.id).length).toBeGreaterThanOrEqual(3);
    for (const hook of hooksOf(other.id)) await verifiedUcpWebhook(t.api, hooks.url, hook);
    const refunded = ucpAnswer(await read(paid.body.order.id), 200, 'get_order');
    expect(refunded.adjustments).toHaveLength(1);
  });

  it('the catalog: search, lookup and product answers, and a product not found', async () => {
    const p = await newProduct();
    const post = (path: string, body: unknown) =>
      t.api.post(`/ucp/v1/catalog/${path}`, body, ucp.headers({}, false));
    const found = ucpAnswer(await post('search', { query: p.title }), 200, 'search_catalog');
    expect(found.products.map((x: { id: string }) => x.id)).toContain(p.id);
    ucpAnswer(await post('lookup', { ids: [p.id, 'products:nope'] }), 200, 'lookup_catalog');
    ucpAnswer(await post('product', { id: p.id }), 200, 'get_product');
    ucpAnswer(await post('product', { id: 'products:nope' }), 200, 'get_product');
  });
});

describe('variants on the wire', () => {
  /** A T-shirt in two sizes: the medium with a compare-at price and a barcode. */
  async function shirt() {
    const res = await t.api.as(shop).post('/products', {
      title: `Merino T-shirt ${uniqueWord()}`,
      weight: 0.2,
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, priceCents: 3900, stockQuantity: 5 },
        {
          options: { Size: 'M' },
          priceCents: 4200,
          compareAtPriceCents: 4900,
          stockQuantity: 5,
          barcode: '0628176012345',
        },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string; variants: Array<{ id: string; sku: string }> };
  }

  it("UCP's catalog answers a product's options and its variants, each the item id a checkout takes", async () => {
    const p = await shirt();
    const [small, medium] = p.variants;
    const post = (path: string, body: unknown) =>
      t.api.post(`/ucp/v1/catalog/${path}`, body, ucp.headers({}, false));
    const { product: got } = ucpAnswer(await post('product', { id: p.id }), 200, 'get_product');
    expect(got).toMatchObject({
      id: p.id,
      price_range: { min: { amount: 3900, currency: 'CAD' }, max: { amount: 4200, currency: 'CAD' } },
      options: [{ name: 'Size', values: [{ label: 'S' }, { label: 'M' }] }],
    });
    expect(got.variants).toEqual([
      expect.objectContaining({
        id: small!.id,
        sku: small!.sku,
        title: 'S',
        options: [{ name: 'Size', label: 'S' }],
      }),
      expect.objectContaining({
        id: medium!.id,
        title: 'M',
        price: { amount: 4200, currency: 'CAD' },
        list_price: { amount: 4900, currency: 'CAD' },
        barcodes: [{ type: 'GTIN', value: '0628176012345' }],
        availability: { available: true, status: 'in_stock' },
      }),
    ]);
    ucpAnswer(await post('search', { query: p.title }), 200, 'search_catalog');
    ucpAnswer(await post('lookup', { ids: [p.id] }), 200, 'lookup_catalog');
    // By a variant's id: the lookup's variant `exact`, the product's `featured`; get_product selects it.
    const looked = ucpAnswer(
      await post('lookup', { ids: [medium!.id, p.id, 'variants:nope'] }),
      200,
      'lookup_catalog',
    );
    expect(looked.products[0].variants.map((v: { inputs: unknown }) => v.inputs)).toEqual([
      [{ id: p.id, match: 'featured' }],
      [{ id: medium!.id, match: 'exact' }],
    ]);
    const { product: chosen } = ucpAnswer(await post('product', { id: medium!.id }), 200, 'get_product');
    expect([chosen.selected, chosen.variants.map((v: { id: string }) => v.id)]).toEqual([
      [{ name: 'Size', label: 'M' }],
      [medium!.id],
    ]);
    ucpAnswer(await post('product', { id: 'variants:nope' }), 200, 'get_product');
  });

  it('UCP and ACP sessions hold a variant given as the item id, and answer it so', async () => {
    const p = await shirt();
    const medium = p.variants[1]!;
    const u = ucpAnswer(
      await ucp.create({
        line_items: [{ item: { id: medium.id }, quantity: 1 }],
        buyer: { email: uniqueEmail('official') },
        fulfillment: shipTo,
      }),
      201,
      'create_checkout',
    );
    expect(u.line_items[0].item).toMatchObject({ id: medium.id, title: `${p.title}, M`, price: 4200 });
    const a = acpAnswer(
      await acp.create({
        line_items: [{ id: medium.id, quantity: 1 }],
        buyer: acpBuyer(),
        fulfillment_details: ACP_ON,
      }),
      201,
      'session',
    );
    expect(a.line_items[0].item).toEqual({ id: medium.id });
    expect(a.line_items[0].name).toBe(`${p.title}, M`);
  });
});

describe("the MCP tools' results", () => {
  it("ACP's five tools on /mcp answer the binding's results; an ACP error in a JSON-RPC error's data is the spec Error", async () => {
    const person = await buyer(t.api, 'official-mcp');
    const token = (await agentToken(t, database, person, ['shop'])).token;
    const meta = { api_version: ACP_VERSION };
    const call = async (name: string, args: unknown) => {
      const answer = await mcpMessage(
        await postMcp(
          baseUrl,
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
          token,
        ),
      );
      return answer;
    };
    const result = async (name: string, args: unknown) => {
      const answer = await call(name, args);
      expect(answer.result && !answer.result.isError, JSON.stringify(answer)).toBe(true);
      const session = answer.result.structuredContent;
      expectOfficial(acpToolProblems(name, session), session);
      return session;
    };
    const p = await newProduct();
    const payload = {
      currency: 'cad',
      capabilities: CAPABILITIES,
      line_items: [{ id: p.id, quantity: 1 }],
      fulfillment_details: ACP_ON,
    };
    const created = await result('create_checkout_session', { meta, payload });
    await result('get_checkout_session', { meta, id: created.id });
    await result('update_checkout_session', {
      meta,
      id: created.id,
      payload: { line_items: [{ id: p.id, quantity: 2 }] },
    });
    const vaulted = await new AcpClient(t.api, token, t.clock.now).delegate(created.id);
    const complete = {
      payment_data: {
        handler_id: 'portage_sandbox_card',
        instrument: { type: 'card', credential: { type: 'spt', token: vaulted.body.id } },
      },
    };
    expect(
      (await result('complete_checkout_session', { meta, id: created.id, payload: complete })).status,
    ).toBe('completed');
    // Another call (the same arguments would replay the first: docs/acp.md "MCP binding").
    const other = await result('create_checkout_session', {
      meta,
      payload: { ...payload, line_items: [{ id: p.id, quantity: 3 }] },
    });
    expect((await result('cancel_checkout_session', { meta, id: other.id })).status).toBe('canceled');

    const refused = await call('get_checkout_session', { meta, id: 'acp_cs_nope' });
    expect(refused.error.code).toBe(-32000);
    expectOfficial(acpProblems('error', refused.error.data), refused.error.data);
  });

  it("UCP's nine tools on /ucp/mcp answer the binding's results", async () => {
    const meta = { 'ucp-agent': { profile: ucpPlatform.profileUrl } };
    const result = async (name: string, args: unknown) => {
      const res = await fetch(`${baseUrl}/ucp/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-api-key': ucpPlatform.apiKey,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      const answer = await mcpMessage(res);
      expect(answer.result && !answer.result.isError, JSON.stringify(answer)).toBe(true);
      const payload = answer.result.structuredContent;
      expectOfficial(ucpToolProblems(name, payload), payload);
      return payload;
    };
    const p = await newProduct();
    await result('search_catalog', { meta, catalog: { query: p.title } });
    await result('lookup_catalog', { meta, catalog: { ids: [p.id, 'variants:nope'] } });
    await result('get_product', { meta, catalog: { id: p.id } });
    const checkout = {
      line_items: [{ item: { id: p.id }, quantity: 1 }],
      buyer: { email: uniqueEmail('official-ucp') },
      fulfillment: shipTo,
    };
    const created = await result('create_checkout', { meta, checkout });
    await result('get_checkout', { meta, id: created.id });
    const line = created.line_items[0];
    await result('update_checkout', {
      meta,
      id: created.id,
      checkout: {
        ...checkout,
        line_items: [{ id: line.id, item: { id: p.id }, quantity: 2 }],
        fulfillment: {
          methods: [{ id: 'shipping', type: 'shipping', line_item_ids: [line.id], destinations: [UCP_ON] }],
        },
      },
    });
    const token = await new AcpClient(t.api, ucpPlatform.apiKey, t.clock.now).delegate(created.id);
    const instrument = {
      id: 'pi_1',
      handler_id: 'portage_sandbox_card',
      type: 'card',
      credential: { type: 'token', token: token.body.id },
    };
    const done = await result('complete_checkout', {
      meta: { ...meta, 'idempotency-key': crypto.randomUUID() },
      id: created.id,
      checkout: { payment: { instruments: [instrument] } },
    });
    expect(done.status).toBe('completed');
    await result('get_order', { meta, id: done.order.id });
    await result('get_order', { meta, id: 'order_nope' });
    const other = await result('create_checkout', {
      meta,
      checkout: { ...checkout, line_items: [{ item: { id: p.id }, quantity: 3 }] },
    });
    const canceled = await result('cancel_checkout', {
      meta: { ...meta, 'idempotency-key': crypto.randomUUID() },
      id: other.id,
    });
    expect(canceled.status).toBe('canceled');
  });
});
