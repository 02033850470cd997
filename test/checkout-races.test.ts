// Checkout and payment under races: buyers racing for the last units over a real socket, the
// webhook delivered twice at once, replayed, re-sent under a new event id, badly signed; one
// buyer's checkouts racing; two API instances on one PostgreSQL running the jobs together
// (docs/api.md "Stock holds", "Payments";
// docs/decisions.md "Checkout and holds", "Background jobs").
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { couponRedemptions } from '../src/modules/coupons/tables.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { signatureHeader } from '../src/modules/payments/signature.ts';
import { type Answer, listen, type SignedIn, type TestApp, testApp, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, product, seller } from './helpers/builders.ts';
import {
  addToCart,
  checkout,
  ON_ADDRESS,
  openCheckout,
  paymentEvent,
  postEvent,
  QC_ADDRESS,
} from './helpers/checkout.ts';
import { startFakeStripe } from './helpers/fake-stripe.ts';
import {
  emlFiles,
  liveReservedUnits,
  ordersOfCheckout,
  outboxRows,
  oversoldUnits,
  paymentEventRows,
  sessionRow,
  slowProxy,
  soldUnits,
  stockOf,
} from './helpers/orders.ts';

const onPostgres = !!process.env.TEST_DATABASE_URL;

const { t, database } = useTestApp();

/** A JSON request over a real socket; answers status and parsed body. */
async function http(base: string, method: string, url: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = { text };
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const openSessions = async (buyerId: string) =>
  database.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      sql`${checkoutSessions.buyerId} = ${buyerId} and ${checkoutSessions.status} = 'ready_for_payment'`,
    );

describe('20 buyers racing for the last 5 units', () => {
  it('reserves and sells exactly 5, over a real socket with concurrent requests', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 1234, stockQuantity: 5 });
    const buyers: SignedIn[] = [];
    for (let i = 0; i < 20; i++) buyers.push(await buyer(t.api, `racer${i}`));
    // Adding checks availability too: every cart holds its unit before the race starts.
    for (const b of buyers) await addToCart(t.api, b, p.id, 1);

    const base = await listen(t);
    const answers = await Promise.all(
      buyers.map((b) => http(base, 'POST', '/checkout', b.token, { shipping_address: ON_ADDRESS })),
    );
    const won = answers.filter((a) => a.status === 201);
    const lost = answers.filter((a) => a.status !== 201);
    expect(won).toHaveLength(5);
    expect(lost).toHaveLength(15);
    for (const a of won)
      expect(a.body).toMatchObject({ status: 'ready_for_payment', totalCents: expect.any(Number) });
    for (const a of lost) {
      expect({ status: a.status, body: a.body }).toEqual({
        status: 409,
        body: {
          error: `${p.title} (${p.id}) is out of stock. Change the cart and check out again`,
          code: 'CONFLICT',
          statusCode: 409,
        },
      });
    }
    expect(await stockOf(database, p.id)).toEqual({ stock: 5, reserved: 5 });
    expect(await liveReservedUnits(database, p.id)).toBe(5);
    expect(await oversoldUnits(database, p.id)).toBe(0);

    // All five pay at once.
    const paid = await Promise.all(
      won.map((a) =>
        http(
          base,
          'POST',
          `/sandbox/checkout/${encodeURIComponent(String(a.body.sessionId))}/pay`,
          undefined,
          {
            card: '4242424242424242',
          },
        ),
      ),
    );
    expect(paid.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const orderIds = paid.flatMap((r) => r.body.orderIds);
    expect(new Set(orderIds).size).toBe(5);
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });
    expect(await oversoldUnits(database, p.id)).toBe(0);
    expect(await soldUnits(database, p.id)).toBe(5);

    // The losers try again: still nothing left.
    const again = await Promise.all(
      buyers
        .filter((_, i) => answers[i]!.status !== 201)
        .slice(0, 5)
        .map((b) => http(base, 'POST', '/checkout', b.token, { shipping_address: ON_ADDRESS })),
    );
    expect(again.map((a) => a.status)).toEqual([409, 409, 409, 409, 409]);
    expect(await stockOf(database, p.id)).toEqual({ stock: 0, reserved: 0 });
  });
});

describe('buyers racing for the last uses of a coupon', () => {
  it('promises a coupon of 3 uses to exactly 3 checkouts at once, and 3 redemptions once paid', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 5000, stockQuantity: 100 });
    const c = await coupon(t.api, await admin(t.api, database), { discountCents: 500, maxRedemptions: 3 });
    const buyers: SignedIn[] = [];
    for (let i = 0; i < 8; i++) buyers.push(await buyer(t.api, `coupon-racer${i}`));
    for (const b of buyers) await addToCart(t.api, b, p.id, 1);

    const base = await listen(t);
    const answers = await Promise.all(
      buyers.map((b) =>
        http(base, 'POST', '/checkout', b.token, { shipping_address: ON_ADDRESS, coupon: c.code }),
      ),
    );
    const won = answers.filter((a) => a.status === 201);
    const lost = answers.filter((a) => a.status !== 201);
    expect(won).toHaveLength(3);
    for (const a of won) expect(a.body).toMatchObject({ coupon: c.code, discountCents: 500 });
    expect(lost.map((a) => ({ status: a.status, body: a.body }))).toEqual(
      Array(5).fill({
        status: 409,
        body: {
          error: `Coupon ${c.code} has been used up (3 redemptions); remove the coupon or change the cart`,
          code: 'CONFLICT',
          statusCode: 409,
        },
      }),
    );
    // Only the winners' units are held.
    expect(await stockOf(database, p.id)).toEqual({ stock: 100, reserved: 3 });

    const paid = await Promise.all(
      won.map((a) =>
        http(
          base,
          'POST',
          `/sandbox/checkout/${encodeURIComponent(String(a.body.sessionId))}/pay`,
          undefined,
          {
            card: '4242424242424242',
          },
        ),
      ),
    );
    expect(paid.map((r) => r.status)).toEqual([200, 200, 200]);
    const [redeemed] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(couponRedemptions)
      .where(eq(couponRedemptions.code, c.code));
    expect(redeemed?.n).toBe(3);
    // Used up once paid too: a loser trying again is refused.
    const again = await http(base, 'POST', '/checkout', buyers[answers.indexOf(lost[0]!)]!.token, {
      shipping_address: ON_ADDRESS,
      coupon: c.code,
    });
    expect(again.status).toBe(409);
  });
});

describe('the webhook', () => {
  async function readyCheckout(quantity = 1) {
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 2000, stockQuantity: 10 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, quantity);
    const session = await openCheckout(t.api, b);
    return { s, p, b, session };
  }

  it('delivered twice at once makes one set of orders; a later replay and a new event id change nothing', async () => {
    const { p, session } = await readyCheckout(2);
    const event = paymentEvent(session.sessionId, session.totalCents);
    const both = await Promise.all([postEvent(t, event), postEvent(t, event)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const orders = await ordersOfCheckout(database, session.sessionId);
    expect(orders).toHaveLength(1);
    expect(both.map((r) => r.body).sort((a, b) => Number(a.duplicate) - Number(b.duplicate))).toEqual([
      { received: true, duplicate: false, orderIds: [orders[0]!.id] },
      { received: true, duplicate: true },
    ]);
    expect(await stockOf(database, p.id)).toEqual({ stock: 8, reserved: 0 });
    expect(await paymentEventRows(database, session.sessionId)).toHaveLength(1);
    expect(await outboxRows(database, `order-paid:${session.sessionId}`)).toHaveLength(1);

    // Replayed later: a duplicate, nothing changes.
    t.clock.advance(120);
    const replay = await postEvent(t, event);
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: 200,
      body: { received: true, duplicate: true },
    });
    // The same payment under a new event id: 200 with the orders already made, nothing new.
    const renamed = await postEvent(t, { ...event, id: `${event.id}_again` });
    expect({ status: renamed.status, body: renamed.body }).toEqual({
      status: 200,
      body: { received: true, duplicate: false, orderIds: [orders[0]!.id] },
    });
    expect(await ordersOfCheckout(database, session.sessionId)).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 8, reserved: 0 });
    expect(await paymentEventRows(database, session.sessionId)).toHaveLength(2);
    expect(await outboxRows(database, `order-paid:${session.sessionId}`)).toHaveLength(1);
    // And paying through the sandbox page now answers the same orders.
    const page = await t.api.post(`/sandbox/checkout/${session.sessionId}/pay`, { card: '4242424242424242' });
    expect(page.body.orderIds).toEqual([orders[0]!.id]);
    expect(await ordersOfCheckout(database, session.sessionId)).toHaveLength(1);
  });

  it('two different event ids for one payment at once make one set of orders', async () => {
    const { p, session } = await readyCheckout(3);
    const pi = `pi_test_${session.sessionId.split(':')[1]}`;
    const a = paymentEvent(session.sessionId, session.totalCents, { pi });
    const b = paymentEvent(session.sessionId, session.totalCents, { pi });
    const both = await Promise.all([postEvent(t, a), postEvent(t, b)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const orders = await ordersOfCheckout(database, session.sessionId);
    expect(orders).toHaveLength(1);
    for (const r of both) {
      expect(r.body).toEqual({ received: true, duplicate: false, orderIds: [orders[0]!.id] });
    }
    expect(await stockOf(database, p.id)).toEqual({ stock: 7, reserved: 0 });
    expect(await paymentEventRows(database, session.sessionId)).toHaveLength(2);
    expect(await outboxRows(database, `order-paid:${session.sessionId}`)).toHaveLength(1);
  });

  describe('refuses a bad signature with 400 and records nothing', () => {
    const refused = { error: 'Invalid webhook signature', code: 'VALIDATION_ERROR', statusCode: 400 };
    const now = () => Math.floor(t.clock.now().getTime() / 1000);
    const cases: Array<[string, (payload: string) => { body: string; headers: Record<string, string> }]> = [
      [
        'signed with another secret',
        (payload) => ({
          body: payload,
          headers: { 'stripe-signature': signatureHeader(payload, 'whsec_not_ours', now()) },
        }),
      ],
      [
        'signed 6 minutes ago',
        (payload) => ({
          body: payload,
          headers: {
            'stripe-signature': signatureHeader(payload, t.config.payments.webhookSecret, now() - 360),
          },
        }),
      ],
      ['without the header', (payload) => ({ body: payload, headers: {} })],
      [
        'with a tampered body',
        (payload) => ({
          body: payload.replace(/"amount":(\d+)/, '"amount":1'),
          headers: { 'stripe-signature': signatureHeader(payload, t.config.payments.webhookSecret, now()) },
        }),
      ],
      [
        'with a garbled header',
        (payload) => ({ body: payload, headers: { 'stripe-signature': 't=abc,v1=zz' } }),
      ],
    ];
    for (const [name, make] of cases) {
      it(name, async () => {
        const { p, session } = await readyCheckout();
        const payload = JSON.stringify(paymentEvent(session.sessionId, session.totalCents));
        const { body, headers } = make(payload);
        const res = await t.api.post('/webhooks/payments', body, {
          'content-type': 'application/json',
          ...headers,
        });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: refused });
        expect(await paymentEventRows(database, session.sessionId)).toEqual([]);
        expect(await ordersOfCheckout(database, session.sessionId)).toEqual([]);
        expect((await sessionRow(database, session.sessionId))?.status).toBe('ready_for_payment');
        expect(await stockOf(database, p.id)).toEqual({ stock: 10, reserved: 1 });
      });
    }
  });
});

describe("one buyer's checkouts racing", () => {
  it('the same cart twice at once: one session, its units reserved once', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 50 });
    const b = await buyer(t.api);
    // Verified: the cart grows past the 5 units an unverified account may hold.
    await database.db.update(users).set({ emailVerified: true }).where(eq(users.id, b.id));
    for (let round = 1; round <= 8; round++) {
      // A changed cart: neither request finds an open session of it, both race to open one.
      await addToCart(t.api, b, p.id, 1);
      const both = await Promise.all([checkout(t.api, b), checkout(t.api, b)]);
      const seen = expectHonest(both);
      // One opens it; the other gets it back (200) or, while it is still being opened, 409.
      const opened = both.filter((r) => r.status === 201);
      expect(opened, seen).toHaveLength(1);
      const session = opened[0]!.body.sessionId;
      const other = both.find((r) => r !== opened[0])!;
      if (other.status === 200) expect(other.body.sessionId, seen).toBe(session);
      const open = await openSessions(b.id);
      expect(open.map((o) => o.id)).toEqual([session]);
      expect(await stockOf(database, p.id)).toEqual({ stock: 50, reserved: round });
      // And the same cart once more, alone: that session again.
      const again = await checkout(t.api, b);
      expect({ status: again.status, session: again.body.sessionId }).toEqual({
        status: 200,
        session,
      });
    }
  });

  /** An app on Stripe (the local fake behind a slow network: opening a session takes 400 ms). */
  async function withSlowStripe(run: (st: TestApp) => Promise<void>) {
    const fake = await startFakeStripe({ apiKey: 'sk_test_races' });
    const proxy = await slowProxy(
      fake.url,
      400,
      (method, url) => method === 'POST' && url.startsWith('/v1/checkout/sessions'),
    );
    const st = await testApp(database, {
      env: {
        STRIPE_SECRET_KEY: 'sk_test_races',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_races',
        PAYMENT_WEBHOOK_SECRET: 'whsec_races_0123456789abcdef',
        STRIPE_API_BASE: proxy.url,
      },
    });
    try {
      await run(st);
    } finally {
      await st.close();
      await proxy.close();
      await fake.close();
    }
  }

  /** Every 2xx answer names a session still open when it was answered; the rest are 409. */
  function expectHonest(answers: Answer[]) {
    const seen = JSON.stringify(
      answers.map((r) => ({ status: r.status, session: r.body.sessionId, state: r.body.status })),
    );
    for (const r of answers) {
      if (r.status === 200 || r.status === 201) expect(r.body.status, seen).toBe('ready_for_payment');
      else expect({ status: r.status, code: r.body.code }, seen).toEqual({ status: 409, code: 'CONFLICT' });
    }
    return seen;
  }

  it('the same cart twice at once while the provider is slow to open the session: one session', async () => {
    // The first request's session row is committed and its provider session still being opened
    // when the second request reads the buyer's open sessions.
    await withSlowStripe(async (st) => {
      const s = await seller(st.api);
      const p = await product(st.api, s, { stockQuantity: 10 });
      const b = await buyer(st.api);
      await addToCart(st.api, b, p.id, 1);
      const both = await Promise.all([checkout(st.api, b), checkout(st.api, b)]);
      const seen = expectHonest(both);
      // One opens the session. The other gets that session back (200), or, while it is still
      // being opened, 409 as a repeated request still running does (docs/api.md "Idempotency").
      const opened = both.filter((r) => r.status === 201);
      expect(opened, seen).toHaveLength(1);
      const session = opened[0]!.body;
      const other = both.find((r) => r !== opened[0])!;
      if (other.status === 200) expect(other.body.sessionId, seen).toBe(session.sessionId);
      expect((await openSessions(b.id)).map((o) => o.id)).toEqual([session.sessionId]);
      expect(await stockOf(database, p.id)).toEqual({ stock: 10, reserved: 1 });
      // Asked again once it is open: that session.
      const again = await checkout(st.api, b);
      expect({ status: again.status, session: again.body.sessionId }).toEqual({
        status: 200,
        session: session.sessionId,
      });
    });
  });

  it('two addresses at once while the provider is slow: no answer names a session already ended', async () => {
    await withSlowStripe(async (st) => {
      const s = await seller(st.api);
      const p = await product(st.api, s, { stockQuantity: 10 });
      const b = await buyer(st.api);
      await addToCart(st.api, b, p.id, 2);
      const both = await Promise.all([
        checkout(st.api, b, { shipping_address: ON_ADDRESS }),
        checkout(st.api, b, { shipping_address: QC_ADDRESS }),
      ]);
      const seen = expectHonest(both);
      const open = await openSessions(b.id);
      expect(open, seen).toHaveLength(1);
      expect(
        both.filter((r) => r.status === 201).map((r) => r.body.sessionId),
        seen,
      ).toEqual([open[0]!.id]);
      expect(await stockOf(database, p.id)).toEqual({ stock: 10, reserved: 2 });
    });
  });

  it('two different addresses at once: one open session at the end, units not doubled', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 10 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 3);
    for (let round = 0; round < 3; round++) {
      const both = await Promise.all([
        checkout(t.api, b, { shipping_address: ON_ADDRESS }),
        checkout(t.api, b, { shipping_address: QC_ADDRESS }),
      ]);
      // Each answer names an open session (or is 409: replaced while it was being opened); one
      // session is open at the end, and it is one of those answered.
      const seen = expectHonest(both);
      const open = await openSessions(b.id);
      expect(open, seen).toHaveLength(1);
      expect(
        both.map((r) => r.body.sessionId),
        seen,
      ).toContain(open[0]!.id);
      expect(await stockOf(database, p.id)).toEqual({ stock: 10, reserved: 3 });
      expect(await liveReservedUnits(database, p.id)).toBe(3);
    }
  });
});

describe.skipIf(!onPostgres)(
  'two API instances on one PostgreSQL running the jobs (PostgreSQL only: the embedded database belongs to one process)',
  () => {
    it('send each email once and release each lapsed reservation once', async () => {
      const a = t;
      const b = await testApp(database);
      // The two instances agree on the time (the mail lease is measured on each one's clock).
      b.clock.offsetMs = a.clock.offsetMs;
      try {
        const s = await seller(a.api);
        const p = await product(a.api, s, { priceCents: 1500, stockQuantity: 40 });
        const q = await product(a.api, s, { priceCents: 900, stockQuantity: 40 });

        // Eight paid checkouts: eight order emails waiting in the outbox.
        const paidSessions: string[] = [];
        for (let i = 0; i < 8; i++) {
          const who = await buyer(a.api);
          await addToCart(a.api, who, p.id, 1);
          const session = await openCheckout(a.api, who);
          const res = await a.api.post(`/sandbox/checkout/${session.sessionId}/pay`, {
            card: '4242424242424242',
          });
          expect(res.status).toBe(200);
          paidSessions.push(session.sessionId);
        }
        // Ten checkouts left to lapse, holding 1 of p and 2 of q each.
        const lapsing: string[] = [];
        for (let i = 0; i < 10; i++) {
          const who = await buyer(b.api);
          await addToCart(b.api, who, p.id, 1);
          await addToCart(b.api, who, q.id, 2);
          lapsing.push((await openCheckout(b.api, who)).sessionId);
        }
        expect(await stockOf(database, p.id)).toEqual({ stock: 32, reserved: 10 });
        expect(await stockOf(database, q.id)).toEqual({ stock: 40, reserved: 20 });

        a.clock.advance(31 * 60);
        b.clock.advance(31 * 60);
        // Two fresh checkouts that must keep their units (3 of p, 1 of q each).
        for (let i = 0; i < 2; i++) {
          const who = await buyer(a.api);
          await addToCart(a.api, who, p.id, 3);
          await addToCart(a.api, who, q.id, 1);
          await openCheckout(a.api, who);
        }

        for (let round = 0; round < 4; round++) {
          await Promise.all([a.app.jobs.runOnce(), b.app.jobs.runOnce(), a.app.jobs.runOnce()]);
        }

        // Each lapsed session ended once; only the fresh checkouts' units remain held.
        for (const id of lapsing) expect((await sessionRow(database, id))?.status).toBe('expired');
        expect(await stockOf(database, p.id)).toEqual({ stock: 32, reserved: 6 });
        expect(await stockOf(database, q.id)).toEqual({ stock: 40, reserved: 2 });
        expect(await liveReservedUnits(database, p.id)).toBe(6);
        expect(await liveReservedUnits(database, q.id)).toBe(2);

        // Each order email sent once, by one of the two instances.
        const mails = (
          await Promise.all(paidSessions.map((id) => outboxRows(database, `order-paid:${id}`)))
        ).flat();
        expect(mails).toHaveLength(8);
        for (const m of mails) expect(m).toMatchObject({ status: 'sent', attempts: 1 });
        const files = [...(await emlFiles(a)), ...(await emlFiles(b))];
        for (const m of mails) {
          expect(files.filter((f) => f.endsWith(`-${m.id}.eml`))).toHaveLength(1);
        }
        const [pending] = await database.db
          .select({ n: sql<number>`count(*)::int` })
          .from(outbox)
          .where(eq(outbox.status, 'pending'));
        expect(Number(pending!.n)).toBe(0);
      } finally {
        await b.close();
      }
    });
  },
);

describe.skipIf(!onPostgres)(
  'a checkout refused a product (PostgreSQL only: another connection holds a lock)',
  () => {
    // A checkout's products are held in id order, the statements sent all at once: a refused
    // product must leave the ones after it alone, as one statement at a time would, or two
    // checkouts could each hold what the other waits for. Here another transaction holds the
    // product after the refused one: the checkout answers its 409 without waiting for it.
    it('leaves the products after it untouched: it answers 409 without waiting on their locks', async () => {
      const s = await seller(t.api);
      const made = await Promise.all([1, 2].map(() => product(t.api, s, { stockQuantity: 3 })));
      const [gone, after] = made.map((p) => p.id as string).sort() as [string, string];
      const b = await buyer(t.api);
      await addToCart(t.api, b, gone, 1);
      await addToCart(t.api, b, after, 1);
      const early = await buyer(t.api);
      await addToCart(t.api, early, gone, 3);
      await openCheckout(t.api, early);

      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select id from products where id = $1 for no key update', [after]);
        const answer = checkout(t.api, b);
        let done = false;
        void answer.finally(() => {
          done = true;
        });
        // Until the answer comes: no backend of this database may be waiting on a lock.
        let waiting = 0;
        while (!done && waiting === 0) {
          const [row] = await database.db
            .select({ n: sql<number>`count(*)::int` })
            .from(sql`pg_stat_activity`)
            .where(sql`datname = current_database() and wait_event_type = 'Lock'`);
          waiting = Number(row!.n);
          await new Promise((r) => setTimeout(r, 20));
        }
        await holder.query('rollback');
        expect(waiting).toBe(0);
        const res = await answer;
        expect(res.status).toBe(409);
        expect(await stockOf(database, after)).toEqual({ stock: 3, reserved: 0 });
      } finally {
        await holder.end();
      }
    });
  },
);
