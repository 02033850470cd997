// The file feed's snapshot (docs/acp.md "File feed") over a large catalog: `--products` products
// (1,000,000 by default) of 3 variants each, every one with a French translation, two pictures,
// a category and a seller (2,000 sellers, a third with a flat shipping rate), seeded once by
// set-based SQL into its own PostgreSQL database (portage_bench_feed_<products>) and kept; then
// the snapshot writer runs `--runs` times in this process while its RSS is sampled every second.
// Prints seconds, rows, bytes and peak RSS per run (docs/performance.md "Product feeds").
//
//   npm run bench:feed -- [--products 1000000] [--runs 2]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { openDatabase } from '../src/db/index.ts';
import { writeFeedSnapshot } from '../src/modules/feeds/file-feed.ts';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '2' },
  },
});
const products = Number(flags.products);
const runs = Number(flags.runs);
const SELLERS = 2_000;
const CATEGORIES = 40;

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `portage_bench_feed_${products}`;
const url = new URL(server);
url.pathname = `/${dbName}`;
const databaseUrl = url.href;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

{
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
  if (exists.rowCount === 0) await admin.query(`create database ${dbName}`);
  await admin.end();
}
const database = await openDatabase({ databaseUrl, poolSize: 4 });
await database.migrate();
await seedOnce();

const log = pino({ level: 'warn' });
const ctx = { db: database.db, now: () => new Date(), log };
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-feed-bench-'));
  let peak = process.memoryUsage().rss;
  const rssAt: number[] = [];
  const sampler = setInterval(() => {
    const rss = process.memoryUsage().rss;
    peak = Math.max(peak, rss);
    rssAt.push(mb(rss));
  }, 1_000);
  const cpu = process.cpuUsage();
  const load = os.loadavg()[0]!;
  const written = await writeFeedSnapshot(
    ctx,
    { dir, publicBaseUrl: 'https://portage.example.ca', fileHours: 24 },
    { force: true },
  );
  clearInterval(sampler);
  if (!written) throw new Error('another writer holds the snapshot');
  const used = process.cpuUsage(cpu);
  const rows = written.files.reduce((n, f) => n + f.rows, 0);
  const bytes = written.files.reduce((n, f) => n + f.bytes, 0);
  console.log(
    `run ${run}: ${written.products} products, ${rows} rows, ${(bytes / 1e6).toFixed(0)} MB in ${written.seconds.toFixed(1)} s; ` +
      `this process's CPU ${((used.user + used.system) / 1e6).toFixed(0)} s (threads included); ` +
      `peak RSS ${mb(peak)} MB; load average ${load.toFixed(1)} before, ${os.loadavg()[0]!.toFixed(1)} after`,
  );
  for (const f of written.files)
    console.log(`  ${f.locale} ${f.format.padEnd(5)} ${f.rows} rows ${(f.bytes / 1e6).toFixed(0)} MB`);
  console.log(`  RSS every second (MB): ${rssAt.join(' ')}`);
  rmSync(dir, { recursive: true, force: true });
}
await database.close().catch(() => {});

/** The catalog, in a few set-based statements, unless it is there already. */
async function seedOnce() {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A run stopped midway leaves its snapshot's lease: this database is the bench's alone.
    await client.query('delete from feed_snapshots where written_at is null');
    const { rows } = await client.query('select count(*)::int as n from products');
    if (rows[0].n >= products) return;
    console.log(`seeding ${products} products × 3 variants into ${dbName}...`);
    const started = Date.now();
    await client.query('truncate products, product_variants, categories, seller_shipping cascade');
    await client.query(`delete from seller_profiles where user_id like 'users:feedseller%'`);
    await client.query(`delete from users where id like 'users:feedseller%'`);
    await client.query(`insert into users (id, email, name, role, email_verified)
      select 'users:feedseller' || g, 'feedseller' || g || '@portage.example', 'Seller ' || g, 'seller', true
      from generate_series(1, ${SELLERS}) g`);
    await client.query(`insert into seller_profiles (user_id, shop_name, province, slug)
      select 'users:feedseller' || g, 'Maple Goods ' || g, 'ON', 'maple-goods-' || g
      from generate_series(1, ${SELLERS}) g`);
    await client.query(`insert into seller_shipping (seller_id, origin_postal_code, origin_province, handling_days,
        rates, services, flat_cents, free_over_cents, parcel_length_cm, parcel_width_cm, parcel_height_cm,
        parcel_weight_kg, updated_at)
      select 'users:feedseller' || g, 'M5H 2N2', 'ON', 1, 'flat', '{}', 700 + g % 900, 7500, 30, 23, 13, 0.5, now()
      from generate_series(1, ${SELLERS}, 3) g`);
    await client.query(`insert into categories (id, name, slug, translations)
      select 'categories:feed' || g, 'Category ' || g, 'feed-category-' || g,
        jsonb_build_object('fr-CA', jsonb_build_object('name', 'Catégorie ' || g))
      from generate_series(1, ${CATEGORIES}) g`);
    // Triggers keep search documents and the products' price and stock totals: the feed reads
    // neither, and with them a million rows take many times longer.
    await client.query('alter table products disable trigger user');
    await client.query('alter table product_variants disable trigger user');
    await client.query(`insert into products (id, seller_id, category_id, title, description, image_urls, price_cents,
        price_max_cents, options, translations, language)
      select 'products:feed' || lpad(g::text, 8, '0'), 'users:feedseller' || (1 + g % ${SELLERS}),
        'categories:feed' || (1 + g % ${CATEGORIES}),
        'Merino wool tee, crew neck, model ' || g,
        'A soft merino wool tee knitted in Quebec: breathable, warm when wet, and machine washable. Model ' || g || '.',
        array['https://images.portage.example/p/' || g || '/1.webp', 'https://images.portage.example/p/' || g || '/2.webp'],
        1000 + g % 9000, 1500 + g % 9000,
        '[{"name":"Size","values":["S","M","L"]}]'::jsonb,
        jsonb_build_object('fr-CA', jsonb_build_object(
          'title', 'T-shirt en laine mérinos, col rond, modèle ' || g,
          'description', 'Un t-shirt doux en laine mérinos tricoté au Québec : respirant, chaud même mouillé, lavable à la machine. Modèle ' || g || '.',
          'options', '[{"name":"Taille","values":["P","M","G"]}]'::jsonb)),
        'en-CA'
      from generate_series(1, ${products}) g`);
    await client.query(`insert into product_variants (id, product_id, seller_id, sku, option_values, position,
        price_cents, compare_at_price_cents, stock_quantity, barcode)
      select 'variants:feed' || lpad(g::text, 8, '0') || '-' || s, 'products:feed' || lpad(g::text, 8, '0'),
        'users:feedseller' || (1 + g % ${SELLERS}), 'TEE-' || g || '-' || s,
        array[(array['S','M','L'])[s]], s, 1000 + g % 9000 + s * 100,
        case when g % 4 = 0 then 1500 + g % 9000 + s * 100 end,
        case when (g + s) % 10 = 0 then 0 else 5 + s end,
        case when g % 2 = 0 then lpad((g * 3 + s)::text, 13, '0') end
      from generate_series(1, ${products}) g, generate_series(1, 3) s`);
    await client.query('alter table products enable trigger user');
    await client.query('alter table product_variants enable trigger user');
    await client.query('vacuum analyze products');
    await client.query('vacuum analyze product_variants');
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
}
