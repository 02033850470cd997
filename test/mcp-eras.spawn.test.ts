// Both protocol eras over stdio: `node bin/portage.js mcp` spoken to by the SDK v2 client as a
// 2025-11-25 client (initialize) and as a 2026-07-28 client (server/discover, no initialize),
// plus a raw 2026-07-28 exchange on the child's stdin/stdout, which carries protocol only.
// (The 2025-era stdio path with the SDK v1 client is test/mcp.test.ts.)
import { spawn } from 'node:child_process';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TOOLS, TOOLS } from '../src/contract/tools.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { type Era, ROOT, toolOk } from './helpers/mcp.ts';
import { finished } from './helpers/process.ts';

const { t } = useTestApp();
let baseUrl: string;
let shopper: SignedIn;
const word = uniqueWord();
const clients: Client[] = [];

const env = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.tmpdir(),
  SERVICE_URL: baseUrl,
  SERVICE_JWT_TOKEN: shopper.token,
});

beforeAll(async () => {
  baseUrl = await listen(t);
  const shop = await seller(t.api);
  await product(t.api, shop, { title: `Birch ${word} canoe`, priceCents: 150000 });
  shopper = await buyer(t.api);
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

describe.each(['legacy', 'modern'] as const)('portage mcp over stdio, %s era', (era: Era) => {
  it('lists the 14 tools and calls one', async () => {
    const client = new Client(
      { name: 'portage-stdio-test', version: '0.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/portage.js', 'mcp'],
        cwd: ROOT,
        env: env(),
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe(era);
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(TOOLS.map((x) => x.name));
    const result = await client.callTool({ name: 'search_products', arguments: { query: word } });
    const found = toolOk(result as Parameters<typeof toolOk>[0]);
    expect(found.items.map((p: { title: string }) => p.title)).toEqual([`Birch ${word} canoe`]);
    // A host that does not say it shows views gets no view.
    expect(result._meta?.['portage/view']).toBeUndefined();
  });

  it('a host that shows views (MCP Apps) also gets the app-only tools, the views and their HTML', async () => {
    const client = new Client(
      { name: 'portage-stdio-views-test', version: '0.0.0' },
      {
        capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
        ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/portage.js', 'mcp'],
        cwd: ROOT,
        env: { ...env(), VIEW_IMAGE_ORIGINS: 'https://images.portage.test', PORTAGE_LOCALE: 'fr-CA' },
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual([...TOOLS, ...APP_TOOLS].map((x) => x.name));
    expect(tools.find((x) => x.name === 'set_cart_quantity')?._meta?.ui).toEqual({
      resourceUri: 'ui://portage/cart.html',
      visibility: ['app'],
    });
    const read = await client.readResource({ uri: 'ui://portage/products.html' });
    expect(read.contents[0]).toMatchObject({
      mimeType: 'text/html;profile=mcp-app',
      _meta: { ui: { csp: { resourceDomains: ['https://images.portage.test'] } } },
    });
    await expect(client.readResource({ uri: 'ui://portage/nothing.html' })).rejects.toThrow(
      /ui:\/\/portage\/nothing.html/,
    );
    const result = await client.callTool({ name: 'search_products', arguments: { query: word } });
    const view = String(result._meta?.['portage/view']);
    expect(view).toContain(`Birch ${word} canoe`);
    expect(view).toMatch(/1\s500,00\s\$/);
  });
});

it('a raw 2026-07-28 exchange: server/discover, then tools/list without initialize; stdout is JSON-RPC only', async () => {
  const child = spawn(process.execPath, ['bin/portage.js', 'mcp'], { cwd: ROOT, env: env() });
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const answer = async (id: number) => {
    for (let i = 0; i < 200; i++) {
      const line = stdout.split('\n').find((l) => l.includes(`"id":${id}`));
      if (line) return JSON.parse(line);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no answer ${id}; stdout: ${stdout}`);
  };
  send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
  const discovered = await answer(1);
  expect(discovered.result?.supportedVersions ?? discovered.result).toBeTruthy();
  expect(JSON.stringify(discovered.result)).toContain('2026-07-28');
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } });
  const listed = await answer(2);
  expect(listed.result.tools).toHaveLength(14);
  child.stdin.end();
  await finished(child);
  for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0');
});
