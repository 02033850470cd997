// A worker thread writing one language's files of a file feed snapshot (file-locale.ts): the
// snapshot's writer (file-feed.ts) starts one per language and hands each page to both, one page at
// a time (it waits for this thread's answer before the next: memory stays a page or two).
import { parentPort, workerData } from 'node:worker_threads';
import type { Locale } from '../../contract/i18n.ts';
import { type FeedPage, localeFiles } from './file-locale.ts';

export interface FileWorkerData {
  publicBaseUrl: string;
  locale: Locale;
  paths: { jsonl: string; csv: string };
}

export type FileWorkerRequest = { type: 'page'; page: FeedPage } | { type: 'end' } | { type: 'discard' };

const port = parentPort!;
const data = workerData as FileWorkerData;
const files = localeFiles(data.publicBaseUrl, data.locale, data.paths);

port.on('message', async (request: FileWorkerRequest) => {
  try {
    const writer = await files;
    if (request.type === 'page') {
      await writer.page(request.page);
      port.postMessage({ ok: true });
    } else if (request.type === 'end') {
      port.postMessage({ ok: true, files: await writer.end() });
    } else {
      await writer.discard();
      port.postMessage({ ok: true });
    }
  } catch (err) {
    port.postMessage({ ok: false, error: String((err as Error)?.stack ?? err) });
  }
});
