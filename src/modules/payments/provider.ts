// The payment provider interface (README "Main flows"):
// Stripe in production, the built-in sandbox everywhere else, both behind these few calls.
// Nothing here runs inside a database transaction: the caller commits first, then calls.
import type { Locale, Text } from '../../contract/i18n.ts';
import type { StoredAddress, StoredParcel } from '../checkout/tables.ts';

export interface SessionInput {
  /** Our checkout session id: also in the payment's metadata as `checkoutSessionId`. */
  checkoutId: string;
  buyerEmail: string;
  parcels: StoredParcel[];
  address: StoredAddress;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxAmountCents: number;
  totalCents: number;
  paymentMethods: readonly string[];
  expiresAt: Date;
  /** Sent to the provider as its idempotency key: a retried call opens the same session. */
  idempotencyKey: string;
  /** Where the provider's page sends the person back when done. */
  returnUrl: string;
  /** Our page that shows the provider's embedded form (when the provider gives no page URL). */
  pageUrl: string;
  /** The buyer's language: the provider's own form speaks it too. */
  locale?: Locale;
}

export interface ProviderSession {
  providerSessionId: string;
  url: string;
  clientSecret: string;
}

/** A verified event, as the service cares about it. */
export type PaymentEvent =
  | {
      kind: 'payment_succeeded';
      eventId: string;
      paymentIntentId: string;
      /** From the payment's metadata.checkoutSessionId. */
      checkoutId: string | undefined;
      amountCents: number;
    }
  | { kind: 'session_expired'; eventId: string; checkoutId: string | undefined; providerSessionId: string }
  | {
      /** A connected account changed (Stripe's `account.updated`, delivered to the Connect endpoint). */
      kind: 'account_updated';
      eventId: string;
      accountId: string;
      payoutsEnabled: boolean;
      requirements: string[];
      bankLast4: string | null;
    }
  | {
      /** `charge.dispute.created`, `.updated` or `.closed`: the dispute as it stands now. */
      kind: 'dispute';
      eventId: string;
      phase: 'created' | 'updated' | 'closed';
      dispute: DisputeFacts;
    }
  | { kind: 'ignored'; eventId: string; type: string };

/** A dispute as the provider describes it (Stripe's Dispute object, what we keep of it). */
export interface DisputeFacts {
  /** `dp_…` */
  id: string;
  paymentIntentId: string;
  amountCents: number;
  /** The provider's fee for it (Stripe's balance_transactions[].fee); undefined when not told. */
  feeCents: number | undefined;
  reason: string;
  /** needs_response, under_review, won, lost, warning_needs_response… */
  status: string;
  evidenceDueBy: Date | null;
}

/** The signature header is missing, malformed, stale or does not match: answer 400. */
export class WebhookSignatureError extends Error {}

/** The provider refused or could not be reached: PAYMENT_PROVIDER_ERROR to the caller. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** Safe to show the person (e.g. "Your card was declined"), worded in their locale when shown. */
    readonly publicMessage: Text,
    /** Worth retrying later (network, 5xx, rate limit); false for a refusal. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  createSession(input: SessionInput): Promise<ProviderSession>;
  /**
   * A session made without calling anyone (the sandbox's own page), given before the checkout
   * row is written so that it is written with it. A provider that opens sessions remotely
   * (Stripe) has none: createSession is called after the reservation commits.
   */
  localSession?(input: Pick<SessionInput, 'checkoutId'>): ProviderSession;
  /** Ends an open session at the provider (a superseded checkout); best effort. */
  expireSession(providerSessionId: string): Promise<void>;
  /** Verifies the signature on the raw body (5 minutes tolerance) or throws WebhookSignatureError. */
  parseWebhook(rawBody: Buffer, signature: string | undefined, now: Date): PaymentEvent;
  refund(input: { paymentIntentId: string; amountCents: number; idempotencyKey: string }): Promise<{
    refundId: string;
  }>;
  /**
   * Charges a token an agent platform was granted for this purchase (a Stripe Shared Payment
   * Token, `spt_…`): a payment confirmed at once, `metadata.checkoutSessionId` set, so that its
   * webhook names the checkout as a page's payment does. A provider without delegated payments
   * (the sandbox: its own vault, docs/acp.md "Payment") has none. A refusal is a ProviderError.
   */
  chargeDelegated?(input: DelegatedCharge): Promise<DelegatedPayment>;
}

export interface DelegatedCharge {
  token: string;
  amountCents: number;
  checkoutId: string;
  /** Sent as the provider's idempotency key: a retried complete charges once. */
  idempotencyKey: string;
}

/** `processing`: accepted, not settled yet; its webhook completes the purchase. */
export interface DelegatedPayment {
  paymentIntentId: string;
  status: 'succeeded' | 'processing';
  amountCents: number;
}
