// The file feed's snapshots (docs/acp.md "File feed"): every product in the feeds, one row per
// variant on sale, as gzipped JSON Lines and CSV in each language, written to FEED_DIR by one
// instance at a time. The catalog is read here by pages of PAGE products (queries.ts) and each page
// is handed to one worker thread per language (file-locale.ts writes its two files) before the
// next is kept: memory stays flat whatever the catalog's size, and the event loop serving requests
// only reads. Each file is written under a temporary name and renamed when whole; the snapshot's
// row names its files only after, so a reader never sees half a file; the snapshot before stays
// for downloads under way.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { LOCALES, type Locale } from '../../contract/i18n.ts';
import type { Job } from '../../jobs/runner.ts';
import type { RequestContext } from '../context.ts';
import { type FeedPage, type LocaleFiles, localeFiles } from './file-locale.ts';
import type { FileWorkerData, FileWorkerRequest } from './file-worker.ts';
import {
  eligibleFeedPageText,
  extendSnapshotLease,
  insertSnapshotClaim,
  keepNewestSnapshots,
  lastCandidateAfter,
  markSnapshotWritten,
  newestSnapshot,
  offeredProductsExceed,
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
  const now = ctx.now();
  return insertSnapshotClaim(ctx.db, {
    id,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_SECONDS * 1000),
    writtenAfter: force ? undefined : new Date(now.getTime() - hours * 3_600_000),
  });
}

/** Renews the lease; false when it was lost (taken over after a pause longer than the lease). */
async function renewLease(ctx: RequestContext, id: string): Promise<boolean> {
  return extendSnapshotLease(ctx.db, id, new Date(ctx.now().getTime() + LEASE_SECONDS * 1000));
}

/** Where a language's pages go: its worker thread, or this thread for a catalog of one page. */
interface LocaleSink extends LocaleFiles {
  close(): Promise<void>;
}

async function inProcess(data: FileWorkerData): Promise<LocaleSink> {
  const files = await localeFiles(data.publicBaseUrl, data.locale, data.paths);
  return { ...files, close: async () => {} };
}

/** Whether the catalog has more products in the feeds than a page (a bounded count). */
async function moreThanOnePage(ctx: RequestContext): Promise<boolean> {
  return offeredProductsExceed(ctx.db, PAGE);
}

/** A language's worker thread (file-worker.ts), asked one thing at a time. */
class LocaleWorker implements LocaleSink {
  private readonly worker: Worker;
  private waiting: { resolve: (v: WorkerAnswer) => void; reject: (e: Error) => void } | undefined;
  private failed: Error | undefined;

  constructor(data: FileWorkerData) {
    this.worker = new Worker(new URL(workerFile()), {
      workerData: data,
      // A larger young generation than the default: the rows are short-lived garbage, scavenged
      // less often so (its effect was not measured on its own).
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
    this.worker.on('message', (answer: WorkerAnswer) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (answer.ok) waiting?.resolve(answer);
      else waiting?.reject(new Error(`feed file worker: ${answer.error}`));
    });
    const fail = (err: Error) => {
      this.failed = err;
      this.waiting?.reject(err);
      this.waiting = undefined;
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`feed file worker exited (${code})`)));
  }

  async page(page: FeedPage) {
    await this.ask({ type: 'page', page });
  }

  async end() {
    const answer = await this.ask({ type: 'end' });
    if (!answer.ok || !answer.files) throw new Error('feed file worker: no files at the end');
    return answer.files;
  }

  async discard() {
    await this.ask({ type: 'discard' });
  }

  private ask(request: FileWorkerRequest): Promise<WorkerAnswer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage(request);
    });
  }

  async close() {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

type WorkerAnswer =
  | { ok: true; files?: { jsonl: { rows: number; bytes: number }; csv: { rows: number; bytes: number } } }
  | { ok: false; error: string };

/**
 * The worker's module: in a build (scripts/build.mjs), the bundle's own feed-file-worker.js beside
 * the chunk that runs this; from the sources, file-worker.ts through tsx's loader.
 */
const workerFile = () =>
  typeof PORTAGE_BUNDLE !== 'undefined'
    ? import.meta.resolve('./feed-file-worker.js')
    : new URL('./file-worker-tsx.mjs', import.meta.url).href;

/** Defined (true) by scripts/build.mjs in the bundle, and nowhere else. */
declare const PORTAGE_BUNDLE: true | undefined;

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
  /** `threads`: worker threads or not, whatever the catalog's size (tests); decided by its size otherwise. */
  opts: { force?: boolean; stopping?: AbortSignal; threads?: boolean } = {},
): Promise<WrittenSnapshot | undefined> {
  const started = performance.now();
  const id = stampOf(ctx.now());
  if (!(await claimSnapshot(ctx, id, deps.fileHours, opts.force ?? false))) return undefined;
  await mkdir(deps.dir, { recursive: true });
  const pathOf = (locale: Locale, format: FeedFormat) => path.join(deps.dir, fileNameOf(id, locale, format));
  // A catalog of one page is written here: two threads would take longer to start than it to write.
  const threads = opts.threads ?? (await moreThanOnePage(ctx));
  const workers: LocaleSink[] = await Promise.all(
    LOCALES.map((locale) => {
      const data = {
        publicBaseUrl: deps.publicBaseUrl,
        locale,
        paths: { jsonl: pathOf(locale, 'jsonl'), csv: pathOf(locale, 'csv') },
      };
      return threads ? new LocaleWorker(data) : inProcess(data);
    }),
  );
  try {
    const products = await readPages(ctx, id, workers, opts.stopping);
    const entries: FeedFileEntry[] = [];
    for (const [n, locale] of LOCALES.entries()) {
      const files = await workers[n]!.end();
      for (const format of FORMATS)
        entries.push({ name: fileNameOf(id, locale, format), locale, format, ...files[format] });
    }
    const named = await markSnapshotWritten(ctx.db, { id, at: ctx.now(), files: entries, products });
    // Another instance took the lease over after this one stalled past it: its snapshot stands.
    if (!named) throw new Error(`feed snapshot ${id}: its lease was lost`);
    await deleteOldSnapshots(ctx, deps.dir);
    return { id, products, files: entries, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    await Promise.all(workers.map((w) => w.discard().catch(() => {})));
    await ctx.db.execute(sql`delete from feed_snapshots where id = ${id} and written_at is null`);
    throw err;
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
}

/**
 * Reads the catalog page after page and hands each to every language's worker; the next page is
 * read while the workers write this one, and handed over once they are done with it.
 */
async function readPages(
  ctx: RequestContext,
  id: string,
  workers: LocaleSink[],
  stopping: AbortSignal | undefined,
): Promise<number> {
  let products = 0;
  let renewedAt = performance.now();
  let next = readPage(ctx, '');
  let writing: Promise<unknown> = Promise.resolve();
  for (;;) {
    const page = await next;
    await writing;
    if (page.end === undefined) break;
    next = readPage(ctx, page.end);
    // A page's rejection is seen when it is awaited; one left behind when this pass stops is not.
    next.catch(() => {});
    if (stopping?.aborted) throw new Error('the instance is stopping: the snapshot is given up');
    products += page.count;
    const handed: FeedPage = { rows: page.rows, shipping: page.shipping, count: page.count };
    writing = Promise.all(workers.map((w) => w.page(handed)));
    // Seen when awaited before the next page; until then a failure must not go unhandled.
    writing.catch(() => {});
    if (performance.now() - renewedAt > 30_000) {
      if (!(await renewLease(ctx, id))) throw new Error(`feed snapshot ${id}: its lease was lost`);
      renewedAt = performance.now();
    }
  }
  return products;
}

interface Page extends FeedPage {
  /** The last candidate's id: the next page starts after it; undefined at the end. */
  end: string | undefined;
}

async function readPage(ctx: RequestContext, after: string): Promise<Page> {
  const [page, end] = await Promise.all([
    eligibleFeedPageText(ctx.db, after, PAGE),
    lastCandidateAfter(ctx.db, after, PAGE),
  ]);
  return { ...page, end };
}

/**
 * Keeps the last KEPT snapshots written (their rows and files); deletes the others' files, and
 * files of writers that died (temporary ones over a day old: a live writer's are younger).
 */
async function deleteOldSnapshots(ctx: RequestContext, dir: string) {
  const keep = new Set(await keepNewestSnapshots(ctx.db, KEPT));
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
  return newestSnapshot(ctx.db);
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
