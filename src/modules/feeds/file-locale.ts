// One language's two files of a file feed snapshot (docs/acp.md "File feed"): each page of
// products becomes its rows, written as JSON Lines and CSV through gzip with backpressure into
// temporary files, renamed when whole. Runs in a worker thread of its own (file-worker.ts), one
// per language, so that the snapshot's minute of work is not done on the event loop that
// serves requests; it imports nothing of the database.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import type { Locale } from '../../contract/i18n.ts';
import { feedContext, feedProductOf } from './document.ts';
import {
  csvHeader,
  csvLines,
  type FileFeedRow,
  feedShippingOf,
  fileFeedRowsOf,
  jsonLine,
} from './file-rows.ts';
import type { FeedRow, FeedShippingRow } from './queries.ts';

/**
 * gzip's level: 1 makes files 13-40% larger than 6 in a quarter to a third of the time
 * (docs/decisions.md "Issue 44: the file feed"); a platform downloads them once a day.
 */
const GZIP_LEVEL = 1;

/** A page as the reader hands it over: JSON text of its FeedRows and of its sellers' FeedShippingRows. */
export interface FeedPage {
  rows: string;
  shipping: string;
  /** Products in `rows`. */
  count: number;
}

/** One file being written: gzip into a temporary file, with backpressure. */
class GzipFile {
  readonly temporary: string;
  rows = 0;
  private readonly gzip: Gzip;
  private readonly done: Promise<void>;

  constructor(readonly final: string) {
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
  async end(): Promise<{ rows: number; bytes: number }> {
    this.gzip.end();
    await this.done;
    await rename(this.temporary, this.final);
    return { rows: this.rows, bytes: (await stat(this.final)).size };
  }

  async discard() {
    this.gzip.destroy();
    await this.done.catch(() => {});
    await rm(this.temporary, { force: true });
  }
}

export interface LocaleFiles {
  page(page: FeedPage): Promise<void>;
  end(): Promise<{ jsonl: { rows: number; bytes: number }; csv: { rows: number; bytes: number } }>;
  discard(): Promise<void>;
}

/** The writer of one language's JSON Lines and CSV files (their final paths given). */
export async function localeFiles(
  publicBaseUrl: string,
  locale: Locale,
  paths: { jsonl: string; csv: string },
): Promise<LocaleFiles> {
  const fc = feedContext(publicBaseUrl, locale);
  const jsonl = new GzipFile(paths.jsonl);
  const csv = new GzipFile(paths.csv);
  await csv.write(csvHeader(), 0);
  return {
    async page(page) {
      const rows = JSON.parse(page.rows) as FeedRow[];
      const profiles = new Map(
        (JSON.parse(page.shipping) as FeedShippingRow[]).map((p) => [p.seller_id, feedShippingOf(p)]),
      );
      const noProfile = feedShippingOf(undefined);
      let lines = '';
      const all: FileFeedRow[] = [];
      for (const row of rows) {
        const product = feedProductOf(row, fc);
        const shipping = profiles.get(row.seller_id) ?? noProfile;
        for (const r of fileFeedRowsOf(product, row.is_digital, shipping, locale)) {
          lines += jsonLine(r);
          all.push(r);
        }
      }
      await Promise.all([jsonl.write(lines, all.length), csv.write(csvLines(all), all.length)]);
    },
    async end() {
      return { jsonl: await jsonl.end(), csv: await csv.end() };
    },
    async discard() {
      await Promise.all([jsonl.discard(), csv.discard()]);
    },
  };
}
