// The sandbox payment provider (the default when no Stripe key is set): a payment page of our
// own at /sandbox/checkout/:id, test cards, and events signed exactly as Stripe signs them,
// delivered to our own POST /webhooks/payments (docs/api.md "Paying").
import { createHash, randomBytes } from 'node:crypto';
import { randomKey } from '../../../contract/common.ts';
import {
  type PaymentEvent,
  type PaymentProvider,
  type ProviderSession,
  type SessionInput,
  WebhookSignatureError,
} from '../provider.ts';
import { signatureHeader, verifySignature } from '../signature.ts';

export const SANDBOX_CARDS = {
  pays: '4242424242424242',
  declined: '4000000000000002',
  // Needs the card holder to confirm (3-D Secure): it pays on the payment page, where the person
  // is; a delegated token of it cannot pay (an agent's protocol hands the person the page).
  authenticates: '4000002760003184',
} as const;

const id = (prefix: string) => `${prefix}_${randomKey(12).replace(/[-_]/g, 'x')}`;

/** The payment intent of a checkout paid in the sandbox: one per checkout, so paying twice is one payment. */
export const sandboxPaymentIntent = (checkoutId: string) =>
  `pi_sandbox_${createHash('sha256').update(checkoutId).digest('hex').slice(0, 24)}`;

/** The Stripe-shaped event the sandbox sends when a checkout is paid. */
export function paymentSucceededEvent(checkoutId: string, amountCents: number, now: Date) {
  const created = Math.floor(now.getTime() / 1000);
  return {
    id: id('evt_sandbox'),
    object: 'event',
    type: 'payment_intent.succeeded',
    created,
    livemode: false,
    data: {
      object: {
        id: sandboxPaymentIntent(checkoutId),
        object: 'payment_intent',
        amount: amountCents,
        amount_received: amountCents,
        currency: 'cad',
        status: 'succeeded',
        created,
        metadata: { checkoutSessionId: checkoutId },
      },
    },
  };
}

export function createSandboxProvider(opts: {
  publicBaseUrl: string;
  webhookSecret: string;
}): PaymentProvider & {
  sign(payload: string, now: Date): string;
} {
  const localSession = (input: Pick<SessionInput, 'checkoutId'>): ProviderSession => {
    const providerSessionId = id('cs_sandbox');
    return {
      providerSessionId,
      url: `${opts.publicBaseUrl}/sandbox/checkout/${encodeURIComponent(input.checkoutId)}`,
      clientSecret: `${providerSessionId}_secret_${randomBytes(12).toString('hex')}`,
    };
  };
  return {
    name: 'sandbox',
    async createSession(input: SessionInput): Promise<ProviderSession> {
      return localSession(input);
    },
    localSession,
    async expireSession() {},
    parseWebhook(rawBody: Buffer, signature: string | undefined, now: Date): PaymentEvent {
      verifySignature(rawBody, signature, opts.webhookSecret, now);
      return mapEvent(rawBody);
    },
    async refund() {
      return { refundId: id('re_sandbox') };
    },
    sign: (payload, now) => signatureHeader(payload, opts.webhookSecret, Math.floor(now.getTime() / 1000)),
  };
}

/** Maps a verified Stripe-shaped event body to what the service handles. */
function mapEvent(rawBody: Buffer): PaymentEvent {
  let event: {
    id?: unknown;
    type?: unknown;
    data?: { object?: Record<string, unknown> & { metadata?: Record<string, unknown> } };
  };
  try {
    event = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookSignatureError('The event is not JSON');
  }
  const eventId = typeof event.id === 'string' ? event.id : '';
  if (!/^evt_[A-Za-z0-9_]{1,100}$/.test(eventId)) throw new WebhookSignatureError('The event has no id');
  const object = event.data?.object ?? {};
  const checkoutId =
    typeof object.metadata?.checkoutSessionId === 'string' ? object.metadata.checkoutSessionId : undefined;
  if (event.type === 'payment_intent.succeeded' && typeof object.id === 'string') {
    const amount = Number(object.amount_received ?? object.amount);
    return {
      kind: 'payment_succeeded',
      eventId,
      paymentIntentId: object.id,
      checkoutId,
      amountCents: Number.isSafeInteger(amount) ? amount : 0,
    };
  }
  if (event.type === 'checkout.session.expired' && typeof object.id === 'string') {
    return { kind: 'session_expired', eventId, checkoutId, providerSessionId: object.id };
  }
  return { kind: 'ignored', eventId, type: String(event.type) };
}
