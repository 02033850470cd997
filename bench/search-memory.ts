// The search index's memory per product: seeds a catalog (once) in its own database, then
// loads the in-process index and reports the heap it holds (after full collections).
//
//   node --expose-gc --import tsx bench/search-memory.ts --products 100000
//   (BENCH_DATABASE_URL: the PostgreSQL server; default postgres://postgres@127.0.0.1:5432/test)
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { seedCatalog } from '../src/db/seed.ts';
import { rowsOf } from '../src/db/sql.ts';
import { MemorySearchIndex } from '../src/modules/search/memory-index.ts';

const { values: flags } = parseArgs({
  options: { products: { type: 'string', default: '100000' }, seed: { type: 'string', default: '1' } },
});
const products = Number(flags.products);
const seed = Number(flags.seed);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = `portage_memory_${products}_${seed}`;
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
if ((row?.n ?? 0) < products) {
  console.log(`seeding ${products} products...`);
  await seedCatalog(database.db, { seed, count: products });
}
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
