// The churn scenario of the search benchmark (`npm run bench -- --only churn`): a seller
// rewriting descriptions with new words over and over. It makes 5,000 description edits
// through the running service's HTTP API (PATCH /products/:id as an admin), 10 rewrites of
// each of 500 products, each time with 100 words never seen before (500,000 new words, of
// which the last 50,000 stay in use), while one client searches; it reports the service's
// resident memory before and after, and search latency during the edits and after them.
//
// The edited products are a reserved slice: active products that none of the other
// scenarios' queries find (they match neither "handmade" nor the selective query's words;
// the detail and list scenarios do not read descriptions' words). Their descriptions are
// read before and written back after the run (restoreChurnSlice), in one statement.
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';

export const CHURN_EDITS = Number(process.env.BENCH_CHURN_EDITS ?? 5000);
/** Products rewritten (each CHURN_EDITS / CHURN_PRODUCTS times). */
export const CHURN_PRODUCTS = 500;
const WORDS_PER_EDIT = 100;
const EDIT_CONNECTIONS = 4;

export interface ChurnSlice {
  ids: string[];
  descriptions: string[];
}

/** The products the churn edits: active, and found by none of the other scenarios' queries. */
export async function churnSlice(db: Db, size = CHURN_PRODUCTS): Promise<ChurnSlice> {
  const rows = await rowsOf<{ id: string; description: string }>(
    db,
    sql`select id, description from products
         where status = 'active'
           and not search_doc @@ to_tsquery('english', 'handmade:* | smoked | salmon | cape | breton:*')
         order by id desc limit ${size}`,
  );
  return { ids: rows.map((r) => r.id), descriptions: rows.map((r) => r.description) };
}

/** Writes the slice's descriptions back, in one statement. */
export async function restoreChurnSlice(db: Db, slice: ChurnSlice) {
  if (slice.ids.length === 0) return;
  await db.execute(
    sql`update products p set description = r.description
          from unnest(${`{${slice.ids.map(quote).join(',')}}`}::text[], ${`{${slice.descriptions.map(quote).join(',')}}`}::text[])
            as r(id, description)
         where p.id = r.id`,
  );
}

/** A PostgreSQL array literal's element. */
const quote = (s: string) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** The resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

let wordCounter = 0;
/** A word no catalog has: letters only (so that full-text search keeps it a word), unique per run. */
function freshWord(): string {
  let n = ++wordCounter * 7919 + Math.floor(Math.random() * 7919);
  let w = 'zq';
  while (n > 0) {
    w += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  }
  return `${w}${String.fromCharCode(97 + Math.floor(Math.random() * 26))}x`;
}

export interface LatencyFigures {
  name: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function figures(name: string, times: number[], seconds: number, errors: number): LatencyFigures {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    name,
    rps: Math.round(times.length / seconds),
    p50: pct(sorted, 50),
    p95: pct(sorted, 95),
    p99: pct(sorted, 99),
    errors,
  };
}

/**
 * Edits the slice's descriptions through the API (EDIT_CONNECTIONS at a time) while one
 * client runs `searchPath` back to back; answers the edits' and the searches' figures.
 */
export async function runChurn(opts: {
  base: string;
  adminAuth: Record<string, string>;
  searchAuth: Record<string, string>;
  slice: ChurnSlice;
  searchPath: () => string;
}): Promise<{ edits: LatencyFigures; during: LatencyFigures }> {
  const { base, slice } = opts;
  let next = 0;
  let editing = true;
  const editTimes: number[] = [];
  const searchTimes: number[] = [];
  let editErrors = 0;
  let searchErrors = 0;
  const started = performance.now();
  const editor = async () => {
    for (;;) {
      const i = next++;
      if (i >= CHURN_EDITS) return;
      const description = Array.from({ length: WORDS_PER_EDIT }, freshWord).join(' ');
      const t0 = performance.now();
      const id = slice.ids[i % slice.ids.length]!;
      const res = await fetch(`${base}/products/${encodeURIComponent(id)}`, {
        method: 'PATCH',
        headers: { ...opts.adminAuth, 'content-type': 'application/json' },
        body: JSON.stringify({ description }),
      });
      await res.arrayBuffer();
      editTimes.push(performance.now() - t0);
      if (!res.ok) editErrors++;
    }
  };
  const searcher = async () => {
    while (editing) {
      const t0 = performance.now();
      const res = await fetch(`${base}${opts.searchPath()}`, { headers: opts.searchAuth });
      await res.arrayBuffer();
      searchTimes.push(performance.now() - t0);
      if (!res.ok) searchErrors++;
    }
  };
  const searching = searcher();
  await Promise.all(Array.from({ length: EDIT_CONNECTIONS }, editor));
  editing = false;
  await searching;
  const seconds = (performance.now() - started) / 1000;
  return {
    edits: figures(
      `churn: ${CHURN_EDITS} description edits of ${slice.ids.length} products (PATCH, ${EDIT_CONNECTIONS} connections)`,
      editTimes,
      seconds,
      editErrors,
    ),
    during: figures('churn: search broad + facets, during the edits', searchTimes, seconds, searchErrors),
  };
}
