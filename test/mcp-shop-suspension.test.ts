// The tool search_products over Streamable HTTP at POST /mcp, as a remote agent reaches it: a
// suspended shop's products leave its answers at once (and get_product and add_to_cart refuse
// them as an unknown product); reinstated, they are found again (issue 43).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken } from './helpers/agents.ts';
import { admin, buyer, listen, type SignedIn, seller, useTestApp } from './helpers/app.ts';
import { product, uniqueWord } from './helpers/builders.ts';
import { toolFailed, toolOk } from './helpers/mcp.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

let client: Client;
let boss: SignedIn;
let shop: SignedIn;
const word = uniqueWord();
const ids = { paddle: '', tarp: '' };

beforeAll(async () => {
  const baseUrl = await listen(t);
  boss = await admin(t.api, database);
  shop = await seller(t.api);
  ids.paddle = (await product(t.api, shop, { title: `Cedar ${word} paddle`, priceCents: 8900 })).id;
  ids.tarp = (await product(t.api, shop, { title: `Ripstop ${word} tarp`, priceCents: 4500 })).id;
  const shopper = await buyer(t.api);
  const token = (await agentToken(t, database, shopper, ['shop', 'orders'])).token;
  client = new Client({ name: 'portage-shop-suspension-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
});

afterAll(async () => {
  await client?.close().catch(() => {});
});

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const found = async () =>
  (toolOk(await call('search_products', { query: word })).items as Array<{ id: string }>)
    .map((p) => p.id)
    .sort();

describe('search_products and a suspended shop', () => {
  it('no longer answers its products once the shop is suspended; again once reinstated', async () => {
    expect(await found()).toEqual([ids.paddle, ids.tarp].sort());

    const suspended = await t.api
      .as(boss)
      .post(`/admin/shops/${encodeURIComponent(shop.id)}/suspend`, { reason: 'Unsafe goods' });
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);
    const none = toolOk(await call('search_products', { query: word }));
    expect(none).toMatchObject({ items: [], total: 0 });
    toolFailed(await call('get_product', { id: ids.paddle }), 'NOT_FOUND', 404);
    toolFailed(await call('add_to_cart', { product_id: ids.paddle, quantity: 1 }), 'NOT_FOUND', 404);

    expect((await t.api.as(boss).post(`/admin/shops/${encodeURIComponent(shop.id)}/reinstate`)).status).toBe(
      200,
    );
    expect(await found()).toEqual([ids.paddle, ids.tarp].sort());
  });
});
