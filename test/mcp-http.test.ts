// The tools over Streamable HTTP at POST /mcp, as a remote agent reaches them: the official SDK
// v2 client (both protocol eras) and raw JSON-RPC over fetch, against the real service on a
// port over a real database, with agents' tokens minted as the authorization server issues them.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, TextContent } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACP_TOOLS } from '../src/contract/acp-tools.ts';
import { TOOLS } from '../src/contract/tools.ts';
import { VOUCHER_HEADER } from '../src/http/auth.ts';
import { LIMITS } from '../src/http/rate-limit.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { agentToken, revokeGrant } from './helpers/agents.ts';
import { listen, type SignedIn, type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { ON_ADDRESS } from './helpers/checkout.ts';
import { type Era, toolFailed, toolOk } from './helpers/mcp.ts';

const { t, database } = useTestApp();
let baseUrl: string;
let shopper: SignedIn;
let agent: string;
const word = uniqueWord();
const ids = { paddle: '', tarp: '' };
const clients: Client[] = [];

const METADATA = 'http://portage.test/.well-known/oauth-protected-resource/mcp';

beforeAll(async () => {
  baseUrl = await listen(t);
  const shop = await seller(t.api);
  ids.paddle = (
    await product(t.api, shop, { title: `Cedar ${word} paddle`, priceCents: 8900, stockQuantity: 5 })
  ).id;
  ids.tarp = (
    await product(t.api, shop, { title: `Ripstop ${word} tarp`, priceCents: 4500, stockQuantity: 5 })
  ).id;
  shopper = await buyer(t.api);
  agent = (await agentToken(t, database, shopper, ['shop', 'orders'])).token;
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** The SDK v2 client at /mcp with `token`, speaking 2025-11-25 (initialize) or 2026-07-28. */
async function connect(token: string, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'portage-remote-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/** A raw POST /mcp of one JSON-RPC message. */
async function post(body: unknown, token?: string, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The one JSON-RPC message of an answer, sent as JSON or as one SSE event. */
async function message(res: Response) {
  const text = await res.text();
  return JSON.parse(
    text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data:'))!
          .slice(5),
  );
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe.each(['legacy', 'modern'] as const)('POST /mcp, %s era', (era) => {
  it('lists the 14 tools with their schemas, then the ACP binding’s 5', async () => {
    const client = await connect(agent, era);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual([...TOOLS, ...ACP_TOOLS].map((x) => x.name));
    expect(tools).toHaveLength(19);
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
  });

  it('searches, fills the cart and checks out: the answers are the API’s', async () => {
    const client = await connect(agent, era);
    const as = t.api.as({ ...shopper, token: agent });

    const found = toolOk(await call(client, 'search_products', { query: word }));
    const direct = (await as.get(`/search/products?q=${word}`)).body;
    expect(found.items).toEqual(direct.results);
    expect(found.total).toBe(2);

    await as.delete(`/cart/items/${encodeURIComponent(ids.paddle)}`);
    const added = toolOk(await call(client, 'add_to_cart', { product_id: ids.paddle, quantity: 1 }));
    const cart = (await as.get('/cart')).body;
    expect(added.cart ?? added).toMatchObject({ items: cart.items });
    expect(toolOk(await call(client, 'get_cart'))).toEqual(cart);

    const session = toolOk(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
    expect(session).toMatchObject({ sessionId: expect.any(String), sessionUrl: expect.any(String) });
    const stored = await as.get(`/checkout/${encodeURIComponent(session.sessionId)}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ totalCents: session.totalCents });
  });

  it('answers a failed call with the error JSON of the API', async () => {
    const client = await connect(agent, era);
    const missing = toolFailed(await call(client, 'get_product', { id: 'products:nope' }), 'NOT_FOUND', 404);
    expect(missing.error).toMatch(/products:nope/);
    toolFailed(
      await call(client, 'add_to_cart', { product_id: ids.paddle, quantity: 0 }),
      'VALIDATION_ERROR',
      400,
    );
  });
});

describe('scopes', () => {
  it('a shop-only token calling list_orders is 403 insufficient_scope naming orders', async () => {
    const shopOnly = (await agentToken(t, database, shopper, ['shop'])).token;
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_orders', arguments: {} } },
      shopOnly,
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="shop orders"');
    expect(challenge).toContain(`resource_metadata="${METADATA}"`);
    expect(await res.json()).toEqual({
      error: 'AUTHZ_ERROR: This needs the "orders" scope, which this agent was not granted',
      code: 'AUTHZ_ERROR',
      statusCode: 403,
    });

    // The SDK client gets the same refusal (its step-up flow needs an OAuth provider).
    const client = await connect(shopOnly, 'modern');
    await expect(client.callTool({ name: 'list_orders', arguments: {} })).rejects.toThrow();
    // Tools of its scope work; tools/list shows every tool (a host asks for more when needed).
    expect((await client.listTools()).tools).toHaveLength(19);
    toolOk(await call(client, 'get_cart'));
  });

  it("a scope the user's role cannot grant is a tool error naming the role, not a step-up challenge", async () => {
    const shopOnly = (await agentToken(t, database, shopper, ['shop'])).token;
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_analytics', arguments: { period: 'day' } },
      },
      shopOnly,
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const client = await connect(shopOnly, 'modern');
    const refused = toolFailed(await call(client, 'get_analytics', { period: 'day' }), 'AUTHZ_ERROR', 403);
    expect(refused.error).toBe(
      'AUTHZ_ERROR: This needs the "analytics" scope, which a buyer cannot grant (administrators only); no agent of this account can do it',
    );
  });

  it("the API's own guard still answers 403 naming the scope for a call past the check", async () => {
    // get_analytics needs `analytics`, which /mcp checks; a buyer holding it is refused by role.
    const all = (await agentToken(t, database, shopper, ['shop', 'orders', 'analytics'])).token;
    const client = await connect(all, 'legacy');
    const refused = toolFailed(await call(client, 'get_analytics', { period: 'day' }), 'AUTHZ_ERROR', 403);
    expect(refused.error).toMatch(/admin/);
  });
});

describe('who may call /mcp', () => {
  const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

  it('no token: 401 with the challenge pointing at the resource metadata', async () => {
    const res = await post(listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(await res.json()).toMatchObject({ code: 'AUTH_ERROR', statusCode: 401 });
  });

  it("a user's API token: 401 invalid_token with the same challenge", async () => {
    const res = await post(listTools, shopper.token);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${METADATA}"`);
    expect(challenge).toContain('error="invalid_token"');
    expect((await res.json()).error).toMatch(/agent's token/);
  });

  it('a garbage token, another audience, a revoked grant: 401', async () => {
    for (const token of ['garbage', 'a.b.c']) {
      const res = await post(listTools, token);
      expect(res.status, token).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${METADATA}"`);
    }
    const other = await agentToken(t, database, shopper, ['shop'], { audience: 'https://elsewhere.example' });
    expect((await post(listTools, other.token)).status).toBe(401);

    const granted = await agentToken(t, database, shopper, ['shop']);
    expect((await post(listTools, granted.token)).status).toBe(200);
    await revokeGrant(t, database, granted.grantId);
    const revoked = await post(listTools, granted.token);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('GET and DELETE /mcp are 405: there are no sessions', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${baseUrl}/mcp`, {
        method,
        headers: { authorization: `Bearer ${agent}`, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
    }
  });

  it('a 2025-era request needs no initialize first: stateless', async () => {
    const res = await post(listTools, agent, { 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(200);
    const json = await message(res);
    expect(json.result.tools).toHaveLength(19);
  });

  it("a web page's request (Origin) is served only for our own origin and MCP_ALLOWED_ORIGINS: otherwise 403", async () => {
    const v = { 'mcp-protocol-version': '2025-11-25' };
    for (const origin of [
      'https://evil.example',
      'http://portage.test.evil.example',
      'null',
      'http://localhost:3000',
    ]) {
      const res = await post(listTools, agent, { ...v, origin });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^Forbidden: requests from the origin /) },
      });
    }
    // Refused before the token is looked at: a page learns nothing from its answer.
    expect((await post(listTools, undefined, { ...v, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(listTools, agent, { ...v, origin: 'http://portage.test' })).status).toBe(200);
    expect((await post(listTools, agent, v)).status).toBe(200);

    const configured = await testApp(database, {
      env: { MCP_ALLOWED_ORIGINS: 'https://agent.example.com/' },
    });
    try {
      const url = await listen(configured);
      const token = (await agentToken(configured, database, shopper, ['shop'])).token;
      const at = (origin: string) =>
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            origin,
            ...v,
          },
          body: JSON.stringify(listTools),
        });
      expect((await at('https://agent.example.com')).status).toBe(200);
      expect((await at('https://other.example.com')).status).toBe(403);
    } finally {
      await configured.close();
    }
  });

  it('an unknown tool is the JSON-RPC error -32602', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'checkout_everything', arguments: {} } },
      agent,
      { 'mcp-protocol-version': '2025-11-25' },
    );
    const json = await message(res);
    expect(json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602 } });
    expect(json.error.message).toContain('Unknown tool: checkout_everything');
  });

  it('a JSON-RPC batch is refused: one POST is one message', async () => {
    const batch = Array.from({ length: 50 }, (_, i) => ({ ...listTools, id: i + 1 }));
    const res = await post(batch, agent, { 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batches are not supported/) },
    });
  });

  it('a 2026-07-28 request is one POST with its _meta envelope: tools/call, no initialize', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_cart', arguments: {}, _meta: meta },
      },
      agent,
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_cart' },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = await res.json();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7 });
    expect(answer.result.structuredContent).toEqual(
      (await t.api.as({ ...shopper, token: agent }).get('/cart')).body,
    );
  });
});

describe('tool messages a person reads', () => {
  it('input errors read like the API’s; check_inventory names the product by its title', async () => {
    const who = await buyer(t.api, 'reader');
    const client = await connect((await agentToken(t, database, who, ['shop'])).token, 'modern');
    const bad = toolFailed(
      await call(client, 'search_products', { query: '', limit: 101 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(bad.details).toEqual([
      { field: 'query', message: 'must not be empty' },
      { field: 'limit', message: 'must be a whole number from 1 to 100' },
    ]);
    expect(bad.error).toBe(
      'Invalid input for search_products: query must not be empty; limit must be a whole number from 1 to 100',
    );
    const half = toolFailed(
      await call(client, 'check_inventory', { product_id: ids.tarp, quantity: 1.5 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(half.details).toEqual([{ field: 'quantity', message: 'must be a whole number of at least 1' }]);
    expect(toolFailed(await call(client, 'check_inventory', {}), 'VALIDATION_ERROR', 400).details).toEqual([
      { field: 'product_id', message: 'is required' },
    ]);

    const many = toolOk(await call(client, 'check_inventory', { product_id: ids.tarp, quantity: 100000 }));
    const [row] = await database.db
      .select({ title: products.title })
      .from(products)
      .where(eq(products.id, ids.tarp));
    expect(many.message).toMatch(new RegExp(`^Only \\d+ left of ${row!.title}; you asked for 100000$`));
    expect(many.message).not.toContain('products:');
  });
});

describe('the in-process path', () => {
  it('create_checkout retried at /mcp replays the same session (Idempotency-Key)', async () => {
    const who = await buyer(t.api, 'retrier');
    const token = (await agentToken(t, database, who, ['shop'])).token;
    await t.api.as(who).post('/cart/items', { product_id: ids.tarp, quantity: 1 });
    const first = await connect(token, 'modern');
    const second = await connect(token, 'legacy');
    const a = toolOk(await call(first, 'create_checkout', { shipping_address: ON_ADDRESS }));
    const b = toolOk(await call(second, 'create_checkout', { shipping_address: ON_ADDRESS }));
    expect(b.sessionId).toBe(a.sessionId);
  });

  it('create_checkout never replays a session that has ended: the same call then opens a new one', async () => {
    const who = await buyer(t.api, 'late');
    const token = (await agentToken(t, database, who, ['shop'])).token;
    await t.api.as(who).post('/cart/items', { product_id: ids.tarp, quantity: 1 });
    const client = await connect(token, 'modern');
    const a = toolOk(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
    // Past the hold and the pause after a lapsed hold; the expiry job ends the session.
    t.clock.advance(46 * 60);
    try {
      await t.app.jobs.runOnce();
      expect((await t.api.get(new URL(a.sessionUrl).pathname)).status).toBe(410);
      const b = toolOk(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
      expect(b.sessionId).not.toBe(a.sessionId);
      expect(b.status).toBe('ready_for_payment');
      expect((await t.api.get(new URL(b.sessionUrl).pathname)).status).toBe(200);
      // While it is open, a retry replays it.
      const c = toolOk(await call(client, 'create_checkout', { shipping_address: ON_ADDRESS }));
      expect(c.sessionId).toBe(b.sessionId);
    } finally {
      t.clock.advance(-46 * 60);
    }
  });
});

describe('views (MCP Apps) over /mcp', () => {
  it('a 2025-era client cannot say it shows views over stateless HTTP: it gets the HTML, not the app-only tools', async () => {
    const legacy = await connect(agent, 'legacy');
    expect((await legacy.listTools()).tools.map((x) => x.name)).not.toContain('set_cart_quantity');
    const answer = await call(legacy, 'search_products', { query: word });
    expect(answer._meta?.['portage/view']).toContain(`Cedar ${word} paddle`);
    // Its text and structuredContent are today's.
    expect(JSON.parse((answer.content[0] as TextContent).text)).toEqual(answer.structuredContent);
    expect(Object.keys(answer).sort()).toEqual(['_meta', 'content', 'structuredContent']);
  });

  it('a 2026-07-28 client that does not declare the extension gets no view', async () => {
    const modern = await connect(agent, 'modern');
    const answer = await call(modern, 'search_products', { query: word });
    expect(answer._meta?.['portage/view']).toBeUndefined();
    expect(answer.structuredContent?.items).toHaveLength(2);
  });
});

describe('vouchers of the in-process calls', () => {
  it('a voucher header sent from outside vouches for nothing: the token is checked as on any request', async () => {
    const granted = await agentToken(t, database, shopper, ['shop']);
    const getCart = (voucher: string) =>
      fetch(`${baseUrl}/cart`, {
        headers: { authorization: `Bearer ${granted.token}`, [VOUCHER_HEADER]: voucher },
      });
    expect((await getCart('made-up')).status).toBe(200);
    await revokeGrant(t, database, granted.grantId);
    for (const voucher of ['made-up', '', 'AAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await getCart(voucher);
      expect(res.status, voucher).toBe(401);
      expect((await res.json()).code).toBe('AUTH_ERROR');
    }
  });

  it('a tool call right after its grant was revoked is refused at /mcp, before any inner call', async () => {
    const who = await buyer(t.api, 'revoked');
    const granted = await agentToken(t, database, who, ['shop']);
    const client = await connect(granted.token, 'modern');
    toolOk(await call(client, 'get_cart', {}));
    await revokeGrant(t, database, granted.grantId);
    await expect(call(client, 'get_cart', {})).rejects.toThrow(/401|invalid_token|Unauthorized/i);
  });
});

describe('rate limits of the inner calls', () => {
  let limited: TestApp;
  let url: string;
  beforeAll(async () => {
    limited = await testApp(database, {
      env: { RATE_LIMITS: 'on' },
      rateLimitNamespace: `mcp-http-${uniqueWord()}:`,
    });
    url = await listen(limited);
  });
  afterAll(async () => {
    await limited?.close();
  });

  it("a tool's API call counts in its group per user: one add_to_cart past the cart limit in a minute is RATE_LIMIT", async () => {
    const who = await buyer(limited.api, 'busy');
    const token = (await agentToken(limited, database, who, ['shop'])).token;
    const client = new Client({ name: 'busy-agent', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    const shop = await seller(t.api);
    const bulk = (
      await product(t.api, shop, { title: `Bulk ${word} pegs`, priceCents: 100, stockQuantity: 100 })
    ).id;
    for (let i = 0; i < LIMITS.cart; i++) {
      toolOk(await call(client, 'add_to_cart', { product_id: bulk, quantity: 1 }));
    }
    const refused = toolFailed(
      await call(client, 'add_to_cart', { product_id: bulk, quantity: 1 }),
      'RATE_LIMIT',
      429,
    );
    expect(refused.error).toMatch(/Too many requests/);
    // The same user's own API calls share that counter.
    expect((await limited.api.as(who).post('/cart/items', { product_id: bulk, quantity: 1 })).status).toBe(
      429,
    );
  });
});

describe('discovery', () => {
  it('/.well-known/mcp.json names the remote endpoint, its transport and OAuth, and keeps stdio', async () => {
    const manifest = (await t.api.get('/.well-known/mcp.json')).body;
    expect(manifest.remotes).toEqual([
      expect.objectContaining({
        type: 'streamable-http',
        url: 'http://portage.test/mcp',
        protocolVersions: ['2025-11-25', '2026-07-28'],
        authorization: expect.objectContaining({
          type: 'oauth2.1',
          resource: 'http://portage.test/mcp',
          protectedResourceMetadata: METADATA,
          authorizationServerMetadata: 'http://portage.test/.well-known/oauth-authorization-server',
        }),
      }),
    ]);
    expect(Object.keys(manifest.remotes[0].authorization.scopes)).toEqual(['shop', 'orders', 'analytics']);
    // Never an unscoped registry name we do not own (`npx portage` runs a stranger's package).
    expect(manifest.transport).toMatchObject({
      type: 'stdio',
      command: 'node',
      args: ['<your Portage checkout>/bin/portage.js', 'mcp'],
    });
    expect(JSON.stringify(manifest)).not.toContain('npx');
    const scopes = Object.fromEntries(
      manifest.tools.map((x: { name: string; scope: string }) => [x.name, x.scope]),
    );
    expect(scopes).toMatchObject({ list_orders: 'orders', add_to_cart: 'shop', get_analytics: 'analytics' });
  });

  it('/llms.txt says how to connect remotely (OAuth) and locally (stdio)', async () => {
    const text = String((await t.api.get('/llms.txt')).body);
    for (const needle of [
      'http://portage.test/mcp',
      'Streamable HTTP',
      'OAuth 2.1',
      METADATA,
      'http://portage.test/.well-known/oauth-authorization-server',
      '`shop`',
      '`orders`',
      '`analytics`',
      'node <your Portage checkout>/bin/portage.js mcp',
      'list_orders (scope `orders`)',
    ]) {
      expect(text, needle).toContain(needle);
    }
    expect(text).not.toContain('npx');
  });
});
