// The `portage` command: serve | migrate | user create.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pino from 'pino';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { registerBody } from './contract/auth.ts';
import { role as roleSchema } from './contract/common.ts';
import { AppError } from './contract/errors.ts';
import { type Database, DataDirInUseError, openDatabase } from './db/index.ts';
import { developmentKeyPem, loadKeyRing } from './modules/auth/keys.ts';
import { createAuthService } from './modules/auth/service.ts';

const USAGE = `Usage: portage <command>

Commands:
  serve                      run the HTTP API (what npm start runs)
  migrate                    apply database migrations and exit
  user create --email E --password P --name N --role buyer|seller|admin
                             create an account (e.g. the first admin)

Configuration comes from the environment; see the README.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'migrate':
      return withDatabase(loadConfig(), async () => {
        console.log('Migrations applied.');
      });
    case 'user':
      if (rest[0] !== 'create') throw new UsageError(`Unknown command "user ${rest[0] ?? ''}"`);
      return createUser(rest.slice(1));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

async function openMigrated(config: Config): Promise<Database> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
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

async function serve() {
  const config = loadConfig();
  const database = await openMigrated(config);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  redis?.on('error', () => {}); // reconnects on its own; failures surface on the requests that need it
  const app = await buildApp({ config, database, redis });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await database.close();
    await redis?.quit().catch(() => {});
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
  app.log.info(
    `Portage ${config.appEnv} on ${database.kind === 'pglite' ? `PGlite (${config.dataDir})` : 'PostgreSQL'}; public URL ${config.publicBaseUrl}`,
  );
}

async function createUser(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', default: 'buyer' },
    },
    strict: true,
  });
  const input = registerBody.safeParse(values);
  const role = roleSchema.safeParse(values.role);
  const problems = [
    ...(input.success ? [] : input.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`)),
    ...(role.success ? [] : [`--role: ${role.error.issues[0]?.message}`]),
  ];
  if (problems.length || !input.success || !role.success) throw new UsageError(problems.join('\n'));
  const config = loadConfig();
  await withDatabase(config, async (database) => {
    const keys = await loadKeyRing(config.jwtPrivateKey ?? developmentKeyPem(config.dataDir));
    const auth = createAuthService({
      tokens: { keys, audience: config.publicBaseUrl, ttlSeconds: config.accessTokenTtlSeconds },
      refreshWindowSeconds: config.refreshWindowSeconds,
      oidc: undefined,
      redirectOrigins: [],
    });
    const log = pino({ level: 'warn' });
    const user = await auth.createUser(
      { db: database.db, now: () => new Date(), log },
      { ...input.data, role: role.data },
    );
    console.log(`Created ${user.role} ${user.email} (${user.id})`);
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`portage: invalid configuration:\n${err.problems.map((p) => `  ${p}`).join('\n')}`);
  } else if (err instanceof UsageError) {
    console.error(`portage: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  } else if (err instanceof DataDirInUseError || err instanceof AppError) {
    console.error(`portage: ${err.message}`);
  } else if ((err as { code?: string }).code === 'EADDRINUSE') {
    console.error(`portage: ${(err as Error).message}; set PORT to another port or stop the other server`);
  } else if ((err as { code?: string }).code === 'ECONNREFUSED') {
    console.error(
      'portage: cannot reach the database or Redis (connection refused); check DATABASE_URL / REDIS_URL',
    );
  } else {
    console.error(`portage: ${(err as Error)?.message ?? String(err)}`);
  }
  process.exitCode = 1;
});
