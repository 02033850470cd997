// A product kept out of agent channels (issue 44; docs/api.md "Agent channels"): its seller or an
// admin sets `agentChannels` false; the UCP catalog leaves it out (search) or does not find it
// (lookup, get product); ACP and UCP checkouts refuse it as a product not on sale; the cart and
// the API's checkout still sell it. Every protocol answer is checked against the official schemas
// (test/helpers/acp.ts, ucp.ts, official-schemas.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ucpCatalogLookupResponse, ucpCatalogSearchResponse } from '../src/contract/ucp.ts';
import { createSearch } from '../src/modules/search/service.ts';
import { ACP_ON, AcpClient, issuePlatform } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, product, seller, uniqueEmail, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout } from './helpers/checkout.ts';
import { expectOfficial, ucpRestProblems } from './helpers/official-schemas.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_ON,
  UcpClient,
} from './helpers/ucp.ts';

const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

let boss: SignedIn;
let shop: SignedIn;
let profiles: ProfileServer;
let ucp: UcpClient;
let acp: AcpClient;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  profiles = await startProfileServer();
  profiles.documents.set('/agent.json', { body: platformProfile('http://127.0.0.1:9/hooks') });
  ucp = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`));
  acp = new AcpClient(t.api, (await issuePlatform(t.api, boss)).apiKey, t.clock.now);
});
afterAll(async () => {
  await profiles.close();
});

const operations: Record<string, string> = {
  search: 'search_catalog',
  lookup: 'lookup_catalog',
  product: 'get_product',
};
/** A UCP catalog operation's answer, checked against the official REST binding when 200. */
const catalog = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await t.api.post(`/ucp/v1/catalog/${path}`, body, ucp.headers(headers, false));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectOfficial(ucpRestProblems(operations[path]!, 200, res.body), res.body);
  return res;
};

/** A product kept out of agent channels by its seller, and one still offered, both titled with `word`. */
async function pair(word = uniqueWord()) {
  const kept = await product(t.api, shop, { title: `Kept ${word}`, agentChannels: false });
  const offered = await product(t.api, shop, { title: `Offered ${word}` });
  return { word, kept, offered };
}

describe('the flag', () => {
  it('is true by default; the seller reads it and turns it off and on; buyers never see it', async () => {
    const p = await product(t.api, shop);
    expect(p.agentChannels).toBe(true);
    const off = await t.api.as(shop).patch(`/products/${p.id}`, { agentChannels: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.agentChannels).toBe(false);
    expect((await t.api.as(shop).get(`/products/${p.id}`)).body.agentChannels).toBe(false);
    const seen = await t.api.as(await buyer(t.api)).get(`/products/${p.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body).not.toHaveProperty('agentChannels');
    const anonymous = await t.api.get(`/products/${p.id}`);
    expect(anonymous.body).not.toHaveProperty('agentChannels');
    const on = await t.api.as(shop).patch(`/products/${p.id}`, { agentChannels: true });
    expect(on.body.agentChannels).toBe(true);
    expect(
      (
        await t.api
          .as(shop)
          .post('/products', { title: 'x', priceCents: 100, weight: 1, agentChannels: 'no' })
      ).status,
    ).toBe(400);
  });

  it('an admin sets it on a seller’s product, audited by field name; another seller is refused as for any change', async () => {
    const p = await product(t.api, shop);
    const changed = await t.api.as(boss).patch(`/products/${p.id}`, { agentChannels: false });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.agentChannels).toBe(false);
    const log = await t.api.as(boss).get(`/admin/audit?subject=${encodeURIComponent(p.id)}`);
    expect(log.body.actions.map((a: Record<string, unknown>) => [a.action, a.before, a.after])).toEqual([
      ['product.update', { sellerId: shop.id, status: 'active' }, { fields: ['agentChannels'] }],
    ]);

    const other = await seller(t.api);
    expectError(
      await t.api.as(other).patch(`/products/${p.id}`, { agentChannels: true }),
      'AUTHZ_ERROR',
      403,
      `AUTHZ_ERROR: Only the seller who owns product ${p.id} may change it`,
    );
    const draft = await product(t.api, shop, { status: 'draft' });
    expect((await t.api.as(other).patch(`/products/${draft.id}`, { agentChannels: false })).status).toBe(404);
    expect((await t.api.as(shop).get(`/products/${p.id}`)).body.agentChannels).toBe(false);
  });
});

describe('the OpenAPI document', () => {
  it('has agentChannels on create, change and the detail (optional there)', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const bodyOf = (method: 'post' | 'patch', path: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema;
    for (const body of [bodyOf('post', '/products'), bodyOf('patch', '/products/{productId}')]) {
      expect(body.properties.agentChannels).toMatchObject({ type: 'boolean' });
    }
    expect(bodyOf('post', '/products').properties.agentChannels.default).toBe(true);
    const product = doc.components.schemas.Product;
    expect(product.properties.agentChannels).toMatchObject({ type: 'boolean' });
    expect(product.required).not.toContain('agentChannels');
  });
});

describe('the UCP catalog', () => {
  it('search leaves a product kept out of agent channels out; GET /search/products still finds it', async () => {
    const { word, kept, offered } = await pair();
    const found = ucpCatalogSearchResponse.parse((await catalog('search', { query: word })).body);
    expect(found.products.map((p) => p.id)).toEqual([offered.id]);
    expect(found.pagination?.total_count).toBe(1);
    const store = await t.api.as(await buyer(t.api)).get(`/search/products?q=${word}`);
    expect(store.body.results.map((r: { id: string }) => r.id).sort()).toEqual([kept.id, offered.id].sort());

    // Offered again, it is found again (the index follows the flag's change stamp).
    expect((await t.api.as(shop).patch(`/products/${kept.id}`, { agentChannels: true })).status).toBe(200);
    const again = ucpCatalogSearchResponse.parse((await catalog('search', { query: word })).body);
    expect(again.products.map((p) => p.id).sort()).toEqual([kept.id, offered.id].sort());
  });

  it('the SQL engine leaves it out of an agents’ search too (SEARCH_INDEX=sql)', async () => {
    const { word, kept, offered } = await pair();
    const sql = createSearch({ index: undefined });
    const ctx = { db: database.db, now: () => t.clock.now(), log: t.app.log };
    const q = { q: word, limit: 20, offset: 0 };
    const forAgents = await sql.search(ctx, q, { agents: true });
    expect([forAgents.results.map((r) => r.id), forAgents.total]).toEqual([[offered.id], 1]);
    const forAll = await sql.search(ctx, q);
    expect(forAll.results.map((r) => r.id).sort()).toEqual([kept.id, offered.id].sort());
  });

  it('lookup and get product answer it as not found, as an inactive product', async () => {
    const { kept, offered } = await pair();
    const inactive = await product(t.api, shop, { status: 'active' });
    expect((await t.api.as(shop).patch(`/products/${inactive.id}`, { status: 'inactive' })).status).toBe(200);
    const looked = ucpCatalogLookupResponse.parse(
      (await catalog('lookup', { ids: [kept.id, offered.id, inactive.id] })).body,
    );
    expect(looked.products.map((p) => p.id)).toEqual([offered.id]);
    expect(looked.messages).toEqual([
      { type: 'info', code: 'not_found', content: `Not found: ${kept.id}, ${inactive.id}` },
    ]);
    for (const id of [kept.id, inactive.id]) {
      const none = await t.api.post('/ucp/v1/catalog/product', { id }, ucp.headers({}, false));
      expect(none.status).toBe(200);
      expect(none.body.messages).toEqual([
        { type: 'error', code: 'not_found', content: `Product ${id} not found`, severity: 'unrecoverable' },
      ]);
      expect(none.body.ucp.status).toBe('error');
    }
  });
});

/** The body with `from` written `to` wherever it appears (ids in messages and line ids). */
const renamed = (body: unknown, from: string, to: string) =>
  JSON.parse(JSON.stringify(body).replaceAll(from, to)) as Record<string, unknown>;

describe('checkouts', () => {
  it('ACP refuses it on create and update exactly as an inactive product', async () => {
    const { kept, offered } = await pair();
    const inactive = await product(t.api, shop);
    await t.api.as(shop).patch(`/products/${inactive.id}`, { status: 'inactive' });
    const create = (id: string) =>
      acp.create({
        line_items: [{ id, quantity: 1 }],
        buyer: { email: uniqueEmail('acp'), first_name: 'Avery', last_name: 'Tremblay' },
        fulfillment_details: ACP_ON,
      });
    const refused = await create(kept.id);
    const asInactive = await create(inactive.id);
    expect(refused.status).toBe(201);
    expect(refused.body.status).toBe('not_ready_for_payment');
    expect(refused.body.messages).toEqual([
      {
        type: 'error',
        code: 'not_found',
        resolution: 'recoverable',
        param: '$.line_items[0]',
        content_type: 'plain',
        content: `Not on sale: ${kept.id}`,
      },
    ]);
    for (const part of ['status', 'messages', 'line_items', 'totals'] as const) {
      expect(refused.body[part], part).toEqual(renamed(asInactive.body, inactive.id, kept.id)[part]);
    }

    const held = await create(offered.id);
    expect(held.body.status).toBe('ready_for_payment');
    const updated = await acp.update(held.body.id, { line_items: [{ id: kept.id, quantity: 1 }] });
    expect(updated.body.status).toBe('not_ready_for_payment');
    expect(updated.body.messages).toEqual(refused.body.messages);
  });

  it('UCP refuses it on create and update exactly as an inactive product', async () => {
    const { kept, offered } = await pair();
    const inactive = await product(t.api, shop);
    await t.api.as(shop).patch(`/products/${inactive.id}`, { status: 'inactive' });
    const create = (id: string) =>
      ucp.create({
        line_items: [{ item: { id }, quantity: 1 }],
        buyer: { email: uniqueEmail('ucp'), first_name: 'Avery', last_name: 'Tremblay' },
        fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_ON] }] },
      });
    const refused = await create(kept.id);
    const asInactive = await create(inactive.id);
    expect(refused.status).toBe(201);
    expect(refused.body.status).toBe('incomplete');
    expect(refused.body.messages).toEqual([
      {
        type: 'error',
        code: 'item_unavailable',
        content: `Not on sale: ${kept.id}`,
        path: '$.line_items[0]',
        severity: 'recoverable',
      },
    ]);
    for (const part of ['status', 'messages', 'line_items', 'totals'] as const) {
      expect(refused.body[part], part).toEqual(renamed(asInactive.body, inactive.id, kept.id)[part]);
    }

    const held = await create(offered.id);
    expect(held.body.status).toBe('ready_for_complete');
    const line = `line_${kept.id}`;
    const updated = await ucp.update(held.body.id, {
      line_items: [{ id: line, item: { id: kept.id }, quantity: 1 }],
      buyer: held.body.buyer,
      fulfillment: {
        methods: [{ id: 'shipping', type: 'shipping', line_item_ids: [line], destinations: [UCP_ON] }],
      },
    });
    expect(updated.body.status).toBe('incomplete');
    expect(updated.body.messages).toEqual(refused.body.messages);
  });

  it('the cart and the API’s checkout still sell it', async () => {
    const { kept } = await pair();
    const b = await buyer(t.api);
    const cart = await addToCart(t.api, b, kept.id, 2);
    expect(cart.cart.items.map((i: { product_id: string }) => i.product_id)).toEqual([kept.id]);
    const session = await openCheckout(t.api, b);
    expect(session.status).toBe('ready_for_payment');
    expect(session.subtotalCents).toBe(2000);
  });
});
