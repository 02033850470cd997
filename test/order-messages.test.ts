// Messages between an order's buyer and its seller (issue 43): each side writes, the other is told
// by email in their language (the seller as a notification, as they chose), neither address shown;
// links refused, bounds kept, who may read and write; the pages' conversation on both sides.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { orderMessages } from '../src/modules/conversations/tables.ts';
import { admin, buyer, useTestApp } from './helpers/app.ts';
import { expectError, expectInvalid, seller } from './helpers/builders.ts';
import { outboxRows, paidOrder } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

const told = () => t.app.jobs.runOnce('notices');

describe('the API', () => {
  it('the buyer writes, the seller is told and answers, the buyer is told; both read the same conversation', async () => {
    const o = await paidOrder(t, { fields: { title: 'Cedar box' } });
    await database.db.update(users).set({ locale: 'fr-CA' }).where(eq(users.id, o.buyer.id));
    const path = `/orders/${o.orderId}/messages`;
    const asked = await t.api.as(o.buyer).post(path, { body: 'Can it ship Monday?\nThanks' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    expect(asked.body).toEqual({
      id: expect.stringMatching(/^messages:/),
      order_id: o.orderId,
      from: 'buyer',
      mine: true,
      body: 'Can it ship Monday?\nThanks',
      created_at: expect.any(Number),
    });
    await told();
    const inbox = await t.api.as(o.seller).get('/sellers/me/notifications');
    expect(inbox.body.notifications[0]).toMatchObject({
      kind: 'order_message',
      subjectId: asked.body.id,
      link: `/console/orders/${encodeURIComponent(o.orderId)}#messages`,
      message: expect.stringMatching(/^A message from the buyer of order \d{4}-\d{6}$/),
    });
    const [toSeller] = await outboxRows(database, `order-message:${asked.body.id}`);
    expect(toSeller).toMatchObject({ toAddress: o.seller.email });
    expect(toSeller!.subject).toMatch(/^The buyer wrote about order \d{4}-\d{6}$/);
    expect(toSeller!.textBody).toContain('> Can it ship Monday?\n> Thanks');
    expect(toSeller!.textBody).toContain(
      `http://portage.test/console/orders/${encodeURIComponent(o.orderId)}#messages`,
    );
    expect(`${toSeller!.textBody}${toSeller!.htmlBody}`).not.toContain(o.buyer.email);

    const answered = await t.api.as(o.seller).post(path, { body: 'Yes, Monday.' });
    expect(answered.status).toBe(201);
    const [toBuyer] = await outboxRows(database, `order-message:${answered.body.id}`);
    expect(toBuyer).toMatchObject({ toAddress: o.buyer.email });
    expect(toBuyer!.subject).toMatch(/^Le vendeur vous écrit au sujet de la commande \d{4}-\d{6}$/);
    expect(toBuyer!.textBody).toContain('> Yes, Monday.');
    expect(`${toBuyer!.textBody}${toBuyer!.htmlBody}`).not.toContain(o.seller.email);

    const seen = await t.api.as(o.buyer).get(path);
    expect(seen.body.messages.map((m: { from: string; mine: boolean }) => [m.from, m.mine])).toEqual([
      ['buyer', true],
      ['seller', false],
    ]);
    const bySeller = await t.api.as(o.seller).get(path);
    expect(bySeller.body.messages.map((m: { mine: boolean }) => m.mine)).toEqual([false, true]);
  });

  it('refuses links, an empty or too long body; others see nothing; an admin reads but does not write', async () => {
    const o = await paidOrder(t);
    const path = `/orders/${o.orderId}/messages`;
    expectInvalid(await t.api.as(o.buyer).post(path, { body: 'See evil.example/deal' }), [
      { field: 'body', message: 'may not hold a link or an address (the conversation stays on Portage)' },
    ]);
    expectInvalid(await t.api.as(o.buyer).post(path, { body: 'write me at me@example.com' }), [
      { field: 'body', message: 'may not hold a link or an address (the conversation stays on Portage)' },
    ]);
    expectInvalid(await t.api.as(o.buyer).post(path, { body: '   ' }), [
      { field: 'body', message: 'write a message' },
    ]);
    const long = await t.api.as(o.buyer).post(path, { body: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expectError(await t.api.as(await buyer(t.api)).get(path), 'NOT_FOUND', 404);
    expectError(await t.api.as(await seller(t.api)).post(path, { body: 'Hi' }), 'NOT_FOUND', 404);
    expectError(await t.api.post(path, { body: 'Hi' }), 'AUTH_ERROR', 401);
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).get(path)).status).toBe(200);
    expectError(await t.api.as(boss).post(path, { body: 'Hi' }), 'AUTHZ_ERROR', 403);
    expect(
      await database.db.select().from(orderMessages).where(eq(orderMessages.orderId, o.orderId)),
    ).toEqual([]);
  });

  it('an order keeps at most 200 messages', async () => {
    const o = await paidOrder(t);
    await database.db.insert(orderMessages).values(
      Array.from({ length: 200 }, (_, n) => ({
        id: `messages:filler${String(n).padStart(12, '0')}`,
        orderId: o.orderId,
        senderId: o.buyer.id,
        side: 'buyer' as const,
        body: `Message ${n}`,
        createdAt: new Date(Date.parse('2026-11-01T00:00:00Z') + n * 1000),
      })),
    );
    // At 199, two at once: one is kept, the other refused (the order's lock).
    await database.db.delete(orderMessages).where(eq(orderMessages.id, 'messages:filler000000000199'));
    const both = await Promise.all([
      t.api.as(o.seller).post(`/orders/${o.orderId}/messages`, { body: 'First' }),
      t.api.as(o.buyer).post(`/orders/${o.orderId}/messages`, { body: 'Second' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expectError(
      await t.api.as(o.seller).post(`/orders/${o.orderId}/messages`, { body: 'One more' }),
      'CONFLICT',
      409,
      'This order has 200 messages, the most it keeps; write to the platform instead',
    );
  });
});

describe('the pages', () => {
  it('the buyer writes from the order page (a link refused, the words kept); the seller answers from the console', async () => {
    const o = await paidOrder(t);
    const shopper = new Browser(t.app);
    await shopper.signIn(o.buyer);
    const page = `/account/orders/${encodeURIComponent(o.orderId)}`;
    const first = await shopper.get(page);
    expect(textOf(first.html)).toContain('No message yet. Ask the seller anything about this order.');
    const refused = await shopper.post(`${page}/messages`, { body: 'Look at evil.com' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('>Look at evil.com</textarea>');
    expect(refused.html).toContain('id="f-body-error"');
    const sent = await shopper.post(`${page}/messages`, { body: 'Is it gift-wrapped?' });
    expect(sent.url).toBe(`${page}?done=message`);
    expect(textOf(sent.html)).toContain('Your message is sent.');
    expect(textOf(sent.html)).toContain('You · ');
    expect(textOf(sent.html)).toContain('Is it gift-wrapped?');

    const shop = new Browser(t.app);
    await shop.signIn(o.seller);
    const order = `/console/orders/${encodeURIComponent(o.orderId)}`;
    const seen = await shop.get(order);
    expect(textOf(seen.html)).toContain('The buyer · ');
    const answered = await shop.post(`${order}/messages`, { body: 'It is.' });
    expect(answered.url).toBe(`${order}?done=message#messages`);
    expect(textOf(answered.html)).toContain('Your message is sent to the buyer.');
    expect(textOf((await shopper.get(page)).html)).toContain('The seller · ');
  });
});
