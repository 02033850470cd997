// Shipping benchmark (issue 41, "Speed"): what carrier rates add to a checkout. The built service
// (bin/portage.js; run `npm run build` first) on PostgreSQL, a seller whose profile offers Canada
// Post's four services, buyers checking out one at a time (so that each latency is the request's
// own). Three phases, each on buyers of its own:
//   table   - no carrier configured: the built-in rate table prices the parcels (the baseline);
//   first   - Canada Post configured, a local fake answering in --delay ms: every checkout to a
//             destination no one asked for before (the carrier is asked);
//   cached  - the same destinations again (the answers are cached: the carrier is not asked).
// It prints POST /checkout's p50 and p95 per phase, and what the carrier added over the table.
// See docs/performance.md "Shipping".
//
//   npm run bench:shipping
//   npm run bench:shipping -- --buyers 200 --delay 200
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeCanadaPost } from '../test/helpers/fake-canada-post.ts';
import { pct } from './churn.ts';
import { dropDatabase, freshDatabase, httpClient, startPortage, stopService } from './lib.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: {
    buyers: { type: 'string', default: '150' },
    delay: { type: 'string', default: '200' },
  },
});
const BUYERS = Number(flags.buyers);
const DELAY_MS = Number(flags.delay);
const PORT = 3996;
const BASE = `http://127.0.0.1:${PORT}`;
const pgServer = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB_NAME = 'portage_bench_shipping';
const dbUrl = (() => {
  const u = new URL(pgServer);
  u.pathname = `/${DB_NAME}`;
  return u.href;
})();
const privatePem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const request = httpClient(BASE, 4);
const json = (token?: string) => ({ ...(token ? { authorization: `Bearer ${token}` } : {}) });
const post = (url: string, body: unknown, token?: string) =>
  request('POST', url, JSON.stringify(body), json(token));
const put = (url: string, body: unknown, token?: string) =>
  request('PUT', url, JSON.stringify(body), json(token));

/** The i-th destination in Montréal (H postal codes): distinct for i below 1000. */
function destination(i: number) {
  const [a, b, c] = [i % 10, Math.floor(i / 10) % 10, Math.floor(i / 100) % 10];
  return {
    street: '1000 Rue Sherbrooke O',
    city: 'Montréal',
    province: 'QC',
    postalCode: `H${a}X ${b}Y${c}`,
    country: 'CA',
    phone: '+15145550123',
  };
}

async function signUp(email: string): Promise<string> {
  const res = await post('/auth/register', {
    email,
    password: `pw-${randomBytes(8).toString('hex')}`,
    name: 'Bench',
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

async function serve(env: Record<string, string>) {
  return startPortage({
    root,
    dataDir: path.join(root, 'bench', '.data', 'shipping'),
    env: {
      DATABASE_URL: dbUrl,
      PORT: String(PORT),
      PUBLIC_BASE_URL: BASE,
      RATE_LIMITS: 'off',
      JOBS: 'off',
      LOG_LEVEL: 'error',
      JWT_PRIVATE_KEY: privatePem,
      ...env,
    },
    healthy: async () => (await request('GET', '/health')).status === 200,
  });
}

/** Each buyer puts the product in their cart and checks out to `to(i)`: answers the latencies (ms). */
async function phase(buyers: string[], productId: string, to: (i: number) => ReturnType<typeof destination>) {
  const ms: number[] = [];
  for (const [i, token] of buyers.entries()) {
    const added = await post('/cart/items', { product_id: productId, quantity: 1 }, token);
    if (added.status !== 200) throw new Error(`add to cart: ${added.status} ${JSON.stringify(added.body)}`);
    const res = await post('/checkout', { shipping_address: to(i) }, token);
    if (res.status !== 201) throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
    ms.push(res.ms);
  }
  return ms;
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: pct(sorted, 50), p95: pct(sorted, 95) };
};
const f = (n: number) => n.toFixed(1);

async function main() {
  await freshDatabase(pgServer, DB_NAME, dbUrl);
  const carrier = await startFakeCanadaPost();
  carrier.setMode({ answer: 'quotes', delayMs: DELAY_MS });
  let service = await serve({});
  try {
    const seller = await signUp(`seller-${randomBytes(4).toString('hex')}@bench.test`);
    const shop = await post('/me/seller', { shopName: 'Bench Outfitters', province: 'ON' }, seller);
    const sellerToken = shop.body.token as string;
    await put(
      '/sellers/me/shipping',
      {
        originPostalCode: 'M5H 2N2',
        originProvince: 'ON',
        rates: 'carrier',
        services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
      },
      sellerToken,
    );
    const made = await post(
      '/products',
      { title: 'Bench paddle', priceCents: 4999, stockQuantity: 1_000_000, weight: 1.2 },
      sellerToken,
    );
    if (made.status !== 201) throw new Error(`product: ${made.status} ${JSON.stringify(made.body)}`);
    const buyers = await Promise.all(
      Array.from({ length: BUYERS * 4 + 15 }, (_, i) =>
        signUp(`buyer-${i}-${randomBytes(4).toString('hex')}@bench.test`),
      ),
    );
    const slice = (k: number) => buyers.slice(k * BUYERS, (k + 1) * BUYERS);
    const warm = (k: number) => buyers.slice(BUYERS * 4 + k * 5, BUYERS * 4 + (k + 1) * 5);
    const withCarrier = {
      CANADA_POST_API_KEY: 'portage-user:portage-password',
      CANADA_POST_CUSTOMER_NUMBER: '2004381',
      CANADA_POST_BASE_URL: carrier.url,
      CANADA_POST_SENDER_PHONE: '416 555 0199',
    };
    // The table before and after the carrier's phases (a shop's tables grow as it runs); a few
    // checkouts before timing each service: its statements are prepared, its code warm.
    await phase(warm(0), made.body.id, (i) => destination(900 + i));
    const tableBefore = await phase(slice(0), made.body.id, destination);
    await stopService(service);
    service = await serve(withCarrier);
    await phase(warm(1), made.body.id, (i) => destination(950 + i));
    const asked = carrier.requests.length;
    const first = await phase(slice(1), made.body.id, destination);
    const firstAsked = carrier.requests.length - asked;
    const cached = await phase(slice(2), made.body.id, destination);
    const cachedAsked = carrier.requests.length - asked - firstAsked;
    await stopService(service);
    service = await serve({});
    await phase(warm(2), made.body.id, (i) => destination(980 + i));
    const tableAfter = await phase(slice(3), made.body.id, destination);

    const [b, e, a, c] = [summary(tableBefore), summary(tableAfter), summary(first), summary(cached)];
    const t = { p50: (b.p50 + e.p50) / 2, p95: (b.p95 + e.p95) / 2 };
    console.log(
      `POST /checkout, ${BUYERS} buyers a phase, one at a time; the carrier answers in ${DELAY_MS} ms`,
    );
    console.log(`  table, before:        p50 ${f(b.p50)} ms  p95 ${f(b.p95)} ms`);
    console.log(
      `  first quote:          p50 ${f(a.p50)} ms  p95 ${f(a.p95)} ms  (${firstAsked} carrier requests)`,
    );
    console.log(
      `  cached quote:         p50 ${f(c.p50)} ms  p95 ${f(c.p95)} ms  (${cachedAsked} carrier requests)`,
    );
    console.log(`  table, after:         p50 ${f(e.p50)} ms  p95 ${f(e.p95)} ms`);
    console.log(
      `  over the table's mean: first p50 +${f(a.p50 - t.p50)} ms, p95 +${f(a.p95 - t.p95)} ms; cached p50 ${f(c.p50 - t.p50)} ms, p95 ${f(c.p95 - t.p95)} ms`,
    );
  } finally {
    await stopService(service);
    await carrier.close();
    request.close();
    await dropDatabase(pgServer, DB_NAME);
  }
}

await main();
