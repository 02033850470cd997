// The cost of a tool call over /mcp against the same direct HTTP call (issue 10's closing
// note): get_cart through POST /mcp (a 2026-07-28 tools/call, one POST; and a 2025-era one) and
// GET /cart, with the same agent's token, against one app listening on a port in this process,
// one call at a time. Prints the median and p95 of each over N calls after a warm-up, and the
// median overhead. PGlite by default; PostgreSQL with BENCH_DATABASE_URL (a database of that
// server named portage_bench_mcp is dropped and made again).
//
//   npm run bench:mcp
//   npm run bench:mcp -- --calls 1000
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:mcp
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  options: { calls: { type: 'string', default: '1000' }, warmup: { type: 'string', default: '200' } },
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
const { user: who } = (await registered.json()) as { user: { id: string } };
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
const calls: Record<string, () => Promise<void>> = {
  'GET /cart': async () => {
    const res = await fetch(`${base}/cart`, { headers: auth });
    if (res.status !== 200) throw new Error(`GET /cart: ${res.status}`);
    await res.json();
  },
  'get_cart via /mcp (2026-07-28)': async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'get_cart',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_cart', arguments: {}, _meta: MODERN_META },
      }),
    });
    const body = (await res.json()) as { result?: { isError?: boolean } };
    if (res.status !== 200 || !body.result || body.result.isError)
      throw new Error(`/mcp: ${JSON.stringify(body)}`);
  },
  'get_cart via /mcp (2025-11-25)': async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_cart', arguments: {} },
      }),
    });
    const text = await res.text();
    if (res.status !== 200 || !text.includes('"result"') || text.includes('"isError":true')) {
      throw new Error(`/mcp: ${text}`);
    }
  },
};

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const results: Record<string, { median: number; p95: number }> = {};
for (const [name, call] of Object.entries(calls)) {
  for (let i = 0; i < WARMUP; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  results[name] = { median: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

const direct = results['GET /cart']!;
console.log(`${database.kind}, ${CALLS} calls each, one at a time (after ${WARMUP} warm-up calls)`);
for (const [name, r] of Object.entries(results)) {
  const extra = name === 'GET /cart' ? '' : `  overhead +${(r.median - direct.median).toFixed(2)} ms median`;
  console.log(`${name.padEnd(32)} median ${r.median.toFixed(2)} ms  p95 ${r.p95.toFixed(2)} ms${extra}`);
}

await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
