// Catalog and search benchmark: seeds a catalog, then loads the running service over
// loopback with autocannon and prints p50/p95/p99 latency and requests per second, next to
// two references measured on the same database in the same run (a bare primary-key route,
// the ceiling; and the naive ranked search + GROUP BY facets).
//
//   npm run bench -- --db postgres --products 1000000
//   npm run bench -- --db pglite --products 100000 --duration 10 --connections 8
//   npm run bench -- --db postgres --products 1000000 --variants 3   (sizes: 3 variants on average)
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { categoryId, seedCatalog, seededProduct } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import {
  type ChurnSlice,
  churnSlice,
  cpuMs,
  type LatencyFigures,
  pct,
  restoreChurnSlice,
  rssMb,
  runChurn,
} from './churn.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    products: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    variants: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    'search-connections': { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const products = Number(flags.products);
const variantsPerProduct = Number(flags.variants);
let slice: ChurnSlice = { ids: [], descriptions: [] };
const seed = Number(flags.seed);
const duration = Number(flags.duration);
// Throughput scenarios (detail, list, ceiling) use many connections; latency scenarios
// (search, naive) few, so that p95 is the query's time, not time queued behind others.
const connections = Number(flags.connections);
const searchConnections = Number(flags['search-connections']);
if (flags.db !== 'pglite' && flags.db !== 'postgres') throw new Error('--db is pglite or postgres');

const wanted = (name: string) => !flags.only || name.includes(flags.only);

// ---- the database ---------------------------------------------------------------------

const pgServer = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = `portage_bench_${products}_${seed}${variantsPerProduct > 1 ? `_v${variantsPerProduct}` : ''}`;
const dbEnv: Record<string, string> = {};
if (flags.db === 'postgres') {
  const admin = new pg.Client({ connectionString: pgServer });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database ${dbName}`);
  await admin.end();
  const url = new URL(pgServer);
  url.pathname = `/${dbName}`;
  dbEnv.DATABASE_URL = url.href;
} else {
  dbEnv.DATA_DIR = path.join(root, 'bench', '.data', dbName);
  mkdirSync(dbEnv.DATA_DIR, { recursive: true });
}

{
  const database = await openDatabase({
    databaseUrl: dbEnv.DATABASE_URL,
    dataDir: dbEnv.DATA_DIR ? path.join(dbEnv.DATA_DIR) : undefined,
  });
  await database.migrate();
  const [row] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from products`);
  if ((row?.n ?? 0) < products) {
    console.log(`seeding ${products} products (seed ${seed}) into ${flags.db}...`);
    const r = await seedCatalog(database.db, {
      seed,
      count: products,
      variantsPerProduct,
      onProgress: (done) => {
        if (done % 100_000 === 0) console.log(`  ${done}`);
      },
    });
    console.log(`seeded in ${r.seconds.toFixed(0)} s`);
    if (database.kind === 'postgres')
      await database.db.execute(sql`vacuum analyze products, product_variants`);
  }
  const counts = await rowsOf<{ broad: number; selective: number }>(
    database.db,
    sql`select
      (select count(*)::int from products where status = 'active' and search_doc @@ to_tsquery('english', 'handmade:*')) as broad,
      (select count(*)::int from products where status = 'active' and search_doc @@ to_tsquery('english', 'smoked & salmon & cape & breton:*')) as selective`,
  );
  console.log(
    `catalog: ${products} products; broad query "handmade" matches ${counts[0]?.broad}, selective "smoked salmon cape breton" ${counts[0]?.selective}`,
  );
  if (wanted('churn')) slice = await churnSlice(database.db);
  await database.close();
}

/** The database, opened while no server holds it (PGlite allows one process). */
async function withDatabase(fn: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<void>) {
  const database = await openDatabase({ databaseUrl: dbEnv.DATABASE_URL, dataDir: dbEnv.DATA_DIR });
  try {
    await fn(database.db);
  } finally {
    await database.close();
  }
}

// The churn scenario edits as an admin, made through the command line (no server running).
const churnAdmin = { email: `bench.admin.${Date.now()}@example.ca`, password: 'bench-admin-password' };
if (wanted('churn')) {
  const made = spawnSync(
    process.execPath,
    [
      'bin/portage.js',
      'user',
      'create',
      '--email',
      churnAdmin.email,
      '--password',
      churnAdmin.password,
      '--name',
      'Bench admin',
      '--role',
      'admin',
    ],
    { cwd: root, env: { ...process.env, ...dbEnv, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`portage user create failed: ${made.stderr}`);
}

// ---- load ---------------------------------------------------------------------------

/**
 * The process serving the scenario being measured: its CPU time per request is printed with
 * each scenario, a figure that other work on the machine disturbs much less than latency.
 */
let servedBy: ChildProcess | undefined;

async function load(
  name: string,
  base: string,
  paths: () => string,
  headers: Record<string, string> = {},
  conns = connections,
) {
  const run = (seconds: number) =>
    new Promise<{ times: number[]; result: autocannon.Result }>((resolve, reject) => {
      const times: number[] = [];
      const instance = autocannon(
        {
          url: base,
          connections: conns,
          duration: seconds,
          headers,
          requests: [{ setupRequest: (req) => ({ ...req, path: paths() }) }],
        },
        (err, result) => (err ? reject(err) : resolve({ times, result })),
      );
      instance.on('response', (_c, _s, _b, responseTime) => times.push(responseTime));
    });
  await run(2); // warm-up: caches, JIT, connection pools
  const cpuBefore = servedBy?.pid ? cpuMs(servedBy.pid) : Number.NaN;
  const { times, result } = await run(duration);
  const cpuPerRequest = servedBy?.pid ? (cpuMs(servedBy.pid) - cpuBefore) / times.length : Number.NaN;
  times.sort((a, b) => a - b);
  const f: LatencyFigures = {
    name,
    rps: Math.round(result.requests.average),
    p50: pct(times, 50),
    p95: pct(times, 95),
    p99: pct(times, 99),
    errors: result.non2xx + result.errors,
  };
  console.log(
    `${name.padEnd(44)} ${String(f.rps).padStart(7)} req/s  p50 ${f.p50.toFixed(1)} ms  p95 ${f.p95.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  service CPU ${cpuPerRequest.toFixed(2)} ms/request${f.errors ? `  (${f.errors} errors!)` : ''}`,
  );
  return f;
}

/** Starts a server process and waits until `readyUrl` answers 200. */
async function start(args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF;
  if (prof && args[0] === 'bin/portage.js') args = ['--cpu-prof', `--cpu-prof-dir=${prof}`, ...args];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...dbEnv, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  for (;;) {
    if (exited !== undefined) throw new Error(`${args.join(' ')} exited with ${exited}`);
    const ok = await fetch(readyUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });

const rand = (n: number) => Math.floor(Math.random() * n);
const productPath = (prefix: string) => () =>
  `${prefix}${encodeURIComponent(seededProduct(seed, rand(products)).id)}`;
const food = categoryId(seed, 'food-and-drink');
const outdoors = categoryId(seed, 'outdoors');
const queries = {
  broad: 'q=handmade',
  selective: `q=${encodeURIComponent('smoked salmon cape breton')}`,
  filtered: `q=handmade&filters=${encodeURIComponent(`categoryId:${food}|${outdoors},priceCents:1000..8000`)}`,
  // A size in stock: variant-level clauses that one variant must meet together.
  sized: `q=handmade&filters=${encodeURIComponent('option.Size:M|L,inStock:true,priceCents:1000..8000')}`,
};
const figures: LatencyFigures[] = [];
let rss: { before: number; edited: number; after: number } | undefined;

// References first: with PGlite only one process may open the data directory.
{
  const base = 'http://127.0.0.1:3999';
  const ref = await start(
    ['--import', 'tsx', 'bench/reference-server.ts'],
    { PORT: '3999' },
    `${base}/health`,
  );
  servedBy = ref;
  if (wanted('ceiling'))
    figures.push(await load('ceiling: bare route, PK select', base, productPath('/ceiling/')));
  if (wanted('naive')) {
    figures.push(
      await load(
        'naive search, broad (ts_rank + GROUP BY)',
        base,
        () => `/naive?${queries.broad}`,
        {},
        searchConnections,
      ),
    );
    figures.push(
      await load('naive search, selective', base, () => `/naive?${queries.selective}`, {}, searchConnections),
    );
  }
  await stop(ref);
}

{
  const base = 'http://127.0.0.1:3998';
  const app = await start(
    ['bin/portage.js', 'serve'],
    { PORT: '3998', RATE_LIMITS: 'off', LOG_LEVEL: 'warn', PUBLIC_BASE_URL: base },
    `${base}/health`,
  );
  servedBy = app;
  const reg = await fetch(`${base}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `bench.${Date.now()}@example.ca`,
      password: 'bench-password',
      name: 'Bench',
    }),
  });
  const { token } = (await reg.json()) as { token: string };
  const auth = { authorization: `Bearer ${token}` };
  if (wanted('detail'))
    figures.push(await load('GET /products/:id (auth, full detail)', base, productPath('/products/'), auth));
  if (wanted('list')) {
    figures.push(
      await load(
        'GET /products?categoryId&minPrice&maxPrice',
        base,
        () => `/products?categoryId=${encodeURIComponent(food)}&minPrice=1000&maxPrice=5000`,
        auth,
      ),
    );
  }
  // `--only search` runs the four; `--only selective` that one (and the naive reference).
  for (const [name, q] of [
    ['search, selective + facets', queries.selective],
    ['search, broad one word + facets', queries.broad],
    ['search, broad + filters + facets', queries.filtered],
    ...(variantsPerProduct > 1 ? ([['search, broad + size in stock + facets', queries.sized]] as const) : []),
  ] as const) {
    if (wanted(name))
      figures.push(await load(name, base, () => `/search/products?${q}`, auth, searchConnections));
  }
  if (wanted('churn')) {
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(churnAdmin),
    });
    const adminAuth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    const pid = app.pid!;
    const rssBefore = rssMb(pid);
    try {
      const { edits, during } = await runChurn({
        base,
        adminAuth,
        searchAuth: auth,
        slice,
        searchPath: () => `/search/products?${queries.broad}`,
      });
      const rssEdited = rssMb(pid);
      for (const f of [edits, during]) {
        console.log(
          `${f.name.padEnd(44)} ${String(f.rps).padStart(7)} req/s  p50 ${f.p50.toFixed(1)} ms  p95 ${f.p95.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms${f.errors ? `  (${f.errors} errors!)` : ''}`,
        );
        figures.push(f);
      }
      figures.push(
        await load(
          'churn: search broad + facets, after the edits',
          base,
          () => `/search/products?${queries.broad}`,
          auth,
          searchConnections,
        ),
      );
      rss = { before: rssBefore, edited: rssEdited, after: rssMb(pid) };
    } finally {
      await stop(app);
      // The slice gets its descriptions back, so that every run starts from the same catalog.
      await withDatabase((db) => restoreChurnSlice(db, slice));
    }
  } else {
    await stop(app);
  }
}

const byName = (n: string) => figures.find((f) => f.name.startsWith(n));
const ceiling = byName('ceiling');
const detail = byName('GET /products/:id');
const naive = byName('naive search, broad');
const broad = byName('search, broad one word');
console.log(
  `\n${flags.db}, ${products} products, ${duration} s per scenario; ${connections} connections ` +
    `(ceiling, detail, list), ${searchConnections} (search, naive)`,
);
console.log('| scenario | req/s | p50 ms | p95 ms | p99 ms |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const f of figures) {
  console.log(`| ${f.name} | ${f.rps} | ${f.p50.toFixed(1)} | ${f.p95.toFixed(1)} | ${f.p99.toFixed(1)} |`);
}
if (ceiling && detail)
  console.log(`detail / ceiling requests/s: ${((100 * detail.rps) / ceiling.rps).toFixed(0)}%`);
if (rss) {
  console.log(
    `service RSS (churn): ${rss.before} MB before the edits, ${rss.edited} MB after them, ${rss.after} MB after the searches that followed`,
  );
}
if (naive && broad) console.log(`naive / ours, broad search p95: ${(naive.p95 / broad.p95).toFixed(1)}x`);
