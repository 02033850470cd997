// Builders for checkout tests: a valid address, a cart filled through the API, a checkout, a
// payment through the sandbox's real pay endpoint, and webhook events signed as Stripe signs.
import { expect } from 'vitest';
import { signatureHeader } from '../../src/modules/payments/signature.ts';
import type { Answer, Api, SignedIn, TestApp } from './app.ts';

export const ON_ADDRESS = {
  street: '100 Queen St W',
  city: 'Toronto',
  province: 'ON',
  postalCode: 'M5H 2N2',
  country: 'CA',
  phone: '+14165550123',
};

export const QC_ADDRESS = {
  street: '1000 Rue Sherbrooke O',
  city: 'Montréal',
  province: 'QC',
  postalCode: 'H3A 3G4',
  country: 'CA',
  phone: '+15145550123',
};

export async function addToCart(api: Api, who: SignedIn, productId: string, quantity = 1) {
  const res = await api.as(who).post('/cart/items', { product_id: productId, quantity });
  if (res.status !== 200) throw new Error(`add to cart failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function checkout(
  api: Api,
  who: SignedIn,
  body: Record<string, unknown> = { shipping_address: ON_ADDRESS },
  headers: Record<string, string> = {},
): Promise<Answer> {
  return api.as(who).post('/checkout', body, headers);
}

/** Opens a checkout that must succeed; answers the session. */
// biome-ignore lint/suspicious/noExplicitAny: the session as the tests assert it
export async function openCheckout(api: Api, who: SignedIn, address = ON_ADDRESS): Promise<any> {
  const res = await checkout(api, who, { shipping_address: address });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`checkout failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Pays in the sandbox, as its page's form would (JSON variant). */
export const pay = (api: Api, sessionId: string, card = '4242424242424242') =>
  api.post(`/sandbox/checkout/${encodeURIComponent(sessionId)}/pay`, { card });

/** Pays and answers the order ids. */
export async function payOk(api: Api, sessionId: string): Promise<string[]> {
  const res = await pay(api, sessionId);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.orderIds;
}

/** A Stripe-shaped payment_intent.succeeded event. */
export function paymentEvent(
  checkoutId: string,
  amount: number,
  opts: { eventId?: string; pi?: string } = {},
) {
  return {
    id: opts.eventId ?? `evt_test_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: opts.pi ?? `pi_test_${checkoutId.split(':')[1]}`,
        object: 'payment_intent',
        amount,
        amount_received: amount,
        currency: 'cad',
        metadata: { checkoutSessionId: checkoutId },
      },
    },
  };
}

/** Posts an event to the webhook, signed with the app's secret at the app's clock (or `at`). */
export function postEvent(t: TestApp, event: unknown, opts: { secret?: string; at?: number } = {}) {
  const payload = JSON.stringify(event);
  const at = opts.at ?? Math.floor(t.clock.now().getTime() / 1000);
  return t.api.post('/webhooks/payments', payload, {
    'content-type': 'application/json',
    'stripe-signature': signatureHeader(payload, opts.secret ?? t.config.payments.webhookSecret, at),
  });
}
