// Nobody keeps a product from others: checking out again never holds stock past 30 minutes
// from the first reservation; a hold let lapse is not taken again by the same buyer for 15
// minutes; an account whose email is not verified holds at most 5 units of a product.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, product, seller } from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS, paymentEvent, postEvent } from './helpers/checkout.ts';
import { sessionRow, stockOf } from './helpers/orders.ts';

const { t, database } = useTestApp();

beforeAll(async () => {
  t.clock.freeze();
});

const street = (n: number) => ({ ...ON_ADDRESS, street: `${n} Queen St W` });
const verify = (who: SignedIn) =>
  database.db.update(users).set({ emailVerified: true }).where(eq(users.id, who.id));
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace(/\.000Z$/, 'Z');

async function shopWith(stock = 100) {
  const s = await seller(t.api);
  return product(t.api, s, { title: 'Birch canoe paddle', priceCents: 5000, stockQuantity: stock });
}

describe('checking out again', () => {
  it('keeps the first reservation’s end: a hold renewed every 10 minutes with another street still ends 30 minutes after the first', async () => {
    const p = await shopWith();
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 5);
    const first = await checkout(t.api, b, { shipping_address: street(1) });
    expect(first.status).toBe(201);
    for (let n = 2; n <= 3; n++) {
      t.clock.advance(10 * 60);
      const again = await checkout(t.api, b, { shipping_address: street(n) });
      expect(again.status).toBe(201);
      expect(again.body.sessionId).not.toBe(first.body.sessionId);
      expect(again.body.expiresAt).toBe(first.body.expiresAt);
    }
    // At the first reservation's end the hold lapses, whatever was renewed.
    t.clock.advance(10 * 60);
    await t.app.jobs.runOnce();
    expect(await stockOf(database, p.id)).toEqual({ stock: 100, reserved: 0 });
  });
});

describe('after a hold lapses unpaid', () => {
  it('the same buyer cannot hold the product for 15 minutes; others can; then the buyer can again', async () => {
    const p = await shopWith();
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 2);
    const lapsed = await checkout(t.api, b);
    expect(lapsed.status).toBe(201);
    t.clock.advance(30 * 60);
    // The lapse counts before the expiry job has ended the session, and after.
    for (const runJobs of [false, true]) {
      if (runJobs) await t.app.jobs.runOnce();
      expectError(
        await checkout(t.api, b, { shipping_address: street(7) }),
        'CONFLICT',
        409,
        `Your last checkout of Birch canoe paddle (${p.id}) lapsed unpaid; you can hold it again from ${iso(lapsed.body.expiresAt + 15 * 60)} (15 minutes after it lapsed)`,
      );
    }
    expect((await sessionRow(database, lapsed.body.sessionId))!.status).toBe('expired');

    const other = await buyer(t.api);
    await addToCart(t.api, other, p.id, 2);
    expect((await checkout(t.api, other)).status).toBe(201);

    t.clock.advance(15 * 60 - 1);
    expect((await checkout(t.api, b, { shipping_address: street(8) })).status).toBe(409);
    t.clock.advance(1);
    expect((await checkout(t.api, b, { shipping_address: street(8) })).status).toBe(201);
  });

  it('a hold ended before its end (its payment refused) did not lapse: no pause', async () => {
    const p = await shopWith();
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 1);
    const refused = await checkout(t.api, b);
    // A payment of another amount than quoted ends the session at once, refunded.
    await postEvent(t, paymentEvent(refused.body.sessionId, 1));
    expect((await sessionRow(database, refused.body.sessionId))!.status).toBe('expired');
    t.clock.advance(30 * 60);
    expect((await checkout(t.api, b)).status).toBe(201);
  });
});

describe('an account whose email is not verified', () => {
  it('holds at most 5 units of a product; verified, it holds more', async () => {
    const p = await shopWith();
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 6);
    expectError(
      await checkout(t.api, b),
      'CONFLICT',
      409,
      `Verify your email address to check out more than 5 of a product: Birch canoe paddle (${p.id}) has 6 in your cart`,
    );
    expect(await stockOf(database, p.id)).toEqual({ stock: 100, reserved: 0 });
    await t.api.as(b).delete(`/cart/items/${encodeURIComponent(p.id)}`);
    await addToCart(t.api, b, p.id, 5);
    expect((await checkout(t.api, b)).status).toBe(201);

    const v = await buyer(t.api);
    await verify(v);
    await addToCart(t.api, v, p.id, 60);
    expect((await checkout(t.api, v)).status).toBe(201);
    expect(await stockOf(database, p.id)).toEqual({ stock: 100, reserved: 65 });
  });
});
