// Payout run benchmark (issue 42): the `payouts` job over N sellers (10,000 by default) on
// PostgreSQL, each with an enabled sandbox payout account, due, and K delivered orders whose money
// is available (written as the ledger writes a sale and its release). Seeds a fresh database by
// SQL, then runs the job's pass (runPayouts, 100 sellers and 100 transfers a pass, as the job
// does) until nothing is left, and reports the time, the passes, the payouts and transfers made,
// the service's and PostgreSQL's CPU, then runs the ledger's check. See docs/performance.md
// "Payouts".
//
//   npm run bench:payouts
//   npm run bench:payouts -- --sellers 10000 --orders-per-seller 3
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { openDatabase } from '../src/db/index.ts';
import { checkLedger } from '../src/modules/ledger/queries.ts';
import { runPayouts } from '../src/modules/payouts/payouts.ts';
import { createSandboxPayouts } from '../src/modules/payouts/providers/sandbox.ts';

const { values: flags } = parseArgs({
  options: {
    sellers: { type: 'string', default: '10000' },
    'orders-per-seller': { type: 'string', default: '3' },
    batch: { type: 'string', default: '100' },
  },
});
const SELLERS = Number(flags.sellers);
const ORDERS = Number(flags['orders-per-seller']);
const BATCH = Number(flags.batch);

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB_NAME = `portage_bench_payouts_${SELLERS}_${ORDERS}`;
const url = (() => {
  const u = new URL(server);
  u.pathname = `/${DB_NAME}`;
  return u.href;
})();

async function freshDatabase() {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`drop database if exists ${DB_NAME}`);
  await admin.query(`create database ${DB_NAME}`);
  await admin.end();
}

/** PostgreSQL's CPU so far (all its processes' user + system time, in ms), from /proc. */
async function postgresCpuMs(): Promise<number> {
  const { readdir, readFile } = await import('node:fs/promises');
  const ticks = 100;
  let total = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const comm = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
      if (!comm.startsWith('postgres')) continue;
      const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      total += ((Number(stat[11]) + Number(stat[12])) * 1000) / ticks;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function seed(client: pg.Client) {
  const started = Date.now();
  // Sellers and one buyer; every seller's payout account enabled and due.
  await client.query(`insert into users (id, email, name, role)
    select 'users:bench-seller-' || g, 'seller' || g || '@bench.test', 'Seller ' || g, 'seller'
    from generate_series(1, ${SELLERS}) g`);
  await client.query(
    `insert into users (id, email, name) values ('users:bench-buyer', 'buyer@bench.test', 'Buyer')`,
  );
  await client.query(`insert into seller_payout_accounts
      (seller_id, provider, account_id, payouts_enabled, next_payout_at, created_at, updated_at)
    select 'users:bench-seller-' || g, 'sandbox', 'acct_sandbox_bench' || g, true,
      now() - interval '1 minute', now(), now()
    from generate_series(1, ${SELLERS}) g`);
  // K delivered orders a seller, $20.00 to $80.00 each.
  await client.query(`insert into orders (id, number, checkout_id, buyer_id, seller_id, status, subtotal_cents,
      discount_cents, shipping_cost_cents, tax_amount_cents, tax_lines, platform_fee_cents, total_amount_cents,
      shipping_address, payment_intent_id, stock_committed, item_count, estimated_delivery, created_at, delivered_at)
    select 'orders:bench-' || s || '-' || k, 'B-' || s || '-' || k, 'checkout:bench-' || s || '-' || k,
      'users:bench-buyer', 'users:bench-seller-' || s, 'delivered', 2000 + (s * 7 + k * 13) % 6000, 0, 899, 0,
      '[]'::jsonb, ((2000 + (s * 7 + k * 13) % 6000) * 250 + 5000) / 10000,
      2000 + (s * 7 + k * 13) % 6000 + 899,
      '{"street":"1 King St","city":"Toronto","province":"ON","postalCode":"M5H 2N2","country":"CA"}'::jsonb,
      'pi_bench_' || s || '_' || k, true, 1, current_date, now() - interval '10 days', now() - interval '8 days'
    from generate_series(1, ${SELLERS}) s, generate_series(1, ${ORDERS}) k`);
  // Their sales and releases, as the ledger writes them (HST 13% on the commission).
  await client.query(`insert into ledger_transactions (key, kind, seller_id, created_at)
    select kind || ':' || o.id, kind, o.seller_id, now() - interval '8 days'
    from orders o, unnest(array['sale', 'release']) kind where o.id like 'orders:bench-%'`);
  await client.query(`insert into ledger_entries (transaction_key, account, seller_id, order_id, amount_cents, created_at)
    select e.key, e.account, o.seller_id, o.id, e.amount, now() - interval '8 days'
    from orders o,
      lateral (select (o.platform_fee_cents * 13 + 50) / 100 as tax) t,
      lateral (values
        ('sale:' || o.id, 'provider_cash', o.total_amount_cents),
        ('sale:' || o.id, 'seller_pending', -(o.total_amount_cents - o.platform_fee_cents - t.tax)),
        ('sale:' || o.id, 'platform_commission', -o.platform_fee_cents),
        ('sale:' || o.id, 'platform_tax_payable', -t.tax),
        ('release:' || o.id, 'seller_pending', o.total_amount_cents - o.platform_fee_cents - t.tax),
        ('release:' || o.id, 'seller_available', -(o.total_amount_cents - o.platform_fee_cents - t.tax))
      ) e(key, account, amount)
    where o.id like 'orders:bench-%' and e.amount <> 0`);
  await client.query('analyze');
  return Date.now() - started;
}

async function main() {
  console.log(
    `payout run: ${SELLERS} sellers, ${ORDERS} orders each, ${BATCH} a pass (load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  await freshDatabase();
  const database = await openDatabase({ databaseUrl: url, poolSize: 4 });
  await database.migrate();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seeded = await seed(client);
  console.log(`seeded in ${(seeded / 1000).toFixed(1)} s`);
  const ctx = { db: database.db, now: () => new Date(), log: pino({ level: 'warn' }) } as never;
  const deps = { payouts: createSandboxPayouts({ publicBaseUrl: 'http://bench.portage.test' }) };
  const cpu0 = process.cpuUsage();
  const pg0 = await postgresCpuMs();
  const started = performance.now();
  let passes = 0;
  for (;;) {
    passes++;
    const done = await runPayouts(ctx, deps, BATCH);
    if (done === 0) break;
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const pgMs = (await postgresCpuMs()) - pg0;
  const counts = (
    await client.query(`select (select count(*) from payouts)::int as payouts,
      (select count(*) from payout_transfers where status = 'paid')::int as paid,
      (select count(*) from payout_transfers where status <> 'paid')::int as other,
      (select coalesce(sum(amount_cents), 0)::bigint from payouts) as cents`)
  ).rows[0];
  console.log(
    `run: ${(ms / 1000).toFixed(1)} s over ${passes} passes; ${counts.payouts} payouts, ${counts.paid} transfers paid, ${counts.other} not; $${(Number(counts.cents) / 100).toFixed(2)}`,
  );
  console.log(
    `per seller: ${(ms / SELLERS).toFixed(2)} ms; service CPU ${((cpu.user + cpu.system) / 1000 / SELLERS).toFixed(2)} ms, PostgreSQL CPU ${(pgMs / SELLERS).toFixed(2)} ms`,
  );
  const checkStarted = performance.now();
  const problems = await checkLedger(ctx);
  console.log(
    `ledger check: ${problems.length} problem(s) in ${((performance.now() - checkStarted) / 1000).toFixed(1)} s`,
  );
  for (const p of problems.slice(0, 5)) console.log(`  ${p.check}: ${p.detail}`);
  await client.end();
  await database.close();
  if (problems.length > 0 || counts.payouts !== SELLERS) process.exitCode = 1;
}

await main();
