// ACP's MCP binding at POST /mcp (src/contract/acp-tools.ts): the five checkout session tools
// over the real service on a port, called by the official SDK v2 client (both protocol eras) and
// by raw JSON-RPC, with an agent's token of a buyer (scope shop). Every session answered is
// checked against our zod contract of ACP and the official schema, and so is every ACP error in a
// JSON-RPC error's data.
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { PortageClient } from '../src/client/index.ts';
import { acpCheckoutSession, acpError } from '../src/contract/acp.ts';
import { TOOLS } from '../src/contract/tools.ts';
import { createToolServer, type ToolServerOptions } from '../src/mcp/tools.ts';
import { ACP_ON, ACP_QC, ACP_VERSION, AcpClient, CAPABILITIES } from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { type Era, mcpMessage, postMcp } from './helpers/mcp.ts';
import { acpProblems, expectOfficial } from './helpers/official-schemas.ts';

const { t, database } = useTestApp();
let baseUrl: string;
let shop: SignedIn;
let person: SignedIn;
let token: string;

beforeAll(async () => {
  baseUrl = await listen(t);
  shop = await seller(t.api);
  person = await buyer(t.api, 'acp-mcp');
  token = (await agentToken(t, database, person, ['shop'])).token;
});

const ACP_NAMES = [
  'create_checkout_session',
  'get_checkout_session',
  'update_checkout_session',
  'complete_checkout_session',
  'cancel_checkout_session',
];
const meta = (extra: Record<string, unknown> = {}) => ({ api_version: ACP_VERSION, ...extra });
type Total = { type: string; amount: number };
const amount = (session: { totals: Total[] }, type: string) =>
  session.totals.find((x) => x.type === type)?.amount;

/** The SDK v2 client at /mcp with `withToken`, speaking 2025-11-25 (initialize) or 2026-07-28. */
async function connect(era: Era, withToken = token): Promise<Client> {
  const client = new Client(
    { name: 'acp-mcp-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${withToken}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/**
 * A session answered by a tool: structuredContent, the same JSON as its text, ACP's CheckoutSession
 * (CheckoutSessionWithOrder once completed, as the binding's complete answers).
 */
function session(answer: unknown) {
  const result = toolResult(answer);
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  const structured = result.structuredContent;
  expectOfficial(
    acpProblems(structured?.status === 'completed' ? 'completed' : 'session', structured),
    structured,
  );
  return acpCheckoutSession.parse(structured);
}

/** A tools/call result, however it came (the SDK client's answer, a raw JSON-RPC result). */
function toolResult(answer: unknown): CallToolResult {
  expect(answer, 'a tools/call result').toMatchObject({ content: expect.any(Array) });
  return answer as CallToolResult;
}

/** A JSON-RPC answer as the tests read it: a result, or an error with ACP's Error as its data. */
interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** A raw tools/call at /mcp: the JSON-RPC answer. */
async function rpc(name: string, args: unknown, withToken = token, id = 1): Promise<RpcAnswer> {
  const res = await postMcp(
    baseUrl,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    withToken,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return mcpMessage(res);
}

/** The ACP error of a JSON-RPC error answer: code -32000, message the error's, data ACP's Error. */
function acpFailure(answer: RpcAnswer) {
  expect(answer.result, JSON.stringify(answer)).toBeUndefined();
  expect(answer.error?.code).toBe(-32000);
  const data = acpError.parse(answer.error?.data);
  expectOfficial(acpProblems('error', answer.error?.data), answer.error?.data);
  expect(answer.error?.message).toBe(data.message);
  return data;
}

const newProduct = (priceCents = 2500) => product(t.api, shop, { priceCents, stockQuantity: 5 });

/**
 * A tool server over an in-memory pair, built as its entries build it (`acp` as /mcp passes it,
 * none as `portage mcp` does), its client calling the service on its port with `withToken`.
 */
async function inMemory(options: ToolServerOptions, withToken: string) {
  const server = createToolServer(new PortageClient({ baseUrl, token: withToken, refresh: false }), options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe('tools/list', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s era: /mcp lists Portage’s tools first and as they were, then the binding’s five',
    async (era) => {
      const client = await connect(era);
      try {
        const names = (await client.listTools()).tools.map((x) => x.name);
        const own = TOOLS.map((x) => x.name);
        expect(names).toEqual([...own, ...ACP_NAMES]);
      } finally {
        await client.close();
      }
    },
  );

  it('the binding’s five tools follow Portage’s own, with {meta, id, payload} and no output schema', async () => {
    const { client, close } = await inMemory({ acp: true }, token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual([...TOOLS.map((x) => x.name), ...ACP_NAMES]);
      const byName = new Map(tools.map((x) => [x.name, x]));
      const required = (name: string) => [...(byName.get(name)!.inputSchema.required ?? [])].sort();
      expect(required('create_checkout_session')).toEqual(['meta', 'payload']);
      expect(required('get_checkout_session')).toEqual(['id', 'meta']);
      expect(required('update_checkout_session')).toEqual(['id', 'meta', 'payload']);
      expect(required('complete_checkout_session')).toEqual(['id', 'meta', 'payload']);
      expect(required('cancel_checkout_session')).toEqual(['id', 'meta']);
      expect(Object.keys(byName.get('get_checkout_session')!.inputSchema.properties ?? {})).toEqual([
        'meta',
        'id',
      ]);
      const metaSchema = byName.get('create_checkout_session')!.inputSchema.properties?.meta as {
        required: string[];
      };
      expect(metaSchema.required).toEqual(['api_version']);
      expect(byName.get('get_checkout_session')!.annotations).toMatchObject({ readOnlyHint: true });
      for (const name of ['complete_checkout_session', 'cancel_checkout_session']) {
        expect(byName.get(name)!.annotations, name).toMatchObject({
          readOnlyHint: false,
          destructiveHint: true,
        });
      }
      // The spec's CheckoutSession is 36 KB of schema: not repeated five times in every agent's context.
      for (const name of ACP_NAMES) expect(byName.get(name)!.outputSchema, name).toBeUndefined();

      const p = await newProduct();
      const created = session(
        await client.callTool({
          name: 'create_checkout_session',
          arguments: {
            meta: meta(),
            payload: {
              currency: 'cad',
              capabilities: {},
              line_items: [{ id: p.id }],
              fulfillment_details: ACP_ON,
            },
          },
        }),
      );
      expect(created.status).toBe('ready_for_payment');
    } finally {
      await close();
    }
  });

  it('`portage mcp` (stdio, a login token) serves none of them: unknown tools there', async () => {
    const { client, close } = await inMemory({}, person.token);
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(TOOLS.map((x) => x.name));
      await expect(
        client.callTool({ name: 'get_checkout_session', arguments: { meta: meta(), id: 'acp_cs_x' } }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') });
    } finally {
      await close();
    }
  });
});

describe('a buyer’s agent buys through the tools', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s era: create → update → complete (a token vaulted over REST) → get shows it completed with its order',
    async (era) => {
      const client = await connect(era);
      try {
        const p = await newProduct();
        const created = session(
          await client.callTool({
            name: 'create_checkout_session',
            arguments: {
              meta: meta({ request_id: `req-${era}` }),
              payload: {
                currency: 'cad',
                capabilities: CAPABILITIES,
                line_items: [{ id: p.id, quantity: 2 }],
                fulfillment_details: ACP_ON,
              },
            },
          }),
        );
        expect(created).toMatchObject({ status: 'ready_for_payment', currency: 'cad' });
        expect(created.line_items).toEqual([expect.objectContaining({ quantity: 2, unit_amount: 2500 })]);

        const moved = session(
          await client.callTool({
            name: 'update_checkout_session',
            arguments: { meta: meta(), id: created.id, payload: { fulfillment_details: ACP_QC } },
          }),
        );
        expect(moved.status).toBe('ready_for_payment');
        expect(amount(moved, 'tax')).not.toBe(amount(created, 'tax'));

        // The vault is REST only (the binding has no delegate payment tool yet): same agent token.
        const acp = new AcpClient(t.api, token, t.clock.now);
        const vaulted = await acp.delegate(created.id);
        expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(201);
        const done = session(
          await client.callTool({
            name: 'complete_checkout_session',
            arguments: {
              meta: meta(),
              id: created.id,
              payload: {
                payment_data: {
                  handler_id: 'portage_sandbox_card',
                  instrument: { type: 'card', credential: { type: 'spt', token: vaulted.body.id } },
                },
              },
            },
          }),
        );
        expect(done.status).toBe('completed');
        expect(done.order).toMatchObject({ type: 'order', checkout_session_id: created.id });

        const read = session(
          await client.callTool({
            name: 'get_checkout_session',
            arguments: { meta: meta(), id: created.id },
          }),
        );
        expect(read.status).toBe('completed');
        expect(read.order?.id).toBe(done.order?.id);
        // The tool answers exactly what the REST route answers the same agent.
        expect((await acp.get(created.id)).body).toEqual(read);
      } finally {
        await client.close();
      }
    },
  );

  it('cancel: the session is canceled; canceling it again is ACP’s error, as over REST', async () => {
    const p = await newProduct();
    const created = session(
      (
        await rpc('create_checkout_session', {
          meta: meta(),
          payload: {
            currency: 'cad',
            capabilities: {},
            line_items: [{ id: p.id }],
            fulfillment_details: ACP_ON,
          },
        })
      ).result,
    );
    const canceled = session(
      (
        await rpc('cancel_checkout_session', {
          meta: meta(),
          id: created.id,
          payload: { intent_trace: { reason_code: 'price_sensitivity' } },
        })
      ).result,
    );
    expect(canceled.status).toBe('canceled');
    // Without a payload (the binding makes it optional), and with another key: refused.
    const again = acpFailure(
      await rpc('cancel_checkout_session', {
        meta: meta({ idempotency_key: 'cancel-again' }),
        id: created.id,
      }),
    );
    expect(again).toMatchObject({ type: 'invalid_request', code: 'invalid' });
    expect(again.message).toMatch(/canceled/);
  });

  it('meta.accept_language reaches the route as Accept-Language: the session’s locale', async () => {
    const p = await newProduct();
    const created = session(
      (
        await rpc('create_checkout_session', {
          meta: meta({ accept_language: 'fr-CA', user_agent: 'AgentShop/1.0', some_future_header: 'x' }),
          payload: {
            currency: 'cad',
            capabilities: {},
            line_items: [{ id: p.id }],
            fulfillment_details: ACP_ON,
          },
        })
      ).result,
    );
    expect(created.locale).toBe('fr-CA');
  });
});

describe('errors', () => {
  it.each(['legacy', 'modern'] as const)(
    '%s era: an unknown session is the JSON-RPC error -32000 with ACP’s not_found in data',
    async (era) => {
      const client = await connect(era);
      try {
        const refused = await client
          .callTool({ name: 'get_checkout_session', arguments: { meta: meta(), id: 'acp_cs_nope' } })
          .then(
            (result) => ({ result }),
            (err) => err,
          );
        expect(refused.code, JSON.stringify(refused)).toBe(-32000);
        const data = acpError.parse(refused.data);
        expect(data).toMatchObject({ type: 'invalid_request', code: 'not_found' });
        expect(data.message).toMatch(/acp_cs_nope/);
      } finally {
        await client.close();
      }
    },
  );

  it('raw JSON-RPC: not_found on every tool that takes an id', async () => {
    const pay = {
      payment_data: {
        handler_id: 'portage_sandbox_card',
        instrument: { type: 'card', credential: { type: 'spt', token: 'vt_nope' } },
      },
    };
    for (const [name, payload] of [
      ['get_checkout_session', undefined],
      ['update_checkout_session', { fulfillment_details: ACP_ON }],
      ['complete_checkout_session', pay],
      ['cancel_checkout_session', undefined],
    ] as const) {
      const data = acpFailure(await rpc(name, { meta: meta(), id: 'acp_cs_nope', payload }));
      expect(data, name).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    }
  });

  it('malformed arguments are -32602 naming the field: no meta, no api_version, no id, a payload not an object', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['get_checkout_session', { id: 'acp_cs_x' }, /meta is required/],
      ['get_checkout_session', { meta: {}, id: 'acp_cs_x' }, /meta\.api_version is required/],
      ['get_checkout_session', { meta: { api_version: 20260417 }, id: 'acp_cs_x' }, /meta\.api_version/],
      ['update_checkout_session', { meta: meta(), payload: {} }, /id is required/],
      ['create_checkout_session', { meta: meta() }, /payload is required/],
      ['create_checkout_session', { meta: meta(), payload: 'cad' }, /payload/],
      ['get_checkout_session', { meta: meta({ request_id: 'a\nb' }), id: 'acp_cs_x' }, /meta\.request_id/],
    ];
    for (const [name, args, message] of cases) {
      const answer = await rpc(name, args);
      expect(answer.result, JSON.stringify(args)).toBeUndefined();
      expect(answer.error?.code, JSON.stringify(args)).toBe(-32602);
      expect(answer.error?.message).toMatch(new RegExp(`^Invalid arguments for ${name}: `));
      expect(answer.error?.message).toMatch(message);
    }
  });

  it('ACP’s own checks stay ACP errors: an unsupported version, a payload field', async () => {
    const version = acpFailure(
      await rpc('get_checkout_session', { meta: { api_version: '2025-01-01' }, id: 'x' }),
    );
    expect(version).toMatchObject({
      type: 'invalid_request',
      code: 'unsupported_api_version',
      supported_versions: [ACP_VERSION],
    });
    const p = await newProduct();
    const field = acpFailure(
      await rpc('create_checkout_session', {
        meta: meta(),
        payload: { capabilities: {}, line_items: [{ id: p.id }] },
      }),
    );
    expect(field).toMatchObject({ type: 'invalid_request', code: 'missing', param: '$.currency' });
  });

  it('an agent without the shop scope is refused at /mcp: 403 insufficient_scope', async () => {
    const reader = (await agentToken(t, database, person, ['orders'])).token;
    const res = await postMcp(
      baseUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_checkout_session', arguments: { meta: meta(), id: 'acp_cs_x' } },
      },
      reader,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(res.headers.get('www-authenticate')).toContain('scope="orders shop"');
    expect(await res.json()).toMatchObject({ code: 'AUTHZ_ERROR', statusCode: 403 });
  });
});

describe('idempotency', () => {
  const createArgs = (productId: string, extra: Record<string, unknown> = {}) => ({
    meta: meta(extra),
    payload: {
      currency: 'cad',
      capabilities: {},
      line_items: [{ id: productId }],
      fulfillment_details: ACP_ON,
    },
  });

  it('a create repeated with the same meta.idempotency_key replays the same session', async () => {
    const p = await newProduct();
    const key = `create-${p.id}`;
    const a = session(
      (await rpc('create_checkout_session', createArgs(p.id, { idempotency_key: key }))).result,
    );
    const b = session(
      (await rpc('create_checkout_session', createArgs(p.id, { idempotency_key: key }))).result,
    );
    expect(b.id).toBe(a.id);
    const c = session(
      (await rpc('create_checkout_session', createArgs(p.id, { idempotency_key: `${key}-2` }))).result,
    );
    expect(c.id).not.toBe(a.id);
  });

  it('without a key, a retry of the same create replays (a derived key); another payload is a new session', async () => {
    const p = await newProduct();
    const a = session((await rpc('create_checkout_session', createArgs(p.id))).result);
    const b = session((await rpc('create_checkout_session', createArgs(p.id), token, 2)).result);
    expect(b.id).toBe(a.id);
    const other = createArgs(p.id);
    other.payload.line_items = [{ id: p.id, quantity: 2 } as { id: string }];
    const c = session((await rpc('create_checkout_session', other)).result);
    expect(c.id).not.toBe(a.id);
  });

  it('without a key, the same create after its session was canceled opens a new session, not the dead one replayed', async () => {
    const p = await newProduct();
    const first = session((await rpc('create_checkout_session', createArgs(p.id))).result);
    expect(first.status).toBe('ready_for_payment');
    const canceled = session(
      (await rpc('cancel_checkout_session', { meta: meta(), id: first.id, payload: {} })).result,
    );
    expect(canceled.status).toBe('canceled');
    const again = session((await rpc('create_checkout_session', createArgs(p.id))).result);
    expect(again.id).not.toBe(first.id);
    // A new session, as it truly is: a canceled hold cools the product down for 15 minutes.
    expect(again.status).toBe('not_ready_for_payment');
    expect(again.messages).toEqual([expect.objectContaining({ code: 'conflict', param: '$.line_items[0]' })]);
    t.clock.advance(15 * 60);
    // A retry of that call answers the new session as it is now.
    const retried = session((await rpc('create_checkout_session', createArgs(p.id), token, 2)).result);
    expect(retried.id).toBe(again.id);
  });

  it('without a key, an update to A, then B, then A again applies each time (no stale replay)', async () => {
    const p = await newProduct();
    const created = session((await rpc('create_checkout_session', createArgs(p.id))).result);
    const to = async (details: typeof ACP_ON) =>
      session(
        (
          await rpc('update_checkout_session', {
            meta: meta(),
            id: created.id,
            payload: { fulfillment_details: details },
          })
        ).result,
      );
    const qc = await to(ACP_QC);
    // The service's answers carry whole seconds: the next update is a second later.
    t.clock.advance(1);
    await to(ACP_ON);
    t.clock.advance(1);
    const back = await to(ACP_QC);
    expect(back.fulfillment_details?.address?.state).toBe('QC');
    expect(amount(back, 'tax')).toBe(amount(qc, 'tax'));
    const read = session((await rpc('get_checkout_session', { meta: meta(), id: created.id })).result);
    expect(read.fulfillment_details?.address?.state).toBe('QC');
  });

  it('without a key, complete refused as not ready, then fixed, then the same complete pays', async () => {
    const p = await newProduct();
    const created = session(
      (
        await rpc('create_checkout_session', {
          meta: meta(),
          payload: { currency: 'cad', capabilities: {}, line_items: [{ id: p.id }] },
        })
      ).result,
    );
    expect(created.status).toBe('not_ready_for_payment');
    const vaulted = await new AcpClient(t.api, token, t.clock.now).delegate(created.id);
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(201);
    const complete = {
      meta: meta(),
      id: created.id,
      payload: {
        payment_data: {
          handler_id: 'portage_sandbox_card',
          instrument: { type: 'card', credential: { type: 'spt', token: vaulted.body.id } },
        },
      },
    };
    expect(acpFailure(await rpc('complete_checkout_session', complete))).toMatchObject({
      code: 'not_ready_for_payment',
    });
    const ready = session(
      (
        await rpc('update_checkout_session', {
          meta: meta(),
          id: created.id,
          payload: { fulfillment_details: ACP_ON },
        })
      ).result,
    );
    expect(ready.status).toBe('ready_for_payment');
    const done = session((await rpc('complete_checkout_session', complete)).result);
    expect(done.status).toBe('completed');
    // A retry of the call that paid answers the completed session again.
    const retried = session((await rpc('complete_checkout_session', complete, token, 3)).result);
    expect(retried).toMatchObject({ status: 'completed', order: done.order });
  });
});
