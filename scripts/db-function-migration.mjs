// `npm run db:functions -- <name...>`: writes a new migration holding the current text of
// src/db/functions/<name>.sql for each name, registered in src/db/migrations/meta/ the way
// drizzle's migrator and drizzle-kit expect (src/db/functions/README.md).
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FUNCTIONS = path.join(ROOT, 'src/db/functions');
const MIGRATIONS = path.join(ROOT, 'src/db/migrations');
const JOURNAL = path.join(MIGRATIONS, 'meta/_journal.json');
// How drizzle's migrator splits a migration into statements.
const BREAKPOINT = '--> statement-breakpoint';
const USAGE = 'usage: npm run db:functions -- [--name <migration name>] <function file name>...';

function fail(message) {
  console.error(message);
  process.exit(1);
}

const { values, positionals } = parseArgs({
  options: { name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
});
const available = readdirSync(FUNCTIONS)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.slice(0, -'.sql'.length))
  .sort();
if (values.help || positionals.length === 0) {
  fail(`${USAGE}\nfunction files (src/db/functions): ${available.join(' ')}`);
}

// Each name once, in the order given; `src/db/functions/x.sql` and `x.sql` are taken as `x`.
const names = [...new Set(positionals.map((p) => path.basename(p).replace(/\.sql$/, '')))];
const bodies = names.map((name) => {
  if (!available.includes(name)) {
    fail(`No file src/db/functions/${name}.sql. The function files: ${available.join(' ')}`);
  }
  const text = readFileSync(path.join(FUNCTIONS, `${name}.sql`), 'utf8').trim();
  if (!/^\s*CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s/im.test(text.replace(/--[^\n]*/g, ''))) {
    fail(`src/db/functions/${name}.sql holds no CREATE OR REPLACE FUNCTION statement.`);
  }
  return text;
});

const journal = JSON.parse(readFileSync(JOURNAL, 'utf8'));
const last = journal.entries.at(-1);
if (!last) fail(`${JOURNAL} lists no migration to follow.`);
const registered = new Set(journal.entries.map((e) => `${e.tag}.sql`));
const unregistered = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql') && !registered.has(f));
if (unregistered.length > 0) {
  fail(`Migrations not in meta/_journal.json: ${unregistered.join(', ')}. Register or remove them first.`);
}

const idx = last.idx + 1;
const prefix = String(idx).padStart(4, '0');
const slug = (values.name ?? `functions_${names.map((n) => n.replace(/^portage_/, '')).join('_')}`)
  .toLowerCase()
  .replace(/[^a-z0-9_]+/g, '_')
  .slice(0, 60)
  .replace(/^_+|_+$/g, '');
const tag = `${prefix}_${slug || 'functions'}`;
// The migrator runs the migrations whose `when` is later than the last one applied: never earlier.
const when = Math.max(Date.now(), last.when + 1);

const header = [
  `-- Written by \`npm run db:functions -- ${names.join(' ')}\` from src/db/functions/ (see the README there).`,
  '-- To change one of these functions again, edit its file and run that command: never edit this',
  '-- migration once it has been applied.',
].join('\n');
const migration = `${header}\n${bodies.join(`\n${BREAKPOINT}\n`)}\n`;
writeFileSync(path.join(MIGRATIONS, `${tag}.sql`), migration);

// drizzle-kit diffs the schema against the latest snapshot: a hand-written migration gets a copy
// of the previous one under a new id (what `drizzle-kit generate --custom` writes).
const previous = path.join(MIGRATIONS, `meta/${String(last.idx).padStart(4, '0')}_snapshot.json`);
const written = [`src/db/migrations/${tag}.sql`];
if (existsSync(previous)) {
  const snapshot = JSON.parse(readFileSync(previous, 'utf8'));
  const { id, prevId: _prevId, ...rest } = snapshot;
  const copy = { id: randomUUID(), prevId: id, ...rest };
  writeFileSync(path.join(MIGRATIONS, `meta/${prefix}_snapshot.json`), JSON.stringify(copy, null, 2));
  written.push(`src/db/migrations/meta/${prefix}_snapshot.json`);
} else {
  console.warn(`No ${path.relative(ROOT, previous)}: no snapshot written for ${tag}.`);
}

journal.entries.push({ idx, version: last.version, when, tag, breakpoints: true });
writeFileSync(JOURNAL, JSON.stringify(journal, null, 2));
written.push('src/db/migrations/meta/_journal.json');

console.log(`Wrote ${written.join(', ')}.`);
console.log(
  'Commit them with the function files; `npx vitest run test/db-functions.test.ts` checks they agree.',
);
