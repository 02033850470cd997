// Checkout's named steps (src/modules/checkout/steps/*.ts): each refusal is a structured problem
// (a reason, the products, a message key) put into words only when the answer leaves; and the
// line source is one parameter: lines a platform gave are held over the real database without
// reading or touching the buyer's cart, and without a provider page.
import { describe, expect, it } from 'vitest';
import { CheckoutRefusal, holdCheckout } from '../src/modules/checkout/service.ts';
import { checkHolds, UNVERIFIED_MAX_UNITS } from '../src/modules/checkout/steps/check-holds.ts';
import { checkLines } from '../src/modules/checkout/steps/read-lines.ts';
import type { RequestContext } from '../src/modules/context.ts';
import { createProvider } from '../src/modules/payments/providers/index.ts';
import { useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS } from './helpers/checkout.ts';
import { stockOf } from './helpers/orders.ts';

const { t, database } = useTestApp();

function refusalOf(run: () => unknown): CheckoutRefusal {
  try {
    run();
  } catch (err) {
    if (err instanceof CheckoutRefusal) return err;
    throw err;
  }
  throw new Error('no refusal');
}

const line = (variantId: string, quantity: number) => ({ variantId, title: `Paddle ${variantId}`, quantity });

describe('check holds', () => {
  it('refuses an unverified account over the cap, naming each line, in the reader’s words', () => {
    const refused = refusalOf(() =>
      checkHolds([line('a', UNVERIFIED_MAX_UNITS + 1), line('b', 2), line('c', 1)], {
        verified: false,
        heldElsewhere: [{ variantId: 'b', units: 4 }],
        lapsed: [],
      }),
    );
    expect(refused.reason).toBe('unverified_limit');
    expect(refused.productIds).toEqual(['a', 'b']);
    expect(refused.text.key).toBe('error.checkout.unverifiedLimit');
    expect(refused.toBody('en-CA').error).toBe(
      'Verify your email address to check out more than 5 of a product: Paddle a (a) has 6 in your cart; Paddle b (b): 2 asked for, and 4 held by your other checkouts',
    );
    expect(refused.toBody('fr-CA').error).not.toMatch(/\b(Verify|asked for|in your cart)\b/);
  });

  it('lets a verified account hold any number, and refuses a product whose hold lapsed lately', () => {
    expect(() =>
      checkHolds([line('a', 50)], { verified: true, heldElsewhere: [], lapsed: [] }),
    ).not.toThrow();
    const refused = refusalOf(() =>
      checkHolds([line('a', 1), line('b', 1)], {
        verified: true,
        heldElsewhere: [],
        lapsed: [{ variantId: 'b', lapsedAt: 1_800_000_000 }],
      }),
    );
    expect(refused.reason).toBe('cooling_down');
    expect(refused.productIds).toEqual(['b']);
  });
});

describe('read lines', () => {
  it('refuses products not on sale (404) and nothing to hold (409)', () => {
    const gone = refusalOf(() => checkLines({ couponCode: null, lines: [], unavailable: ['x', 'y'] }));
    expect([gone.reason, gone.statusCode, gone.productIds]).toEqual(['unavailable', 404, ['x', 'y']]);
    const empty = refusalOf(() => checkLines({ couponCode: null, lines: [], unavailable: [] }));
    expect([empty.reason, empty.statusCode]).toEqual(['empty', 409]);
  });
});

describe('the line source', () => {
  it('holds given lines for their holder until its end, leaving the cart as it is and opening no provider page', async () => {
    const s = await seller(t.api);
    const given = await product(t.api, s, { title: 'Given paddle', priceCents: 4000, stockQuantity: 10 });
    const inCart = await product(t.api, s, { title: 'Cart paddle', priceCents: 3000, stockQuantity: 10 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, inCart.id, 1);
    const { provider } = await createProvider(t.config.payments, t.config.publicBaseUrl);
    const ctx: RequestContext = {
      db: database.db,
      now: t.clock.now,
      log: t.app.log,
      user: { id: b.id, email: b.email, role: 'buyer' },
    };
    const until = new Date(t.clock.now().getTime() + 10 * 60 * 1000);
    const held = await holdCheckout(
      ctx,
      { provider, publicBaseUrl: t.config.publicBaseUrl },
      { kind: 'given', lines: [{ variantId: given.id, quantity: 2 }], heldFor: { key: 'holder_1', until } },
      { shipping_address: { ...ON_ADDRESS, province: 'ON', country: 'CA' } },
    );
    expect(held.created).toBe(true);
    expect(held.row.sessionUrl).toBeNull();
    expect(held.row.expiresAt.getTime()).toBe(until.getTime());
    expect(held.row.parcels.flatMap((p) => p.items.map((i) => [i.productId, i.quantity]))).toEqual([
      [given.id, 2],
    ]);
    expect(await stockOf(database, given.id)).toEqual({ stock: 10, reserved: 2 });
    expect(await stockOf(database, inCart.id)).toEqual({ stock: 10, reserved: 0 });
    const cart = await t.api.as(b).get('/cart');
    expect(
      cart.body.items.map((i: { product_id: string; quantity: number }) => [i.product_id, i.quantity]),
    ).toEqual([[inCart.id, 1]]);
  });
});
