// How long a failed login takes for each cause: a wrong password, an unknown email, and an
// account without a password (external login only). The three must cost the same Argon2id
// verification, so that the answer's time says nothing of which emails have accounts; the
// test suite asserts the work (test/auth.test.ts), this measures the time. Alternates the
// three causes, one request at a time, over Fastify's inject on PGlite, and prints the median
// and p95 of each and the ratios to the wrong password's median.
//
//   npm run bench:login
//   npm run bench:login -- --rounds 200
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { developmentKeyPem, loadKeyRing } from '../src/modules/auth/keys.ts';
import { users } from '../src/modules/auth/tables.ts';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '100' }, warmup: { type: 'string', default: '10' } },
});
const ROUNDS = Number(flags.rounds);
const WARMUP = Number(flags.warmup);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portage-bench-login-'));
const config = loadConfig({
  APP_ENV: 'development',
  DATA_DIR: dataDir,
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'silent',
  JOBS: 'off',
});
const database = await openDatabase({ dataDir });
await database.migrate();
const app = await buildApp({ config, database, keys: await loadKeyRing(developmentKeyPem(dataDir), []) });
await app.ready();

const login = async (email: string) => {
  const started = performance.now();
  const res = await app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password: 'not the password' }),
  });
  if (res.statusCode !== 401) throw new Error(`expected 401, got ${res.statusCode}: ${res.body}`);
  return performance.now() - started;
};

const known = `bench-${randomBytes(4).toString('hex')}@example.ca`;
const registered = await app.inject({
  method: 'POST',
  url: '/auth/register',
  headers: { 'content-type': 'application/json' },
  payload: JSON.stringify({ email: known, password: 'correct horse battery', name: 'Bench' }),
});
if (registered.statusCode !== 201) throw new Error(`register: ${registered.body}`);
const external = `external-${randomBytes(4).toString('hex')}@example.ca`;
await database.db
  .insert(users)
  .values({ id: `users:bench${randomBytes(8).toString('hex')}`, email: external, name: 'External' });

const causes = {
  'wrong password': () => known,
  'unknown email': () => `nobody-${randomBytes(6).toString('hex')}@example.ca`,
  'no password (external login)': () => external,
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(causes).map((k) => [k, []]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const [cause, email] of Object.entries(causes)) {
    const ms = await login(email());
    if (round >= WARMUP) times[cause]!.push(ms);
  }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
const base = quantile(times['wrong password']!, 0.5);
console.log(`failed logins, ${ROUNDS} rounds after ${WARMUP} of warm-up, one request at a time (PGlite)`);
console.log('| cause | median | p95 | median / wrong password |');
console.log('| --- | ---: | ---: | ---: |');
for (const [cause, xs] of Object.entries(times)) {
  const median = quantile(xs, 0.5);
  console.log(
    `| ${cause} | ${median.toFixed(1)} ms | ${quantile(xs, 0.95).toFixed(1)} ms | ${(median / base).toFixed(2)} |`,
  );
}

await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
