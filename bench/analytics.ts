// Analytics benchmark (issue 9, "Fast at scale"): a year's analytics over 1,000,000 orders on
// PostgreSQL in <= 200 ms p95. Seeds once (reused when present) a database of orders spread over
// two years (growing towards today; ~2,000 sellers, ~100,000 products, ~200,000 buyers, 1-3
// items an order, popular sellers and products, cancellations, partial refunds, checkout
// sessions paid and abandoned), written by SQL with the analytics triggers off and the rollups
// then rebuilt by portage_analytics_rebuild() (what the migration does for existing data). It
// checks the rollups against the base tables, then runs the real app (buildApp, in this process,
// through inject) and reports p50/p95/p99 of GET /admin/analytics?period=year, ?period=month,
// a custom window in the past, and a top seller's GET /sellers/me/analytics?period=year, with
// CPU ms per request of the service and of PostgreSQL. Last, what the triggers add to a
// payment's writes (an order, its items, its session completed), measured with them on and off.
// See docs/performance.md "Analytics".
//
//   npm run bench:analytics
//   npm run bench:analytics -- --orders 1000000 --requests 200 --warmup 20
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { signAccessToken } from '../src/modules/auth/jwt.ts';
import { loadKeyRing } from '../src/modules/auth/keys.ts';

const { values: flags } = parseArgs({
  options: {
    orders: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    'trigger-payments': { type: 'string', default: '500' },
    reseed: { type: 'boolean', default: false },
    /** `triggers`: only what the triggers cost a payment. */
    only: { type: 'string' },
  },
});
const ORDERS = Number(flags.orders);
const REQUESTS = Number(flags.requests);
const WARMUP = Number(flags.warmup);
const TRIGGER_PAYMENTS = Number(flags['trigger-payments']);
const SELLERS = 2_000;
const PRODUCTS = 100_000;
const BUYERS = 200_000;
const BASE = 'http://bench.portage.test';

const pgServer = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB_NAME = `portage_bench_analytics_${ORDERS}`;
const dbUrl = (() => {
  const u = new URL(pgServer);
  u.pathname = `/${DB_NAME}`;
  return u.href;
})();

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const log = (...args: unknown[]) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...args);

// ---- the database ----------------------------------------------------------------------------

const ANALYTICS_TRIGGERS = [
  ['orders', 'orders_analytics_added'],
  ['orders', 'orders_analytics'],
  ['checkout_sessions', 'checkout_sessions_analytics'],
  ['checkout_sessions', 'checkout_sessions_analytics_paid'],
] as const;

async function prepareDatabase() {
  const admin = new pg.Client({ connectionString: pgServer });
  await admin.connect();
  if (flags.reseed) await admin.query(`drop database if exists ${DB_NAME} with (force)`);
  const exists = await admin.query('select 1 from pg_database where datname = $1', [DB_NAME]);
  if (exists.rowCount === 0) await admin.query(`create database ${DB_NAME}`);
  await admin.end();
  const database = await openDatabase({ databaseUrl: dbUrl, poolSize: 2 });
  await database.migrate();
  await database.close();

  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const { rows } = await db.query<{ n: string }>('select count(*) as n from orders');
  if (Number(rows[0]!.n) >= ORDERS) {
    log(`reusing ${DB_NAME}: ${rows[0]!.n} orders`);
  } else {
    await seed(db);
  }
  return db;
}

async function timed(db: pg.Client, what: string, text: string) {
  const started = performance.now();
  const res = await db.query(text);
  log(
    `  ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s${res.rowCount != null ? `, ${res.rowCount} rows` : ''}`,
  );
}

async function seed(db: pg.Client) {
  log(`seeding ${ORDERS} orders into ${DB_NAME} (load ${loadAverage()})`);
  const started = performance.now();
  for (const [table, trigger] of ANALYTICS_TRIGGERS) {
    await db.query(`alter table ${table} disable trigger ${trigger}`);
  }
  try {
    await timed(
      db,
      'sellers',
      `insert into users (id, email, name, role, email_verified)
       select 'users:s' || i, 'bench.seller' || i || '@portage.example', 'Bench seller ' || i, 'seller', true
         from generate_series(0, ${SELLERS - 1}) i on conflict do nothing`,
    );
    await timed(
      db,
      'shops',
      `insert into seller_profiles (user_id, shop_name, province)
       select 'users:s' || i, 'Bench shop ' || i, (array['ON','QC','BC','AB','NS','MB'])[1 + i % 6]
         from generate_series(0, ${SELLERS - 1}) i on conflict do nothing`,
    );
    await timed(
      db,
      'buyers',
      `insert into users (id, email, name, role, email_verified)
       select 'users:b' || i, 'bench.buyer' || i || '@portage.example', 'Bench buyer ' || i, 'buyer', true
         from generate_series(0, ${BUYERS - 1}) i on conflict do nothing`,
    );
    // Product p belongs to seller p % 2000 (50 each), $5.00 to $200.00.
    await timed(
      db,
      'products',
      `insert into products (id, seller_id, title, description, price_cents, price_max_cents, status,
         is_digital, is_perishable, weight_kg)
       select 'products:p' || p, 'users:s' || (p % ${SELLERS}), 'Bench product ' || p, 'A benchmark product',
           500 + (hashint4(p) & 2147483647) % 19500, 500 + (hashint4(p) & 2147483647) % 19500, 'active', false, false, 1
         from generate_series(0, ${PRODUCTS - 1}) p on conflict do nothing`,
    );
    // Each product sold one way: its one variant, under its own id (what the stock is kept on).
    await timed(
      db,
      'variants',
      `insert into product_variants (id, product_id, seller_id, sku, price_cents, stock_quantity)
       select id, id, seller_id, split_part(id, ':', 2), price_cents, 1000 from products
         where id like 'products:p%' on conflict do nothing`,
    );
    // One checkout per order (one seller); a quarter more sessions were abandoned. Orders grow
    // towards today (age = 730 days x u^1.3); sellers and products are chosen with a skew (u^2),
    // buyers with a milder one (u^1.5) so that many come back.
    await timed(
      db,
      'order plan',
      `create unlogged table if not exists bench_plan as
       select o, now() - interval '730 days' * power(random(), 1.3) as at,
           floor(${SELLERS} * power(random(), 2))::int as seller,
           floor(50 * power(random(), 2))::int as pick,
           1 + floor(random() * 3)::int as lines,
           floor(${BUYERS} * power(random(), 1.5))::int as buyer,
           random() as fate
         from generate_series(1, ${ORDERS}) o`,
    );
    await timed(
      db,
      'plan items',
      `create unlogged table if not exists bench_items as
       select b.o, j, ((b.pick + j * 7) % 50) * ${SELLERS} + b.seller as product,
           1 + floor(power(random(), 3) * 3)::int as quantity
         from bench_plan b cross join lateral generate_series(0, b.lines - 1) j`,
    );
    await timed(
      db,
      'plan totals',
      `create unlogged table if not exists bench_totals as
       select i.o, sum(i.quantity * p.price_cents)::int as subtotal, sum(i.quantity)::int as units
         from bench_items i join products p on p.id = 'products:p' || i.product group by i.o`,
    );
    await timed(
      db,
      'checkout sessions (paid)',
      `insert into checkout_sessions (id, buyer_id, status, fingerprint, address, parcels, tax_lines,
         subtotal_cents, discount_cents, shipping_cost_cents, tax_amount_cents, total_cents, provider,
         payment_intent_id, expires_at, created_at, completed_at)
       select 'checkouts:c' || b.o, 'users:b' || b.buyer, 'complete', 'bench', '{}'::jsonb,
           jsonb_build_array(jsonb_build_object('sellerId', 'users:s' || b.seller)), '[]'::jsonb,
           t.subtotal, 0, 0, t.subtotal * 13 / 100, t.subtotal + t.subtotal * 13 / 100, 'sandbox',
           'pi_bench_' || b.o, b.at - interval '5 minutes' + interval '30 minutes', b.at - interval '5 minutes', b.at
         from bench_plan b join bench_totals t using (o)`,
    );
    await timed(
      db,
      'checkout sessions (abandoned)',
      `insert into checkout_sessions (id, buyer_id, status, fingerprint, address, parcels, tax_lines,
         subtotal_cents, discount_cents, shipping_cost_cents, tax_amount_cents, total_cents, provider,
         expires_at, created_at, expired_at)
       select 'checkouts:a' || b.o, 'users:b' || ((b.buyer * 7 + 3) % ${BUYERS}), 'expired', 'bench', '{}'::jsonb,
           jsonb_build_array(jsonb_build_object('sellerId', 'users:s' || b.seller)), '[]'::jsonb,
           1000, 0, 0, 130, 1130, 'sandbox', b.at - interval '1 day', b.at - interval '1 day' - interval '30 minutes',
           b.at - interval '1 day'
         from bench_plan b where b.o % 4 = 0`,
    );
    // 3% cancelled (refunded in full), 2% partly refunded; the rest delivered or on the way.
    await timed(
      db,
      'orders',
      `insert into orders (id, number, checkout_id, buyer_id, seller_id, status, subtotal_cents, discount_cents,
         shipping_cost_cents, tax_amount_cents, tax_lines, platform_fee_cents, total_amount_cents,
         shipping_address, payment_intent_id, stock_committed, item_count, estimated_delivery,
         refunded_cents, created_at, confirmed_at, cancelled_at)
       select 'orders:o' || b.o, 'bench-' || b.o, 'checkouts:c' || b.o, 'users:b' || b.buyer, 'users:s' || b.seller,
           case when b.fate < 0.03 then 'cancelled' when b.at < now() - interval '10 days' then 'delivered' else 'confirmed' end,
           t.subtotal, 0, 0, t.subtotal * 13 / 100, '[]'::jsonb, (t.subtotal * 250 + 5000) / 10000,
           t.subtotal + t.subtotal * 13 / 100,
           '{"street":"100 Queen St W","city":"Toronto","province":"ON","postalCode":"M5H 2N2","country":"CA"}'::jsonb,
           'pi_bench_' || b.o, true, t.units, (b.at + interval '5 days')::date,
           case when b.fate < 0.03 then t.subtotal + t.subtotal * 13 / 100
                when b.fate < 0.05 then (t.subtotal + t.subtotal * 13 / 100) / 3 else 0 end,
           b.at, b.at, case when b.fate < 0.03 then b.at + interval '1 hour' end
         from bench_plan b join bench_totals t using (o)`,
    );
    await timed(
      db,
      'order items',
      `insert into order_items (order_id, product_id, variant_id, name, quantity, unit_price_cents, position)
       select 'orders:o' || i.o, 'products:p' || i.product, 'products:p' || i.product, p.title, i.quantity,
           p.price_cents, i.j
         from bench_items i join products p on p.id = 'products:p' || i.product`,
    );
    await db.query('drop table if exists bench_plan, bench_items, bench_totals');
  } finally {
    for (const [table, trigger] of ANALYTICS_TRIGGERS) {
      await db.query(`alter table ${table} enable trigger ${trigger}`);
    }
  }
  await timed(db, 'rollups rebuilt (portage_analytics_rebuild)', 'select portage_analytics_rebuild()');
  await timed(db, 'vacuum analyze', 'vacuum analyze');
  log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** The rollups against the base tables, for the last 365 days: the totals must agree. */
async function checkRollups(db: pg.Client) {
  const { rows } = await db.query(`
    with w as (select portage_analytics_day(now()) - 364 as s, portage_analytics_day(now()) as e)
    select
      (select sum(orders) from analytics_totals, w where scope = '*' and grain = 'day' and start between s and e) as rollup_orders,
      (select count(*) from orders, w where status <> 'cancelled' and portage_analytics_day(created_at) between s and e) as base_orders,
      (select sum(revenue_cents) from analytics_totals, w where scope = '*' and grain = 'day' and start between s and e) as rollup_revenue,
      (select sum(total_amount_cents - refunded_cents) from orders, w where status <> 'cancelled' and portage_analytics_day(created_at) between s and e) as base_revenue,
      (select count(distinct buyer_id) from orders, w where status <> 'cancelled' and portage_analytics_day(created_at) between s and e) as base_customers`);
  const r = rows[0]!;
  log(
    `check, last 365 days: orders ${r.rollup_orders} (base ${r.base_orders}), revenue ${r.rollup_revenue} (base ${r.base_revenue}), distinct customers (base) ${r.base_customers}`,
  );
  if (
    String(r.rollup_orders) !== String(r.base_orders) ||
    String(r.rollup_revenue) !== String(r.base_revenue)
  ) {
    throw new Error('the rollups disagree with the base tables');
  }
  return Number(r.base_customers);
}

// ---- CPU -------------------------------------------------------------------------------------

/** User + system CPU of a process so far, in ms (Linux /proc; 100 clock ticks per second). */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

async function backendsCpu(db: pg.Client): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database()',
  );
  return new Map(rows.map((r) => [r.pid, procCpuMs(r.pid)]));
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

// ---- the service -----------------------------------------------------------------------------

async function measure(db: pg.Client) {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  const config = loadConfig({
    APP_ENV: 'development',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'portage-bench-analytics-')),
    DATABASE_URL: dbUrl,
    PUBLIC_BASE_URL: BASE,
    RATE_LIMITS: 'off',
    JOBS: 'off',
    LOG_LEVEL: 'warn',
    JWT_PRIVATE_KEY: pem,
  });
  const keys = await loadKeyRing(pem, []);
  const database = await openDatabase({ databaseUrl: dbUrl });
  const app = await buildApp({ config, database, keys, logger: false });
  await app.ready();

  // An admin, and the seller with the most orders (the skew puts them first).
  await db.query(
    `insert into users (id, email, name, role, email_verified)
     values ('users:benchadmin', 'bench.admin@portage.example', 'Bench admin', 'admin', true) on conflict do nothing`,
  );
  const { rows: top } = await db.query<{ scope: string; orders: string }>(
    `select scope, sum(orders) as orders from analytics_totals where scope <> '*' and grain = 'month'
       group by scope order by 2 desc limit 1`,
  );
  const now = new Date();
  const authTime = Math.floor(now.getTime() / 1000);
  const token = async (id: string, role: 'admin' | 'seller') =>
    (
      await signAccessToken(
        { keys, audience: BASE, ttlSeconds: 3600 },
        { id, email: `${id}@portage.example`, role, tokenVersion: 0 },
        now,
        { authTime, notAfter: authTime + 86_400 },
      )
    ).token;
  const adminToken = await token('users:benchadmin', 'admin');
  const sellerToken = await token(top[0]!.scope, 'seller');
  log(`top seller ${top[0]!.scope}: ${top[0]!.orders} orders in two years`);

  const scenarios: Array<[string, string, string]> = [
    ['admin, period=year', '/admin/analytics?period=year', adminToken],
    ['admin, period=month', '/admin/analytics?period=month', adminToken],
    ['admin, period=week', '/admin/analytics?period=week', adminToken],
    ['admin, a past window (400 days)', customPast(), adminToken],
    ['top seller, period=year', '/sellers/me/analytics?period=year', sellerToken],
  ];
  const results: string[] = [];
  for (const [name, url, bearer] of scenarios) {
    const call = async () => {
      const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` } });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res;
    };
    for (let i = 0; i < WARMUP; i++) await call();
    const sample = JSON.parse((await call()).body);
    const before = { service: process.cpuUsage(), pg: await backendsCpu(db) };
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      await call();
      ms.push(performance.now() - started);
    }
    const service = process.cpuUsage(before.service);
    const pgAfter = await backendsCpu(db);
    let pgMs = 0;
    for (const [pid, cpu] of pgAfter) pgMs += cpu - (before.pg.get(pid) ?? cpu);
    ms.sort((a, b) => a - b);
    const line =
      `${name.padEnd(34)} p50 ${pct(ms, 50).toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms; ` +
      `CPU per request: service ${((service.user + service.system) / 1000 / REQUESTS).toFixed(2)} ms, ` +
      `postgres ${(pgMs / REQUESTS).toFixed(2)} ms (load ${loadAverage()})`;
    log(line);
    log(
      `  ${sample.start_date}..${sample.end_date}: ${sample.total_orders} orders, revenue ${sample.total_revenue_cents}, ` +
        `${sample.new_customers} new + ${sample.returning_customers} returning customers, conversion ${sample.conversion_rate}, ` +
        `top product ${sample.top_products[0]?.product_id} ${sample.top_products[0]?.revenue_cents}`,
    );
    results.push(line);
    if (name === 'admin, period=year') {
      // The distinct customers of the year, counted from the base tables, must be what it says.
      const { rows } = await db.query<{ n: string }>(
        `select count(distinct buyer_id) as n from orders where status <> 'cancelled'
           and portage_analytics_day(created_at) between $1 and $2`,
        [sample.start_date, sample.end_date],
      );
      const said = sample.new_customers + sample.returning_customers;
      log(`  customers: ${said} (base tables: ${rows[0]!.n})`);
      if (Number(rows[0]!.n) !== said) throw new Error('the customers disagree with the base tables');
    }
  }
  await app.close();
  await database.close();
  return results;
}

function customPast() {
  const end = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
  const start = new Date(Date.now() - 599 * 86_400_000).toISOString().slice(0, 10);
  return `/admin/analytics?start_date=${start}&end_date=${end}`;
}

// ---- what the triggers cost a payment ----------------------------------------------------------

/**
 * The writes of a payment as the webhook makes them (a session, an order, its two items, the
 * session completed), each in a transaction that is rolled back, with the analytics triggers on,
 * then off: the difference is what analytics adds to a payment's transaction (the changes it
 * queues; folding them into the rollups is the `analytics` job's, counted by bench:checkout).
 */
async function triggerCost(db: pg.Client) {
  const { rows } = await db.query<{ buyer: string; seller: string }>(
    `select 'users:b' || (100 + floor(random() * 1000)::int) as buyer, 'users:s5' as seller`,
  );
  const { buyer, seller } = rows[0]!;
  const once = async (i: number) => {
    await db.query('begin');
    await db.query(
      `insert into checkout_sessions (id, buyer_id, status, fingerprint, address, parcels, tax_lines, subtotal_cents,
         discount_cents, shipping_cost_cents, tax_amount_cents, total_cents, provider, expires_at, created_at)
       values ($1, $2, 'ready_for_payment', 'x', '{}', $3, '[]', 2000, 0, 0, 260, 2260, 'sandbox', now() + interval '30 minutes', now())`,
      [`checkouts:t${i}`, buyer, JSON.stringify([{ sellerId: seller }])],
    );
    await db.query(
      `insert into orders (id, number, checkout_id, buyer_id, seller_id, status, subtotal_cents, discount_cents, shipping_cost_cents,
         tax_amount_cents, tax_lines, platform_fee_cents, total_amount_cents, shipping_address, payment_intent_id,
         stock_committed, item_count, estimated_delivery, created_at, confirmed_at)
       values ($1, $1, $2, $3, $4, 'confirmed', 2000, 0, 0, 260, '[]', 50, 2260, '{}', 'pi_t', true, 2, current_date + 5, now(), now())`,
      [`orders:t${i}`, `checkouts:t${i}`, buyer, seller],
    );
    await db.query(
      `insert into order_items (order_id, product_id, variant_id, name, quantity, unit_price_cents, position)
       values ($1, 'products:p5', 'products:p5', 'a', 1, 1000, 0),
         ($1, 'products:p2005', 'products:p2005', 'b', 1, 1000, 1)`,
      [`orders:t${i}`],
    );
    await db.query(`update checkout_sessions set status = 'complete', completed_at = now() where id = $1`, [
      `checkouts:t${i}`,
    ]);
    await db.query('rollback');
  };
  const run = async () => {
    for (let i = 0; i < 50; i++) await once(i);
    const ms: number[] = [];
    for (let i = 0; i < TRIGGER_PAYMENTS; i++) {
      const started = performance.now();
      await once(i);
      ms.push(performance.now() - started);
    }
    ms.sort((a, b) => a - b);
    return ms;
  };
  const on = await run();
  for (const [table, trigger] of ANALYTICS_TRIGGERS)
    await db.query(`alter table ${table} disable trigger ${trigger}`);
  let off: number[];
  try {
    off = await run();
  } finally {
    for (const [table, trigger] of ANALYTICS_TRIGGERS)
      await db.query(`alter table ${table} enable trigger ${trigger}`);
  }
  const line =
    `a payment's writes (${TRIGGER_PAYMENTS}, rolled back): with the analytics triggers p50 ${pct(on, 50).toFixed(2)} ms, ` +
    `p95 ${pct(on, 95).toFixed(2)} ms; without p50 ${pct(off, 50).toFixed(2)} ms, p95 ${pct(off, 95).toFixed(2)} ms (load ${loadAverage()})`;
  log(line);
  return line;
}

// ---- run -------------------------------------------------------------------------------------

log(`load ${loadAverage()}`);
const db = await prepareDatabase();
await checkRollups(db);
const lines = flags.only === 'triggers' ? [] : await measure(db);
const triggers = await triggerCost(db);
await db.end();
console.log(`\nanalytics over ${ORDERS} orders, ${REQUESTS} requests each after ${WARMUP} warm-up:`);
for (const line of [...lines, triggers]) console.log(`  ${line}`);
