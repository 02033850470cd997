// A worker thread of the invoice renderer (renderer.ts): draws one invoice per task. It imports
// the drawing and the catalogues only, never the service's modules or the database.
import { type Invoice, renderInvoice } from './pdf.ts';

export interface RenderTask {
  invoice: Invoice;
  /** The PDF's creation date. */
  now: Date;
  /** A test's hold (renderer.holdNextRender): flag 0 says started, flag 1 lets the task go on. */
  hold?: SharedArrayBuffer;
}

export default async function render({ invoice, now, hold }: RenderTask): Promise<Uint8Array> {
  if (hold) {
    const flags = new Int32Array(hold);
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    Atomics.wait(flags, 1, 0);
  }
  return renderInvoice(invoice, now);
}
