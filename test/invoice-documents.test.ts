// Invoices drawn once, off the event loop, and stored (docs/invoices.md "Drawing and storing"):
// the drawing runs in the renderer's worker threads while the app keeps answering, a bounded
// queue refuses with 503 and Retry-After, the same document asked for twice at once is drawn
// once; a drawn document is stored and served byte for byte, two instances drawing it at once
// store one, and a refund's credit note makes the next edition. A render is held in its worker
// by the renderer's own handshake (holdNextRender), never by waiting for time; renders are
// counted by the renderer (`rendered`) and stored documents read from their table.

import { asc, eq } from 'drizzle-orm';
import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { invoiceDocuments } from '../src/modules/invoices/tables.ts';
import type { SignedIn, TestApp } from './helpers/app.ts';
import { seller, testApp, useTestApp } from './helpers/app.ts';
import { expectError } from './helpers/builders.ts';
import type { TestDatabase } from './helpers/db.ts';
import { cancel, orderNumber, paidOrder } from './helpers/orders.ts';

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

/** The stored documents of an order: language, credit notes, size, and the bytes. */
const storedOf = (database: TestDatabase, orderId: string) =>
  database.db
    .select({
      locale: invoiceDocuments.locale,
      creditNotes: invoiceDocuments.creditNotes,
      pdf: invoiceDocuments.pdf,
    })
    .from(invoiceDocuments)
    .where(eq(invoiceDocuments.orderId, orderId))
    .orderBy(asc(invoiceDocuments.locale), asc(invoiceDocuments.creditNotes));

const pagesOf = async (bytes: Buffer) =>
  (await extractText(Uint8Array.from(bytes), { mergePages: false })).text.map((p) =>
    p.replace(/[\s\u00a0\u202f]+/g, ' '),
  );

describe('stored documents', () => {
  const { t, database } = useTestApp();

  it('draws an invoice once, stores it, and serves the stored bytes after', async () => {
    const { buyer, orderId } = await paidOrder(t);
    const before = t.app.invoices.rendered;
    const first = await invoice(t, buyer, orderId);
    expect(first.status).toBe(200);
    expect(t.app.invoices.rendered - before).toBe(1);
    const stored = await storedOf(database, orderId);
    expect(stored.map(({ locale, creditNotes }) => ({ locale, creditNotes }))).toEqual([
      { locale: 'en-CA', creditNotes: 0 },
    ]);
    expect(stored[0]!.pdf.equals(first.bytes)).toBe(true);

    const second = await invoice(t, buyer, orderId);
    expect(second.status).toBe(200);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(second.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="invoice-${await orderNumber(t, buyer, orderId)}.pdf"`,
      'content-language': 'en-CA',
      'cache-control': 'private, no-store',
    });
    expect(t.app.invoices.rendered - before).toBe(1);

    // French is a document of its own, drawn once too.
    const fr = await invoice(t, buyer, orderId, '?locale=fr-CA');
    expect((await pagesOf(fr.bytes))[0]).toContain('Facture');
    expect((await invoice(t, buyer, orderId, '?locale=fr-CA')).bytes.equals(fr.bytes)).toBe(true);
    expect(t.app.invoices.rendered - before).toBe(2);
    expect((await storedOf(database, orderId)).map((d) => d.locale)).toEqual(['en-CA', 'fr-CA']);
  });

  it('stores one document when two instances draw it at the same time, and both serve that one', async () => {
    const { buyer, orderId } = await paidOrder(t);
    const other = await testApp(database);
    try {
      const holds = [t.app.invoices.holdNextRender(), other.app.invoices.holdNextRender()];
      const asked = [invoice(t, buyer, orderId), invoice(other, buyer, orderId)] as const;
      // Both instances found nothing stored and are drawing it.
      await Promise.all(holds.map((h) => h.started));
      for (const h of holds) h.release();
      const [a, b] = await Promise.all(asked);
      expect([a.status, b.status]).toEqual([200, 200]);
      const stored = await storedOf(database, orderId);
      expect(stored).toHaveLength(1);
      expect(a.bytes.equals(stored[0]!.pdf)).toBe(true);
      expect(b.bytes.equals(stored[0]!.pdf)).toBe(true);
      expect(other.app.invoices.rendered).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('adds the credit note of a refund as the next edition, stored and served in place of the first', async () => {
    const { buyer, orderId } = await paidOrder(t);
    const key = await orderNumber(t, buyer, orderId);
    const issued = await invoice(t, buyer, orderId);
    expect(await pagesOf(issued.bytes)).toHaveLength(1);

    await cancel(t, buyer, orderId);
    const before = t.app.invoices.rendered;
    const refunded = await invoice(t, buyer, orderId);
    expect(refunded.status).toBe(200);
    expect(t.app.invoices.rendered - before).toBe(1);
    const pages = await pagesOf(refunded.bytes);
    expect(pages).toHaveLength(2);
    expect(pages[1]).toContain(`Credit note number ${key}-R1`);
    expect(pages[0]).toContain('Page 1 of 2');
    const stored = await storedOf(database, orderId);
    expect(stored.map(({ locale, creditNotes }) => ({ locale, creditNotes }))).toEqual([
      { locale: 'en-CA', creditNotes: 1 },
    ]);
    expect(stored[0]!.pdf.equals(refunded.bytes)).toBe(true);

    const again = await invoice(t, buyer, orderId);
    expect(again.bytes.equals(refunded.bytes)).toBe(true);
    expect(t.app.invoices.rendered - before).toBe(1);
  });

  it('names the seller as it was when the order was paid, in every document', async () => {
    const shop = await seller(t.api);
    const identity = { legalName: 'Ancienne Raison inc.', gstHstNumber: '123456782RT0001' };
    expect((await t.api.as(shop).patch('/me/seller', identity)).status).toBe(200);
    const { buyer, orderId } = await paidOrder(t, { seller: shop });
    // The seller changes its name and number after the payment, before any document was drawn.
    const changed = { legalName: 'Nouvelle Raison inc.', gstHstNumber: '876543216RT0001' };
    expect((await t.api.as(shop).patch('/me/seller', changed)).status).toBe(200);
    const issued = await pagesOf((await invoice(t, buyer, orderId)).bytes);
    expect(issued[0]).toContain('Ancienne Raison inc.');
    await cancel(t, buyer, orderId);
    for (const query of ['', '?locale=fr-CA']) {
      const text = (await pagesOf((await invoice(t, buyer, orderId, query)).bytes)).join('\n');
      expect(text).toContain('Ancienne Raison inc.');
      expect(text).toContain('123456782RT0001');
      expect(text).not.toContain('Nouvelle Raison inc.');
      expect(text).not.toContain('876543216RT0001');
    }
  });
});
