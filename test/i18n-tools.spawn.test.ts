import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortageClient } from '../src/client/index.ts';
import { t as say } from '../src/contract/i18n.ts';
import { stdioLocale } from '../src/mcp/server.ts';
import { createToolServer } from '../src/mcp/tools.ts';
import { agentToken } from './helpers/agents.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { callTool, mcpMessage, postMcp, startToolServer, toolFailed, toolOk } from './helpers/mcp.ts';

const { t, database } = useTestApp();
let baseUrl: string;
let shopper: SignedIn;
let productId: string;
const closers: Array<() => Promise<unknown>> = [];

const MISSING = 'products:no-such-product-i18n';

beforeAll(async () => {
  baseUrl = await listen(t);
  const shop = await seller(t.api);
  productId = (await product(t.api, shop, { title: 'Pagaie en cèdre', priceCents: 8900, stockQuantity: 5 }))
    .id;
  shopper = await buyer(t.api, 'i18n-tools');
});

afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
});

/** What the API itself answers to a GET in `locale` (the tools must say exactly that). */
async function apiSays(path: string, locale: 'fr-CA' | 'en-CA') {
  return t.api.as(shopper).get(path, { 'accept-language': locale });
}

const inventoryPath = (quantity: number) =>
  `/products/${encodeURIComponent(productId)}/inventory?quantity=${quantity}`;

describe('Content-Language', () => {
  it('every API answer says the language it is written in, errors included', async () => {
    const fr = await apiSays(inventoryPath(2), 'fr-CA');
    expect(fr.headers['content-language']).toBe('fr-CA');
    const en = await apiSays(inventoryPath(2), 'en-CA');
    expect(en.headers['content-language']).toBe('en-CA');
    expect(fr.body.message).not.toBe(en.body.message);
    const missing = await t.api
      .as(shopper)
      .get(`/products/${MISSING}`, { 'accept-language': 'fr;q=0.8, en;q=0.2' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-language']).toBe('fr-CA');
    expect((await t.api.get('/no/such/route')).headers['content-language']).toBe('en-CA');
  });
});

describe('portage mcp over stdio, PORTAGE_LOCALE=fr-CA', () => {
  it('words the API’s messages and its own in French', async () => {
    const agent = await startToolServer(baseUrl, shopper.token, {
      PORTAGE_LOCALE: 'fr-CA',
      // PORTAGE_LOCALE wins over the POSIX locale.
      LANG: 'en_US.UTF-8',
    });
    closers.push(() => agent.close());

    // The API's message (check_inventory's), written in French by the API.
    const stock = toolOk(await callTool(agent, 'check_inventory', { product_id: productId, quantity: 2 }));
    const [fr, en] = [await apiSays(inventoryPath(2), 'fr-CA'), await apiSays(inventoryPath(2), 'en-CA')];
    expect(stock.message).toBe(fr.body.message);
    expect(stock.message).not.toBe(en.body.message);
    expect(stock.message).toContain('Pagaie en cèdre');

    // The tool server's own: a refused input, its field problems in French too.
    const refused = toolFailed(
      await callTool(agent, 'check_inventory', { quantity: 0 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(refused.details).toEqual([
      { field: 'product_id', message: say('fr-CA', 'validation.required') },
      { field: 'quantity', message: say('fr-CA', 'validation.IntAtLeast', { min: 1 }) },
    ]);
    expect(refused.error).toBe(
      `Données invalides pour check_inventory : product_id ${say('fr-CA', 'validation.required')}; ` +
        `quantity ${say('fr-CA', 'validation.IntAtLeast', { min: 1 })}`,
    );

    // An API error: the product not found, as the API words it in French.
    const missing = toolFailed(await callTool(agent, 'get_product', { id: MISSING }), 'NOT_FOUND', 404);
    const [frMissing, enMissing] = [
      await apiSays(`/products/${MISSING}`, 'fr-CA'),
      await apiSays(`/products/${MISSING}`, 'en-CA'),
    ];
    expect(missing.error).toBe(frMissing.body.error);
    expect(missing.error).not.toBe(enMissing.body.error);

    // An unknown tool: the protocol error in French.
    await expect(agent.callTool({ name: 'tout_acheter', arguments: {} })).rejects.toMatchObject({
      message: expect.stringContaining('Outil inconnu : tout_acheter; tools/list nomme les 14 outils'),
    });
  });
});

describe('POST /mcp with Accept-Language: fr-CA', () => {
  it('forwards the language to the API and words its own refusals in it', async () => {
    const agent = (await agentToken(t, database, shopper, ['shop'])).token;
    const fr = { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' };
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      postMcp(
        baseUrl,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
        agent,
        fr,
      );

    const res = await call(1, 'check_inventory', { product_id: productId, quantity: 99 });
    expect(res.headers.get('content-language')).toBe('fr-CA');
    const stock = toolOk((await mcpMessage(res)).result);
    expect(stock).toMatchObject({ available: false, requested_quantity: 99 });
    expect(stock.message).toBe((await apiSays(inventoryPath(99), 'fr-CA')).body.message);
    expect(stock.message).not.toBe((await apiSays(inventoryPath(99), 'en-CA')).body.message);

    const refused = toolFailed(
      (
        await mcpMessage(
          await call(2, 'search_products', { query: 'pagaie', min_price: 5000, max_price: 100 }),
        )
      ).result,
      'VALIDATION_ERROR',
      400,
    );
    expect(refused).toEqual({
      error: 'Fourchette de prix invalide : min_price 5000 dépasse max_price 100',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'min_price', message: 'ne doit pas dépasser max_price' }],
    });
  });
});

describe('with no language asked for', () => {
  it('the tool server follows the language the API answered in: the user’s saved one', async () => {
    const person = await buyer(t.api, 'i18n-saved');
    expect((await t.api.as(person).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    const server = createToolServer(new PortageClient({ baseUrl, token: person.token }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const agent = new Client({ name: 'in-memory', version: '0.0.0' });
    await agent.connect(clientSide);
    closers.push(
      () => agent.close(),
      () => server.close(),
    );

    const call = async (name: string, args = {}) =>
      (await agent.callTool({ name, arguments: args })) as CallToolResult;
    // Before any answer: the base locale (nothing says otherwise yet).
    const before = toolFailed(await call('get_product'), 'VALIDATION_ERROR', 400);
    expect(before.error).toBe('Invalid input for get_product: id is required');
    toolOk(await call('get_cart'));
    const after = toolFailed(await call('get_product'), 'VALIDATION_ERROR', 400);
    expect(after.error).toBe(
      `Données invalides pour get_product : id ${say('fr-CA', 'validation.required')}`,
    );
  });

  it('portage mcp takes PORTAGE_LOCALE, else LC_ALL, LC_MESSAGES or LANG', () => {
    expect(stdioLocale({ LANG: 'fr_CA.UTF-8' })).toBe('fr-CA');
    expect(stdioLocale({ LANG: 'en_US.UTF-8', PORTAGE_LOCALE: 'fr' })).toBe('fr-CA');
    expect(stdioLocale({ LC_ALL: 'C', LANG: 'fr_CA.UTF-8' })).toBeUndefined();
    expect(stdioLocale({ LC_MESSAGES: 'fr_FR@euro' })).toBe('fr-CA');
    expect(stdioLocale({ LANG: 'de_DE.UTF-8' })).toBeUndefined();
    expect(stdioLocale({})).toBeUndefined();
    expect(() => stdioLocale({ PORTAGE_LOCALE: 'de-DE' })).toThrow(
      /PORTAGE_LOCALE must name one of en-CA, fr-CA/,
    );
  });
});
