// CSV import benchmark: the real app in this process, on a fresh database, imports a generated
// file of --rows rows (--variants per product) streamed into POST /products/import, dry run then
// import, then exports it; prints rows per second and the peak resident memory of each.
//
//   npm run bench:import -- --db pglite --rows 100000
//   npm run bench:import -- --db postgres --rows 100000
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { loadKeyRing } from '../src/modules/auth/keys.ts';
import { CSV_COLUMNS } from '../src/modules/catalog/csv.ts';
import { dropDatabase, freshDatabase } from './lib.ts';

const { values: flags } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    rows: { type: 'string', default: '100000' },
    variants: { type: 'string', default: '3' },
  },
});
const rows = Number(flags.rows);
const perProduct = Number(flags.variants);
if (flags.db !== 'pglite' && flags.db !== 'postgres') throw new Error('--db is pglite or postgres');

const pgServer = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = 'portage_bench_import';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-bench-import-'));
let databaseUrl: string | undefined;
if (flags.db === 'postgres') {
  const url = new URL(pgServer);
  url.pathname = `/${dbName}`;
  databaseUrl = url.href;
  await freshDatabase(pgServer, dbName, databaseUrl);
}

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const config = loadConfig({
  APP_ENV: 'development',
  DATA_DIR: dataDir,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  PUBLIC_BASE_URL: 'http://portage.bench',
  RATE_LIMITS: 'off',
  JOBS: 'off',
  LOG_LEVEL: 'warn',
  JWT_PRIVATE_KEY: pem,
});
const database = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : dataDir });
await database.migrate();
const app = await buildApp({ config, database, keys: await loadKeyRing(pem, []), logger: false });
await app.ready();

async function call(method: 'GET' | 'POST', url: string, payload?: unknown, token?: string) {
  const res = await app.inject({
    method,
    url,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
    },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
  return JSON.parse(res.body);
}
const email = `bench.import.${Date.now()}@portage.example`;
const registered = await call('POST', '/auth/register', {
  email,
  password: 'correct horse battery',
  name: 'Bench seller',
});
const { token } = await call('POST', '/me/seller', { shopName: 'Bench', province: 'ON' }, registered.token);

/** The file, made as it is read: never held whole. */
function* file(): Generator<string> {
  yield `${CSV_COLUMNS.join(',')}\n`;
  const sizes = ['S', 'M', 'L', 'XL', 'XXL'];
  for (let n = 0; n < rows; n++) {
    const p = Math.floor(n / perProduct);
    const v = n % perProduct;
    const first = v === 0;
    const cells: Record<string, string> = {
      handle: `p${p}`,
      title: first ? `Bench shirt ${p}` : '',
      description: first ? '"A cotton shirt, made in Canada, washed and pressed."' : '',
      weight: first ? '0.3' : '',
      keywords: first ? 'cotton|shirt|bench' : '',
      option1Name: first && perProduct > 1 ? 'Size' : '',
      option1Value: perProduct > 1 ? (sizes[v] ?? `S${v}`) : '',
      sku: `B-${p}-${v}`,
      priceCents: String(1000 + v * 100 + (p % 50)),
      stockQuantity: String(p % 20),
    };
    yield `${CSV_COLUMNS.map((c) => cells[c] ?? '').join(',')}\n`;
  }
}

async function timed<T>(fn: () => Promise<T>) {
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const t0 = performance.now();
  const out = await fn();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { out, seconds, rssBeforeMb: Math.round(rss0 / 2 ** 20), peakRssMb: Math.round(peak / 2 ** 20) };
}

const importFile = (query: string) =>
  app.inject({
    method: 'POST',
    url: `/products/import${query}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    payload: Readable.from(file()),
  });

const report = (name: string, r: Awaited<ReturnType<typeof timed>>, extra: string) =>
  console.log(
    `${flags.db} ${name}: ${rows} rows in ${r.seconds.toFixed(1)} s = ${Math.round(rows / r.seconds)} rows/s; ` +
      `RSS ${r.rssBeforeMb} MB before, peak ${r.peakRssMb} MB; ${extra}`,
  );

const dry = await timed(() => importFile('?dryRun=true'));
const dryBody = JSON.parse(dry.out.body);
if (dry.out.statusCode !== 200) console.log(dry.out.body.slice(0, 2000));
if (dryBody.problemCount) console.log(JSON.stringify(dryBody.problems.slice(0, 3)));
report(
  'dry run',
  dry,
  `${dry.out.statusCode} ${dryBody.products?.created} products, ${dryBody.problemCount} problems`,
);
const real = await timed(() => importFile(''));
const realBody = JSON.parse(real.out.body);
report(
  'import',
  real,
  `${real.out.statusCode} ${realBody.products?.created} products, ${realBody.variants?.created} variants`,
);
const exported = await timed(async () => {
  const res = await app.inject({
    method: 'GET',
    url: '/products/export.csv',
    headers: { authorization: `Bearer ${token}` },
  });
  return res.body.length;
});
report('export', exported, `${Math.round(exported.out / 2 ** 20)} MB of CSV`);

await app.close();
await database.close();
if (databaseUrl) await dropDatabase(pgServer, dbName);
rmSync(dataDir, { recursive: true, force: true });
