// A checkout that has ended (replaced by a newer checkout of the cart, or expired) never
// becomes an order: a payment for it is refunded whole and its buyer told; the sandbox's pay
// refuses it under the session's lock; a coupon's limits are counted again where the
// redemption is written. Raced 20 times: a payment for A while a new checkout B replaces it.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { coupons } from '../src/modules/coupons/tables.ts';
import { type Answer, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, coupon, expectError, product, seller } from './helpers/builders.ts';
import {
  addToCart,
  checkout,
  ON_ADDRESS,
  pay,
  paymentEvent,
  postEvent,
  QC_ADDRESS,
} from './helpers/checkout.ts';
import {
  ordersOfCheckout,
  outboxRows,
  redemptionsOf,
  refundRows,
  sessionRow,
  stockOf,
} from './helpers/orders.ts';

const { t, database } = useTestApp();

const OTHER_STREET = { ...ON_ADDRESS, street: '200 King St W' };

let shop: { admin: SignedIn; productId: string } | undefined;

/** A buyer with 2 units of a product in the cart, and a coupon of one use in all. */
async function ready() {
  if (!shop) {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Cedar box', priceCents: 4000, stockQuantity: 1000 });
    shop = { admin: await admin(t.api, database), productId: p.id };
  }
  const b = await buyer(t.api);
  await addToCart(t.api, b, shop.productId, 2);
  const c = await coupon(t.api, shop.admin, { discountCents: 500, maxRedemptions: 1 });
  return { p: { id: shop.productId }, b, code: c.code as string };
}

describe('a payment for a checkout that has ended', () => {
  it('makes no order: refunded whole, the session stays expired, the buyer is told; the newer checkout pays with the coupon', async () => {
    const { p, b, code } = await ready();
    const stockBefore = (await stockOf(database, p.id)).stock;
    const a = await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: code });
    expect(a.status).toBe(201);
    const replaced = await checkout(t.api, b, { shipping_address: OTHER_STREET, coupon: code });
    expect(replaced.status).toBe(201);
    expect((await sessionRow(database, a.body.sessionId))!.status).toBe('expired');

    // The provider took A's payment anyway (a person on its page as B replaced it).
    const pi = `pi_test_closed_${a.body.sessionId.slice(10)}`;
    const res = await postEvent(t, paymentEvent(a.body.sessionId, a.body.totalCents, { pi }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: false, orderIds: [] });
    expect(await ordersOfCheckout(database, a.body.sessionId)).toEqual([]);
    expect((await sessionRow(database, a.body.sessionId))!.status).toBe('expired');
    expect(await refundRows(database, a.body.sessionId)).toEqual([
      expect.objectContaining({
        paymentIntentId: pi,
        amountCents: a.body.totalCents,
        reason: 'checkout_closed',
        status: 'succeeded',
      }),
    ]);
    const [mail] = await outboxRows(database, `payment-refunded:${pi}`);
    expect(mail).toMatchObject({
      toAddress: b.email,
      subject: `Your payment of $${(a.body.totalCents / 100).toFixed(2)} is being refunded`,
    });
    expect(mail!.textBody).toContain('made no order');

    // The same payment reported again (another event id) refunds nothing more.
    await postEvent(t, paymentEvent(a.body.sessionId, a.body.totalCents, { pi }));
    expect(await refundRows(database, a.body.sessionId)).toHaveLength(1);

    // B, the open one, pays: one order, the coupon's one use, the stock taken once.
    const paid = await pay(t.api, replaced.body.sessionId);
    expect(paid.status).toBe(200);
    expect(paid.body.orderIds).toHaveLength(1);
    expect(await redemptionsOf(database, code)).toHaveLength(1);
    expect((await stockOf(database, p.id)).stock).toBe(stockBefore - 2);
  });

  it('the sandbox refuses to pay a replaced session (409), takes nothing and makes no order', async () => {
    const { b, code } = await ready();
    const a = await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: code });
    await checkout(t.api, b, { shipping_address: QC_ADDRESS, coupon: code });
    const res = await pay(t.api, a.body.sessionId);
    expectError(
      res,
      'CONFLICT',
      409,
      'A newer checkout of your cart replaced this one and its stock was released; pay the newer one, or check out again',
    );
    expect(await ordersOfCheckout(database, a.body.sessionId)).toEqual([]);
    expect(await refundRows(database, a.body.sessionId)).toEqual([]);
    expect((await sessionRow(database, a.body.sessionId))!.status).toBe('expired');
  });

  it('an expired session paid late is refunded too', async () => {
    const { b } = await ready();
    const a = await checkout(t.api, b);
    t.clock.advance(31 * 60);
    try {
      await t.app.jobs.runOnce();
      expect((await sessionRow(database, a.body.sessionId))!.status).toBe('expired');
      const res = await postEvent(t, paymentEvent(a.body.sessionId, a.body.totalCents));
      expect(res.body.orderIds).toEqual([]);
      expect(await refundRows(database, a.body.sessionId)).toEqual([
        expect.objectContaining({ amountCents: a.body.totalCents, reason: 'checkout_closed' }),
      ]);
    } finally {
      t.clock.advance(-31 * 60);
    }
  });
});

describe("a coupon's limits where the redemption is written", () => {
  it('a payment that would pass the limit makes no order and is refunded; the coupon is redeemed once', async () => {
    // Two buyers hold the one use at once only if the limit was lowered after their checkouts.
    const { p, b, code } = await ready();
    const other = await buyer(t.api);
    await addToCart(t.api, other, p.id, 1);
    await database.db.update(coupons).set({ maxRedemptions: 2 }).where(eq(coupons.code, code.toUpperCase()));
    const first = await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: code });
    const second = await checkout(t.api, other, { shipping_address: ON_ADDRESS, coupon: code });
    expect([first.status, second.status]).toEqual([201, 201]);
    await database.db.update(coupons).set({ maxRedemptions: 1 }).where(eq(coupons.code, code.toUpperCase()));

    const [one, two] = await Promise.all([
      pay(t.api, first.body.sessionId),
      pay(t.api, second.body.sessionId),
    ]);
    const answers = [one, two].map((r) => r.status).sort();
    expect(answers).toEqual([200, 409]);
    const refused = one.status === 409 ? first : second;
    expectError(
      one.status === 409 ? one : two,
      'CONFLICT',
      409,
      'This checkout could no longer become an order; the payment was refunded in full. Check out again',
    );
    expect(await redemptionsOf(database, code)).toHaveLength(1);
    expect(await ordersOfCheckout(database, refused.body.sessionId)).toEqual([]);
    expect(await refundRows(database, refused.body.sessionId)).toEqual([
      expect.objectContaining({ amountCents: refused.body.totalCents, reason: 'coupon_used_up' }),
    ]);
    expect((await sessionRow(database, refused.body.sessionId))!.status).toBe('expired');
  });
});

describe('20 rounds: a payment for A while a new checkout B replaces it', () => {
  it('never two orders, never two redemptions; an A that was replaced is refunded and has no order', async () => {
    const tally = { aPaid: 0, aReplaced: 0 };
    for (let round = 0; round < 20; round++) {
      const { b, code } = await ready();
      const a = await checkout(t.api, b, { shipping_address: ON_ADDRESS, coupon: code });
      expect(a.status).toBe(201);
      // Even rounds race the two; odd rounds deliver A's payment once B has replaced it, the
      // order the review reproduced (the provider's event arriving late).
      const payA = () => postEvent(t, paymentEvent(a.body.sessionId, a.body.totalCents));
      const replaceA = () => checkout(t.api, b, { shipping_address: OTHER_STREET, coupon: code });
      const [paidA, made]: Answer[] =
        round % 2 === 0
          ? await Promise.all([payA(), replaceA()])
          : await replaceA().then(async (m) => [await payA(), m]);
      if (!paidA || !made) throw new Error('both answers');
      expect(paidA.status).toBe(200);
      if (made.status === 201) await pay(t.api, made.body.sessionId);

      const ordersA = await ordersOfCheckout(database, a.body.sessionId);
      const ordersB = made.status === 201 ? await ordersOfCheckout(database, made.body.sessionId) : [];
      const statusA = (await sessionRow(database, a.body.sessionId))!.status;
      expect(ordersA.length + ordersB.length, `round ${round}`).toBe(1);
      expect(await redemptionsOf(database, code), `round ${round}`).toHaveLength(1);
      if (ordersA.length > 0) {
        // A was paid first: B found the cart bought.
        tally.aPaid++;
        expect(statusA).toBe('complete');
        expect(made.status, JSON.stringify(made.body)).not.toBe(201);
      } else {
        tally.aReplaced++;
        expect(statusA).toBe('expired');
        expect(await refundRows(database, a.body.sessionId)).toEqual([
          expect.objectContaining({ amountCents: a.body.totalCents, reason: 'checkout_closed' }),
        ]);
      }
    }
    expect(tally.aPaid + tally.aReplaced).toBe(20);
    expect(tally.aReplaced).toBeGreaterThanOrEqual(10);
  });
});
