// The file feed's snapshots (docs/acp.md "File feed"): every product in the feeds, one row per
// variant on sale, as gzipped JSON Lines and CSV in each language, written to FEED_DIR by one
// instance at a time. The catalog is read by pages of PAGE products (queries.ts) and each page is
// written before the next is kept: memory stays flat whatever the catalog's size. Each file is
// written under a temporary name and renamed when whole; the snapshot's row names its files only
// after, so a reader never sees half a file; the snapshot before stays for downloads under way.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { LOCALES, type Locale } from '../../contract/i18n.ts';
import { rowsOf } from '../../db/sql.ts';
import type { Job } from '../../jobs/runner.ts';
import type { RequestContext } from '../context.ts';
import { type FeedContext, feedContext, feedProductOf } from './document.ts';
import {
  csvHeader,
  csvLines,
  type FeedShipping,
  feedShippingOf,
  fileFeedRowsOf,
  jsonLine,
} from './file-rows.ts';
import {
  eligibleFeedRowsAfter,
  type FeedRow,
  type FeedShippingRow,
  lastCandidateAfter,
  shippingOfSellers,
} from './queries.ts';
import type { FeedFileEntry } from './tables.ts';

export interface FileFeedDeps {
  /** FEED_DIR: shared by every instance that runs the jobs or serves the files. */
  dir: string;
  publicBaseUrl: string;
  /** FEED_FILE_HOURS: a snapshot is written when the last is older than this. */
  fileHours: number;
}

export const FORMATS = ['jsonl', 'csv'] as const;
export type FeedFormat = (typeof FORMATS)[number];

/** Products a page reads (about 3 variants each): a few MB of rows at most. */
export const PAGE = 2_000;
/**
 * gzip's level: 1 makes files about a third larger than 6 for a third of the time (measured,
 * docs/performance.md "Product feeds"); a platform downloads them once a day.
 */
const GZIP_LEVEL = 1;
/** A writer holds its snapshot this long past its last sign of life (renewed every page). */
const LEASE_SECONDS = 300;
/** Snapshots kept: the new one, and the one before for downloads begun before it. */
const KEPT = 2;

/** `20261130T151320123Z`: a snapshot's id, and the start of its files' names. */
const stampOf = (at: Date) => at.toISOString().replace(/[-:.]/g, '');

export const fileNameOf = (snapshot: string, locale: Locale, format: FeedFormat) =>
  `products-${snapshot}-${locale}.${format}.gz`;

/** A name the writer gives a file: nothing else is ever opened from FEED_DIR (no path, no dot-dot). */
export const FEED_FILE_NAME = /^products-\d{8}T\d{9}Z-(en-CA|fr-CA)\.(jsonl|csv)\.gz$/;
const TEMPORARY = /^products-\d{8}T\d{9}Z-(en-CA|fr-CA)\.(jsonl|csv)\.gz\.[0-9a-f]{12}\.tmp$/;

/**
 * Claims the writing of snapshot `id`: none being written by a live writer (a writer gone past
 * its lease is taken over) and, unless `force`, none written in the last `hours`. At most one row
 * is being written (a unique index): two instances claiming at once, one wins.
 */
async function claimSnapshot(ctx: RequestContext, id: string, hours: number, force: boolean) {
  await ctx.db.execute(
    sql`delete from feed_snapshots where written_at is null and lease_until < ${ctx.now().toISOString()}`,
  );
  const rows = await rowsOf<{ id: string }>(
    ctx.db,
    sql`insert into feed_snapshots (id, started_at, lease_until)
          select ${id}, ${ctx.now().toISOString()}, ${new Date(ctx.now().getTime() + LEASE_SECONDS * 1000).toISOString()}
          where ${force} or not exists (select 1 from feed_snapshots
                  where written_at > ${new Date(ctx.now().getTime() - hours * 3_600_000).toISOString()})
          on conflict do nothing returning id`,
  );
  return rows.length > 0;
}

/** Renews the lease; false when it was lost (taken over after a pause longer than the lease). */
async function renewLease(ctx: RequestContext, id: string): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    ctx.db,
    sql`update feed_snapshots set lease_until = ${new Date(ctx.now().getTime() + LEASE_SECONDS * 1000).toISOString()}
          where id = ${id} and written_at is null returning id`,
  );
  return rows.length > 0;
}

/** One file being written: gzip into a temporary file, with backpressure. */
class GzipFile {
  readonly temporary: string;
  rows = 0;
  private readonly gzip: Gzip;
  private readonly done: Promise<void>;

  constructor(
    readonly final: string,
    readonly entry: Omit<FeedFileEntry, 'rows' | 'bytes'>,
  ) {
    this.temporary = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    this.gzip = createGzip({ level: GZIP_LEVEL, memLevel: 9, chunkSize: 64 * 1024 });
    this.done = pipeline(this.gzip, createWriteStream(this.temporary, { flags: 'wx' }));
    // A failure is seen at end(); until then a write waits on drain, which a failure never sends.
    this.done.catch(() => {});
  }

  /** Writes `text` (a page of lines), waiting while gzip's buffer is full. */
  async write(text: string, rows: number) {
    this.rows += rows;
    if (!text) return;
    if (!this.gzip.write(text)) await Promise.race([once(this.gzip, 'drain'), this.done]);
  }

  /** Ends the file and names it: the rename is atomic, a reader sees the whole file or none. */
  async end(): Promise<FeedFileEntry> {
    this.gzip.end();
    await this.done;
    await rename(this.temporary, this.final);
    const { size } = await stat(this.final);
    return { ...this.entry, rows: this.rows, bytes: size };
  }

  async discard() {
    this.gzip.destroy();
    await this.done.catch(() => {});
    await rm(this.temporary, { force: true });
  }
}

export interface WrittenSnapshot {
  id: string;
  products: number;
  files: FeedFileEntry[];
  seconds: number;
}

/**
 * Writes a snapshot now when one is due (the last older than FEED_FILE_HOURS, or `force`) and no
 * other instance is writing one; answers it, or undefined when it was not this instance's to write.
 */
export async function writeFeedSnapshot(
  ctx: RequestContext,
  deps: FileFeedDeps,
  opts: { force?: boolean; stopping?: AbortSignal } = {},
): Promise<WrittenSnapshot | undefined> {
  const started = performance.now();
  const id = stampOf(ctx.now());
  if (!(await claimSnapshot(ctx, id, deps.fileHours, opts.force ?? false))) return undefined;
  await mkdir(deps.dir, { recursive: true });
  const files = LOCALES.flatMap((locale) =>
    FORMATS.map(
      (format) =>
        new GzipFile(path.join(deps.dir, fileNameOf(id, locale, format)), {
          name: fileNameOf(id, locale, format),
          locale,
          format,
        }),
    ),
  );
  try {
    const products = await writeRows(ctx, deps, id, files, opts.stopping);
    const entries: FeedFileEntry[] = [];
    for (const file of files) entries.push(await file.end());
    await ctx.db.execute(
      sql`update feed_snapshots set written_at = ${ctx.now().toISOString()}, lease_until = null,
            files = ${JSON.stringify(entries)}::jsonb, products = ${products} where id = ${id}`,
    );
    await deleteOldSnapshots(ctx, deps.dir);
    return { id, products, files: entries, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    await Promise.all(files.map((f) => f.discard()));
    await ctx.db.execute(sql`delete from feed_snapshots where id = ${id} and written_at is null`);
    throw err;
  }
}

async function writeRows(
  ctx: RequestContext,
  deps: FileFeedDeps,
  id: string,
  files: GzipFile[],
  stopping: AbortSignal | undefined,
): Promise<number> {
  const contexts = LOCALES.map((locale) => feedContext(deps.publicBaseUrl, locale));
  const byLocale = (locale: Locale, format: FeedFormat) =>
    files.find((f) => f.entry.locale === locale && f.entry.format === format)!;
  for (const locale of LOCALES) await byLocale(locale, 'csv').write(csvHeader(), 0);
  let products = 0;
  let renewedAt = performance.now();
  // The next page is read while this one is written: the database and this process work at once.
  let next = readPage(ctx, '');
  for (;;) {
    const page = await next;
    if (page.end === undefined) break;
    next = readPage(ctx, page.end);
    // A page's rejection is seen when it is awaited; one left behind when this pass stops is not.
    next.catch(() => {});
    if (stopping?.aborted) throw new Error('the instance is stopping: the snapshot is given up');
    products += page.rows.length;
    for (const [n, locale] of LOCALES.entries())
      await writePage(page, contexts[n]!, locale, byLocale(locale, 'jsonl'), byLocale(locale, 'csv'));
    if (performance.now() - renewedAt > 30_000) {
      if (!(await renewLease(ctx, id))) throw new Error(`feed snapshot ${id}: its lease was lost`);
      renewedAt = performance.now();
    }
  }
  return products;
}

interface Page {
  rows: FeedRow[];
  shipping: Map<string, FeedShipping>;
  /** The last candidate's id: the next page starts after it; undefined at the end. */
  end: string | undefined;
}

async function readPage(ctx: RequestContext, after: string): Promise<Page> {
  const [rows, end] = await Promise.all([
    eligibleFeedRowsAfter(ctx.db, after, PAGE),
    lastCandidateAfter(ctx.db, after, PAGE),
  ]);
  const sellers = [...new Set(rows.map((r) => r.seller_id))];
  const profiles = new Map<string, FeedShippingRow>();
  if (sellers.length) for (const p of await shippingOfSellers(ctx.db, sellers)) profiles.set(p.seller_id, p);
  const shipping = new Map(sellers.map((s) => [s, feedShippingOf(profiles.get(s))]));
  return { rows, shipping, end };
}

async function writePage(page: Page, fc: FeedContext, locale: Locale, jsonl: GzipFile, csv: GzipFile) {
  let lines = '';
  const all = [];
  for (const row of page.rows) {
    const product = feedProductOf(row, fc);
    const rows = fileFeedRowsOf(product, row.is_digital, page.shipping.get(row.seller_id)!, locale);
    for (const r of rows) {
      lines += jsonLine(r);
      all.push(r);
    }
  }
  await Promise.all([jsonl.write(lines, all.length), csv.write(csvLines(all), all.length)]);
}

/**
 * Keeps the last KEPT snapshots written (their rows and files); deletes the others' files, and
 * files of writers that died (temporary ones over a day old: a live writer's are younger).
 */
async function deleteOldSnapshots(ctx: RequestContext, dir: string) {
  const kept = await rowsOf<{ id: string }>(
    ctx.db,
    sql`select id from feed_snapshots where written_at is not null order by written_at desc, id desc limit ${KEPT}`,
  );
  const keep = new Set(kept.map((k) => k.id));
  await ctx.db.execute(
    sql`delete from feed_snapshots where written_at is not null
          and id <> all(string_to_array(${[...keep].join(',')}, ','))`,
  );
  const dayAgo = Date.now() - 86_400_000;
  for (const name of await readdir(dir)) {
    const snapshot = /^products-(\d{8}T\d{9}Z)-/.exec(name)?.[1];
    if (!snapshot || keep.has(snapshot)) continue;
    if (FEED_FILE_NAME.test(name)) await rm(path.join(dir, name), { force: true });
    else if (TEMPORARY.test(name)) {
      const info = await stat(path.join(dir, name)).catch(() => undefined);
      if (info && info.mtimeMs < dayAgo) await rm(path.join(dir, name), { force: true });
    }
  }
}

/** The last snapshot written, with its files; undefined before the first. */
export async function currentSnapshot(
  ctx: RequestContext,
): Promise<{ id: string; writtenAt: Date; files: FeedFileEntry[] } | undefined> {
  const [row] = await rowsOf<{ id: string; written_at: string | Date; files: FeedFileEntry[] }>(
    ctx.db,
    sql`select id, written_at, files from feed_snapshots where written_at is not null
          order by written_at desc, id desc limit 1`,
  );
  return row ? { id: row.id, writtenAt: new Date(row.written_at), files: row.files } : undefined;
}

/**
 * The job (docs/operations.md "Background jobs"): every 10 minutes it looks whether a snapshot
 * is due; the instance that claims it writes it, the others find it claimed or written.
 */
export function feedFileJob(deps: FileFeedDeps): Job {
  return {
    name: 'feed-file',
    everyMs: 600_000,
    // A pass writes a whole snapshot: it is never followed at once by another.
    batch: Number.POSITIVE_INFINITY,
    run: async (ctx, stopping) => ((await writeFeedSnapshot(ctx, deps, { stopping })) ? 1 : 0),
  };
}
