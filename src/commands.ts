// The service's commands: serve, migrate, seed, user create, platform create, tax-profile set. Loaded by src/cli.ts only for
// these commands, so that `portage mcp` does not load the service.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { z } from 'zod';
import { StartRefusedError, UsageError } from './cli-errors.ts';
import { type Config, loadConfig } from './config.ts';
import { becomeSellerBody, platformTaxProfileBody, registerBody } from './contract/auth.ts';
import { role as roleSchema } from './contract/common.ts';
import { AppError, inputProblems, wordProblems } from './contract/errors.ts';
import { BASE_LOCALE } from './contract/i18n.ts';
import { createPlatformBody } from './contract/platforms.ts';
import { type Database, openDatabase } from './db/index.ts';
import { seedCatalog } from './db/seed.ts';
import { connectRedis } from './http/redis.ts';
import { platformTaxProfileReady, putPlatformTaxProfile } from './modules/auth/sellers.ts';
import { createAuthService } from './modules/auth/service.ts';
import { writeFeedSnapshot } from './modules/feeds/file-feed.ts';
import { imageStoreFor } from './modules/images/store.ts';
import { checkLedger } from './modules/ledger/queries.ts';
import { createPlatform } from './modules/platforms/service.ts';
import { stopTracing } from './telemetry/tracing.ts';

/** Log levels at which the start line is logged as info. */
const VERBOSE = ['info', 'debug', 'trace'];

export async function migrate() {
  await withDatabase(loadConfig(), async () => {
    console.log('Migrations applied.');
  });
}

async function openMigrated(config: Config): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

async function withDatabase(config: Config, fn: (database: Database) => Promise<void>) {
  const database = await openMigrated(config);
  try {
    await fn(database);
  } finally {
    await database.close();
  }
}

export async function serve() {
  const config = loadConfig();
  // The database opens (PGlite: its WebAssembly compiled, Postgres started, migrations
  // applied) while the HTTP app's modules load: neither needs the other, and each spends
  // time waiting on files and compilation that the other fills. See docs/startup.md.
  const [opened, loaded] = await Promise.allSettled([openMigrated(config), import('./app.ts')]);
  if (opened.status === 'rejected') throw opened.reason;
  const database = opened.value;
  if (loaded.status === 'rejected') {
    await database.close();
    throw loaded.reason;
  }
  // Deployed, every invoice must name who collects the tax a seller is not registered for: the
  // platform, as marketplace operator (docs/invoices.md). Development draws samples without it.
  if (config.appEnv !== 'development' && !(await platformTaxProfileReady(database.db))) {
    await database.close();
    throw new StartRefusedError(
      `the platform's tax profile is not set (APP_ENV=${config.appEnv} needs its legal name, address, GST/HST and QST numbers, which invoices print); set it with \`portage tax-profile set\` (see \`portage help\`), then start again`,
    );
  }
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const app = await loaded.value.buildApp({ config, database, redis });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await database.close();
    await redis?.quit().catch(() => {});
    await stopTracing();
    clearTimeout(timer);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await database.close();
    throw err;
  }
  const started = `Portage ${config.appEnv} on ${database.kind === 'pglite' ? `PGlite (${config.dataDir})` : 'PostgreSQL'}; public URL ${config.publicBaseUrl}`;
  if (VERBOSE.includes(config.logLevel)) app.log.info(started);
  // Quieter than info (the development default): still say where the service is, once.
  else if (config.logLevel !== 'silent')
    console.log(`${started} (LOG_LEVEL=${config.logLevel}; LOG_LEVEL=info logs each request)`);
}

export async function createUser(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', default: 'buyer' },
      'shop-name': { type: 'string' },
      province: { type: 'string', default: 'ON' },
    },
    strict: true,
  });
  const input = registerBody.safeParse(values);
  const role = roleSchema.safeParse(values.role);
  const shop = becomeSellerBody.safeParse({
    shopName: values['shop-name'] ?? `${values.name}'s shop`,
    province: values.province,
  });
  const problems = [
    ...(input.success ? [] : flagProblems(registerBody, input.error)),
    ...(role.success ? [] : flagProblems(roleSchema, role.error, () => 'role')),
    ...(shop.success
      ? []
      : flagProblems(becomeSellerBody, shop.error, (path) =>
          path === 'shopName' ? 'shop-name' : 'province',
        )),
  ];
  if (problems.length || !input.success || !role.success || !shop.success) {
    throw new UsageError(problems.join('\n'));
  }
  const config = loadConfig();
  await withDatabase(config, async (database) => {
    const user = await cliAuth(config).createUser(cliContext(database), {
      ...input.data,
      role: role.data,
      shop: shop.data,
    });
    console.log(`Created ${user.role} ${user.email} (${user.id})`);
  });
}

/** `platform create`: registers an agent platform and prints it, key and secret included, as JSON. */
export async function createPlatformCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'webhook-url': { type: 'string' },
      'ucp-profile': { type: 'string' },
    },
    strict: true,
  });
  const flags: Record<string, string> = { webhookUrl: 'webhook-url', ucpProfileUrl: 'ucp-profile' };
  const input = createPlatformBody.safeParse({
    name: values.name,
    webhookUrl: values['webhook-url'],
    ...(values['ucp-profile'] ? { ucpProfileUrl: values['ucp-profile'] } : {}),
  });
  if (!input.success) {
    throw new UsageError(
      flagProblems(createPlatformBody, input.error, (path) => flags[path] ?? path).join('\n'),
    );
  }
  await withDatabase(loadConfig(), async (database) => {
    const platform = await createPlatform(cliContext(database), input.data);
    console.log(JSON.stringify(platform, null, 2));
    console.error("The API key and webhook secret are shown once; only the key's SHA-256 is stored.");
  });
}

/** `tax-profile set`: the platform's tax profile, as PUT /admin/tax-profile sets it (replaced whole). */
export async function setTaxProfileCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      'legal-name': { type: 'string' },
      street: { type: 'string' },
      city: { type: 'string' },
      province: { type: 'string' },
      'postal-code': { type: 'string' },
      'gst-hst-number': { type: 'string' },
      'qst-number': { type: 'string' },
    },
    strict: true,
  });
  const flags: Record<string, string> = {
    legalName: 'legal-name',
    postalCode: 'postal-code',
    gstHstNumber: 'gst-hst-number',
    qstNumber: 'qst-number',
  };
  const input = platformTaxProfileBody.safeParse({
    legalName: values['legal-name'],
    street: values.street,
    city: values.city,
    province: values.province,
    postalCode: values['postal-code'],
    gstHstNumber: values['gst-hst-number'] ?? null,
    qstNumber: values['qst-number'] ?? null,
  });
  if (!input.success) {
    throw new UsageError(
      flagProblems(platformTaxProfileBody, input.error, (path) => flags[path] ?? path).join('\n'),
    );
  }
  await withDatabase(loadConfig(), async (database) => {
    const saved = await putPlatformTaxProfile(cliContext(database), input.data);
    console.log(`Tax profile set: ${saved.legalName}`);
  });
}

function cliAuth(config: Config) {
  return createAuthService({
    // The command line issues no tokens; the keys are never used.
    tokens: undefined as never,
    refreshWindowSeconds: config.refreshWindowSeconds,
    sessionMaxAgeSeconds: config.sessionMaxAgeSeconds,
    oidc: undefined,
    redirectOrigins: [],
  });
}

const cliContext = (database: Database) => ({
  db: database.db,
  now: () => new Date(),
  log: pino({ level: 'warn' }),
});

const TEST_ACCOUNTS = [
  { role: 'buyer', email: 'buyer@portage.test', name: 'Test Buyer' },
  { role: 'seller', email: 'seller@portage.test', name: 'Test Seller' },
  { role: 'admin', email: 'admin@portage.test', name: 'Test Admin' },
] as const;

export async function seed(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { products: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' } },
    strict: true,
  });
  const count = Number(values.products);
  const seedValue = Number(values.seed);
  if (!Number.isInteger(count) || count < 0 || count > 10_000_000) {
    throw new UsageError('--products: must be a whole number from 0 to 10000000');
  }
  if (!Number.isInteger(seedValue) || seedValue < 0) throw new UsageError('--seed: must be a whole number');
  const config = loadConfig();
  if (config.appEnv === 'production') {
    throw new UsageError('seed is for development and staging; it never runs with APP_ENV=production');
  }
  await withDatabase(config, async (database) => {
    const auth = cliAuth(config);
    for (const account of TEST_ACCOUNTS) {
      const password = randomBytes(12).toString('base64url');
      try {
        await auth.createUser(cliContext(database), {
          ...account,
          password,
          shop: { shopName: 'Portage Test Shop', province: 'ON' },
        });
        console.log(`${account.role.padEnd(6)} ${account.email}  password: ${password}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'CONFLICT') throw err;
        console.log(`${account.role.padEnd(6)} ${account.email}  exists; password unchanged`);
      }
    }
    console.log('Passwords are shown once; only their Argon2id hashes are stored.');
    const result = await seedCatalog(database.db, {
      seed: seedValue,
      count,
      imageBase: config.publicBaseUrl,
      imageStore: imageStoreFor({ bucket: config.imageBucket, database, dataDir: config.dataDir }),
      sizes: true,
      onProgress: (done) => {
        if (count >= 50_000 && done % 50_000 === 0) console.log(`  ${done} products...`);
      },
    });
    console.log(
      `Catalog (seed ${seedValue}): ${result.categories} categories, ${result.sellers} sellers, ` +
        `${result.productsInserted} new products of ${count} in ${result.seconds.toFixed(1)} s.`,
    );
  });
}

/** "--password: must be at least 8 characters": each problem of an input, worded as the API words it. */
function flagProblems(
  schema: z.ZodType,
  error: z.ZodError,
  flagOf: (path: string) => string = (path) => path,
): string[] {
  return wordProblems(BASE_LOCALE, inputProblems(schema, error)).map(
    (p) => `--${flagOf(p.field)}: ${p.message}`,
  );
}

/** `ledger check`: the ledger's check (modules/ledger/queries.ts); exit code 1 when it finds a problem. */
export async function ledgerCheckCommand() {
  await withDatabase(loadConfig(), async (database) => {
    const problems = await checkLedger(cliContext(database));
    for (const p of problems) console.log(`${p.check}: ${p.detail}`);
    if (problems.length > 0) {
      console.error(`portage: the ledger check found ${problems.length} problem(s)`);
      process.exitCode = 1;
    } else
      console.log(
        'The ledger balances: every transaction sums to zero and every balance agrees with its records.',
      );
  });
}

/**
 * `feed write`: a file feed snapshot now, whatever the last one's age (docs/acp.md "File feed");
 * refused while another instance is writing one.
 */
export async function feedWriteCommand() {
  const config = loadConfig();
  await withDatabase(config, async (database) => {
    const written = await writeFeedSnapshot(
      cliContext(database),
      { dir: config.feeds.dir, publicBaseUrl: config.publicBaseUrl, fileHours: config.feeds.fileHours },
      { force: true },
    );
    if (!written) {
      console.error('portage: another instance is writing a feed snapshot; try again when it is done');
      process.exitCode = 1;
      return;
    }
    for (const f of written.files) console.log(`${f.name}\t${f.rows} rows\t${f.bytes} bytes`);
    console.log(
      `Feed snapshot ${written.id}: ${written.products} products in ${written.seconds.toFixed(1)} s (${config.feeds.dir}).`,
    );
  });
}
