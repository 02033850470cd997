// The pages for people (src/web) under load, over the search benchmark's catalog (1,000,000
// products by default, shared with `npm run bench`: made once, kept) and `--orders` orders
// (1,000,000 by default: 100,000 buyers, the catalog's sellers, every province and status, two
// years of days; made once by set-based SQL, kept): each page is loaded by autocannon for
// `--duration` seconds at `--connections`, signed in where the page needs it, and its
// p50/p95/p99 printed next to the 50 ms p95 goal (docs/performance.md "Pages").
//
//   npm run build && npm run bench:pages -- --products 1000000 [--orders 1000000] [--only desk]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { seedCatalog, seededProduct, sellerId as sellerIdOf } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { hashPassword } from '../src/modules/auth/passwords.ts';
import { cpuMs, type LatencyFigures, pct } from './churn.ts';
import { startPortage, stopService } from './lib.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    orders: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '4' },
    only: { type: 'string' },
  },
});
const products = Number(flags.products);
const orderCount = Number(flags.orders);
const BUYERS = 100_000;
/** Each province's share of the seeded orders, in thousandths (cumulative: ON under 400...). */
const PROVINCE_SHARES: Array<[string, number]> = [
  ['ON', 400],
  ['QC', 620],
  ['BC', 750],
  ['AB', 860],
  ['MB', 895],
  ['SK', 925],
  ['NS', 952],
  ['NB', 972],
  ['NL', 985],
  ['PE', 992],
  ['NT', 995],
  ['YT', 998],
  ['NU', 1000],
];
const FIRST_NAMES = ['Émilie', 'Jean', 'Olivia', 'Noah', 'Chloé', 'Liam', 'Amélie', 'Ethan', 'Maya', 'Lucas'];
const LAST_NAMES = [
  'Tremblay',
  'Smith',
  'Roy',
  'Brown',
  'Gagnon',
  'Wilson',
  'Côté',
  'Martin',
  'Singh',
  'Lee',
];
const benchOrderId = (n: number) => `orders:bench${String(n).padStart(8, '0')}`;
const benchBuyerId = (n: number) => `users:benchbuyer${String(n).padStart(7, '0')}`;
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
  const [seededOrders] = await rowsOf<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from order_items where order_id like 'orders:bench%'`,
  );
  if ((seededOrders?.n ?? 0) < orderCount) {
    console.log(`seeding ${BUYERS} buyers and ${orderCount} orders...`);
    const started = Date.now();
    await seedOrders();
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  // The seeded orders stay out of the analytics rollups: the platform's analytics page is measured
  // over the catalog's figures as before, not after folding a million changes on its first read.
  await database.db.execute(
    sql`delete from analytics_changes where kind = 'order' and ref like 'orders:bench%'`,
  );
  // The first seeded seller signs in to the console (the catalog's sellers have no password).
  await database.db.execute(
    sql`update users set password_hash = ${await hashPassword(PASSWORD)} where email = ${`seller1.seed${seed}@portage.example`}`,
  );
  await database.close();
}

/**
 * BUYERS buyers and `orderCount` orders, in a few set-based statements: order n is bought by a
 * buyer and sold by a seller spread by multiplicative hashing (uncorrelated with time), ships to a
 * province by PROVINCE_SHARES, is in a status by its hash (4% cancelled, 1% pending, 5% confirmed,
 * 10% shipped, the rest delivered), and was placed n × (two years / orderCount) ago, to the minute
 * (orders of one minute share their timestamp).
 */
async function seedOrders() {
  // A client of its own: the service's pool gives up on a statement after its read timeout.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const text = (values: string[]) => `array[${values.map((v) => `'${v}'`).join(', ')}]::text[]`;
  await client.query(`insert into users (id, email, name, role, email_verified, created_at)
    select 'users:benchbuyer' || lpad(g::text, 7, '0'), 'buyer' || g || '.seed${seed}@portage.example',
      (${text(FIRST_NAMES)})[(1 + g % 10)::int] || ' ' || (${text(LAST_NAMES)})[(1 + (g / 10) % 10)::int] || ' ' || g,
      'buyer', true, now() - (g * interval '6 minutes')
    from generate_series(1::bigint, ${BUYERS}) g
    on conflict do nothing`);
  const sellers = Array.from({ length: 12 }, (_, i) => sellerIdOf(seed, i));
  const province = `case ${PROVINCE_SHARES.map(([p, below]) => `when (g * 2654435761) % 1000 < ${below} then '${p}'`).join(' ')} end`;
  const span = Math.max(1, Math.floor((2 * 365 * 24 * 3600) / orderCount));
  await client.query(`insert into orders (id, number, checkout_id, buyer_id, seller_id, status,
      subtotal_cents, discount_cents, shipping_cost_cents, tax_amount_cents, tax_lines, platform_fee_cents,
      total_amount_cents, shipping_address, payment_intent_id, stock_committed, item_count,
      estimated_delivery, created_at, confirmed_at, shipped_at, delivered_at, cancelled_at)
    select 'orders:bench' || lpad(g::text, 8, '0'), to_char(at, 'YYYY') || '-9' || lpad(g::text, 7, '0'),
      'checkouts:bench' || g, 'users:benchbuyer' || lpad((1 + (g * 7919) % ${BUYERS})::text, 7, '0'),
      (${text(sellers)})[(1 + (g * 31) % 12)::int], status,
      price, 0, 1000, price * 13 / 100, '[]'::jsonb, price / 10, price + 1000 + price * 13 / 100,
      jsonb_build_object('street', g || ' Main St', 'city', 'Town', 'province', province,
        'postalCode', 'K1A 0B1', 'country', 'CA'),
      'pi_bench_' || g, status <> 'pending', 1, (at + interval '5 days')::date, at,
      case when status <> 'pending' then at + interval '1 minute' end,
      case when status in ('shipped', 'delivered') then at + interval '1 day' end,
      case when status = 'delivered' then at + interval '4 days' end,
      case when status = 'cancelled' then at + interval '2 hours' end
    from (select g, date_trunc('minute', now() - g * ${span} * interval '1 second') as at,
        ${province} as province, 1000 + (g * 48271) % 20000 as price,
        case when (g * 40503) % 100 < 4 then 'cancelled' when (g * 40503) % 100 < 5 then 'pending'
          when (g * 40503) % 100 < 10 then 'confirmed' when (g * 40503) % 100 < 20 then 'shipped'
          else 'delivered' end as status
      from generate_series(1::bigint, ${orderCount}) g) o
    on conflict do nothing`);
  await client.query(`insert into order_items (order_id, product_id, variant_id, name, quantity, unit_price_cents, position)
    select o.id, 'products:bench', 'products:bench', 'Bench maple syrup', 1, o.subtotal_cents, 0
    from orders o where o.id like 'orders:bench%'
    on conflict do nothing`);
  for (const table of ['users', 'orders', 'order_items']) await client.query(`vacuum analyze ${table}`);
  await client.end();
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
/** The from and to of one of the last 24 months (Toronto days), `back` months ago. */
const monthOf = (back: number) => {
  const now = new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
  return `from=${first.toISOString().slice(0, 10)}&to=${last.toISOString().slice(0, 10)}`;
};
/** Some seeded orders' numbers, to search. */
const orderNumbers = await (async () => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const ids = Array.from({ length: 2000 }, () => benchOrderId(1 + rand(orderCount)));
  const res = await client.query<{ number: string }>('select number from orders where id = any($1)', [ids]);
  await client.end();
  return res.rows.map((r) => r.number);
})();
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
  { name: 'desk: orders, newest', path: () => '/desk/orders', cookie: cookies.admin },
  {
    name: 'desk: orders of a status',
    path: () =>
      `/desk/orders?status=${['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'][rand(5)]}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: orders to a province',
    path: () => `/desk/orders?province=${PROVINCE_SHARES[rand(PROVINCE_SHARES.length)]![0]}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: orders of a shop',
    path: () => `/desk/orders?shop=${encodeURIComponent(sellerIdOf(seed, rand(12)))}`,
    cookie: cookies.admin,
  },
  { name: 'desk: orders of a month', path: () => `/desk/orders?${monthOf(rand(24))}`, cookie: cookies.admin },
  {
    name: 'desk: orders, shop+province+status',
    path: () =>
      `/desk/orders?shop=${encodeURIComponent(sellerIdOf(seed, rand(12)))}&province=${PROVINCE_SHARES[rand(PROVINCE_SHARES.length)]![0]}&status=${['pending', 'cancelled', 'shipped'][rand(3)]}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: orders, search a number',
    path: () => `/desk/orders?q=${orderNumbers[rand(orderNumbers.length)]}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: orders, search an email',
    path: () => `/desk/orders?q=${encodeURIComponent(`buyer${1 + rand(BUYERS)}.seed${seed}@`)}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: orders, a deep page',
    path: () =>
      `/desk/orders?status=delivered&before=${encodeURIComponent(benchOrderId(1 + rand(orderCount)))}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: an order with its history',
    path: () => `/desk/orders/${encodeURIComponent(benchOrderId(1 + rand(orderCount)))}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: users, search a name',
    path: () =>
      `/desk/users?q=${encodeURIComponent(`${FIRST_NAMES[rand(10)]} ${LAST_NAMES[rand(10)]}`.slice(0, 8 + rand(6)))}`,
    cookie: cookies.admin,
  },
  {
    name: 'desk: a user with their history',
    path: () => `/desk/users/${encodeURIComponent(benchBuyerId(1 + rand(BUYERS)))}`,
    cookie: cookies.admin,
  },
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

console.log(
  `\n${products} products and ${orderCount} orders on PostgreSQL, ${connections} connections, ${duration} s per page`,
);
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
