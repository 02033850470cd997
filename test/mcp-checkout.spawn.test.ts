// The checkout and order tools (create_checkout, list_orders, get_order, cancel_order) as an
// agent runs them: `portage mcp` as a child process spoken to over stdio by the official MCP
// client, against the real service on a port over a real database. The tool servers reach the
// service through a recording HTTP proxy, so the tests see the Idempotency-Key each call sent.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, pay } from './helpers/checkout.ts';
import { callTool, startToolServer, TOOL_NAMES, toolFailed, toolOk } from './helpers/mcp.ts';

const { t, database } = useTestApp();
let proxyUrl: string;
let proxy: http.Server;
let tools: McpTool[];

const word = uniqueWord();
const p = { paddle: '', tarp: '' };

// ---- a recording proxy in front of the service ----------------------------------------------

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  status: number;
  replayed: boolean;
}
const seen: Seen[] = [];

/** Forwards every request to the service unchanged and writes down what went through. */
function startProxy(target: string): Promise<string> {
  proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || ['host', 'connection', 'content-length'].includes(k)) continue;
      headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const answer = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await answer.arrayBuffer());
    seen.push({
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0]!,
      authorization: req.headers.authorization,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      status: answer.status,
      replayed: answer.headers.get('idempotent-replayed') === 'true',
    });
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!['content-encoding', 'transfer-encoding', 'content-length', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(answer.status, out).end(body);
  });
  return new Promise((resolve) => {
    proxy.listen(0, '127.0.0.1', () => {
      const address = proxy.address();
      if (!address || typeof address === 'string') throw new Error('no proxy address');
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

/** The POST /checkout calls a user's tool server made, oldest first. */
const checkoutCalls = (who: SignedIn) =>
  seen.filter((s) => s.method === 'POST' && s.path === '/checkout' && s.authorization?.includes(who.token));

// ---- tool servers ---------------------------------------------------------------------------

const running: Client[] = [];

async function startAgent(token: string): Promise<Client> {
  const client = await startToolServer(proxyUrl, token);
  running.push(client);
  return client;
}

const call = callTool;
const ok = toolOk;
const failed = toolFailed;

const toolNamed = (name: string): McpTool => {
  const found = tools.find((x) => x.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

const sessionsOf = (who: SignedIn) =>
  database.db.select().from(checkoutSessions).where(eq(checkoutSessions.buyerId, who.id));

// ---- the service and its data ---------------------------------------------------------------

let shopper: SignedIn;
let agent: Client;

beforeAll(async () => {
  proxyUrl = await startProxy(await listen(t));

  const s = await seller(t.api);
  p.paddle = (
    await product(t.api, s, { title: `Cedar paddle ${word}`, priceCents: 4500, stockQuantity: 5 })
  ).id;
  p.tarp = (await product(t.api, s, { title: `Camp tarp ${word}`, priceCents: 9900, stockQuantity: 10 })).id;

  shopper = await buyer(t.api);
  await addToCart(t.api, shopper, p.paddle, 2);
  agent = await startAgent(shopper.token);
  tools = (await agent.listTools()).tools;
});

afterAll(async () => {
  for (const client of running) await client.close().catch(() => {});
  await new Promise((resolve) => proxy?.close(resolve));
});

// ---- tools/list -----------------------------------------------------------------------------

describe('tools/list', () => {
  it('lists the fourteen tools, the checkout and order ones after the shopping ones', () => {
    expect(tools.map((x) => x.name)).toEqual(TOOL_NAMES);
  });

  it('annotates create_checkout idempotent, the order reads read-only, cancel_order destructive', () => {
    expect(toolNamed('create_checkout').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    for (const name of ['list_orders', 'get_order']) {
      expect(toolNamed(name).annotations, name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      });
    }
    expect(toolNamed('cancel_order').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
  });

  it('has the spec’s inputs and an object output schema', () => {
    const expected: Record<string, { required: string[]; properties: string[] }> = {
      create_checkout: {
        required: ['shipping_address'],
        properties: ['shipping_address', 'coupon', 'shipping_choices'],
      },
      list_orders: { required: [], properties: ['status', 'limit', 'offset', 'sort'] },
      get_order: { required: ['id'], properties: ['id'] },
      cancel_order: { required: ['order_id'], properties: ['order_id', 'reason'] },
    };
    for (const [name, want] of Object.entries(expected)) {
      const tool = toolNamed(name);
      expect([...(tool.inputSchema.required ?? [])].sort(), name).toEqual([...want.required].sort());
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), name).toEqual(
        [...want.properties].sort(),
      );
      expect(tool.outputSchema?.type, name).toBe('object');
    }
    // biome-ignore lint/suspicious/noExplicitAny: JSON Schema fragments
    const list = toolNamed('list_orders').inputSchema.properties as Record<string, any>;
    expect(list.status.enum).toEqual(['pending', 'confirmed', 'shipped', 'delivered', 'cancelled']);
    expect(list.limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(list.offset).toMatchObject({ default: 0 });
    expect(list.sort).toMatchObject({ enum: ['newest', 'oldest'], default: 'newest' });
    // The address, with its phone, is described to the agent in full.
    const schema = JSON.stringify(toolNamed('create_checkout').inputSchema);
    for (const field of ['street', 'city', 'province', 'postalCode', 'country', 'phone']) {
      expect(schema).toContain(`"${field}"`);
    }
    expect(Object.keys(toolNamed('create_checkout').outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['sessionId', 'sessionUrl', 'status', 'expiresAt', 'totalCents']),
    );
    expect(Object.keys(toolNamed('cancel_order').outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'status', 'refund_amount_cents']),
    );
  });

  it('tells the agent to show sessionUrl, that no order exists before payment, and to retry with the same input', () => {
    const checkout = toolNamed('create_checkout').description ?? '';
    expect(checkout).toMatch(/sessionUrl/);
    expect(checkout).toMatch(/show/i);
    expect(checkout).toMatch(/no order exists until/i);
    expect(checkout).toMatch(/retry must reuse exactly the same input/i);
    expect(checkout).toMatch(/cents/i);
    const cancel = toolNamed('cancel_order').description ?? '';
    expect(cancel).toMatch(/not shipped/i);
    expect(cancel).toMatch(/refunds it in full/i);
    expect(cancel).toMatch(/request_return/);
    expect(toolNamed('get_order').description).toMatch(/request_return/);
    expect(toolNamed('list_orders').description).toMatch(/cents/i);
  });
});

// ---- create_checkout ------------------------------------------------------------------------

describe('create_checkout', () => {
  it('refuses an invalid address with VALIDATION_ERROR naming the fields, before any request', async () => {
    const before = checkoutCalls(shopper).length;
    const body = failed(
      await call(agent, 'create_checkout', {
        shipping_address: { ...ON_ADDRESS, postalCode: 'H3A 3G4', phone: '416-555-0123' },
      }),
      'VALIDATION_ERROR',
      400,
    );
    expect(body.details?.map((d) => d.field).sort()).toEqual([
      'shipping_address.phone',
      'shipping_address.postalCode',
    ]);
    expect(body.error).toMatch(/ON/);
    const noCountry = failed(
      await call(agent, 'create_checkout', { shipping_address: { ...ON_ADDRESS, country: 'US' } }),
      'VALIDATION_ERROR',
      400,
    );
    expect(noCountry.details?.map((d) => d.field)).toEqual(['shipping_address.country']);
    failed(await call(agent, 'create_checkout', {}), 'VALIDATION_ERROR', 400);
    expect(checkoutCalls(shopper)).toHaveLength(before);
    expect(await sessionsOf(shopper)).toHaveLength(0);
  });

  it('opens a session with sessionUrl; a retry with the same input sends the same key and gets the same session', async () => {
    // A second after the cart was filled: a checkout that stamped the cart as changed would
    // show in its lastUpdated, and the retry would derive another key.
    t.clock.advance(1);
    const first = ok(await call(agent, 'create_checkout', { shipping_address: ON_ADDRESS }));
    expect(first).toMatchObject({
      sessionId: expect.stringMatching(/^checkouts:/),
      status: 'ready_for_payment',
      subtotalCents: 9000,
      discountCents: 0,
      paymentMethods: ['card', 'apple_pay', 'google_pay', 'klarna'],
      orderIds: [],
    });
    expect(first.sessionUrl.startsWith(`${t.config.publicBaseUrl}/sandbox/checkout/`)).toBe(true);
    expect(first.totalCents).toBe(first.subtotalCents + first.shippingCostCents + first.taxAmountCents);
    // No order before payment.
    expect(ok(await call(agent, 'list_orders'))).toEqual({ orders: [], total: 0, limit: 20, offset: 0 });

    // The retry: the same input, its keys in another order.
    const { phone, ...rest } = ON_ADDRESS;
    const again = ok(
      await call(agent, 'create_checkout', {
        shipping_address: { phone, ...Object.fromEntries(Object.entries(rest).reverse()) },
      }),
    );
    expect(again.sessionId).toBe(first.sessionId);
    expect(again).toEqual(first);

    const calls = checkoutCalls(shopper);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
    expect(calls[1]!.idempotencyKey).toBe(calls[0]!.idempotencyKey);
    // The service replays the first answer for the same key (Idempotent-Replayed: true).
    expect(calls.map((c) => [c.status, c.replayed])).toEqual([
      [201, false],
      [201, true],
    ]);
    // One session only, holding the stock once.
    expect(await sessionsOf(shopper)).toHaveLength(1);
    const stock = ok(await call(agent, 'check_inventory', { product_id: p.paddle, quantity: 4 }));
    expect(stock).toMatchObject({ available: false, stock_quantity: 3 });
  });

  it('the same input for a changed cart is a new checkout with a new key; another user never shares a key', async () => {
    const other = await buyer(t.api, 'other');
    await addToCart(t.api, other, p.tarp, 1);
    const client = await startAgent(other.token);
    const first = ok(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
    // Changed at once, within the same second as likely as not.
    ok(await call(client, 'add_to_cart', { product_id: p.tarp, quantity: 1 }));
    const second = ok(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.subtotalCents).toBe(19800);
    const keys = checkoutCalls(other).map((c) => c.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
    const mine = checkoutCalls(shopper).map((c) => c.idempotencyKey);
    for (const key of keys) expect(mine).not.toContain(key);
    // Another input for the same cart: another key too.
    const coupon = failed(
      await call(client, 'create_checkout', {
        shipping_address: ON_ADDRESS,
        coupon: `NOPE${randomBytes(3).toString('hex')}`,
      }),
      'NOT_FOUND',
      404,
    );
    expect(coupon.error).toMatch(/coupon/i);
    const third = checkoutCalls(other).at(-1)!.idempotencyKey;
    expect([...keys]).not.toContain(third);
  });
});

// ---- orders ---------------------------------------------------------------------------------

describe('after payment: list_orders, get_order, cancel_order', () => {
  let orderId: string;

  it('paying in the sandbox makes the order that list_orders and get_order show', async () => {
    const sessions = await sessionsOf(shopper);
    expect(sessions).toHaveLength(1);
    const sessionId = sessions[0]!.id;
    const paid = await pay(t.api, sessionId);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.orderIds).toHaveLength(1);
    orderId = paid.body.orderIds[0];

    const list = ok(await call(agent, 'list_orders'));
    expect(list).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(list.orders).toEqual([
      expect.objectContaining({
        id: orderId,
        buyerId: shopper.id,
        status: 'confirmed',
        itemCount: 2,
        estimatedDelivery: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      }),
    ]);
    expect(ok(await call(agent, 'list_orders', { status: 'shipped' }))).toMatchObject({
      orders: [],
      total: 0,
    });
    expect(
      ok(await call(agent, 'list_orders', { status: 'confirmed', sort: 'oldest', limit: 1 })),
    ).toMatchObject({ total: 1, limit: 1, orders: [{ id: orderId }] });

    const detail = ok(await call(agent, 'get_order', { id: orderId }));
    const http = await t.api.as(shopper).get(`/orders/${encodeURIComponent(orderId)}`);
    expect(detail).toEqual(http.body);
    expect(detail).toMatchObject({
      id: orderId,
      status: 'confirmed',
      subtotalCents: 9000,
      items: [{ productId: p.paddle, quantity: 2, unitPriceCents: 4500 }],
      shippingAddress: { street: ON_ADDRESS.street, postalCode: ON_ADDRESS.postalCode, country: 'CA' },
      paymentIntentId: expect.any(String),
    });
    expect(detail.shippingAddress.phone).toBeUndefined();
    // Paid: the cart is empty, so there is nothing left to check out.
    expect(ok(await call(agent, 'get_cart')).items).toEqual([]);
    failed(await call(agent, 'create_checkout', { shipping_address: ON_ADDRESS }), 'CONFLICT', 409);
    expect(ok(await call(agent, 'check_inventory', { product_id: p.paddle })).stock_quantity).toBe(3);
  });

  it("another user's order is NOT_FOUND, to read and to cancel", async () => {
    const stranger = await startAgent((await buyer(t.api, 'stranger')).token);
    const read = failed(await call(stranger, 'get_order', { id: orderId }), 'NOT_FOUND', 404);
    expect(read.error).toContain(orderId);
    failed(await call(stranger, 'cancel_order', { order_id: orderId, reason: 'not mine' }), 'NOT_FOUND', 404);
    expect(ok(await call(agent, 'get_order', { id: orderId })).status).toBe('confirmed');
  });

  it('cancel_order cancels with a full refund and returns the units to stock; twice is CONFLICT', async () => {
    const detail = ok(await call(agent, 'get_order', { id: orderId }));
    const cancelled = ok(await call(agent, 'cancel_order', { order_id: orderId, reason: 'Changed my mind' }));
    expect(cancelled).toMatchObject({
      id: orderId,
      status: 'cancelled',
      refund_amount_cents: detail.totalAmountCents,
      cancelledAt: expect.any(Number),
    });
    expect(
      ok(await call(agent, 'list_orders', { status: 'cancelled' })).orders.map((o: { id: string }) => o.id),
    ).toEqual([orderId]);
    // Its 2 units are back in stock.
    expect(ok(await call(agent, 'check_inventory', { product_id: p.paddle })).stock_quantity).toBe(5);
    const again = failed(await call(agent, 'cancel_order', { order_id: orderId }), 'CONFLICT', 409);
    expect(again.error.length).toBeGreaterThan(0);
    failed(
      await call(agent, 'cancel_order', { order_id: 'orders:doesNotExist0000000000' }),
      'NOT_FOUND',
      404,
    );
    failed(await call(agent, 'cancel_order', {}), 'VALIDATION_ERROR', 400);
  });
});
