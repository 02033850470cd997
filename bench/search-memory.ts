// The search index's memory per product: seeds a catalog (once) in its own database, then
// loads the in-process index and reports the heap it holds (after full collections).
//
//   node --expose-gc --import tsx bench/search-memory.ts --products 100000 [--variants 3]
//   (--variants N: every product sold in N sizes, each its own price, the last sold out; a
//   database of its own)
//   (BENCH_DATABASE_URL: the PostgreSQL server; default postgres://postgres@127.0.0.1:5432/test)
//   --database NAME: an existing catalog instead (e.g. bench/search.ts's portage_bench_1000000_1_v3), as it is
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { seedCatalog } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { MemorySearchIndex } from '../src/modules/search/memory-index.ts';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    variants: { type: 'string', default: '1' },
    database: { type: 'string' },
  },
});
const variants = Number(flags.variants);
if (!(variants >= 1 && variants <= 5)) throw new Error('--variants: 1 to 5');
const products = Number(flags.products);
const seed = Number(flags.seed);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = flags.database ?? `portage_memory_${products}_${seed}${variants > 1 ? `_v${variants}` : ''}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
const exists = await admin.query('select 1 from pg_database where datname = $1', [dbName]);
if (exists.rowCount === 0) await admin.query(`create database ${dbName}`);
await admin.end();
const url = new URL(server);
url.pathname = `/${dbName}`;

const database = await openDatabase({ databaseUrl: url.href });
await database.migrate();
const [row] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from products`);
if (!flags.database && (row?.n ?? 0) < products) {
  console.log(`seeding ${products} products...`);
  await seedCatalog(database.db, { seed, count: products });
}
const [unsized] = await rowsOf<{ n: number }>(
  database.db,
  sql`select count(*)::int as n from products where options = '[]'::jsonb`,
);
if (!flags.database && variants > 1 && (unsized?.n ?? 0) > 0) await sizeEverything(variants);

const heap = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
};
const before = heap();
const index = new MemorySearchIndex();
await index.build(database.db);
const after = heap();
const stats = index.stats();
console.log(
  JSON.stringify({
    products: stats.live,
    lexemes: stats.lexemes,
    postings: stats.postings,
    indexBytes: after - before,
    bytesPerProduct: Math.round((after - before) / stats.live),
    postingsPerProduct: +(stats.postings / stats.live).toFixed(2),
  }),
);
// Keeps the index reachable until measured.
if (index.version < 0) console.log(index);
await database.close();

/**
 * Every product sold in `n` sizes: its variant becomes the first, the others cost $1 more each,
 * the last has none left. Triggers off (a replica's session): a trigger per new variant would
 * rewrite its product's price range, which the index does not read (the lowest stays the first's).
 */
async function sizeEverything(n: number) {
  const sizes = JSON.stringify(['S', 'M', 'L', 'XL', 'XXL'].slice(0, n));
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  await client.query('begin');
  await client.query('set local session_replication_role = replica');
  await client.query(
    `with sized as (
      update products p set options = jsonb_build_array(jsonb_build_object('name', 'Size', 'values', $1::jsonb))
       where p.options = '[]'::jsonb returning p.id
    ), first as (
      update product_variants v set option_values = array['S'] from sized where v.id = sized.id returning v.*
    )
    insert into product_variants (id, product_id, seller_id, sku, option_values, position, price_cents,
      stock_quantity, created_at, updated_at)
    select first.id || '-' || k, first.product_id, first.seller_id, first.sku || '-' || k,
      array[($1::jsonb)->>(k - 1)], k - 1, first.price_cents + 100 * (k - 1),
      case when k = $2 then 0 else first.stock_quantity end, first.created_at, first.updated_at
    from first, generate_series(2, $2) k`,
    [sizes, n],
  );
  await client.query('commit');
  await client.end();
}
