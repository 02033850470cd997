// The after-sale tools (request_return, submit_review, get_analytics) as an agent runs them:
// `portage mcp` as a child process over stdio, acting for a buyer or an admin against the real
// service on a port over a real database. Each answer is the API's, passed through.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { returns } from '../src/modules/returns/tables.ts';
import { reviews } from '../src/modules/reviews/tables.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, product, seller } from './helpers/builders.ts';
import { callTool, startToolServer, TOOL_NAMES, toolFailed, toolOk } from './helpers/mcp.ts';
import { deliveredOrder } from './helpers/orders.ts';

const { t, database } = useTestApp();
let baseUrl: string;
const agents: Client[] = [];
let shopper: SignedIn;
let boss: SignedIn;
let agent: Client;
let adminAgent: Client;
let tools: McpTool[];
/** The shopper's delivered order: one tent at $20.00 (2000), ON, shipped 899, HST 13%. */
let order: { orderId: string; productId: string; sellerId: string };

async function agentFor(who: SignedIn): Promise<Client> {
  const client = await startToolServer(baseUrl, who.token);
  agents.push(client);
  return client;
}

beforeAll(async () => {
  baseUrl = await listen(t);
  boss = await admin(t.api, database);
  const s = await seller(t.api);
  const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 10 });
  shopper = await buyer(t.api);
  const delivered = await deliveredOrder(t, {
    seller: s,
    product: p,
    buyer: shopper,
    parcel: { trackingNumber: '1Z 42', carrier: 'Canada Post' },
  });
  order = { orderId: delivered.orderId, productId: p.id, sellerId: s.id };
  [agent, adminAgent] = await Promise.all([agentFor(shopper), agentFor(boss)]);
  tools = (await agent.listTools()).tools;
});

afterAll(async () => {
  for (const client of agents) await client.close().catch(() => {});
});

describe('tools/list', () => {
  it('lists the fourteen tools, the three after-sale ones last, with their schemas and hints', () => {
    expect(tools.map((x) => x.name)).toEqual(TOOL_NAMES);
    const named = (name: string) => tools.find((x) => x.name === name)!;
    expect(named('request_return').inputSchema).toMatchObject({
      type: 'object',
      required: ['order_id', 'reason'],
      properties: {
        reason: { enum: ['damaged', 'wrong_item', 'not_as_described', 'other'] },
        items: { type: 'array' },
      },
    });
    expect(named('submit_review').inputSchema).toMatchObject({
      required: ['product_id', 'rating'],
      properties: { rating: { minimum: 1, maximum: 5 } },
    });
    expect(named('get_analytics').inputSchema).toMatchObject({
      properties: { period: { enum: ['day', 'week', 'month', 'year'] } },
    });
    for (const name of ['request_return', 'submit_review', 'get_analytics']) {
      expect(named(name).outputSchema).toMatchObject({ type: 'object' });
    }
    expect(named('get_analytics').annotations).toMatchObject({ readOnlyHint: true });
    expect(named('request_return').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });
});

describe('request_return', () => {
  it('refuses bad input before it reaches the service', async () => {
    const bad = toolFailed(
      await callTool(agent, 'request_return', { order_id: order.orderId, reason: 'changed_mind' }),
      'VALIDATION_ERROR',
      400,
    );
    expect(bad.details?.map((d) => d.field)).toEqual(['reason']);
  });

  it("answers NOT_FOUND for someone else's order", async () => {
    const other = await agentFor(await buyer(t.api));
    toolFailed(
      await callTool(other, 'request_return', { order_id: order.orderId, reason: 'damaged' }),
      'NOT_FOUND',
      404,
    );
    expect(await database.db.select().from(returns).where(eq(returns.orderId, order.orderId))).toEqual([]);
  });

  it('opens a pending return of the delivered order; a second is CONFLICT', async () => {
    const opened = toolOk(
      await callTool(agent, 'request_return', {
        order_id: order.orderId,
        reason: 'damaged',
        description: 'The pole snapped',
      }),
    );
    // The whole order: 2000 + 899 shipping + 13% HST of 2899 (377) = 3276.
    expect(opened).toMatchObject({
      return_id: expect.stringMatching(/^returns:/),
      order_id: order.orderId,
      status: 'pending',
      reason: 'damaged',
      estimated_refund_amount_cents: 3276,
      created_at: expect.any(Number),
      window_closes_at: expect.any(Number),
    });
    expect(opened.message).toMatch(/2 business days/);
    const again = toolFailed(
      await callTool(agent, 'request_return', { order_id: order.orderId, reason: 'other' }),
      'CONFLICT',
      409,
    );
    expect(again.error).toMatch(/already/i);
    const rows = await database.db.select().from(returns).where(eq(returns.orderId, order.orderId));
    expect(rows.map((r) => [r.id, r.status])).toEqual([[opened.return_id, 'pending']]);
  });
});

describe('submit_review', () => {
  it('writes a verified review with the order; a second is CONFLICT', async () => {
    const written = toolOk(
      await callTool(agent, 'submit_review', {
        product_id: order.productId,
        rating: 4,
        title: 'Warm and dry',
        comment: 'Kept us dry through two storms.',
        order_id: order.orderId,
      }),
    );
    expect(written).toEqual({
      review_id: expect.stringMatching(/^reviews:/),
      product_id: order.productId,
      rating: 4,
      title: 'Warm and dry',
      comment: 'Kept us dry through two storms.',
      verified_purchase: true,
      published: true,
      created_at: expect.any(Number),
    });
    toolFailed(
      await callTool(agent, 'submit_review', { product_id: order.productId, rating: 5 }),
      'CONFLICT',
      409,
    );
    const detail = await t.api.as(shopper).get(`/products/${order.productId}`);
    expect(detail.body).toMatchObject({ rating: 4, reviewCount: 1 });
  });

  it('holds a review with a link for moderation, and refuses a rating out of range', async () => {
    const other = await buyer(t.api);
    const otherAgent = await agentFor(other);
    const held = toolOk(
      await callTool(otherAgent, 'submit_review', {
        product_id: order.productId,
        rating: 1,
        comment: 'Cheaper at www.example.com',
      }),
    );
    expect(held).toMatchObject({ verified_purchase: false, published: false });
    toolFailed(
      await callTool(otherAgent, 'submit_review', { product_id: order.productId, rating: 6 }),
      'VALIDATION_ERROR',
      400,
    );
    const stored = await database.db.select().from(reviews).where(eq(reviews.productId, order.productId));
    expect(stored).toHaveLength(2);
  });
});

describe('get_analytics', () => {
  it('is AUTHZ_ERROR for a buyer', async () => {
    const refused = toolFailed(
      await callTool(agent, 'get_analytics', { period: 'year' }),
      'AUTHZ_ERROR',
      403,
    );
    expect(refused.error).toMatch(/admin/i);
  });

  it("answers the admin the platform's figures", async () => {
    const figures = toolOk(await callTool(adminAgent, 'get_analytics', { period: 'year' }));
    expect(figures).toMatchObject({
      period: 'year',
      total_revenue_cents: 3276,
      total_orders: 1,
      average_order_value_cents: 3276,
      total_items_sold: 1,
      top_products: [{ product_id: order.productId, units_sold: 1, revenue_cents: 2000 }],
      top_sellers: [{ seller_id: order.sellerId, revenue_cents: 3276, orders: 1 }],
      conversion_rate: 1,
      returning_customers: 0,
      new_customers: 1,
    });
    toolFailed(
      await callTool(adminAgent, 'get_analytics', { start_date: '2026-02-01', end_date: '2026-01-01' }),
      'VALIDATION_ERROR',
      400,
    );
  });
});
