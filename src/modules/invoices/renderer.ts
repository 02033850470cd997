// Draws invoices off the event loop: pdfkit takes 0.3-1.1 s of CPU for a 50-line invoice, during
// which the process would answer nothing. A pool of worker threads (piscina) draws `threads` at
// once; up to `queue` more wait their turn, and past that a request is refused with 503 and
// Retry-After rather than queued without end. The same document asked for again while it is being
// drawn waits for that drawing instead of starting another. The pool (and piscina, 0.1 s to
// import) is made at the first drawing, not at start.
import type { FastifyBaseLogger } from 'fastify';
import type { Piscina } from 'piscina';
import { unavailable } from '../../contract/errors.ts';
import type { Invoice } from './pdf.ts';
import type { RenderTask } from './render-worker.ts';

/** Seconds a refused request is told to wait: about what a full queue takes to drain. */
export const RENDER_RETRY_AFTER_SECONDS = 5;
/** A thread idle this long ends; the next render starts one again (about 0.4 s from a build). */
const IDLE_MS = 60_000;

export interface InvoiceRenderer {
  /**
   * The PDF of `invoice`; `key` names the document (a request for a key being drawn shares that
   * drawing). Throws 503 (Retry-After) when `queue` renders already wait.
   */
  render(key: string, invoice: Invoice, now: Date): Promise<Buffer>;
  /** Renders this instance has finished (tests count them). */
  readonly rendered: number;
  /**
   * Whether an invoice naming no platform tax profile is drawn as a sample (development). Deployed,
   * the service does not start without the profile (commands.ts), so every invoice names it.
   */
  readonly samples: boolean;
  /**
   * For tests: the next render, once its worker has started it, blocks that worker's thread until
   * `release()`, as a long drawing would; `started` resolves when it has.
   */
  holdNextRender(): { started: Promise<void>; release(): void };
  close(): Promise<void>;
}

export function createInvoiceRenderer(
  opts: { threads: number; queue: number; samples?: boolean },
  log: FastifyBaseLogger,
): InvoiceRenderer {
  let pool: Promise<Piscina<RenderTask, Uint8Array>> | undefined;
  const poolOf = () =>
    (pool ??= import('piscina').then(({ Piscina }) => {
      const made = new Piscina<RenderTask, Uint8Array>({
        filename: workerFile(),
        minThreads: 0,
        maxThreads: opts.threads,
        idleTimeout: IDLE_MS,
      });
      // A thread that fails (its module would not load) fails its task too, which answers 500.
      made.on('error', (err) => log.error({ err }, 'invoice render thread failed'));
      return made;
    }));
  /** The drawings asked of the pool and not finished: those drawn and those waiting. */
  const drawing = new Map<string, Promise<Buffer>>();
  let rendered = 0;
  let hold: SharedArrayBuffer | undefined;

  return {
    samples: opts.samples ?? false,
    render(key, invoice, now) {
      const running = drawing.get(key);
      if (running) return running;
      if (drawing.size >= opts.threads + opts.queue) {
        return Promise.reject(unavailable(RENDER_RETRY_AFTER_SECONDS, 'error.invoices.busy'));
      }
      const task: RenderTask = { invoice, now, hold };
      hold = undefined;
      const done = poolOf()
        .then((p) => p.run(task))
        .then((bytes) => {
          rendered++;
          return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        })
        .finally(() => drawing.delete(key));
      drawing.set(key, done);
      return done;
    },
    get rendered() {
      return rendered;
    },
    holdNextRender() {
      const shared = new SharedArrayBuffer(8);
      const flags = new Int32Array(shared);
      hold = shared;
      const waited = (Atomics as unknown as AtomicsWaitAsync).waitAsync(flags, 0, 0);
      return {
        started: waited.async ? waited.value.then(() => undefined) : Promise.resolve(),
        release() {
          Atomics.store(flags, 1, 1);
          Atomics.notify(flags, 1);
        },
      };
    },
    close: async () => {
      if (pool) await (await pool).destroy();
    },
  };
}

/**
 * The worker's module: in a build (scripts/build.mjs), the bundle's own invoice-render-worker.js
 * beside the chunk that runs this; from the sources, render-worker.ts through tsx's loader.
 */
const workerFile = () =>
  typeof PORTAGE_BUNDLE !== 'undefined'
    ? import.meta.resolve('./invoice-render-worker.js')
    : new URL('./render-worker-tsx.mjs', import.meta.url).href;

/** ES2024's Atomics.waitAsync (Node 16 and later), beyond the ES2022 library we type against. */
interface AtomicsWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** Defined (true) by scripts/build.mjs in the bundle, and nowhere else. */
declare const PORTAGE_BUNDLE: true | undefined;
