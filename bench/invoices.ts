// How the service answers while invoices are drawn (docs/performance.md "Invoices"): /health's
// latency, asked one request after another on a connection of its own, while `--at-once`
// invoices of `--lines` lines are asked for at once, for orders whose invoice was never drawn
// (the first drawing) and then again (a stored document, or, in code that stores none, a second
// drawing). Starts `bin/portage.js serve` of `--root` (this checkout unless told: the code to
// measure) on a new PGlite directory, makes a seller with its invoice identity, `--lines`
// products and `--rounds` × `--at-once` orders of one unit of each, all through the HTTP API.
// Prints /health's p50/p95/max idle, during the first drawings and during the second asks, each
// invoice's time, and the service's CPU an invoice (worker threads included, the /health answers
// of the phase taken out at what one costs idle). The service's environment passes through
// (INVOICE_RENDER_THREADS=2 npm run bench:invoices).
//
//   npm run build && npm run bench:invoices
//   npm run bench:invoices -- --root /path/to/another/checkout   # that code, measured the same way
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Answer, httpClient, procCpuMs, startPortage, stopService } from './lib.ts';

const { values: flags } = parseArgs({
  options: {
    root: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') },
    rounds: { type: 'string', default: '5' },
    'at-once': { type: 'string', default: '4' },
    lines: { type: 'string', default: '50' },
    port: { type: 'string', default: '3471' },
  },
});
const ROUNDS = Number(flags.rounds);
const AT_ONCE = Number(flags['at-once']);
const LINES = Number(flags.lines);
const base = `http://127.0.0.1:${flags.port}`;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-bench-invoices-'));
const api = httpClient(base, 8);
const health = httpClient(base, 1);
const child = await startPortage({
  root: flags.root,
  dataDir,
  env: { PORT: flags.port, PUBLIC_BASE_URL: base, RATE_LIMITS: 'off', JOBS: 'off', LOG_LEVEL: 'warn' },
  healthy: async () => (await health('GET', '/health')).status === 200,
});

const ok = async (answer: Promise<Answer>, what: string, status = [200, 201]) => {
  const res = await answer;
  if (!status.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const post = (urlPath: string, token: string | undefined, body: unknown) =>
  api('POST', urlPath, JSON.stringify(body), token ? bearer(token) : {});

async function register(label: string) {
  const email = `bench.invoices.${label}.${Date.now()}@example.ca`;
  const body = await ok(
    post('/auth/register', undefined, { email, password: 'bench invoices password', name: `Bench ${label}` }),
    'register',
  );
  return body.token as string;
}

try {
  // A seller registered for the GST/HST and the QST, so that the invoice prints both numbers.
  let sellerToken = await register('seller');
  sellerToken = (
    await ok(
      post('/me/seller', sellerToken, { shopName: 'Érablière du banc', province: 'QC' }),
      'open a shop',
    )
  ).token;
  await ok(
    api(
      'PATCH',
      '/me/seller',
      JSON.stringify({
        legalName: 'Érablière du banc d’essai inc.',
        street: '45 rue des Érables',
        city: 'Québec',
        postalCode: 'G1R 4P5',
        gstHstNumber: '123456782RT0001',
        qstNumber: '1234567892TQ0001',
      }),
      bearer(sellerToken),
    ),
    'invoice identity',
  );
  const products: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const made = await ok(
      post('/products', sellerToken, {
        title: `Sirop d’érable ambré, bouteille de verre de 500 ml, récolte ${2000 + i}`,
        priceCents: 1299 + i * 7,
        stockQuantity: 100_000,
        weight: 0.7,
      }),
      'product',
    );
    products.push(made.id);
  }
  const buyerToken = await register('buyer');
  const address = {
    street: '1000 Rue Sherbrooke O',
    city: 'Montréal',
    province: 'QC',
    postalCode: 'H3A 3G4',
    country: 'CA',
    phone: '+15145550123',
  };
  const orders: string[] = [];
  for (let n = 0; n < ROUNDS * AT_ONCE; n++) {
    for (const id of products)
      await ok(post('/cart/items', buyerToken, { product_id: id, quantity: 1 }), 'cart');
    const session = await ok(post('/checkout', buyerToken, { shipping_address: address }), 'checkout');
    const paid = await ok(
      post(`/sandbox/checkout/${session.sessionId}/pay`, undefined, { card: '4242424242424242' }),
      'pay',
    );
    orders.push(...paid.orderIds);
  }
  console.log(`${orders.length} orders of ${LINES} lines; service ${flags.root}`);

  const quantile = (xs: number[], q: number) =>
    xs.length
      ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!
      : Number.NaN;
  const figures = (xs: number[]) =>
    `${xs.length} answers, p50 ${quantile(xs, 0.5).toFixed(1)} ms, p95 ${quantile(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

  /** /health one request after another until `work` settles; answers its latencies. */
  async function healthDuring(work: Promise<unknown>): Promise<number[]> {
    let done = false;
    work.finally(() => {
      done = true;
    });
    const times: number[] = [];
    while (!done) {
      const res = await health('GET', '/health');
      if (res.status !== 200) throw new Error(`/health: ${res.status}`);
      times.push(res.ms);
    }
    await work;
    return times;
  }

  const idle: number[] = [];
  const idleCpu = procCpuMs(child.pid!);
  for (let i = 0; i < 200; i++) idle.push((await health('GET', '/health')).ms);
  // What a /health costs the service, to take out of the phases' CPU (they answer hundreds).
  const healthCpu = (procCpuMs(child.pid!) - idleCpu) / idle.length;
  console.log(`/health idle: ${figures(idle)}; ${healthCpu.toFixed(2)} ms of service CPU each`);

  const phases = {
    first: { health: [] as number[], invoices: [] as number[], cpu: 0 },
    again: { health: [] as number[], invoices: [] as number[], cpu: 0 },
  };
  for (let round = 0; round < ROUNDS; round++) {
    const batch = orders.slice(round * AT_ONCE, (round + 1) * AT_ONCE);
    for (const phase of [phases.first, phases.again]) {
      const cpu = procCpuMs(child.pid!);
      const healthBefore = phase.health.length;
      const asked = Promise.all(
        batch.map(async (id) => {
          const res = await api(
            'GET',
            `/orders/${encodeURIComponent(id)}/invoice`,
            undefined,
            bearer(buyerToken),
          );
          if (res.status !== 200) throw new Error(`invoice: ${res.status} ${JSON.stringify(res.body)}`);
          return res.ms;
        }),
      );
      phase.health.push(...(await healthDuring(asked)));
      phase.invoices.push(...(await asked));
      phase.cpu += procCpuMs(child.pid!) - cpu - (phase.health.length - healthBefore) * healthCpu;
    }
  }
  const n = ROUNDS * AT_ONCE;
  console.log(
    `/health while ${AT_ONCE} invoices are drawn at once (first asks): ${figures(phases.first.health)}`,
  );
  console.log(
    `  the ${AT_ONCE} invoices, each: ${figures(phases.first.invoices)}; service CPU ${(phases.first.cpu / n).toFixed(0)} ms an invoice (less its /health answers)`,
  );
  console.log(`/health while the same ${AT_ONCE} are asked again: ${figures(phases.again.health)}`);
  console.log(
    `  the ${AT_ONCE} invoices, each: ${figures(phases.again.invoices)}; service CPU ${(phases.again.cpu / n).toFixed(0)} ms an invoice (less its /health answers)`,
  );
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
} finally {
  api.close();
  health.close();
  await stopService(child);
  rmSync(dataDir, { recursive: true, force: true });
}
