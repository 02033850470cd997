// Order events to ACP platforms through the outbox (docs/acp.md "Order events to the platform"):
// a platform's endpoint down for an hour gets every event once it is back, in order per order,
// under the same event id; another platform's events never wait for it; a day of failures ends
// the tries.

import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { acpWebhookEvent } from '../src/contract/acp.ts';
import { acpOrderEventBody } from '../src/modules/acp/webhooks.ts';
import { agentSessions, vaultTokens, webhookDeliveries } from '../src/modules/agent-checkout/tables.ts';
import {
  ACP_ON,
  AcpClient,
  issuePlatform,
  ordersReadBack,
  outboxOf,
  type Receiver,
  startReceiver,
} from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp, withTestApp } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';
import { acpProblems, expectOfficial } from './helpers/official-schemas.ts';
import { cancel, ordersOfCheckout, ship } from './helpers/orders.ts';

const { t, database } = useTestApp();

let boss: SignedIn;
let shop: SignedIn;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
});

/** A platform on its own receiver, with one paid session: answers its client, order and receiver. */
async function platformWithOrder(receiver: Receiver) {
  const platform = await issuePlatform(t.api, boss, receiver.url);
  const client = new AcpClient(t.api, platform.apiKey, t.clock.now);
  const p = await product(t.api, shop, { stockQuantity: 5 });
  const created = await client.create({
    line_items: [{ id: p.id }],
    buyer: { email: uniqueEmail('acp-hooks'), first_name: 'Avery', last_name: 'Tremblay' },
    fulfillment_details: ACP_ON,
  });
  expect((await client.pay(created.body.id)).body.status).toBe('completed');
  const [row] = await database.db.select().from(agentSessions).where(eq(agentSessions.id, created.body.id));
  const [order] = await ordersOfCheckout(database, row!.checkoutId!);
  return { platform, sessionId: created.body.id, order: order! };
}

const typesOf = (receiver: Receiver) => receiver.received.map((r) => JSON.parse(r.body).type as string);

/** Moves the clock by `seconds` in steps of `step`, running the jobs after each. */
async function passTime(seconds: number, step: number) {
  for (let gone = 0; gone < seconds; gone += step) {
    t.clock.advance(step);
    await t.app.jobs.runOnce();
  }
}

describe('order events to a platform', () => {
  it("order_create is written from the purchase's orders as written: the body the orders read back make, two sellers", async () => {
    const platform = await issuePlatform(t.api, boss);
    const client = new AcpClient(t.api, platform.apiKey, t.clock.now);
    const other = await seller(t.api, 'QC');
    const a = await product(t.api, shop, { priceCents: 1999, stockQuantity: 5 });
    const b = await product(t.api, other, { priceCents: 4550, stockQuantity: 5 });
    const created = await client.create({
      line_items: [
        { id: b.id, quantity: 1 },
        { id: a.id, quantity: 2 },
      ],
      buyer: { email: uniqueEmail('acp-hooks'), first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_ON,
    });
    expect((await client.pay(created.body.id)).body.status).toBe('completed');
    const [session] = await database.db
      .select()
      .from(agentSessions)
      .where(eq(agentSessions.id, created.body.id));
    const checkoutId = session!.checkoutId!;
    const read = await ordersReadBack(database, checkoutId);
    expect(read).toHaveLength(2);
    const expected = acpOrderEventBody(
      { type: 'checkout.completed', checkoutId, buyerId: session!.buyerId!, orderIds: read.map((o) => o.id) },
      { id: created.body.id },
      checkoutId,
      read,
    );
    expect(await outboxOf(database, created.body.id)).toEqual([expected]);
  });

  it('an endpoint down for an hour gets every event once back, in order, under the same ids; others are not held', async () => {
    const down = await startReceiver();
    const up = await startReceiver();
    const advanced: number[] = [];
    try {
      down.status = 503;
      const a = await platformWithOrder(down);
      const b = await platformWithOrder(up);
      await t.app.jobs.runOnce();
      await ship(t, shop, a.order.id);
      await ship(t, shop, b.order.id);
      await t.app.jobs.runOnce();
      expect(typesOf(up)).toEqual(['order_create', 'order_update']);

      await passTime(3600, 300);
      advanced.push(3600);
      // Only the first event of A's order was tried (the update waits behind it), with backoff:
      // 30 s doubling, 7 tries in the hour at most, not one per pass.
      expect(new Set(typesOf(down))).toEqual(new Set(['order_create']));
      expect(down.received.length).toBeGreaterThanOrEqual(5);
      expect(down.received.length).toBeLessThanOrEqual(10);
      const ids = new Set(down.received.map((r) => r.headers['idempotency-key']));
      expect(ids.size).toBe(1);

      down.status = 200;
      const tried = down.received.length;
      await passTime(3600, 300);
      advanced.push(3600);
      const after = down.received.slice(tried - 1);
      expect(after.map((r) => JSON.parse(r.body).type)).toEqual([
        'order_create',
        'order_create',
        'order_update',
      ]);
      expect(after[1]!.headers['idempotency-key']).toBe([...ids][0]);
      expect(JSON.parse(after[2]!.body).data).toMatchObject({
        status: 'shipped',
        checkout_session_id: a.sessionId,
      });
      expect(typesOf(up)).toEqual(['order_create', 'order_update']);
      const pending = await database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.sessionId, a.sessionId));
      expect(pending.map((r) => [r.deliveredAt !== null, r.abandonedAt])).toEqual([
        [true, null],
        [true, null],
      ]);
    } finally {
      for (const s of advanced) t.clock.advance(-s);
      await down.close();
      await up.close();
    }
  });

  it('a cancelled order: order_update canceled, then order_update with the refund as an adjustment', async () => {
    const receiver = await startReceiver();
    try {
      const a = await platformWithOrder(receiver);
      await t.app.jobs.runOnce();
      await cancel(t, shop, a.order.id, 'Out of stock at the warehouse');
      // One row of a session a pass: the next waits until the one before it was delivered.
      await t.app.jobs.runOnce();
      await t.app.jobs.runOnce();
      const events = receiver.received.map((r) => acpWebhookEvent.parse(JSON.parse(r.body)));
      for (const e of events) expectOfficial(acpProblems('webhookEvent', e), e);
      expect(events.map((e) => [e.type, e.data.status])).toEqual([
        ['order_create', 'confirmed'],
        ['order_update', 'canceled'],
        ['order_update', 'canceled'],
      ]);
      expect(events[2]!.data).toMatchObject({
        adjustments: [
          { type: 'refund', status: 'completed', amount: a.order.totalAmountCents, currency: 'cad' },
        ],
      });
      expect(new Set(receiver.received.map((r) => r.headers['idempotency-key'])).size).toBe(3);
    } finally {
      await receiver.close();
    }
  });

  it('a day of failures ends the tries: the event is abandoned, not retried for ever', async () => {
    const dead = await startReceiver();
    let advanced = 0;
    try {
      dead.status = 500;
      const a = await platformWithOrder(dead);
      const tokensOf = () =>
        database.db.select().from(vaultTokens).where(eq(vaultTokens.checkoutSessionId, a.sessionId));
      expect(await tokensOf()).toHaveLength(1);
      await t.app.jobs.runOnce();
      await passTime(25 * 3600, 3600);
      advanced = 25 * 3600;
      const [row] = await database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.sessionId, a.sessionId));
      expect(row).toMatchObject({ deliveredAt: null, lastError: 'answered 500' });
      expect(row!.abandonedAt).not.toBeNull();
      const tries = dead.received.length;
      t.clock.advance(3600);
      advanced += 3600;
      await t.app.jobs.runOnce();
      expect(dead.received.length).toBe(tries);

      // A week after it was given up the row is deleted (the vault token went a day past its end).
      t.clock.advance(8 * 86_400);
      advanced += 8 * 86_400;
      await t.app.jobs.runOnce();
      const left = await database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.sessionId, a.sessionId));
      expect(left).toEqual([]);
      expect(
        await database.db.select().from(vaultTokens).where(eq(vaultTokens.checkoutSessionId, a.sessionId)),
      ).toEqual([]);
    } finally {
      t.clock.advance(-advanced);
      await dead.close();
    }
  });
});

describe('outside development', () => {
  it('never posts to a loopback, private or link-local address, by address or by name: the row says why', async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    await withTestApp(
      async (staging, db) => {
        const boss2 = await admin(staging.api, db);
        const shop2 = await seller(staging.api, 'ON');
        const targets = [
          receiver.url,
          receiver.url.replace('127.0.0.1', 'localhost'),
          `https://10.0.0.7:${port}/hooks`,
          `https://169.254.169.254:${port}/latest`,
          `https://[::1]:${port}/hooks`,
        ];
        for (const webhookUrl of targets) {
          const platform = await issuePlatform(staging.api, boss2, webhookUrl);
          const client = new AcpClient(staging.api, platform.apiKey, staging.clock.now);
          const p = await product(staging.api, shop2, { stockQuantity: 5 });
          const created = await client.create({
            line_items: [{ id: p.id }],
            buyer: { email: uniqueEmail('fenced'), first_name: 'Avery' },
            fulfillment_details: ACP_ON,
          });
          expect((await client.pay(created.body.id)).body.status).toBe('completed');
          await staging.app.jobs.runOnce();
          const rows = await db.db
            .select()
            .from(webhookDeliveries)
            .where(eq(webhookDeliveries.sessionId, created.body.id));
          expect(
            rows.map((r) => [r.deliveredAt, r.lastError]),
            webhookUrl,
          ).toEqual([[null, 'the URL is at a private address, which is refused']]);
        }
        expect(receiver.received).toEqual([]);
      },
      {
        env: {
          APP_ENV: 'staging',
          PUBLIC_BASE_URL: 'https://portage.test',
          PAYMENT_WEBHOOK_SECRET: 'whsec_staging_test_secret',
        },
      },
    );
  });
});
