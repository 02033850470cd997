// UCP's MCP binding at POST /ucp/mcp (src/contract/ucp-tools.ts, src/mcp/ucp.ts): the checkout
// and order tools over the real service on a port, called by the official SDK v2 client (both
// protocol eras) and by raw JSON-RPC, with a platform's key. Every payload the SDK client gets is
// checked against our zod contract of UCP and the result mcp.openrpc.json gives its tool, and every
// protocol error in a JSON-RPC error against our contract (the spec gives it no schema).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ucpCatalogLookupResponse, ucpCheckout, ucpOrder, ucpProtocolError } from '../src/contract/ucp.ts';
import { AcpClient } from './helpers/acp.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';
import { type Era, mcpMessage } from './helpers/mcp.ts';
import { expectOfficial, ucpToolProblems } from './helpers/official-schemas.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  type UcpPlatform,
} from './helpers/ucp.ts';

const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });
let baseUrl: string;
let shop: SignedIn;
let profiles: ProfileServer;
let platform: UcpPlatform;

beforeAll(async () => {
  baseUrl = await listen(t);
  shop = await seller(t.api);
  profiles = await startProfileServer();
  profiles.documents.set('/agent.json', { body: platformProfile(`${profiles.base}/hooks`) });
  platform = await issueUcpPlatform(t.api, await admin(t.api, database), `${profiles.base}/agent.json`);
});
afterAll(() => profiles.close());

const UCP_NAMES = [
  'create_checkout',
  'get_checkout',
  'update_checkout',
  'complete_checkout',
  'cancel_checkout',
  'get_order',
  'search_catalog',
  'lookup_catalog',
  'get_product',
];
const meta = (profile = platform.profileUrl) => ({ 'ucp-agent': { profile } });

async function connect(era: Era): Promise<Client> {
  const client = new Client(
    { name: 'ucp-mcp-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/ucp/mcp`), {
      requestInit: { headers: { 'x-api-key': platform.apiKey } },
    }),
  );
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/** A tool's UCP payload: structuredContent, the same JSON as its text, the result mcp.openrpc.json gives `tool`. */
function payload(tool: string, answer: unknown): Record<string, unknown> {
  expect(answer, 'a tools/call result').toMatchObject({ content: expect.any(Array) });
  const result = answer as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  const structured = result.structuredContent;
  expectOfficial(ucpToolProblems(tool, structured), structured);
  if (!structured) throw new Error(`${tool} answered no structuredContent`);
  return structured;
}

async function rpc(
  name: string,
  args: unknown,
  headers: Record<string, string> = { 'x-api-key': platform.apiKey },
) {
  const res = await fetch(`${baseUrl}/ucp/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  return { status: res.status, message: res.status === 200 ? await mcpMessage(res) : await res.json() };
}

describe('discovery', () => {
  it('the business profile names this endpoint as the MCP binding, where platforms must learn it', async () => {
    const profile = await (await fetch(`${baseUrl}/.well-known/ucp`)).json();
    const mcp = profile.ucp.services['dev.ucp.shopping'].find(
      (s: { transport: string }) => s.transport === 'mcp',
    );
    expect(mcp).toEqual({
      version: '2026-04-08',
      spec: 'https://ucp.dev/2026-04-08/specification/overview',
      transport: 'mcp',
      schema: 'https://ucp.dev/2026-04-08/services/shopping/mcp.openrpc.json',
      endpoint: 'https://portage.test/ucp/mcp',
    });
    // PUBLIC_BASE_URL is https://portage.test: its path, on the port this app listens on.
    const res = await fetch(new URL(new URL(mcp.endpoint).pathname, baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'x-api-key': platform.apiKey,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect((await mcpMessage(res)).result.tools.map((x: { name: string }) => x.name)).toEqual(UCP_NAMES);
  });
});

describe.each(['legacy', 'modern'] as const)('the UCP tools over %s MCP', (era) => {
  it("lists the binding's nine tools, none of Portage's own; search → create → complete → get_order", async () => {
    const client = await connect(era);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(UCP_NAMES);
      const p = await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 });
      const searched = ucpCatalogLookupResponse.parse(
        payload(
          'lookup_catalog',
          await client.callTool({
            name: 'lookup_catalog',
            arguments: { meta: meta(), catalog: { ids: [p.id] } },
          }),
        ),
      );
      expect(searched.products.map((x) => x.id)).toEqual([p.id]);
      const created = ucpCheckout.parse(
        payload(
          'create_checkout',
          await client.callTool({
            name: 'create_checkout',
            arguments: {
              meta: meta(),
              checkout: {
                line_items: [{ item: { id: p.id }, quantity: 1 }],
                buyer: { email: uniqueEmail('ucp-mcp') },
                fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
              },
            },
          }),
        ),
      );
      expect(created.status).toBe('ready_for_complete');
      const token = await new AcpClient(t.api, platform.apiKey, t.clock.now).delegate(created.id);
      const instrument = {
        id: 'pi_1',
        handler_id: 'portage_sandbox_card',
        type: 'card',
        credential: { type: 'token', token: token.body.id },
      };
      const done = ucpCheckout.parse(
        payload(
          'complete_checkout',
          await client.callTool({
            name: 'complete_checkout',
            arguments: {
              meta: { ...meta(), 'idempotency-key': crypto.randomUUID() },
              id: created.id,
              checkout: { payment: { instruments: [instrument] } },
            },
          }),
        ),
      );
      expect(done.status).toBe('completed');
      const order = ucpOrder.parse(
        payload(
          'get_order',
          await client.callTool({
            name: 'get_order',
            arguments: { meta: meta(), id: done.order!.id },
          }),
        ),
      );
      expect(order.checkout_id).toBe(created.id);
    } finally {
      await client.close();
    }
  });
});

describe('failures', () => {
  it("a profile other than the platform's is a JSON-RPC error -32000 with UCP's error as data; an unreachable one -32001", async () => {
    const other = await rpc('get_checkout', { meta: meta(`${profiles.base}/other.json`), id: 'ucp_cs_x' });
    expect(other.message.error.code).toBe(-32000);
    expect(ucpProtocolError.parse(other.message.error.data).code).toBe('profile_not_trusted');

    // A platform registered for a profile that is not there: the fetch fails.
    const missing = await issueUcpPlatform(
      t.api,
      await admin(t.api, database),
      `${profiles.base}/missing.json`,
    );
    const unreachable = await rpc(
      'get_checkout',
      { meta: meta(missing.profileUrl), id: 'ucp_cs_x' },
      { 'x-api-key': missing.apiKey },
    );
    expect(unreachable.message.error.code).toBe(-32001);
    expect(unreachable.message.error.data.code).toBe('profile_unreachable');
  });

  it('a write without an idempotency-key is keyed by the checkout as it is: the same body after another change is not a replay', async () => {
    const p = await product(t.api, shop, { priceCents: 1000, stockQuantity: 9 });
    const created = await rpc('create_checkout', {
      meta: meta(),
      checkout: {
        line_items: [{ item: { id: p.id }, quantity: 1 }],
        buyer: { email: uniqueEmail('ucp-mcp-keys') },
        fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
      },
    });
    const id = created.message.result.structuredContent.id;
    const line = `line_${p.id}`;
    const update = (quantity: number) =>
      rpc('update_checkout', {
        meta: meta(),
        id,
        checkout: {
          line_items: [{ id: line, item: { id: p.id }, quantity }],
          buyer: created.message.result.structuredContent.buyer,
          fulfillment: {
            methods: [{ id: 'shipping', type: 'shipping', line_item_ids: [line], destinations: [UCP_ON] }],
          },
        },
      });
    const quantityOf = (r: Awaited<ReturnType<typeof rpc>>) =>
      r.message.result.structuredContent.line_items[0].quantity;
    expect(quantityOf(await update(2))).toBe(2);
    expect(quantityOf(await update(1))).toBe(1);
    expect(quantityOf(await update(2))).toBe(2);
    expect(quantityOf(await rpc('get_checkout', { meta: meta(), id }))).toBe(2);
  });

  it('without an idempotency-key, the same create after its checkout was canceled opens a new one, not the dead one replayed', async () => {
    const p = await product(t.api, shop, { priceCents: 1000, stockQuantity: 9 });
    const email = uniqueEmail('ucp-mcp-dead');
    const create = () =>
      rpc('create_checkout', {
        meta: meta(),
        checkout: {
          line_items: [{ item: { id: p.id }, quantity: 1 }],
          buyer: { email },
          fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
        },
      });
    const first = payload('create_checkout', (await create()).message.result);
    expect(first.status).toBe('ready_for_complete');
    const canceled = payload(
      'cancel_checkout',
      (await rpc('cancel_checkout', { meta: meta(), id: first.id })).message.result,
    );
    expect(canceled.status).toBe('canceled');
    const again = payload('create_checkout', (await create()).message.result);
    expect(again.id).not.toBe(first.id);
    // A new checkout, as it truly is: a canceled hold cools the product down for 15 minutes.
    expect(again.status).toBe('incomplete');
    // A retry of that call answers the new checkout.
    expect(payload('create_checkout', (await create()).message.result).id).toBe(again.id);
  });

  it('an unknown business id is a result, the business outcome not_found', async () => {
    const res = await rpc('get_checkout', { meta: meta(), id: 'ucp_cs_nope' });
    expect(res.message.result.structuredContent).toMatchObject({
      ucp: { status: 'error' },
      messages: [{ code: 'not_found' }],
    });
  });

  it("a web page of a foreign origin is refused (403), as on /mcp: the transport's DNS-rebinding defence", async () => {
    const evil = await rpc(
      'get_checkout',
      { meta: meta(), id: 'ucp_cs_x' },
      { 'x-api-key': platform.apiKey, origin: 'http://evil.example.com' },
    );
    expect(evil.status).toBe(403);
    const ours = await rpc(
      'get_checkout',
      { meta: meta(), id: 'ucp_cs_x' },
      { 'x-api-key': platform.apiKey, origin: 'https://portage.test' },
    );
    expect(ours.status).toBe(200);
  });

  it('malformed arguments are Invalid params (-32602); no credential is 401', async () => {
    const bad = await rpc('get_checkout', { meta: {}, id: 'ucp_cs_x' });
    expect(bad.message.error.code).toBe(-32602);
    const none = await rpc('get_checkout', { meta: meta(), id: 'ucp_cs_x' }, {});
    expect(none.status).toBe(401);
    expect(none.message).toEqual({
      code: 'unauthorized',
      content: "Send the platform's key (X-API-Key) or a linked token",
    });
  });
});
