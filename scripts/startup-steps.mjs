// Times each step of what `portage serve` does, one after the other in one process (ms).
// node scripts/startup-steps.mjs [tsx|build]   with DATA_DIR, PORT (0: any) as for serve.
// tsx (default): the sources through tsx's loader, as bin/portage.js runs them without a
// build; build: the same modules bundled as scripts/build.mjs bundles them.
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const t = [];
let last = 0;
const mark = (name) => {
  const now = performance.now();
  t.push([name, (now - last).toFixed(0)]);
  last = now;
};
mark('node start (to first line of the script)');
const root = fileURLToPath(new URL('..', import.meta.url));
const src = process.argv[2] ?? 'tsx';
if (src === 'tsx') {
  const { register } = await import('tsx/esm/api');
  register();
  mark('tsx register');
}
const imp = (m) => import(m);
await imp('fastify');
mark('import fastify');
await imp('@fastify/helmet');
await imp('@fastify/cors');
await imp('@fastify/rate-limit');
mark('import helmet, cors, rate-limit');
await imp('@fastify/swagger');
mark('import @fastify/swagger');
await imp('@scalar/fastify-api-reference');
mark('import @scalar/fastify-api-reference (now loaded on the first /docs visit, not at start)');
await imp('zod');
await imp('fastify-type-provider-zod');
mark('import zod, fastify-type-provider-zod');
await imp('openid-client');
mark('import openid-client');
await imp('@node-rs/argon2');
mark('import @node-rs/argon2');
await imp('jose');
mark('import jose');
await imp('pg');
mark('import pg');
await imp('drizzle-orm');
await imp('drizzle-orm/pglite');
await imp('drizzle-orm/node-postgres');
await imp('drizzle-orm/pglite/migrator');
await imp('drizzle-orm/node-postgres/migrator');
mark('import drizzle-orm');
await imp('@electric-sql/pglite');
mark('import @electric-sql/pglite');
await imp('ioredis');
await imp('pino');
mark('import ioredis, pino');
const MODULES = ['src/app.ts', 'src/config.ts', 'src/db/index.ts', 'src/modules/auth/keys.ts'];
let load = (file) => import(new URL(`../${file}`, import.meta.url).href);
const steps = new URL('../dist/.steps/', import.meta.url);
if (src === 'build') {
  // Bundled beforehand, outside the timed steps.
  const { bundle } = await import('./build.mjs');
  const { readSources } = await import('./sources.mjs');
  await bundle(readSources(root), MODULES, fileURLToPath(steps));
  load = (file) => import(new URL(file.replace(/^src\//, '').replace(/\.ts$/, '.js'), steps).href);
}
last = performance.now();
const [{ buildApp }, { loadConfig }, { openDatabase }, { developmentKeyPem, loadKeyRing }] =
  await Promise.all(MODULES.map(load));
mark(`import our modules (${src})`);
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
mark('open PGlite (PGlite.create)');
await database.migrate();
mark('migrations');
const pem = config.jwtPrivateKey ?? developmentKeyPem(config.dataDir);
mark('key: read or generate');
const keys = await loadKeyRing(pem, config.jwtPreviousPublicKeys);
mark('key ring (import, JWK)');
const app = await buildApp({ config, database, keys });
mark('buildApp (plugins, routes)');
await app.ready();
mark('app.ready (search index load, swagger)');
await app.listen({ port: config.port, host: config.host });
mark('listen');
for (const [name, ms] of t) console.log(`${ms.padStart(6)}  ${name}`);
await app.close();
await database.close();
rmSync(steps, { recursive: true, force: true });
