// The tool server (`portage mcp`) as an agent runs it: a child process spoken to over stdio by
// the official MCP client, acting for one user against the real service listening on a port
// over a real database. Also: stdout carries protocol messages only, missing configuration,
// the discovery documents and the README's tool table.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  addToCartTool,
  applyCouponTool,
  checkInventoryTool,
  getCartTool,
  getProductTool,
  removeFromCartTool,
  searchProductsTool,
  type Tool,
  toolsMarkdownTable,
} from '../src/contract/tools.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, product, seller, uniqueWord } from './helpers/builders.ts';
import { TOOL_NAMES } from './helpers/mcp.ts';
import { finished } from './helpers/process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { t, database } = useTestApp();
let baseUrl: string;
let shopper: SignedIn;
let agent: Client;
let tools: McpTool[];

const word = uniqueWord();
const suffix = randomBytes(4).toString('hex');
const couponCode = `PADDLE${suffix.toUpperCase()}`;
let categoryId: string;
const categorySlug = `outdoors-${suffix}`;
/** Products made in beforeAll: paddle and seat in the category, tarp outside it. */
const p = { paddle: '', seat: '', tarp: '' };

// ---- tool servers ---------------------------------------------------------------------------

interface Running {
  client: Client;
  stderr: () => string;
}
const running: Running[] = [];
const children: ChildProcess[] = [];

const childEnv = (env: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.tmpdir(),
  ...env,
});

/** `node bin/portage.js mcp` as a child process, connected through the SDK's stdio client. */
async function startToolServer(
  token: string,
  url = baseUrl,
  env: Record<string, string> = {},
): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/portage.js', 'mcp'],
    cwd: ROOT,
    env: childEnv({ SERVICE_URL: url, SERVICE_JWT_TOKEN: token, ...env }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'portage-test-agent', version: '0.0.0' });
  const started: Running = { client, stderr: () => stderr };
  running.push(started);
  await client.connect(transport);
  return started;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful result: structuredContent and the same JSON as text, typed as `tool`'s output. */
function ok<O extends z.ZodType>(result: CallToolResult, _tool: Tool<z.ZodObject, O>): z.output<O> {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.structuredContent).toBeDefined();
  expect(result.content).toHaveLength(1);
  const [first] = result.content;
  expect(first?.type).toBe('text');
  expect(JSON.parse((first as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as z.output<O>;
}

interface ToolErrorBody {
  error: string;
  code: string;
  statusCode: number;
  details?: { field: string; message: string }[];
}

/** A failed result: isError with the spec's error JSON {error, code, statusCode} as text. */
function failed(result: CallToolResult, code: string, statusCode: number): ToolErrorBody {
  expect(result.isError).toBe(true);
  expect(result.content).toHaveLength(1);
  const [first] = result.content;
  expect(first?.type).toBe('text');
  const body = JSON.parse((first as { text: string }).text) as ToolErrorBody;
  expect(body).toMatchObject({ error: expect.any(String), code, statusCode });
  expect(body.error.length).toBeGreaterThan(0);
  for (const key of Object.keys(body)) expect(['error', 'code', 'statusCode', 'details']).toContain(key);
  return body;
}

const toolNamed = (name: string): McpTool => {
  const found = tools.find((x) => x.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

// ---- the service and its data ---------------------------------------------------------------

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error(`unexpected address ${address}`);
  baseUrl = `http://127.0.0.1:${address.port}`;

  const boss = await admin(t.api, database);
  const cat = await t.api.as(boss).post('/admin/categories', { name: 'Outdoors', slug: categorySlug });
  expect(cat.status).toBe(201);
  categoryId = cat.body.id;

  const s = await seller(t.api);
  const make = async (title: string, priceCents: number, stockQuantity: number, category?: string) =>
    (
      await product(t.api, s, {
        title,
        description: `A ${title.toLowerCase()} for the portage between lakes`,
        priceCents,
        stockQuantity,
        ...(category ? { categoryId: category } : {}),
      })
    ).id;
  p.paddle = await make(`Cedar paddle ${word}`, 4500, 5, categoryId);
  p.seat = await make(`Canoe seat ${word}`, 1500, 2, categoryId);
  p.tarp = await make(`Camp tarp ${word}`, 9900, 10);

  await coupon(t.api, boss, {
    code: couponCode,
    discountPercent: 10,
    terms: '10% off the cart; test coupon',
  });

  shopper = await buyer(t.api);
  agent = (await startToolServer(shopper.token)).client;
  tools = (await agent.listTools()).tools;
});

afterAll(async () => {
  for (const r of running) await r.client.close().catch(() => {});
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
});

// ---- tools/list -----------------------------------------------------------------------------

describe('tools/list', () => {
  it('lists exactly the fourteen tools', () => {
    expect(tools.map((x) => x.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(tools).toHaveLength(14);
  });

  it('has the spec’s inputs: required fields and property names', () => {
    const expected: Record<string, { required: string[]; properties: string[] }> = {
      search_products: {
        required: ['query'],
        // The interface's seven, and the search's own `filters` (as check_inventory's `variant`).
        properties: ['query', 'category', 'min_price', 'max_price', 'sort', 'limit', 'offset', 'filters'],
      },
      get_product: { required: ['id'], properties: ['id'] },
      check_inventory: { required: ['product_id'], properties: ['product_id', 'quantity', 'variant'] },
      add_to_cart: {
        required: ['product_id', 'quantity'],
        properties: ['product_id', 'quantity', 'variant'],
      },
      remove_from_cart: { required: ['product_id'], properties: ['product_id', 'quantity', 'variant'] },
      get_cart: { required: [], properties: [] },
      apply_coupon: { required: ['code'], properties: ['code'] },
      create_checkout: {
        required: ['shipping_address'],
        properties: ['shipping_address', 'coupon', 'shipping_choices'],
      },
      list_orders: { required: [], properties: ['status', 'limit', 'offset', 'sort'] },
      get_order: { required: ['id'], properties: ['id'] },
      cancel_order: { required: ['order_id'], properties: ['order_id', 'reason'] },
      request_return: {
        required: ['order_id', 'reason'],
        properties: ['order_id', 'reason', 'description', 'items'],
      },
      submit_review: {
        required: ['product_id', 'rating'],
        properties: ['product_id', 'rating', 'title', 'comment', 'order_id'],
      },
      get_analytics: { required: [], properties: ['period', 'start_date', 'end_date'] },
    };
    for (const [name, want] of Object.entries(expected)) {
      const schema = toolNamed(name).inputSchema;
      expect(schema.type, name).toBe('object');
      expect([...(schema.required ?? [])].sort(), name).toEqual([...want.required].sort());
      expect(Object.keys(schema.properties ?? {}).sort(), name).toEqual([...want.properties].sort());
    }
  });

  it('has the spec’s ranges, enums and defaults', () => {
    /** What the test reads of one input property's JSON Schema. */
    interface PropertySchema {
      type?: unknown;
      description?: string;
      enum?: unknown[];
      default?: unknown;
    }
    const prop = (tool: string, name: string): PropertySchema => {
      const property = toolNamed(tool).inputSchema.properties?.[name];
      expect(property, `${tool}.${name}`).toBeDefined();
      return property as PropertySchema;
    };
    const number = expect.stringMatching(/^(integer|number)$/);

    expect(prop('search_products', 'query').type).toBe('string');
    expect(prop('search_products', 'category').type).toBe('string');
    expect(prop('search_products', 'min_price').type).toEqual(number);
    expect(prop('search_products', 'max_price').type).toEqual(number);
    expect(prop('search_products', 'min_price').description).toMatch(/cents/i);
    expect(prop('search_products', 'max_price').description).toMatch(/cents/i);
    expect(prop('search_products', 'sort').enum).toEqual(['price_asc', 'price_desc', 'newest', 'popular']);
    expect(prop('search_products', 'limit')).toMatchObject({
      type: number,
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(prop('search_products', 'offset')).toMatchObject({ type: number, default: 0 });

    expect(prop('get_product', 'id').type).toBe('string');
    expect(prop('check_inventory', 'product_id').type).toBe('string');
    expect(prop('check_inventory', 'quantity')).toMatchObject({ type: number, default: 1 });
    expect(prop('add_to_cart', 'quantity')).toMatchObject({ type: number, minimum: 1 });
    expect(prop('add_to_cart', 'variant').type).toBe('string');
    expect(prop('remove_from_cart', 'quantity').type).toEqual(number);
    expect(prop('remove_from_cart', 'quantity').default).toBeUndefined();
    expect(prop('apply_coupon', 'code').type).toBe('string');
    expect(prop('request_return', 'reason').enum).toEqual([
      'damaged',
      'wrong_item',
      'not_as_described',
      'other',
    ]);
    expect(prop('request_return', 'items')).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(prop('submit_review', 'rating')).toMatchObject({ type: number, minimum: 1, maximum: 5 });
    expect(prop('get_analytics', 'period').enum).toEqual(['day', 'week', 'month', 'year']);
    expect(prop('get_analytics', 'start_date').type).toBe('string');
  });

  it('declares an object outputSchema on every tool', () => {
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('annotates reads, idempotence and destruction', () => {
    const reads = [
      'search_products',
      'get_product',
      'check_inventory',
      'get_cart',
      'list_orders',
      'get_order',
      'get_analytics',
    ];
    const destructive = ['remove_from_cart', 'cancel_order'];
    const idempotentWrites = ['apply_coupon', 'create_checkout'];
    for (const tool of tools) {
      const a = tool.annotations ?? {};
      const read = reads.includes(tool.name);
      expect(a.readOnlyHint, tool.name).toBe(read);
      expect(a.destructiveHint ?? false, tool.name).toBe(destructive.includes(tool.name));
      expect(a.idempotentHint, tool.name).toBe(read || idempotentWrites.includes(tool.name));
    }
  });

  it('describes every tool, naming cents where money is involved', () => {
    for (const tool of tools) {
      expect(tool.description?.trim().length, tool.name).toBeGreaterThan(20);
    }
    for (const name of [
      'search_products',
      'get_product',
      'add_to_cart',
      'get_cart',
      'apply_coupon',
      'create_checkout',
      'list_orders',
      'get_order',
      'cancel_order',
      'request_return',
      'get_analytics',
    ]) {
      expect(toolNamed(name).description, name).toMatch(/cents/i);
    }
  });
});

// ---- happy paths ----------------------------------------------------------------------------

describe('search_products', () => {
  it('finds by query', async () => {
    const found = ok(await call(agent, 'search_products', { query: word }), searchProductsTool);
    expect(found).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(found.items.map((i: { id: string }) => i.id).sort()).toEqual([p.paddle, p.seat, p.tarp].sort());
    expect(found.items.find((i: { id: string }) => i.id === p.paddle)).toMatchObject({
      title: `Cedar paddle ${word}`,
      priceCents: 4500,
      stockQuantity: 5,
      categoryId,
    });
  });

  it('filters by category id and by category slug (any case), alike', async () => {
    const byId = ok(
      await call(agent, 'search_products', { query: word, category: categoryId }),
      searchProductsTool,
    );
    expect(byId.total).toBe(2);
    expect(byId.items.map((i: { id: string }) => i.id).sort()).toEqual([p.paddle, p.seat].sort());
    const bySlug = ok(
      await call(agent, 'search_products', { query: word, category: categorySlug }),
      searchProductsTool,
    );
    expect(bySlug).toEqual(byId);
    const upper = ok(
      await call(agent, 'search_products', { query: word, category: categorySlug.toUpperCase() }),
      searchProductsTool,
    );
    expect(upper.total).toBe(2);
  });

  it('filters by price range and sorts', async () => {
    const asc = ok(
      await call(agent, 'search_products', {
        query: word,
        min_price: 2000,
        max_price: 9900,
        sort: 'price_asc',
      }),
      searchProductsTool,
    );
    expect(asc.items.map((i: { id: string }) => i.id)).toEqual([p.paddle, p.tarp]);
    expect(asc.total).toBe(2);
    const desc = ok(
      await call(agent, 'search_products', { query: word, sort: 'price_desc' }),
      searchProductsTool,
    );
    expect(desc.items.map((i: { priceCents: number }) => i.priceCents)).toEqual([9900, 4500, 1500]);
    const cheap = ok(
      await call(agent, 'search_products', { query: word, max_price: 1500 }),
      searchProductsTool,
    );
    expect(cheap.items.map((i: { id: string }) => i.id)).toEqual([p.seat]);
  });

  it('pages with limit and offset', async () => {
    const page = ok(
      await call(agent, 'search_products', { query: word, sort: 'price_asc', limit: 1, offset: 1 }),
      searchProductsTool,
    );
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([p.paddle]);
  });

  it('passes filters through: a size in stock, with the price range', async () => {
    const shirts = uniqueWord();
    const s = await seller(t.api);
    const make = async (title: string, variants: Array<[string, number, number]>) => {
      const made = await t.api.as(s).post('/products', {
        title: `${title} ${shirts}`,
        weight: 0.3,
        options: [{ name: 'Size', values: variants.map(([size]) => size) }],
        variants: variants.map(([size, priceCents, stockQuantity]) => ({
          options: { Size: size },
          priceCents,
          stockQuantity,
        })),
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.id as string;
    };
    // The T-shirt's M is sold out; the hoodie's is not.
    const tee = await make('T-shirt', [
      ['S', 1500, 5],
      ['M', 2000, 0],
      ['L', 3000, 2],
    ]);
    const hoodie = await make('Hoodie', [
      ['M', 5500, 3],
      ['L', 5500, 1],
    ]);
    const search = async (args: Record<string, unknown>) =>
      ok(
        await call(agent, 'search_products', { query: shirts, sort: 'price_asc', ...args }),
        searchProductsTool,
      ).items.map((i: { id: string }) => i.id);
    expect(await search({ filters: 'option.Size:M' })).toEqual([tee, hoodie]);
    expect(await search({ filters: 'option.Size:M,inStock:true' })).toEqual([hoodie]);
    expect(await search({ filters: 'option.size:m|s,inStock:true' })).toEqual([tee, hoodie]);
    // With the tool's own price fields: the tee's S at $15 is under $20, its sold-out M is not.
    expect(await search({ filters: 'option.Size:M|S,inStock:true', max_price: 2000 })).toEqual([tee]);
    // A variant with no unit free: the tee's M.
    expect(await search({ filters: 'inStock:false' })).toEqual([tee]);
    const bad = failed(
      await call(agent, 'search_products', { query: shirts, filters: 'option.:M' }),
      'VALIDATION_ERROR',
      400,
    );
    expect(bad.error).toContain('option.:M');
  });
});

describe('get_product and check_inventory', () => {
  it('get_product answers the same detail as GET /products/:id', async () => {
    const detail = ok(await call(agent, 'get_product', { id: p.paddle }), getProductTool);
    const http = await t.api.as(shopper).get(`/products/${encodeURIComponent(p.paddle)}`);
    expect(http.status).toBe(200);
    expect(detail).toEqual(http.body);
    expect(detail).toMatchObject({
      id: p.paddle,
      title: `Cedar paddle ${word}`,
      priceCents: 4500,
      categoryId,
      seller: { name: expect.any(String) },
      reviews: [],
    });
  });

  it('check_inventory answers availability, quantity 1 by default', async () => {
    expect(
      ok(await call(agent, 'check_inventory', { product_id: p.paddle }), checkInventoryTool),
    ).toMatchObject({
      product_id: p.paddle,
      available: true,
      stock_quantity: 5,
      requested_quantity: 1,
      message: expect.any(String),
    });
    const tooMany = ok(
      await call(agent, 'check_inventory', { product_id: p.seat, quantity: 3 }),
      checkInventoryTool,
    );
    expect(tooMany).toMatchObject({ available: false, stock_quantity: 2, requested_quantity: 3 });
    expect(tooMany.message).toMatch(/\b2\b/);
  });
});

describe('get_product in the person’s language', () => {
  it('answers a French reader the translated options, and a product without translation as written, saying so', async () => {
    const s = await seller(t.api);
    const tee = await product(t.api, s, {
      title: `Tee ${word}`,
      priceCents: undefined,
      stockQuantity: undefined,
      weight: 0.2,
      translations: {
        'fr-CA': { title: `T-shirt ${word}`, options: [{ name: 'Taille', values: ['P', 'M'] }] },
      },
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, priceCents: 2000, stockQuantity: 3 },
        { options: { Size: 'M' }, priceCents: 2200, stockQuantity: 1 },
      ],
    });
    const plain = await product(t.api, s, {
      title: `Scarf ${word}`,
      priceCents: undefined,
      stockQuantity: undefined,
      options: [{ name: 'Colour', values: ['Red'] }],
      variants: [{ options: { Colour: 'Red' }, priceCents: 1500, stockQuantity: 2 }],
    });
    const { client } = await startToolServer(shopper.token, baseUrl, { PORTAGE_LOCALE: 'fr-CA' });
    const shape = (d: z.output<typeof getProductTool.output>) => ({
      title: d.title,
      language: d.language,
      options: d.options,
      optionsLanguage: d.optionsLanguage,
      variants: d.variants.map((v) => [v.title, v.options]),
    });
    const fr = ok(await call(client, 'get_product', { id: tee.id }), getProductTool);
    expect(shape(fr)).toEqual({
      title: `T-shirt ${word}`,
      language: 'fr-CA',
      options: [{ name: 'Taille', values: ['P', 'M'] }],
      optionsLanguage: 'fr-CA',
      variants: [
        ['P', { Taille: 'P' }],
        ['M', { Taille: 'M' }],
      ],
    });
    // The ids stay the written product's: the same variant in both languages.
    expect(fr.variants.map((v) => v.id)).toEqual(tee.variants.map((v: { id: string }) => v.id));
    const fallback = ok(await call(client, 'get_product', { id: plain.id }), getProductTool);
    expect(shape(fallback)).toEqual({
      title: `Scarf ${word}`,
      language: 'en-CA',
      options: [{ name: 'Colour', values: ['Red'] }],
      optionsLanguage: 'en-CA',
      variants: [['Red', { Colour: 'Red' }]],
    });
    // The English agent's server: the options as written.
    const en = ok(await call(agent, 'get_product', { id: tee.id }), getProductTool);
    expect(shape(en).options).toEqual([{ name: 'Size', values: ['S', 'M'] }]);
  });
});

describe('the cart', () => {
  it('get_cart answers an empty cart at first', async () => {
    expect(ok(await call(agent, 'get_cart'), getCartTool)).toMatchObject({
      items: [],
      itemCount: 0,
      subtotalCents: 0,
      totalAmountCents: 0,
      coupon_applied: null,
      discount_cents: 0,
    });
  });

  it('add_to_cart adds units and answers the cart', async () => {
    const added = ok(await call(agent, 'add_to_cart', { product_id: p.paddle, quantity: 2 }), addToCartTool);
    expect(added).toMatchObject({ product_id: p.paddle, quantity: 2, added: true });
    expect(added.cart).toMatchObject({
      itemCount: 2,
      subtotalCents: 9000,
      items: [
        {
          product_id: p.paddle,
          title: `Cedar paddle ${word}`,
          quantity: 2,
          unit_price_cents: 4500,
          line_total_cents: 9000,
        },
      ],
    });
    const again = ok(await call(agent, 'add_to_cart', { product_id: p.seat, quantity: 1 }), addToCartTool);
    expect(again).toMatchObject({ product_id: p.seat, quantity: 1, added: true });
    expect(again.cart).toMatchObject({ itemCount: 3, subtotalCents: 10_500 });
  });

  it('get_cart answers what GET /cart does', async () => {
    const got = ok(await call(agent, 'get_cart'), getCartTool);
    const http = await t.api.as(shopper).get('/cart');
    expect(http.status).toBe(200);
    expect(got).toEqual(http.body);
    expect(got).toMatchObject({ itemCount: 3, subtotalCents: 10_500 });
    expect(got.totalAmountCents).toBe(got.subtotalCents + got.shippingCostCents + got.taxAmountCents);
  });

  it('remove_from_cart removes some units, or the whole line', async () => {
    const some = ok(
      await call(agent, 'remove_from_cart', { product_id: p.paddle, quantity: 1 }),
      removeFromCartTool,
    );
    expect(some).toMatchObject({ removed: true, quantity_removed: 1 });
    expect(some.cart).toMatchObject({ itemCount: 2, subtotalCents: 6000 });
    const all = ok(await call(agent, 'remove_from_cart', { product_id: p.seat }), removeFromCartTool);
    expect(all).toMatchObject({ removed: true, quantity_removed: 1 });
    expect(all.cart).toMatchObject({
      itemCount: 1,
      subtotalCents: 4500,
      items: [{ product_id: p.paddle, quantity: 1 }],
    });
  });

  it('apply_coupon applies a code in any case', async () => {
    const applied = ok(
      await call(agent, 'apply_coupon', { code: couponCode.toLowerCase() }),
      applyCouponTool,
    );
    expect(applied).toMatchObject({
      applied: true,
      code: couponCode,
      discount_cents: 450,
      discount_percent: 10,
      terms: '10% off the cart; test coupon',
    });
    const cart = ok(await call(agent, 'get_cart'), getCartTool);
    expect(cart).toMatchObject({ coupon_applied: couponCode, discount_cents: 450 });
    expect(applied.new_total_cents).toBe(cart.totalAmountCents);
    // Applying it again is idempotent.
    expect(ok(await call(agent, 'apply_coupon', { code: couponCode }), applyCouponTool)).toEqual(applied);
  });
});

// ---- error paths ----------------------------------------------------------------------------

describe('errors', () => {
  it('missing required input is VALIDATION_ERROR with details', async () => {
    const body = failed(await call(agent, 'get_product', {}), 'VALIDATION_ERROR', 400);
    expect(body.details?.map((d) => d.field)).toContain('id');
    const search = failed(await call(agent, 'search_products', {}), 'VALIDATION_ERROR', 400);
    expect(search.details?.map((d) => d.field)).toContain('query');
  });

  it('quantity 0, limit 101 and an unknown sort are VALIDATION_ERROR with details', async () => {
    const zero = failed(
      await call(agent, 'add_to_cart', { product_id: p.paddle, quantity: 0 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(zero.details?.map((d) => d.field)).toEqual(['quantity']);
    const limit = failed(
      await call(agent, 'search_products', { query: word, limit: 101 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(limit.details?.map((d) => d.field)).toEqual(['limit']);
    const sort = failed(
      await call(agent, 'search_products', { query: word, sort: 'cheapest' }),
      'VALIDATION_ERROR',
      400,
    );
    expect(sort.details?.map((d) => d.field)).toEqual(['sort']);
  });

  it('min_price above max_price is VALIDATION_ERROR', async () => {
    const body = failed(
      await call(agent, 'search_products', { query: word, min_price: 5000, max_price: 1000 }),
      'VALIDATION_ERROR',
      400,
    );
    expect(body.error).toMatch(/price/i);
  });

  it('an unknown product is NOT_FOUND', async () => {
    const id = 'products:doesNotExist0000000000';
    const body = failed(await call(agent, 'get_product', { id }), 'NOT_FOUND', 404);
    expect(body.error).toContain(id);
    failed(await call(agent, 'check_inventory', { product_id: id }), 'NOT_FOUND', 404);
    failed(await call(agent, 'add_to_cart', { product_id: id, quantity: 1 }), 'NOT_FOUND', 404);
  });

  it('adding more than in stock is CONFLICT naming the available quantity', async () => {
    const body = failed(
      await call(agent, 'add_to_cart', { product_id: p.seat, quantity: 3 }),
      'CONFLICT',
      409,
    );
    expect(body.error).toMatch(/\b2\b/);
    expect(body.error).toMatch(/left|available/i);
    // Nothing was added.
    expect(
      ok(await call(agent, 'get_cart'), getCartTool).items.map((i: { product_id: string }) => i.product_id),
    ).toEqual([p.paddle]);
  });

  it('an unknown coupon is NOT_FOUND', async () => {
    failed(await call(agent, 'apply_coupon', { code: `NOPE${suffix}` }), 'NOT_FOUND', 404);
  });

  it('an unknown category slug is NOT_FOUND', async () => {
    const body = failed(
      await call(agent, 'search_products', { query: word, category: `no-such-${suffix}` }),
      'NOT_FOUND',
      404,
    );
    expect(body.error).toContain(`no-such-${suffix}`);
  });

  it('an unknown tool name is the JSON-RPC error -32602 (Invalid params), not a tool result', async () => {
    await expect(agent.callTool({ name: 'checkout_everything', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: checkout_everything'),
    });
  });
});

// ---- authentication -------------------------------------------------------------------------

describe('tokens', () => {
  it('a garbage token gives AUTH_ERROR 401', async () => {
    const { client } = await startToolServer('not.a.jwt');
    const body = failed(await call(client, 'get_cart'), 'AUTH_ERROR', 401);
    expect(body.error).toMatch(/AUTH_ERROR/);
    failed(await call(client, 'search_products', { query: word }), 'AUTH_ERROR', 401);
  });

  // docs/decisions.md "Agents (MCP)": the tool server never puts a credential in a
  // message, on stdout or stderr.
  it('a token with a line break and a SERVICE_URL with a password: errors name neither', async () => {
    const b = await buyer(t.api, 'leaky');
    const tail = `tail${randomBytes(8).toString('hex')}`;
    const password = `pw${randomBytes(8).toString('hex')}`;
    const withUser = baseUrl.replace('http://', `http://portage-user:${password}@`);
    const secrets = [b.token, tail, password, 'portage-user'];
    const runs = [
      { server: await startToolServer(`${b.token}\n${tail}`), code: 'AUTH_ERROR', status: 401 },
      { server: await startToolServer(b.token, withUser), code: 'VALIDATION_ERROR', status: 400 },
      {
        server: await startToolServer(`${b.token}\n${tail}`, withUser),
        code: 'VALIDATION_ERROR',
        status: 400,
      },
    ];
    for (const { server, code, status } of runs) {
      for (const [name, args] of [
        ['get_cart', {}],
        ['get_product', { id: p.paddle }],
        ['search_products', { query: word, category: categorySlug }],
      ] as const) {
        const res = await call(server.client, name, args);
        const body = failed(res, code, status);
        expect(body.error).toMatch(/SERVICE_JWT_TOKEN|SERVICE_URL/);
        const text = JSON.stringify(res);
        for (const secret of secrets) {
          expect(text, name).not.toContain(secret);
          expect(JSON.stringify(res.structuredContent ?? null)).not.toContain(secret);
        }
      }
      for (const secret of secrets) expect(server.stderr()).not.toContain(secret);
    }
  });

  it('a SERVICE_URL that does not parse is refused at start without its password', async () => {
    const password = `pw${randomBytes(8).toString('hex')}`;
    const run = await finished(
      spawn(process.execPath, ['bin/portage.js', 'mcp'], {
        cwd: ROOT,
        env: childEnv({
          SERVICE_URL: `http://user:${password}/x@127.0.0.1:1`,
          SERVICE_JWT_TOKEN: shopper.token,
        }),
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'portage: SERVICE_URL must be an http(s) URL; got "http://[redacted]@127.0.0.1:1"\n',
    );
  });

  // Moves the service's clock: keep it last among the calls that hold tokens.
  it('an expired token is refreshed transparently through /auth/refresh', async () => {
    const b = await buyer(t.api, 'refresher');
    const { client } = await startToolServer(b.token);
    ok(await call(client, 'add_to_cart', { product_id: p.tarp, quantity: 1 }), addToCartTool);

    t.clock.advance(3601);
    expect((await t.api.as(b).get('/me')).status).toBe(401);

    const cart = ok(await call(client, 'get_cart'), getCartTool);
    expect(cart.items.map((i: { product_id: string }) => i.product_id)).toEqual([p.tarp]);
    ok(await call(client, 'add_to_cart', { product_id: p.tarp, quantity: 1 }), addToCartTool);
    expect(ok(await call(client, 'get_cart'), getCartTool).itemCount).toBe(2);
    // The first tool server's token expired as well; it renews it too.
    expect(ok(await call(agent, 'get_cart'), getCartTool).coupon_applied).toBe(couponCode);
  });
});

// ---- the process ----------------------------------------------------------------------------

describe('the process', () => {
  it('writes only JSON-RPC messages to stdout', async () => {
    const b = await buyer(t.api, 'stdio');
    const child = spawn(process.execPath, ['bin/portage.js', 'mcp'], {
      cwd: ROOT,
      env: childEnv({ SERVICE_URL: baseUrl, SERVICE_JWT_TOKEN: b.token }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const answered = (id: number) => stdout.split('\n').some((l) => l.includes(`"id":${id}`));
    const waitFor = async (id: number) => {
      const until = Date.now() + 20_000;
      while (!answered(id)) {
        if (Date.now() > until) throw new Error(`no answer to ${id}; stdout: ${stdout}; stderr: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw-test', version: '0.0.0' },
      },
    });
    await waitFor(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    // A call that succeeds and one that fails: neither leaks logs to stdout.
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_cart', arguments: {} } });
    send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'get_product', arguments: { id: 'products:doesNotExist0000000000' } },
    });
    await waitFor(3);
    await waitFor(4);
    await new Promise((r) => setTimeout(r, 400));

    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(stdout.endsWith('\n')).toBe(true);
    const messages = lines.map((line) => {
      let parsed: { jsonrpc?: string; id?: number; result?: { tools?: unknown[] } } | undefined;
      expect(() => {
        parsed = JSON.parse(line);
      }, `not JSON on stdout: ${line}`).not.toThrow();
      expect(parsed?.jsonrpc, line).toBe('2.0');
      return parsed!;
    });
    // Calls run concurrently: answers may come in any order.
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4]);
    expect(messages.find((m) => m.id === 2)?.result?.tools).toHaveLength(TOOL_NAMES.length);

    child.stdin.end();
    // The end of stdin ends the server; the test's timeout bounds the wait.
    const exit = await new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });
    expect(exit).toBe(0);
  });

  it('exits non-zero naming the missing configuration, with nothing on stdout', async () => {
    const runs = await Promise.all([
      finished(spawn(process.execPath, ['bin/portage.js', 'mcp'], { cwd: ROOT, env: childEnv({}) })),
      finished(
        spawn(process.execPath, ['bin/portage.js', 'mcp'], {
          cwd: ROOT,
          env: childEnv({ SERVICE_URL: baseUrl }),
        }),
      ),
      finished(
        spawn(process.execPath, ['bin/portage.js', 'mcp'], {
          cwd: ROOT,
          env: childEnv({ SERVICE_JWT_TOKEN: shopper.token, SERVICE_URL: '  ' }),
        }),
      ),
    ]);
    const [neither, noToken, noUrl] = runs;
    for (const run of runs) {
      expect(run.code).not.toBe(0);
      expect(run.code).not.toBeNull();
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toMatch(/^portage: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr).not.toContain(shopper.token);
    }
    expect(neither!.stderr).toMatch(/SERVICE_URL and SERVICE_JWT_TOKEN must be set/);
    expect(noToken!.stderr).toMatch(/^portage: SERVICE_JWT_TOKEN must be set/);
    expect(noUrl!.stderr).toMatch(/^portage: SERVICE_URL must be set/);
  });
});

// ---- discovery ------------------------------------------------------------------------------

describe('discovery', () => {
  it('GET /.well-known/mcp.json describes the same tools and how to run the server', async () => {
    const res = await t.api.get('/.well-known/mcp.json');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const manifest = res.body;
    expect(manifest).toMatchObject({
      name: 'portage',
      version: '1.0.0',
      transport: {
        type: 'stdio',
        env: { SERVICE_URL: expect.any(String), SERVICE_JWT_TOKEN: expect.any(String) },
      },
    });
    expect(manifest.transport.args).toContain('mcp');
    expect(manifest.transport.env.SERVICE_URL).toBe(t.config.publicBaseUrl);
    expect(manifest.tools.map((x: { name: string }) => x.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of manifest.tools as { name: string; inputSchema: unknown; description: string }[]) {
      expect(tool.inputSchema, tool.name).toEqual(toolNamed(tool.name).inputSchema);
      expect(tool.description, tool.name).toBe(toolNamed(tool.name).description);
    }
  });

  it('GET /llms.txt is a Markdown summary linking the docs, OpenAPI and the manifest', async () => {
    const res = await t.api.get('/llms.txt');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
    const text = String(res.body);
    expect(text.startsWith('# Portage\n')).toBe(true);
    expect(text).toMatch(/^> \S.+$/m);
    for (const target of ['/docs', '/openapi.json', '/.well-known/mcp.json']) {
      expect(text, target).toMatch(new RegExp(`\\]\\([^)\\s]*${target.replace(/\./g, '\\.')}\\)`));
    }
    for (const name of TOOL_NAMES) expect(text).toContain(name);
  });
});

describe('README', () => {
  it('carries the tool table made from the tool list, verbatim', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(toolsMarkdownTable());
  });
});
