// Invoices drawn off the event loop (docs/invoices.md "Drawing and storing"): the drawing runs in
// the renderer's worker threads while the app keeps answering, a bounded queue refuses with 503
// and Retry-After, and the same document asked for twice at once is drawn once. A render is held
// in its worker by the renderer's own handshake (holdNextRender), never by waiting for time.

import { describe, expect, it } from 'vitest';
import type { SignedIn, TestApp } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { expectError } from './helpers/builders.ts';
import { paidOrder } from './helpers/orders.ts';

/** GET the invoice as `who`, raw: the status, the headers and the bytes (or the JSON of a refusal). */
async function invoice(
  t: TestApp,
  who: SignedIn,
  orderId: string,
  query = '',
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/orders/${encodeURIComponent(orderId)}/invoice${query}`,
    headers: { authorization: `Bearer ${who.token}`, ...headers },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    bytes: Buffer.from(res.rawPayload),
    body: res.statusCode === 200 ? undefined : res.json(),
  };
}

/** A promise and whether it has settled yet. */
function watched<T>(promise: Promise<T>) {
  const state = { settled: false, promise };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

describe('drawing off the event loop', () => {
  const { t } = useTestApp();

  it('answers /health while an invoice is being drawn in a worker thread', async () => {
    const { buyer, orderId } = await paidOrder(t);
    const hold = t.app.invoices.holdNextRender();
    const drawing = watched(invoice(t, buyer, orderId));
    // The worker has taken the render and its thread is blocked in it, as a long drawing blocks.
    await hold.started;
    const health = await t.api.get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(drawing.settled).toBe(false);
    hold.release();
    const res = await drawing.promise;
    expect(res.status).toBe(200);
    expect(res.bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('draws a document asked for twice at once only once, and answers both with it', async () => {
    const { buyer, orderId } = await paidOrder(t);
    const before = t.app.invoices.rendered;
    const hold = t.app.invoices.holdNextRender();
    const first = invoice(t, buyer, orderId);
    await hold.started;
    const second = invoice(t, buyer, orderId);
    hold.release();
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(t.app.invoices.rendered - before).toBe(1);
  });
});

describe('a full queue', () => {
  const { t } = useTestApp({ env: { INVOICE_RENDER_THREADS: '1', INVOICE_RENDER_QUEUE: '1' } });

  it('refuses with 503 and Retry-After in the error model, and draws the invoice when asked again', async () => {
    const [a, b, c] = [await paidOrder(t), await paidOrder(t), await paidOrder(t)];
    const hold = t.app.invoices.holdNextRender();
    const drawing = invoice(t, a.buyer, a.orderId);
    await hold.started;
    // One thread is drawing A: of B and C, one waits in the queue (of one), the other is refused.
    const waiting = [invoice(t, b.buyer, b.orderId), invoice(t, c.buyer, c.orderId)];
    const refused = await Promise.race(waiting);
    expectError(
      { status: refused.status, body: refused.body, headers: refused.headers },
      'INTERNAL_ERROR',
      503,
      'Too many invoices are being prepared right now; retry in 5 seconds',
    );
    expect(refused.headers['retry-after']).toBe('5');
    hold.release();
    expect((await drawing).status).toBe(200);
    const answers = await Promise.all(waiting);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 503]);
    const again = answers[0]!.status === 503 ? b : c;
    expect((await invoice(t, again.buyer, again.orderId)).status).toBe(200);
  });

  it('says so in the reader’s language', async () => {
    const [a, b, c] = [await paidOrder(t), await paidOrder(t), await paidOrder(t)];
    const hold = t.app.invoices.holdNextRender();
    const drawing = invoice(t, a.buyer, a.orderId);
    await hold.started;
    const french = { 'accept-language': 'fr-CA' };
    const waiting = [invoice(t, b.buyer, b.orderId, '', french), invoice(t, c.buyer, c.orderId, '', french)];
    const refused = await Promise.race(waiting);
    hold.release();
    await Promise.all([drawing, ...waiting]);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe(
      'Trop de factures sont en préparation en ce moment; réessayez dans 5 secondes',
    );
  });
});
