// The functions in src/db/functions/*.sql are the functions the migrations leave in the database
// (src/db/functions/README.md). Each file is run inside a transaction that is rolled back, over the
// migrated database: PostgreSQL's own rendering of each function it defines (pg_get_functiondef:
// arguments, result, language, volatility, settings and body), whitespace aside, must be what it
// was before. And every SQL or PL/pgSQL function of the public schema must have its file.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { type TestDatabase, testDatabase } from './helpers/db.ts';

const DIR = fileURLToPath(new URL('../src/db/functions/', import.meta.url));
const BREAKPOINT = '--> statement-breakpoint';

interface FunctionFile {
  /** The name `npm run db:functions` takes: the file's name less `.sql`. */
  name: string;
  path: string;
  text: string;
  /** The functions its CREATE statements define. */
  defines: string[];
}

const files: FunctionFile[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map((f) => {
    const text = readFileSync(`${DIR}${f}`, 'utf8');
    const code = text.replace(/--[^\n]*/g, '');
    const defines = [
      ...code.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(?:public\.)?"?(\w+)"?\s*\(/gi),
    ]
      .map((m) => m[1]!.toLowerCase())
      .sort();
    return { name: f.slice(0, -'.sql'.length), path: `src/db/functions/${f}`, text, defines };
  });

/** The SQL and PL/pgSQL functions of the public schema that no extension owns, as PostgreSQL renders them. */
async function definitions(db: Db, name?: string): Promise<Array<{ name: string; def: string }>> {
  return await rowsOf<{ name: string; def: string }>(
    db,
    sql`select p.proname as name, pg_get_functiondef(p.oid) as def
          from pg_proc p
          join pg_namespace n on n.oid = p.pronamespace
          join pg_language l on l.oid = p.prolang
         where n.nspname = 'public' and l.lanname in ('sql', 'plpgsql') and p.prokind in ('f', 'p')
           and (${name ?? null}::text is null or p.proname = ${name ?? null}::text)
           and not exists (select 1 from pg_depend d
                            where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
         order by 1, 2`,
  );
}

/**
 * Whitespace aside: outside string literals, quoted names and comments' words, blanks become one
 * space, lines are trimmed and blank lines dropped. Line breaks stay (they end `--` comments).
 */
function normalise(def: string): string {
  const token = /--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"/g;
  const blanks = (s: string) => s.replace(/[ \t\r\f\v]+/g, ' ');
  let out = '';
  let at = 0;
  for (const m of def.matchAll(token)) {
    out += blanks(def.slice(at, m.index));
    out += m[0].startsWith('--') ? blanks(m[0]).trimEnd() : m[0];
    at = m.index + m[0].length;
  }
  out += blanks(def.slice(at));
  return out.replace(/ ?\n[ \n]*/g, '\n').replace(/^[ \n]+|[ \n]+$/g, '');
}

/** Where two renderings part, line by line. */
function firstDifference(database: string, file: string): string {
  const a = database.split('\n');
  const b = file.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `first difference at line ${i + 1} of pg_get_functiondef:\n  database: ${a[i] ?? '(end)'}\n  file:     ${b[i] ?? '(end)'}`;
}

class Rollback extends Error {}

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('src/db/functions', () => {
  it('has files', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(f.defines, `${f.path} defines no function (CREATE OR REPLACE FUNCTION …)`).not.toEqual([]);
    }
  });

  it.each(files.map((f) => [f.name, f] as const))(
    '%s.sql is the function in the migrated database',
    async (_, file) => {
      const fix = `npm run db:functions -- ${file.name}`;
      for (const name of file.defines) {
        const before = (await definitions(database.db, name)).map((r) => normalise(r.def));
        if (before.length === 0) {
          expect.fail(
            `${file.path} defines ${name}, which the migrations do not create: run \`${fix}\` to write a ` +
              'migration that does (or delete the file if the function was dropped on purpose).',
          );
        }
        let after: string[] = [];
        let error: unknown;
        try {
          await database.db.transaction(async (tx) => {
            for (const statement of file.text.split(BREAKPOINT)) {
              if (statement.replace(/--[^\n]*/g, '').trim()) await tx.execute(sql.raw(statement));
            }
            after = (await definitions(tx, name)).map((r) => normalise(r.def));
            throw new Rollback();
          });
        } catch (err) {
          if (!(err instanceof Rollback)) error = err;
        }
        const why =
          `${name} in the migrated database differs from ${file.path}: either a migration changed it ` +
          'without its file (copy that definition into the file), or the file was edited without a ' +
          `migration (run \`${fix}\`).`;
        if (error) {
          // Drizzle's error quotes the whole file; PostgreSQL's own is its cause.
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
          expect.fail(`${why}\nRunning the file over the database failed: ${String(cause)}`);
        }
        if (after.length !== before.length) {
          expect.fail(
            `${why}\nThe file leaves ${after.length} functions named ${name} where the database has ` +
              `${before.length} (other arguments make another function: drop the old one in the migration).`,
          );
        }
        for (let i = 0; i < before.length; i++) {
          if (after[i] !== before[i]) expect.fail(`${why}\n${firstDifference(before[i]!, after[i]!)}`);
        }
      }
    },
  );

  it('holds every SQL and PL/pgSQL function of the public schema', async () => {
    const inFiles = new Map<string, string[]>();
    for (const f of files) {
      for (const name of f.defines) inFiles.set(name, [...(inFiles.get(name) ?? []), f.path]);
    }
    const problems: string[] = [];
    for (const [name, paths] of inFiles) {
      if (paths.length > 1) problems.push(`${name} is defined by more than one file: ${paths.join(', ')}`);
    }
    const names = new Set((await definitions(database.db)).map((r) => r.name));
    for (const name of names) {
      if (!inFiles.has(name)) {
        problems.push(
          `${name} is in the migrated database but has no file: write its current definition (the last ` +
            `migration's CREATE OR REPLACE FUNCTION ${name}) to src/db/functions/${name}.sql with a header ` +
            'comment saying what it does and who calls it.',
        );
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
