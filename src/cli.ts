// The `portage` command: serve | mcp | migrate | seed | user create | platform create | tax-profile set |
// ledger check | backup | restore | feed write.
// Each command loads only the modules it needs: the tool server none of the service's.
import { UsageError } from './cli-errors.ts';
import { ConfigError } from './config.ts';
import { AppError } from './contract/errors.ts';
import { startTracing } from './telemetry/tracing.ts';

const USAGE = `Usage: portage <command>

Commands:
  serve                      run the HTTP API (what npm start runs)
  mcp                        run the agent tool server over stdio
                             (needs SERVICE_URL and SERVICE_JWT_TOKEN)
  migrate                    apply database migrations and exit
  seed [--products N] [--seed S]
                             test accounts for each role (development and staging only)
                             and a sample Canadian catalog of N products (default 200)
  user create --email E --password P --name N --role buyer|seller|admin
              [--shop-name S --province P]
                             create an account (e.g. the first admin)
  platform create --name N --webhook-url U [--ucp-profile P]
                             register an agent platform; prints it as JSON with its
                             API key and webhook secret, shown once
  tax-profile set --legal-name N --street S --city C --province P --postal-code Z
              [--gst-hst-number G] [--qst-number Q]
                             the platform's tax profile (what invoices name as the
                             marketplace operator); staging and production need it
  ledger check               check the sellers' ledger: every transaction sums to zero,
                             every balance agrees with its transfers; exit 1 if not
  backup <file>              copy the embedded database to a new file (a tar.gz), with the
                             service running (then SERVICE_JWT_TOKEN: an admin's token;
                             SERVICE_URL if not on HOST:PORT) or stopped
  restore <file>             put a backup in DATA_DIR's place, the service stopped; the
                             database it replaces is kept beside it, renamed
  feed write                 write the file feed's snapshot now (FEED_DIR), whatever
                             the last one's age

Configuration comes from the environment; see the README.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      // Before the service's modules load: the instrumentations must see the drivers load.
      await startTracing('portage');
      return (await import('./commands.ts')).serve();
    case 'migrate':
      return (await import('./commands.ts')).migrate();
    case 'mcp': {
      // Loaded only here: the tool server needs none of the service's modules.
      await startTracing('portage-mcp');
      const { runToolServer } = await import('./mcp/server.ts');
      return runToolServer();
    }
    case 'seed':
      return (await import('./commands.ts')).seed(rest);
    case 'user':
      if (rest[0] !== 'create')
        throw new UsageError(`Unknown command "${['user', ...rest.slice(0, 1)].join(' ')}"`);
      return (await import('./commands.ts')).createUser(rest.slice(1));
    case 'platform':
      if (rest[0] !== 'create')
        throw new UsageError(`Unknown command "${['platform', ...rest.slice(0, 1)].join(' ')}"`);
      return (await import('./commands.ts')).createPlatformCommand(rest.slice(1));
    case 'ledger':
      if (rest[0] !== 'check')
        throw new UsageError(`Unknown command "${['ledger', ...rest.slice(0, 1)].join(' ')}"`);
      return (await import('./commands.ts')).ledgerCheckCommand();
    case 'feed':
      if (rest[0] !== 'write')
        throw new UsageError(`Unknown command "${['feed', ...rest.slice(0, 1)].join(' ')}"`);
      return (await import('./commands.ts')).feedWriteCommand();
    case 'tax-profile':
      if (rest[0] !== 'set')
        throw new UsageError(`Unknown command "${['tax-profile', ...rest.slice(0, 1)].join(' ')}"`);
      return (await import('./commands.ts')).setTaxProfileCommand(rest.slice(1));
    case 'backup':
      return (await import('./backup-commands.ts')).backupCommand(rest);
    case 'restore':
      return (await import('./backup-commands.ts')).restoreCommand(rest);
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

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`portage: invalid configuration:\n${err.problems.map((p) => `  ${p}`).join('\n')}`);
  } else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) {
    console.error(`portage: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  } else if (
    err instanceof AppError ||
    ['DataDirInUseError', 'ToolServerConfigError', 'StartRefusedError', 'BackupRefusedError'].includes(
      (err as Error)?.name,
    )
  ) {
    console.error(`portage: ${(err as Error).message}`);
  } else if ((err as { code?: string }).code === 'EADDRINUSE') {
    console.error(`portage: ${(err as Error).message}; set PORT to another port or stop the other server`);
  } else if ((err as { code?: string }).code === 'ECONNREFUSED') {
    console.error(
      'portage: cannot reach the database or Redis (connection refused); check DATABASE_URL / REDIS_URL',
    );
  } else {
    // One line: a database error's message carries the whole statement; its cause says why.
    const e = err as Error & { cause?: Error };
    const message = (e?.cause?.message ?? e?.message ?? String(err)).split('\n')[0]!.slice(0, 300);
    console.error(`portage: ${message}`);
  }
  process.exitCode = 1;
});
