// The tool server as an agent runs it: `node bin/portage.js mcp` as a child process, spoken to
// over stdio by the official MCP client; and the checks of a tool's result.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** The 14 tools, in the order tools/list answers them (README "Agents": the tool table). */
export const TOOL_NAMES = [
  'search_products',
  'get_product',
  'check_inventory',
  'add_to_cart',
  'remove_from_cart',
  'get_cart',
  'apply_coupon',
  'create_checkout',
  'list_orders',
  'get_order',
  'cancel_order',
  'request_return',
  'submit_review',
  'get_analytics',
];

/** The protocol eras the SDK speaks: 2025-11-25 and before (initialize), and 2026-07-28. */
export type Era = 'legacy' | 'modern';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A tool server acting for the user whose token it holds (`env` adds to its environment); `close()` ends the child. */
export async function startToolServer(
  serviceUrl: string,
  token: string,
  env: Record<string, string> = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/portage.js', 'mcp'],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      SERVICE_URL: serviceUrl,
      SERVICE_JWT_TOKEN: token,
      ...env,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'portage-test-agent', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful result: structuredContent, and the same JSON as its one text content. */
// biome-ignore lint/suspicious/noExplicitAny: tool outputs are asserted by the tests
export function toolOk(result: CallToolResult): any {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.content).toHaveLength(1);
  const [first] = result.content;
  expect(first?.type).toBe('text');
  expect(JSON.parse((first as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

export interface ToolErrorBody {
  error: string;
  code: string;
  statusCode: number;
  details?: { field: string; message: string }[];
}

/** A failed result: isError with the spec's error JSON {error, code, statusCode} as its text. */
export function toolFailed(result: CallToolResult, code: string, statusCode: number): ToolErrorBody {
  expect(result.isError).toBe(true);
  expect(result.content).toHaveLength(1);
  const body = JSON.parse((result.content[0] as { text: string }).text) as ToolErrorBody;
  expect(body).toMatchObject({ error: expect.any(String), code, statusCode });
  for (const key of Object.keys(body)) expect(['error', 'code', 'statusCode', 'details']).toContain(key);
  return body;
}

/** A raw POST /mcp of one JSON-RPC message with an agent's token, as a remote agent sends it. */
export async function postMcp(
  baseUrl: string,
  body: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The one JSON-RPC message of an answer of /mcp, sent as JSON or as one SSE event. */
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages are asserted by the tests
export async function mcpMessage(res: Response): Promise<any> {
  const text = await res.text();
  if (text.startsWith('{')) return JSON.parse(text);
  const data = text.split('\n').find((l) => l.startsWith('data:'));
  if (!data) throw new Error(`no JSON-RPC message in: ${text.slice(0, 500)}`);
  return JSON.parse(data.slice(5));
}
