// The sandbox payment provider (the default when no Stripe key is set): a payment page of our
// own at /sandbox/checkout/:id, test cards, and events signed exactly as Stripe signs them,
// delivered to our own POST /webhooks/payments (docs/api.md "Paying").
import { createHash, randomBytes } from 'node:crypto';
import { randomKey } from '../../../contract/common.ts';
import {
  type DisputeFacts,
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
  if (event.type === 'account.updated') {
    const account = connectedAccountOf(object);
    if (account) return { kind: 'account_updated', eventId, ...account };
  }
  const phase = DISPUTE_PHASES[String(event.type)];
  if (phase) {
    const dispute = disputeOf(object);
    // A dispute of a charge made without a payment intent is none of ours.
    if (dispute) return { kind: 'dispute', eventId, phase, dispute };
  }
  return { kind: 'ignored', eventId, type: String(event.type) };
}

const DISPUTE_PHASES: Record<string, 'created' | 'updated' | 'closed' | undefined> = {
  'charge.dispute.created': 'created',
  'charge.dispute.updated': 'updated',
  'charge.dispute.closed': 'closed',
};

const isId = (prefix: string, value: unknown): value is string =>
  typeof value === 'string' && new RegExp(`^${prefix}_[A-Za-z0-9_]{1,100}$`).test(value);

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * A Stripe Account object (an `account.updated` event's) as the payouts module keeps it: what
 * is still due (requirements.currently_due) and the last four digits of its first bank account.
 */
function connectedAccountOf(account: Record<string, unknown>) {
  if (!isId('acct', account.id)) return undefined;
  const due = asRecord(account.requirements)?.currently_due;
  const requirements = Array.isArray(due)
    ? due.filter((r): r is string => typeof r === 'string' && r.length <= 200).slice(0, 100)
    : [];
  const externals = asRecord(account.external_accounts)?.data;
  const last4 = Array.isArray(externals) ? asRecord(externals[0])?.last4 : undefined;
  return {
    accountId: account.id,
    payoutsEnabled: account.payouts_enabled === true,
    requirements,
    bankLast4: typeof last4 === 'string' && /^\d{4}$/.test(last4) ? last4 : null,
  };
}

/**
 * A Stripe Dispute object as the service keeps it. Its fee is the sum of its balance
 * transactions' fees (what it cost, net of any fee given back); undefined when none is listed.
 */
function disputeOf(dispute: Record<string, unknown>): DisputeFacts | undefined {
  const pi = dispute.payment_intent;
  const paymentIntentId = typeof pi === 'string' ? pi : asRecord(pi)?.id;
  if (!isId('dp', dispute.id) || !isId('pi', paymentIntentId)) return undefined;
  const amount = Number(dispute.amount);
  if (!Number.isSafeInteger(amount) || amount <= 0) return undefined;
  const transactions = Array.isArray(dispute.balance_transactions) ? dispute.balance_transactions : [];
  const fees = transactions.flatMap((t) => {
    const fee = asRecord(t)?.fee;
    return typeof fee === 'number' && Number.isSafeInteger(fee) ? [fee] : [];
  });
  const dueBy = Number(asRecord(dispute.evidence_details)?.due_by);
  return {
    id: dispute.id,
    paymentIntentId,
    amountCents: amount,
    feeCents: fees.length ? fees.reduce((a, b) => a + b, 0) : undefined,
    reason: typeof dispute.reason === 'string' ? dispute.reason.slice(0, 100) : 'general',
    status: typeof dispute.status === 'string' ? dispute.status.slice(0, 100) : 'needs_response',
    evidenceDueBy: Number.isSafeInteger(dueBy) && dueBy > 0 ? new Date(dueBy * 1000) : null,
  };
}
