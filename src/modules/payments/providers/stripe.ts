// The Stripe payment provider (README "Main flows"), through
// the official SDK: an embedded Checkout Session per checkout, refunds, and webhook verification.
// Chosen when STRIPE_SECRET_KEY is set (docs/api.md "Stripe"). Amounts are integer cents (CAD).
import Stripe from 'stripe';
import type { PaymentsConfig } from '../../../config.ts';
import { BASE_LOCALE, type Locale, t, taxLineLabel, text } from '../../../contract/i18n.ts';
import type { StoredParcel } from '../../checkout/tables.ts';
import type { ConnectedAccount } from '../../payouts/provider.ts';
import { serviceName } from '../../shipping/names.ts';
import {
  type DelegatedPayment,
  type DisputeFacts,
  type PaymentEvent,
  type PaymentProvider,
  ProviderError,
  type ProviderSession,
  type SessionInput,
  WebhookSignatureError,
} from '../provider.ts';
import { TOLERANCE_SECONDS } from '../signature.ts';

export interface StripeProviderOptions {
  /** Retries of the SDK on connection errors, 409 and 5xx (with the same idempotency key). Default 2. */
  maxNetworkRetries?: number;
  /** Per-request timeout in ms. Default 15 s. */
  timeoutMs?: number;
}

/**
 * Added to our expiry: Stripe refuses a session that expires sooner than 30 minutes after it
 * creates it, and our reservation lasts exactly 30 minutes from our clock; this covers the
 * request's transit and the clocks' skew. Fixed, not computed from the time of the call, so a
 * retried call sends the same parameters and Stripe replays its first answer for our key.
 */
export const EXPIRY_GRACE_SECONDS = 60;

/**
 * Our payment method names (docs/api.md "Checkout") as
 * Stripe's payment method types. Apple Pay and Google Pay are wallets of `card` at Stripe,
 * not types of their own: allowing `card` offers them where the device supports them.
 */
const METHOD_TYPES: Record<string, Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType> = {
  card: 'card',
  apple_pay: 'card',
  google_pay: 'card',
  klarna: 'klarna',
};

/**
 * The SDK's client for the configured key, pointed at STRIPE_API_BASE when set (file uploads
 * too: the SDK sends them to the overridden host instead of files.stripe.com). Shared by the
 * payment and payout providers.
 */
export function stripeClient(
  config: PaymentsConfig,
  opts: StripeProviderOptions = {},
): { stripe: Stripe; secretKey: string } {
  const secretKey = config.stripeSecretKey;
  if (!secretKey) throw new Error('The Stripe provider needs STRIPE_SECRET_KEY');
  const base = config.stripeApiBase;
  const stripe = new Stripe(secretKey, {
    maxNetworkRetries: opts.maxNetworkRetries ?? 2,
    timeout: opts.timeoutMs ?? 15_000,
    telemetry: false,
    appInfo: { name: 'portage' },
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  return { stripe, secretKey };
}

export function createStripeProvider(
  config: PaymentsConfig,
  opts: StripeProviderOptions = {},
): PaymentProvider {
  const { stripe, secretKey } = stripeClient(config, opts);
  const wrap = (what: string) => (err: unknown) => {
    throw toProviderError(err, what, secretKey);
  };

  return {
    name: 'stripe',

    async createSession(input: SessionInput): Promise<ProviderSession> {
      const discounts: Stripe.Checkout.SessionCreateParams.Discount[] = [];
      if (input.discountCents > 0) {
        // Stripe has no negative line: the discount is a one-off coupon for exactly our amount,
        // created under a key derived from ours so that a retried call makes no second coupon.
        const coupon = await stripe.coupons
          .create(
            {
              amount_off: input.discountCents,
              currency: 'cad',
              duration: 'once',
              max_redemptions: 1,
              name: t(input.locale ?? BASE_LOCALE, 'payments.stripe.discount'),
              metadata: { checkoutSessionId: input.checkoutId },
            },
            { idempotencyKey: `${input.idempotencyKey}:coupon` },
          )
          .catch(wrap('create a coupon'));
        discounts.push({ coupon: coupon.id });
      }
      const params = sessionParams(input, discounts);
      const session = await stripe.checkout.sessions
        .create(params, { idempotencyKey: input.idempotencyKey })
        .catch(wrap('create a checkout session'));
      if (!session.client_secret) {
        throw new ProviderError(
          `Stripe answered checkout session ${session.id} without a client secret`,
          text('error.payments.pageNotOpened'),
          false,
        );
      }
      return {
        providerSessionId: session.id,
        // An embedded session has no Stripe URL: our page mounts Stripe's form with the client secret.
        url: session.url ?? input.pageUrl,
        clientSecret: session.client_secret,
      };
    },

    async expireSession(providerSessionId: string): Promise<void> {
      try {
        await stripe.checkout.sessions.expire(providerSessionId);
      } catch (err) {
        // 400: no longer open (already expired or complete); 404: unknown. Nothing left to end.
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return;
        throw toProviderError(err, 'expire a checkout session', secretKey);
      }
    },

    parseWebhook(rawBody: Buffer, signature: string | undefined, now: Date): PaymentEvent {
      if (!signature) throw new WebhookSignatureError('No signature header');
      let event: Stripe.Event;
      try {
        // receivedAt: our clock, not the machine's (tests move it).
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          config.webhookSecret,
          TOLERANCE_SECONDS,
          undefined,
          now.getTime(),
        );
      } catch (err) {
        throw new WebhookSignatureError(
          err instanceof Stripe.errors.StripeSignatureVerificationError
            ? `Signature verification failed: ${firstLine(err.message)}`
            : 'Malformed event',
        );
      }
      // The SDK only refuses old timestamps; refuse ones from the future too (as the sandbox does).
      const t = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
      if (!Number.isFinite(t) || t - Math.floor(now.getTime() / 1000) > TOLERANCE_SECONDS) {
        throw new WebhookSignatureError('Signature timestamp outside the tolerance');
      }
      return toPaymentEvent(event);
    },

    async chargeDelegated(input): Promise<DelegatedPayment> {
      const metadata = { checkoutSessionId: input.checkoutId };
      // The granted token goes in payment_method_data (Stripe API 2026-04-22); the SDK's types
      // predate it, so the parameter is added untyped. transfer_group: the sellers' transfers
      // name the checkout, as a page's payment does.
      const params = {
        amount: input.amountCents,
        currency: 'cad',
        confirm: true,
        payment_method_data: { shared_payment_granted_token: input.token },
        metadata,
        transfer_group: input.checkoutId,
      } as unknown as Stripe.PaymentIntentCreateParams;
      const intent = await stripe.paymentIntents
        .create(params, { idempotencyKey: input.idempotencyKey })
        .catch(wrap('charge a shared payment token'));
      const status = (['succeeded', 'processing'] as const).find((s) => s === intent.status);
      if (status) {
        return {
          paymentIntentId: intent.id,
          status,
          amountCents: intent.amount_received || intent.amount,
        };
      }
      // requires_action (3-D Secure) and the like: nobody is there to act in an agent's purchase.
      throw new ProviderError(
        `Stripe answered payment intent ${intent.id} with status ${intent.status}`,
        text('error.payments.needsConfirmation'),
        false,
      );
    },

    async refund(input) {
      const refund = await stripe.refunds
        .create(
          { payment_intent: input.paymentIntentId, amount: input.amountCents },
          { idempotencyKey: input.idempotencyKey },
        )
        .catch(wrap('refund a payment'));
      return { refundId: refund.id };
    },
  };
}

/** The Checkout Session exactly as Stripe is asked for it. */
function sessionParams(
  input: SessionInput,
  discounts: Stripe.Checkout.SessionCreateParams.Discount[],
): Stripe.Checkout.SessionCreateParams {
  const lineItems: Stripe.Checkout.SessionCreateParams.LineItem[] = input.parcels.flatMap((parcel) =>
    parcel.items.map((item) => ({
      quantity: item.quantity,
      price_data: {
        currency: 'cad',
        unit_amount: item.unitPriceCents,
        tax_behavior: 'exclusive' as const,
        product_data: {
          name: item.name,
          ...(item.imageUrl?.startsWith('https://') ? { images: [item.imageUrl] } : {}),
          metadata: { productId: item.productId, sellerId: parcel.sellerId },
        },
      },
    })),
  );
  // Our tax, per component summed over the parcels, as its own lines: Stripe charges exactly the
  // quote the orders record (docs/api.md "Stripe").
  const taxLines = new Map<string, { label: string; cents: number }>();
  for (const parcel of input.parcels) {
    for (const t of parcel.taxLines) {
      const label = taxLineLabel(input.locale ?? BASE_LOCALE, t.name, t.ratePercent);
      taxLines.set(label, { label, cents: (taxLines.get(label)?.cents ?? 0) + t.amountCents });
    }
  }
  for (const t of taxLines.values()) {
    if (t.cents <= 0) continue;
    lineItems.push({
      quantity: 1,
      price_data: { currency: 'cad', unit_amount: t.cents, product_data: { name: t.label } },
    });
  }
  const shippingCents = input.parcels.reduce((sum, p) => sum + p.shippingCostCents, 0);
  const methods = [...new Set(input.paymentMethods.map((m) => METHOD_TYPES[m] ?? m))];
  const metadata = { checkoutSessionId: input.checkoutId };
  return {
    mode: 'payment',
    ui_mode: 'embedded_page',
    // Stripe's form in the buyer's language ('en' is Stripe's English).
    locale: input.locale === 'fr-CA' ? 'fr-CA' : 'en',
    currency: 'cad',
    line_items: lineItems,
    ...(discounts.length ? { discounts } : {}),
    // The options the buyer chose, as one rate (Stripe charges our quote, not a choice of its own).
    shipping_options: [
      {
        shipping_rate_data: {
          type: 'fixed_amount',
          display_name: shippingName(input.locale ?? BASE_LOCALE, input.parcels, shippingCents),
          fixed_amount: { amount: shippingCents, currency: 'cad' },
          tax_behavior: 'exclusive',
          ...deliveryEstimate(input.parcels),
        },
      },
    ],
    allowed_payment_method_types: methods,
    customer_email: input.buyerEmail,
    client_reference_id: input.checkoutId,
    metadata,
    // The sellers' transfers (separate charges and transfers) name the checkout as their group.
    payment_intent_data: { metadata, transfer_group: input.checkoutId },
    expires_at: Math.floor(input.expiresAt.getTime() / 1000) + EXPIRY_GRACE_SECONDS,
    return_url: `${input.returnUrl}${input.returnUrl.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`,
  };
}

/** The rate's name: the service chosen when every parcel goes by the same one, else "Shipping, N parcels". */
function shippingName(locale: Locale, parcels: StoredParcel[], cents: number): string {
  const names = new Set(parcels.map((p) => (p.shipping ? serviceName(locale, p.shipping) : '')));
  const [only] = names;
  if (cents > 0 && names.size === 1 && only) {
    return t(locale, 'payments.stripe.shippingService', { service: only, parcels: parcels.length });
  }
  return t(locale, 'payments.stripe.shipping', { free: cents === 0 ? 'yes' : 'no', parcels: parcels.length });
}

/** The chosen options' business days, soonest and latest parcel, as Stripe's delivery estimate. */
function deliveryEstimate(parcels: StoredParcel[]) {
  const days = parcels.flatMap((p) =>
    p.shipping && p.shipping.businessDays > 0 ? [p.shipping.businessDays] : [],
  );
  if (days.length === 0) return {};
  return {
    delivery_estimate: {
      minimum: { unit: 'business_day' as const, value: Math.min(...days) },
      maximum: { unit: 'business_day' as const, value: Math.max(...days) },
    },
  };
}

function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  switch (event.type) {
    case 'payment_intent.succeeded': {
      const intent = event.data.object;
      return {
        kind: 'payment_succeeded',
        eventId: event.id,
        paymentIntentId: intent.id,
        checkoutId: intent.metadata?.checkoutSessionId,
        amountCents: intent.amount_received ?? intent.amount,
      };
    }
    case 'checkout.session.expired': {
      const session = event.data.object;
      return {
        kind: 'session_expired',
        eventId: event.id,
        checkoutId: session.metadata?.checkoutSessionId,
        providerSessionId: session.id,
      };
    }
    case 'account.updated':
      return { kind: 'account_updated', eventId: event.id, ...connectedAccount(event.data.object) };
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed': {
      const dispute = disputeFacts(event.data.object);
      // A dispute of a charge made without a payment intent is none of ours.
      if (!dispute) return { kind: 'ignored', eventId: event.id, type: event.type };
      const phase = event.type.slice('charge.dispute.'.length) as 'created' | 'updated' | 'closed';
      return { kind: 'dispute', eventId: event.id, phase, dispute };
    }
    default:
      return { kind: 'ignored', eventId: event.id, type: event.type };
  }
}

/** A Connect account as the payouts module keeps it (also what the payout provider answers). */
export function connectedAccount(account: Stripe.Account): ConnectedAccount {
  const external = account.external_accounts?.data[0] as { last4?: string | null } | undefined;
  return {
    accountId: account.id,
    payoutsEnabled: account.payouts_enabled ?? false,
    requirements: [...(account.requirements?.currently_due ?? [])],
    bankLast4: external?.last4 ?? null,
  };
}

function disputeFacts(dispute: Stripe.Dispute): DisputeFacts | undefined {
  const pi = dispute.payment_intent;
  const paymentIntentId = typeof pi === 'string' ? pi : pi?.id;
  if (!paymentIntentId) return undefined;
  const fees = (dispute.balance_transactions ?? []).flatMap((t) =>
    typeof t?.fee === 'number' ? [t.fee] : [],
  );
  const dueBy = dispute.evidence_details?.due_by;
  return {
    id: dispute.id,
    paymentIntentId,
    amountCents: dispute.amount,
    feeCents: fees.length ? fees.reduce((a, b) => a + b, 0) : undefined,
    reason: dispute.reason,
    status: dispute.status,
    evidenceDueBy: dueBy ? new Date(dueBy * 1000) : null,
  };
}

/**
 * An SDK error as a ProviderError: what the person may see, whether a retry may help, and a
 * message for the log that never holds the secret key. Anything else is a bug: thrown as is.
 */
export function toProviderError(err: unknown, what: string, secretKey: string): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  const E = Stripe.errors;
  const detail = [err.type, err.statusCode, err.code, err.decline_code, err.requestId]
    .filter((v) => v !== undefined && v !== null && v !== '')
    .join(' ');
  const message = scrub(`Stripe could not ${what} (${detail}): ${firstLine(err.message)}`, secretKey);
  if (err instanceof E.StripeCardError) {
    // Stripe writes card errors for the person ("Your card was declined."), in English: said as
    // it is in English, by its code in French.
    const said = scrub(firstLine(err.message), secretKey);
    return new ProviderError(
      message,
      said
        ? text('error.payments.cardRefused', { message: said, code: err.code ?? 'other' })
        : text('error.payments.cardDeclined'),
      false,
    );
  }
  if (
    err instanceof E.StripeConnectionError ||
    err instanceof E.StripeAPIError ||
    err instanceof E.StripeRateLimitError
  ) {
    return new ProviderError(message, text('error.payments.providerUnavailable'), true);
  }
  return new ProviderError(message, text('error.payments.notProcessed'), false);
}

/** Drops the key itself and anything shaped like a Stripe secret or restricted key. */
function scrub(text: string, secretKey: string): string {
  return text
    .split(secretKey)
    .join('[key]')
    .replace(/\b(sk|rk)_(test|live)_[A-Za-z0-9*]+/g, '[key]');
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim().slice(0, 300);
}
