// The mail outbox and its worker against a real database, a real SMTP server (smtp-server on a
// local port) and real .eml files; the order email templates
// (docs/decisions.md "Mail" and "Background jobs").
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction, type RequestContext } from '../src/modules/context.ts';
import { enqueueMail, type MailMessage } from '../src/modules/mail/outbox.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import {
  formatCents,
  orderCancelledEmail,
  orderPaidEmail,
  orderRefundedEmail,
  orderShippedEmail,
  trackingUrl,
} from '../src/modules/mail/templates.ts';
import { createMailTransport, describeError, type MailTransport } from '../src/modules/mail/transports.ts';
import { MAIL_LEASE_MS, MAIL_MAX_ATTEMPTS, mailJob } from '../src/modules/mail/worker.ts';
import { useTestDatabase } from './helpers/db.ts';
import { mailAddress, onMailOrder, qcMailOrder } from './helpers/mail-orders.ts';
import { parseEml, startSilentServer, startSmtpServer, type TestSmtpServer } from './helpers/smtp.ts';

const FROM = 'Portage <orders@portage.test>';
const MIN = 60_000;

const database = useTestDatabase();
let nowMs: number;
const clock = () => new Date(nowMs);
const logLines: string[] = [];
const log = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
) as unknown as FastifyBaseLogger;
const ctx = (): RequestContext => ({ db: database.db, now: clock, log });
const cleanup: Array<() => unknown> = [];

beforeEach(async () => {
  nowMs = Date.parse('2026-11-21T15:00:00.000Z');
  logLines.length = 0;
  await database.db.delete(outbox);
});
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

let seq = 0;
function message(over: Partial<MailMessage> = {}): MailMessage {
  seq++;
  return {
    dedupeKey: `test:${seq}`,
    kind: 'order_paid',
    to: 'buyer@example.ca',
    subject: `Test message ${seq}`,
    text: `Hello, this is message ${seq}.`,
    html: `<p>Hello, this is message ${seq}.</p>`,
    ...over,
  };
}

async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rowsByKey(key: string) {
  return database.db.select().from(outbox).where(eq(outbox.dedupeKey, key));
}

async function row(key: string) {
  const [r] = await rowsByKey(key);
  if (!r) throw new Error(`no outbox row ${key}`);
  return r;
}

async function smtpServer(opts: Parameters<typeof startSmtpServer>[0] = {}): Promise<TestSmtpServer> {
  const server = await startSmtpServer(opts);
  cleanup.push(() => server.close());
  return server;
}

function smtpTransport(url: string, timeoutMs?: number): MailTransport {
  const transport = createMailTransport({ smtpUrl: url, from: FROM }, '/nonexistent', { timeoutMs });
  cleanup.push(() => transport.close());
  return transport;
}

const address = mailAddress;
const onOrder = onMailOrder;
const qcOrder = () => qcMailOrder();

describe('the outbox worker, .eml files (no SMTP_URL)', () => {
  it('writes an RFC 5322 file with To, From, Subject, a text and an HTML part, and marks the row sent', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portage-mail-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const transport = createMailTransport({ smtpUrl: undefined, from: FROM }, dataDir);
    expect(transport.kind).toBe('files');
    const email = orderPaidEmail({
      buyerName: 'Ada <b>Lovelace</b>',
      orders: [
        onOrder({ items: [{ name: '<script>alert(1)</script>', quantity: 1, unitPriceCents: 4499 }] }),
      ],
      totalCents: 5704,
    });
    const m = message({ to: 'ada@example.ca', ...email });
    await enqueueMail(ctx(), m);
    const job = mailJob({ transport, from: FROM });
    expect(job.name).toBe('mail');

    expect(await job.run(ctx())).toBe(1);
    const r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
    expect(r.sentAt?.toISOString()).toBe('2026-11-21T15:00:00.000Z');

    const dir = path.join(dataDir, 'mail');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toEqual([`2026-11-21T15-00-00.000Z-${r.id}.eml`]);
    const file = path.join(dir, files[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const raw = await readFile(file, 'utf8');
    expect(raw).toContain('\r\n'); // RFC 5322 line ends
    const parsed = parseEml(raw);
    expect(parsed.headers.to).toBe('ada@example.ca');
    expect(parsed.headers.from).toBe(FROM);
    expect(parsed.headers.subject).toBe('Your Portage order is confirmed: $57.04');
    expect(parsed.headers['message-id']).toBe(`<${r.id}@portage.test>`);
    expect(parsed.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(parsed.text).toBe(email.text);
    expect(parsed.html).toBe(email.html);
    expect(parsed.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(parsed.html).not.toContain('<script');

    // Nothing more to do; nothing written twice.
    expect(await job.run(ctx())).toBe(0);
    expect(await readdir(dir)).toHaveLength(1);
  });
});

describe('the outbox worker over SMTP', () => {
  it('delivers with the right envelope, signed in with the SMTP URL’s user', async () => {
    const server = await smtpServer();
    const transport = smtpTransport(server.url);
    expect(transport.kind).toBe('smtp');
    const m = message({ to: 'grace@example.ca' });
    await enqueueMail(ctx(), m);
    expect(await mailJob({ transport, from: FROM }).run(ctx())).toBe(1);

    expect(server.messages).toHaveLength(1);
    const got = server.messages[0]!;
    expect(got.envelopeFrom).toBe('orders@portage.test');
    expect(got.envelopeTo).toEqual(['grace@example.ca']);
    expect(got.user).toBe(server.username);
    const parsed = parseEml(got.raw);
    expect(parsed.headers.subject).toBe(m.subject);
    expect(parsed.headers.to).toBe('grace@example.ca');
    expect(parsed.text).toBe(m.text);
    expect(parsed.html).toBe(m.html);
    expect(await row(m.dedupeKey)).toMatchObject({ status: 'sent', attempts: 1, lastError: null });
  });

  it('a server that fails twice then accepts: retried after 1 min, then 5 min; sent on the third attempt, received once', async () => {
    const server = await smtpServer({ failFirst: 2, failCode: 451 });
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    const start = nowMs;

    expect(await job.run(ctx())).toBe(1);
    let r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'pending', attempts: 1 });
    expect(r.nextAttemptAt.getTime()).toBe(start + 1 * MIN);
    expect(r.lastError).toMatch(/451/);
    expect(r.lastError).not.toContain(server.password);
    expect(r.lastError!.length).toBeLessThanOrEqual(300);

    // Not due before its time.
    expect(await job.run(ctx())).toBe(0);
    nowMs = start + 1 * MIN - 1;
    expect(await job.run(ctx())).toBe(0);
    nowMs = start + 1 * MIN;
    expect(await job.run(ctx())).toBe(1);
    r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'pending', attempts: 2 });
    expect(r.nextAttemptAt.getTime()).toBe(nowMs + 5 * MIN);

    nowMs += 5 * MIN - 1;
    expect(await job.run(ctx())).toBe(0);
    nowMs += 1;
    expect(await job.run(ctx())).toBe(1);
    r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'sent', attempts: 3, lastError: null });
    expect(r.sentAt?.getTime()).toBe(nowMs);
    expect(server.transactions).toBe(3);
    expect(server.messages).toHaveLength(1);
    expect(await job.run(ctx())).toBe(0);
    expect(logLines.join('')).not.toContain(server.password);
  });

  it('gives up after the 5th failed attempt (waits of 1 min, 5 min, 30 min and 2 h between): failed', async () => {
    const server = await smtpServer({ failFirst: 100, failCode: 550 });
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    const waits = [1 * MIN, 5 * MIN, 30 * MIN, 120 * MIN];
    for (const [i, wait] of waits.entries()) {
      expect(await job.run(ctx())).toBe(1);
      const r = await row(m.dedupeKey);
      expect(r).toMatchObject({ status: 'pending', attempts: i + 1 });
      expect(r.nextAttemptAt.getTime() - nowMs).toBe(wait);
      nowMs += wait;
    }
    expect(await job.run(ctx())).toBe(1);
    const r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'failed', attempts: MAIL_MAX_ATTEMPTS, sentAt: null });
    expect(MAIL_MAX_ATTEMPTS).toBe(5);
    expect(r.lastError).toMatch(/550/);
    nowMs += 24 * 60 * MIN;
    expect(await job.run(ctx())).toBe(0);
    expect(server.transactions).toBe(5);
    expect(server.messages).toHaveLength(0);
    expect(logLines.join('')).toMatch(/mail failed for good/);
  });

  it('the same dedupeKey enqueued twice is one row and one email', async () => {
    const server = await smtpServer();
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    await enqueueMail(ctx(), { ...m, subject: 'A second try at the same cause' });
    expect(await rowsByKey(m.dedupeKey)).toHaveLength(1);
    expect(await job.run(ctx())).toBe(1);
    // Enqueued again after it was sent: still nothing new.
    await enqueueMail(ctx(), m);
    expect(await job.run(ctx())).toBe(0);
    expect(server.messages).toHaveLength(1);
    expect(parseEml(server.messages[0]!.raw).headers.subject).toBe(m.subject);
  });

  it('two job instances passing at the same time send each of 30 rows exactly once', async () => {
    const server = await smtpServer();
    const one = mailJob({ transport: smtpTransport(server.url), from: FROM, batch: 7 });
    const two = mailJob({ transport: smtpTransport(server.url), from: FROM, batch: 7 });
    const keys: string[] = [];
    for (let i = 0; i < 30; i++) {
      const m = message({ subject: `Concurrent ${i}` });
      keys.push(m.dedupeKey);
      await enqueueMail(ctx(), m);
    }
    const handled = { one: 0, two: 0 };
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([one.run(ctx()), two.run(ctx())]);
      handled.one += a;
      handled.two += b;
      if (a + b === 0) break;
    }
    expect(handled.one + handled.two).toBe(30);
    expect(handled.one).toBeGreaterThan(0);
    expect(handled.two).toBeGreaterThan(0);
    const subjects = server.messages.map((msg) => parseEml(msg.raw).headers.subject).sort();
    expect(subjects).toHaveLength(30);
    expect(new Set(subjects).size).toBe(30);
    expect(server.transactions).toBe(30);
    const rows = await database.db.select().from(outbox);
    expect(rows.filter((r) => r.status === 'sent' && r.attempts === 1)).toHaveLength(30);
  });

  it('a sender that dies after its claim: the row comes back after the lease, and the late sender changes nothing', async () => {
    const server = await smtpServer();
    // A dead sender renews nothing: its renewals never come.
    const first = mailJob({ transport: smtpTransport(server.url), from: FROM, renewEveryMs: 3_600_000 });
    const second = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    const start = nowMs;

    // The first instance claims the row and is stuck in the middle of its SMTP transaction.
    const hold = server.holdNext();
    const stuck = first.run(ctx());
    await hold.arrived;
    let r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'pending', attempts: 1 });
    expect(r.nextAttemptAt.getTime()).toBe(start + MAIL_LEASE_MS);

    // The lease keeps the other instance off the row until it ends.
    expect(await second.run(ctx())).toBe(0);
    nowMs = start + MAIL_LEASE_MS - 1;
    expect(await second.run(ctx())).toBe(0);
    nowMs = start + MAIL_LEASE_MS;
    expect(await second.run(ctx())).toBe(1);
    r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'sent', attempts: 2, lastError: null });

    // The first sender's transaction never completes (it died): its late failure is not recorded.
    hold.release(false);
    expect(await stuck).toBe(1);
    r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    expect(server.messages).toHaveLength(1);
  });

  it('a sender alive renews its lease: another instance stays off the row past the first lease, and it is sent once', async () => {
    const server = await smtpServer();
    const first = mailJob({ transport: smtpTransport(server.url), from: FROM, renewEveryMs: 20 });
    const second = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    const start = nowMs;
    const hold = server.holdNext();
    const sending = first.run(ctx());
    await hold.arrived;
    // The send outlives its first lease; the renewals move the lease along with the clock.
    nowMs = start + MAIL_LEASE_MS + 60_000;
    await until('the lease is renewed', async () => (await row(m.dedupeKey)).nextAttemptAt.getTime() > nowMs);
    expect(await second.run(ctx())).toBe(0);
    hold.release(true);
    expect(await sending).toBe(1);
    expect(await row(m.dedupeKey)).toMatchObject({ status: 'sent', attempts: 1, leaseToken: null });
    expect(server.transactions).toBe(1);
  });

  it('a pass whose lease could not be renewed hands the rows it did not try back, their attempt uncounted', async () => {
    const server = await smtpServer();
    // No renewal comes (the database away, say): the lease left is what counts.
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM, renewEveryMs: 3_600_000 });
    const a = message();
    const b = message();
    await enqueueMail(ctx(), a);
    nowMs += 1;
    await enqueueMail(ctx(), b);
    const start = nowMs;
    const hold = server.holdNext();
    const pass = job.run(ctx());
    await hold.arrived;
    // The first send took more than half the lease: too little is left to start another.
    nowMs = start + MAIL_LEASE_MS / 2 + 1;
    hold.release(true);
    expect(await pass).toBe(1);
    expect(await row(a.dedupeKey)).toMatchObject({ status: 'sent', attempts: 1 });
    const back = await row(b.dedupeKey);
    expect(back).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null });
    expect(back.nextAttemptAt.getTime()).toBe(nowMs);
    expect(await job.run(ctx())).toBe(1);
    expect(await row(b.dedupeKey)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(server.messages).toHaveLength(2);
  });

  it('a pass told to stop (the instance shutting down) finishes the message it sends and hands the others back', async () => {
    const server = await smtpServer();
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM });
    const sent = message();
    const others = [message(), message()];
    await enqueueMail(ctx(), sent);
    nowMs += 1;
    for (const m of others) await enqueueMail(ctx(), m);
    const stop = new AbortController();
    const hold = server.holdNext();
    const pass = job.run(ctx(), stop.signal);
    await hold.arrived;
    stop.abort();
    hold.release(true);
    expect(await pass).toBe(1);
    expect(await row(sent.dedupeKey)).toMatchObject({ status: 'sent', attempts: 1 });
    for (const m of others) {
      expect(await row(m.dedupeKey)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null });
    }
    expect(server.messages).toHaveLength(1);
  });

  it('refuses to run inside a transaction (no mail is sent while a transaction is open)', async () => {
    const server = await smtpServer();
    const job = mailJob({ transport: smtpTransport(server.url), from: FROM });
    await enqueueMail(ctx(), message());
    await expect(inTransaction(ctx(), (tx) => job.run(tx))).rejects.toThrow(/inside a transaction/);
    expect(server.transactions).toBe(0);
  });

  it('a stuck server costs an attempt its timeout, never the worker', async () => {
    const silent = await startSilentServer();
    cleanup.push(() => silent.close());
    const job = mailJob({ transport: smtpTransport(`smtp://127.0.0.1:${silent.port}`, 300), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    // A worker stuck on the server would never return: the test's timeout is the bound.
    expect(await job.run(ctx())).toBe(1);
    const r = await row(m.dedupeKey);
    expect(r).toMatchObject({ status: 'pending', attempts: 1 });
    expect(r.lastError).toMatch(/ETIMEDOUT|timeout/i);
    expect(r.nextAttemptAt.getTime()).toBe(nowMs + 1 * MIN);
  });

  it('keeps the SMTP credentials out of lastError and the log', async () => {
    const server = await smtpServer();
    const wrong = 'N0t-The-Pa55word';
    const url = `smtp://${server.username}:${wrong}@127.0.0.1:${server.port}`;
    const job = mailJob({ transport: smtpTransport(url), from: FROM });
    const m = message();
    await enqueueMail(ctx(), m);
    expect(await job.run(ctx())).toBe(1);
    const r = await row(m.dedupeKey);
    expect(r.status).toBe('pending');
    expect(r.lastError).toMatch(/535|login|auth/i);
    for (const text of [r.lastError!, logLines.join('')]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(server.username);
    }
    expect(server.messages).toHaveLength(0);

    // Whatever an error says, userinfo and the known secrets are masked, on one short line.
    const said = new Error(`cannot reach smtps://mailer:${wrong}@mail.example.ca:465\n${'x'.repeat(400)}`);
    const shown = describeError(Object.assign(said, { code: 'ECONNECTION' }), [wrong]);
    expect(shown).toMatch(/^ECONNECTION: cannot reach smtps:\/\/\[redacted\]@mail\.example\.ca:465 x/);
    expect(shown).not.toContain(wrong);
    expect(shown).not.toContain('\n');
    expect(shown.length).toBeLessThanOrEqual(300);
  });
});

describe('order email templates', () => {
  it('formats amounts from integer cents', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(130)).toBe('$1.30');
    expect(formatCents(1234)).toBe('$12.34');
    expect(formatCents(100_000)).toBe('$1,000.00');
    expect(formatCents(123_456_789)).toBe('$1,234,567.89');
    expect(formatCents(-50)).toBe('-$0.50');
    expect(() => formatCents(12.5)).toThrow();
  });

  it('the paid email lists each order with its items, exact amounts, tax lines, shipping and delivery', () => {
    const email = orderPaidEmail({
      buyerName: 'Ada Lovelace',
      orders: [onOrder(), qcOrder()],
      totalCents: 9157,
    });
    expect(email.subject).toBe('Your Portage order is confirmed: $91.57');
    expect(email.text).toBe(
      [
        'Hello Ada Lovelace,',
        '',
        'Thank you for your order. We received your payment of $91.57 for 2 orders (one per seller).',
        '',
        'From Maple Goods (order number 2026-000101)',
        '  2 × Wool socks @ $12.50: $25.00',
        '  1 × Tuque @ $19.99: $19.99',
        '  Subtotal: $44.99',
        '  Discount: -$4.50',
        '  Shipping: $9.99',
        '  HST 13%: $6.56',
        '  Total: $57.04',
        '  Estimated delivery: November 28, 2026',
        '  Ships to: 100 Queen St W, Toronto ON M5H 2N2, CA',
        '',
        'From Boutique Québec (order number 2026-000102)',
        '  3 × Sirop d’érable @ $10.01: $30.03',
        '  Subtotal: $30.03',
        '  Shipping: Free',
        '  GST 5%: $1.50',
        '  QST 9.975%: $3.00',
        '  Total: $34.53',
        '  Estimated delivery: November 30, 2026',
        '  Ships to: 100 Queen St W, Toronto ON M5H 2N2, CA',
        '',
        'Total paid: $91.57',
        '',
        'Tracking details will follow when it ships.',
        '',
      ].join('\n'),
    );
    for (const part of ['HST 13%', '$6.56', 'QST 9.975%', '$3.00', '$91.57', 'November 30, 2026']) {
      expect(email.html).toContain(part);
    }
    // No link to a page that does not answer yet (the account pages come later).
    expect(email.html).not.toContain('<a ');
    expect(email.html).toContain('Tracking details will follow when it ships.');
  });

  it('a cancelled or refunded order says nothing of when it would have arrived', () => {
    const order = onOrder();
    const cancelled = orderCancelledEmail({
      buyerName: 'Ada',
      order,
      reason: 'Out of stock',
      refundCents: 100,
    });
    const refunded = orderRefundedEmail({ buyerName: 'Ada', order, refundCents: 100 });
    for (const email of [cancelled, refunded]) {
      expect(email.text).not.toContain('Estimated delivery');
      expect(email.html).not.toContain('Estimated delivery');
      expect(email.text).toContain('Ships to: ');
    }
  });

  it('the shipped email names the first item and the shop, and links the tracking page of a carrier we know', () => {
    const email = orderShippedEmail({
      buyerName: 'Ada',
      order: onOrder({ trackingNumber: '1Z999AA10123456784', carrier: 'Canada Post' }),
    });
    expect(email.subject).toBe('Your Wool socks and 1 more item from Maple Goods has shipped');
    expect(email.text).toContain('Your order of Wool socks and 1 more item from Maple Goods is on its way.');
    expect(email.text).toContain(
      'Carrier: Canada Post\nTracking number: 1Z999AA10123456784\nTrack it: https://www.canadapost-postescanada.ca/track-reperage/en#/details/1Z999AA10123456784\n',
    );
    expect(email.text).toContain('Estimated delivery: November 28, 2026');
    expect(email.text).toContain('Order number: 2026-000101');
    expect(email.html).toContain('Tracking number: 1Z999AA10123456784');
    expect(email.html).toContain('Carrier: Canada Post');
    expect(email.html).toContain(
      '<a href="https://www.canadapost-postescanada.ca/track-reperage/en#/details/1Z999AA10123456784">',
    );
  });

  it.each([
    ['Canada Post', 'https://www.canadapost-postescanada.ca/track-reperage/en#/details/7023 2109'],
    ['postes canada', 'https://www.canadapost-postescanada.ca/track-reperage/en#/details/7023 2109'],
    ['Purolator', 'https://www.purolator.com/en/shipping/tracker?pin=7023 2109'],
    ['UPS', 'https://www.ups.com/track?tracknum=7023 2109'],
    ['FedEx', 'https://www.fedex.com/fedextrack/?trknbr=7023 2109'],
    ['Fed Ex', 'https://www.fedex.com/fedextrack/?trknbr=7023 2109'],
    ['Loomis', undefined],
    [null, undefined],
  ])('the tracking page of %j', (carrier, page) => {
    expect(trackingUrl(carrier, '7023/2109')).toBe(page?.replace('7023 2109', '7023%2F2109'));
  });

  it('the cancelled and refunded emails give the reason and the refund', () => {
    const cancelled = orderCancelledEmail({
      buyerName: 'Ada',
      order: onOrder(),
      reason: 'Out of stock',
      refundCents: 5704,
    });
    expect(cancelled.subject).toBe('Your order of Wool socks and 1 more item from Maple Goods was cancelled');
    expect(cancelled.text).toContain('Reason: Out of stock\n');
    expect(cancelled.text).toContain('A refund of $57.04 goes back to your original payment method');
    expect(cancelled.text).toContain('  HST 13%: $6.56\n');
    expect(cancelled.html).toContain('A refund of $57.04');

    const refunded = orderRefundedEmail({ buyerName: 'Ada', order: onOrder(), refundCents: 1999 });
    expect(refunded.subject).toBe('Refund of $19.99 for your Wool socks and 1 more item from Maple Goods');
    expect(refunded.text).toContain(
      'We refunded $19.99 for your order of Wool socks and 1 more item from Maple Goods.',
    );
    expect(refunded.html).toContain('We refunded $19.99');
  });

  it('escapes every user-written string in the HTML', () => {
    const evil = '<script>alert(1)</script>';
    const order = onOrder({
      sellerName: `Bob & "Sons" ${evil}`,
      items: [{ name: evil, quantity: 1, unitPriceCents: 100 }],
      trackingNumber: `<img src=x onerror=alert(1)>`,
      carrier: evil,
      shippingAddress: { ...address, street: `1 ${evil} St`, city: "<b>O'Hara</b>" },
    });
    const emails = [
      orderPaidEmail({
        buyerName: evil,
        orders: [order],
        totalCents: 100,
      }),
      orderShippedEmail({ buyerName: evil, order }),
      orderCancelledEmail({ buyerName: evil, order, reason: `Because\n${evil}`, refundCents: 100 }),
      orderRefundedEmail({ buyerName: evil, order, refundCents: 100 }),
    ];
    for (const email of emails) {
      expect(email.html).not.toMatch(/<script|<img|<b>/i);
      expect(email.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
      expect(email.html).toContain('Bob &#38; &#34;Sons&#34;');
      expect(email.html).toContain('&#60;b&#62;O&#39;Hara&#60;/b&#62;');
      // The text part is plain text: the name as written.
      expect(email.text).toContain(evil);
    }
    expect(emails[2]!.html).toContain('Reason: Because<br>&#60;script&#62;');
  });

  it('keeps line breaks out of one-line fields (no forged lines in the text part)', () => {
    const email = orderShippedEmail({
      buyerName: 'Ada\nTracking number: FAKE',
      order: onOrder({ sellerName: 'Shop\r\nCarrier: Fake', trackingNumber: 'T1', carrier: 'UPS' }),
    });
    expect(email.text.split('\n').filter((l) => l.startsWith('Tracking number:'))).toEqual([
      'Tracking number: T1',
    ]);
    expect(email.text.split('\n').filter((l) => l.startsWith('Carrier:'))).toEqual(['Carrier: UPS']);
  });
});
