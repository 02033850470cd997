// The pages for people (src/web) under load, over the search benchmark's catalog (1,000,000
// products by default, shared with `npm run bench`: made once, kept): each page is loaded by
// autocannon for `--duration` seconds at `--connections`, signed in where the page needs it,
// and its p50/p95/p99 printed next to the 50 ms p95 goal (docs/performance.md "Pages").
//
//   npm run build && npm run bench:pages -- --products 1000000
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { seedCatalog, seededProduct } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { hashPassword } from '../src/modules/auth/passwords.ts';
import { cpuMs, type LatencyFigures, pct } from './churn.ts';
import { startPortage, stopService } from './lib.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    only: { type: 'string' },
  },
});
const products = Number(flags.products);
const seed = Number(flags.seed);
const duration = Number(flags.duration);
const connections = Number(flags.connections);
const GOAL_P95_MS = 50;
const PASSWORD = 'bench-pages-password';

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = `portage_bench_${products}_${seed}`;
const url = new URL(server);
url.pathname = `/${dbName}`;
const databaseUrl = url.href;

{
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database ${dbName}`);
  await admin.end();
  const database = await openDatabase({ databaseUrl });
  await database.migrate();
  const [row] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from products`);
  if ((row?.n ?? 0) < products) {
    console.log(`seeding ${products} products (seed ${seed})...`);
    const r = await seedCatalog(database.db, {
      seed,
      count: products,
      onProgress: (done) => done % 100_000 === 0 && console.log(`  ${done}`),
    });
    console.log(`seeded in ${r.seconds.toFixed(0)} s`);
    await database.db.execute(sql`vacuum analyze products`);
  }
  // The first seeded seller signs in to the console (the catalog's sellers have no password).
  await database.db.execute(
    sql`update users set password_hash = ${await hashPassword(PASSWORD)} where email = ${`seller1.seed${seed}@portage.example`}`,
  );
  await database.close();
}

const people = {
  buyer: `bench.pages.buyer.${Date.now()}@example.ca`,
  admin: `bench.pages.admin.${Date.now()}@example.ca`,
};
for (const [role, email] of Object.entries(people)) {
  const made = spawnSync(
    process.execPath,
    [
      'bin/portage.js',
      'user',
      'create',
      '--email',
      email,
      '--password',
      PASSWORD,
      '--name',
      `Bench ${role}`,
      '--role',
      role,
    ],
    { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`portage user create failed: ${made.stderr}`);
}

const base = 'http://127.0.0.1:3997';
const service = await startPortage({
  root,
  dataDir: path.join(root, 'bench', '.data', 'pages'),
  env: { DATABASE_URL: databaseUrl, PORT: '3997', RATE_LIMITS: 'off', JOBS: 'off', LOG_LEVEL: 'warn' },
  healthy: async () => (await fetch(`${base}/health`)).ok,
});

/** Signs in through the sign-in page as a browser does: its cookies, its CSRF token, the form. */
async function signIn(email: string): Promise<string> {
  const form = await fetch(`${base}/account/sign-in`);
  const visit = (form.headers.getSetCookie().find((c) => c.startsWith('portage_visit=')) ?? '').split(
    ';',
  )[0]!;
  const csrf = (await form.text()).match(/name="csrf" value="([^"]+)"/)?.[1] ?? '';
  const res = await fetch(`${base}/account/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: visit },
    body: new URLSearchParams({ csrf, email, password: PASSWORD, next: '/account' }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('portage_session='));
  if (res.status !== 303 || !session) throw new Error(`sign-in of ${email} failed: ${res.status}`);
  return session.split(';')[0]!;
}

const cookies = {
  buyer: await signIn(people.buyer),
  seller: await signIn(`seller1.seed${seed}@portage.example`),
  admin: await signIn(people.admin),
};

const rand = (n: number) => Math.floor(Math.random() * n);
const words = ['handmade', 'maple', 'cedar', 'wool', 'salmon', 'soap', 'candle', 'quilt'];
const scenarios: Array<{ name: string; path: () => string; cookie?: string }> = [
  { name: 'storefront: home (newest, facets)', path: () => '/' },
  { name: 'storefront: broad search with facets', path: () => `/?q=${words[rand(words.length)]}` },
  { name: 'storefront: search, 2 filters, page 3', path: () => `/?q=handmade&min=10&max=80&rating=3&page=3` },
  {
    name: 'storefront: product page',
    path: () => `/shop/products/${encodeURIComponent(seededProduct(seed, rand(products)).id)}`,
  },
  { name: 'account: overview (signed in)', path: () => '/account', cookie: cookies.buyer },
  { name: 'account: cart (signed in)', path: () => '/shop/cart', cookie: cookies.buyer },
  { name: 'console: products of a seller', path: () => '/console/products', cookie: cookies.seller },
  { name: 'console: orders', path: () => '/console/orders', cookie: cookies.seller },
  { name: 'desk: platform analytics', path: () => '/desk', cookie: cookies.admin },
];

const figures: Array<LatencyFigures & { cpu: number }> = [];
for (const s of scenarios.filter((x) => !flags.only || x.name.includes(flags.only))) {
  const run = (seconds: number) =>
    new Promise<{ times: number[]; result: autocannon.Result }>((resolve, reject) => {
      const times: number[] = [];
      const instance = autocannon(
        {
          url: base,
          connections,
          duration: seconds,
          headers: s.cookie ? { cookie: s.cookie } : {},
          requests: [{ setupRequest: (req) => ({ ...req, path: s.path() }) }],
        },
        (err, result) => (err ? reject(err) : resolve({ times, result })),
      );
      instance.on('response', (_c, _s, _b, ms) => times.push(ms));
    });
  await run(2);
  const before = cpuMs(service.pid!);
  const { times, result } = await run(duration);
  const cpu = (cpuMs(service.pid!) - before) / times.length;
  times.sort((a, b) => a - b);
  const f = {
    name: s.name,
    rps: Math.round(result.requests.average),
    p50: pct(times, 50),
    p95: pct(times, 95),
    p99: pct(times, 99),
    errors: result.non2xx + result.errors,
    cpu,
  };
  figures.push(f);
  console.log(
    `${f.name.padEnd(40)} ${String(f.rps).padStart(6)} req/s  p50 ${f.p50.toFixed(1)}  p95 ${f.p95.toFixed(1)}  p99 ${f.p99.toFixed(1)} ms  CPU ${cpu.toFixed(2)} ms/page${f.errors ? `  (${f.errors} errors!)` : ''}`,
  );
}
await stopService(service);

console.log(`\n${products} products on PostgreSQL, ${connections} connections, ${duration} s per page`);
console.log('| page | pages/s | p50 ms | p95 ms | p99 ms | service CPU ms/page |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const f of figures) {
  console.log(
    `| ${f.name} | ${f.rps} | ${f.p50.toFixed(1)} | ${f.p95.toFixed(1)} | ${f.p99.toFixed(1)} | ${f.cpu.toFixed(2)} |`,
  );
}
const worst = Math.max(...figures.map((f) => f.p95));
const errors = figures.reduce((n, f) => n + f.errors, 0);
console.log(
  `goal (every page p95 under ${GOAL_P95_MS} ms, no errors): ${worst < GOAL_P95_MS && errors === 0 ? 'MET' : 'MISSED'} (worst p95 ${worst.toFixed(1)} ms, ${errors} errors)`,
);
