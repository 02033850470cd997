// The cost of a tool call over MCP against the same direct HTTP call: get_cart over POST /mcp
// (a 2026-07-28 tools/call, one POST; and a 2025-era one) against GET /cart with the same
// agent's token, and over `portage mcp` (stdio, both eras, the built command as a child) against
// GET /cart with the same login token. One app listening on a port in this process; one call at
// a time, the calls alternated (each round makes one of each, so a slower moment of the machine
// falls on all alike). Prints the median and p95 of each over N rounds after a warm-up, and the
// median overhead over its direct call. PGlite by default; PostgreSQL with BENCH_DATABASE_URL (a
// database of that server named portage_bench_mcp is dropped and made again).
//
//   npm run build && npm run bench:mcp
//   npm run bench:mcp -- --calls 1000
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:mcp
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { signAgentToken } from '../src/modules/auth/jwt.ts';
import { developmentKeyPem, loadKeyRing } from '../src/modules/auth/keys.ts';
import { users } from '../src/modules/auth/tables.ts';
import { agentGrants } from '../src/modules/oauth/tables.ts';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '200' },
    /** Only the calls whose name matches this regular expression (to profile one: node --cpu-prof --import tsx bench/mcp.ts --only stdio). */
    only: { type: 'string' },
  },
});
const CALLS = Number(flags.calls);
const WARMUP = Number(flags.warmup);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-bench-mcp-'));
let databaseUrl: string | undefined;
if (process.env.BENCH_DATABASE_URL) {
  const server = new URL(process.env.BENCH_DATABASE_URL);
  const admin = new pg.Client({ connectionString: server.href });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS portage_bench_mcp');
  await admin.query('CREATE DATABASE portage_bench_mcp');
  await admin.end();
  server.pathname = '/portage_bench_mcp';
  databaseUrl = server.href;
}

const config = loadConfig({
  APP_ENV: 'development',
  DATA_DIR: dataDir,
  PUBLIC_BASE_URL: 'http://127.0.0.1:3998',
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'silent',
  JOBS: 'off',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});
const database = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : dataDir });
await database.migrate();
const keys = await loadKeyRing(developmentKeyPem(dataDir), []);
const app = await buildApp({ config, database, keys });
await app.listen({ port: 3998, host: '127.0.0.1' });
const base = 'http://127.0.0.1:3998';

// A buyer, and an agent's token for them exactly as the authorization server issues one.
const email = `bench-${randomBytes(4).toString('hex')}@example.ca`;
const registered = await fetch(`${base}/auth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email, password: 'correct horse battery', name: 'Bench Buyer' }),
});
const { user: who, token: loginToken } = (await registered.json()) as { user: { id: string }; token: string };
const now = new Date();
const grantId = `grants:${randomBytes(15).toString('base64url')}`;
await database.db
  .insert(agentGrants)
  .values({ id: grantId, userId: who.id, clientId: 'bench', scope: 'shop', createdAt: now });
const [user] = await database.db.select().from(users).where(eq(users.id, who.id));
const { token } = await signAgentToken(
  { keys, audience: config.publicBaseUrl, ttlSeconds: 3600 },
  user!,
  now,
  {
    scopes: ['shop'],
    clientId: 'bench',
    grantId,
    ttlSeconds: 3600,
    authTime: Math.floor(now.getTime() / 1000),
  },
);
const auth = { authorization: `Bearer ${token}` };

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** `portage mcp` as a child, spoken to in JSON lines: one request at a time, answered by id. */
function stdioServer(protocolVersion: string) {
  // BENCH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the child.
  const nodeArgs = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, 'bin/portage.js', 'mcp'], {
    env: { ...process.env, SERVICE_URL: base, SERVICE_JWT_TOKEN: loginToken, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  type Answer = { id?: number; result?: { isError?: boolean }; error?: unknown };
  const waiting = new Map<number, (message: Answer) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as Answer;
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  let nextId = 0;
  const send = (method: string, params: object) =>
    new Promise<Answer>((resolve) => {
      const id = ++nextId;
      waiting.set(id, (m) => {
        waiting.delete(id);
        resolve(m);
      });
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    async start() {
      if (protocolVersion === '2026-07-28') return;
      await send('initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'bench', version: '0' },
      });
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    },
    async call() {
      const params = protocolVersion === '2026-07-28' ? { _meta: MODERN_META } : {};
      const answer = await send('tools/call', { name: 'get_cart', arguments: {}, ...params });
      if (!answer.result || answer.result.isError) throw new Error(`portage mcp: ${JSON.stringify(answer)}`);
    },
    /** Ends its input, as a host does; it exits then (and writes its profile, if asked). */
    stop: () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      return exited;
    },
  };
}
const stdioModern = stdioServer('2026-07-28');
const stdioLegacy = stdioServer('2025-11-25');
await Promise.all([stdioModern.start(), stdioLegacy.start()]);

const getCart = async (headers: Record<string, string>) => {
  const res = await fetch(`${base}/cart`, { headers });
  if (res.status !== 200) throw new Error(`GET /cart: ${res.status}`);
  await res.json();
};
/** get_cart over /mcp: one POST, answered as JSON (2026-07-28) or as JSON or SSE (2025-11-25). */
async function overMcp(protocolVersion: '2026-07-28' | '2025-11-25') {
  const modern = protocolVersion === '2026-07-28';
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': protocolVersion,
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': 'get_cart' } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_cart', arguments: {}, ...(modern ? { _meta: MODERN_META } : {}) },
    }),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"result"') || text.includes('"isError":true')) {
    throw new Error(`/mcp: ${text}`);
  }
}

/** Each call, and the direct call its overhead is measured against. */
const calls: Record<string, { run: () => Promise<void>; against?: string }> = {
  'GET /cart (agent token)': { run: () => getCart(auth) },
  'get_cart via /mcp (2026-07-28)': { against: 'GET /cart (agent token)', run: () => overMcp('2026-07-28') },
  'get_cart via /mcp (2025-11-25)': { against: 'GET /cart (agent token)', run: () => overMcp('2025-11-25') },
  'GET /cart (login token)': { run: () => getCart({ authorization: `Bearer ${loginToken}` }) },
  'get_cart via stdio (2026-07-28)': { against: 'GET /cart (login token)', run: stdioModern.call },
  'get_cart via stdio (2025-11-25)': { against: 'GET /cart (login token)', run: stdioLegacy.call },
};

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
if (flags.only) {
  for (const name of Object.keys(calls)) if (!new RegExp(flags.only).test(name)) delete calls[name];
}
const times = Object.fromEntries(Object.keys(calls).map((name) => [name, [] as number[]]));
for (let round = 0; round < WARMUP + CALLS; round++) {
  for (const [name, { run }] of Object.entries(calls)) {
    const started = performance.now();
    await run();
    if (round >= WARMUP) times[name]!.push(performance.now() - started);
  }
}
const results: Record<string, { median: number; p95: number }> = {};
for (const [name, measured] of Object.entries(times)) {
  measured.sort((a, b) => a - b);
  results[name] = { median: quantile(measured, 0.5), p95: quantile(measured, 0.95) };
}

console.log(
  `${database.kind}, ${CALLS} rounds of one call each, alternated (after ${WARMUP} warm-up rounds)`,
);
for (const [name, r] of Object.entries(results)) {
  const against = calls[name]!.against;
  const extra =
    against && results[against]
      ? `  overhead +${(r.median - results[against]!.median).toFixed(2)} ms median`
      : '';
  console.log(`${name.padEnd(32)} median ${r.median.toFixed(2)} ms  p95 ${r.p95.toFixed(2)} ms${extra}`);
}

await Promise.all([stdioModern.stop(), stdioLegacy.stop()]);
await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
