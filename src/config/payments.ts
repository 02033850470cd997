// The payments part of the configuration: Stripe when its key is set, the sandbox otherwise, and
// the secrets and fee that go with either.
import { z } from 'zod';
import { httpUrl, intIn, type ReadVariable } from './parse.ts';

export interface PaymentsConfig {
  /** Stripe when STRIPE_SECRET_KEY is set; the built-in sandbox otherwise. */
  provider: 'sandbox' | 'stripe';
  /** The secret webhook events are signed with (Stripe's `whsec_…`, or the sandbox's). */
  webhookSecret: string;
  stripeSecretKey: string | undefined;
  publishableKey: string;
  /** Where the Stripe SDK sends its requests (tests point it at a local server); undefined: Stripe's own. */
  stripeApiBase: URL | undefined;
  /** Platform fee in basis points of (items - discount) per order. */
  platformFeeBps: number;
  /** Days after delivery before a seller's money is available for payout (PAYOUT_HOLD_DAYS). */
  payoutHoldDays: number;
  /** What the sandbox charges for a dispute, in cents (Stripe Canada: $15). */
  disputeFeeCents: number;
  /** The secret Stripe signs Connect events with (its own endpoint); the payment webhook's otherwise. */
  connectWebhookSecret: string;
}

/** The sandbox's webhook secret in development when PAYMENT_WEBHOOK_SECRET is not set. */
export const SANDBOX_DEV_WEBHOOK_SECRET = 'whsec_portage_sandbox_development_only';

export function paymentsConfig(
  pick: ReadVariable,
  problems: string[],
  deployed: boolean,
  appEnv: string,
): PaymentsConfig {
  const stripeSecretKey = pick<string | undefined>(
    'STRIPE_SECRET_KEY',
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_…, sk_live_…)'),
    undefined,
  );
  const provider = stripeSecretKey ? 'stripe' : 'sandbox';
  // The sandbox takes no money: anyone holding a session's page could "pay" with a test card.
  if (provider === 'sandbox' && appEnv === 'production') {
    problems.push('STRIPE_SECRET_KEY: required when APP_ENV=production (the sandbox takes no money)');
  }
  let webhookSecret = pick<string | undefined>(
    'PAYMENT_WEBHOOK_SECRET',
    z.string().min(16, 'must be at least 16 characters').max(200),
    undefined,
  );
  if (!webhookSecret) {
    if (provider === 'stripe' || deployed) {
      problems.push(
        provider === 'stripe'
          ? 'PAYMENT_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the whsec_… of the webhook endpoint)'
          : `PAYMENT_WEBHOOK_SECRET: required when APP_ENV=${appEnv}`,
      );
    }
    webhookSecret = SANDBOX_DEV_WEBHOOK_SECRET;
  }
  const publishableKey = pick<string | undefined>(
    'STRIPE_PUBLISHABLE_KEY',
    z.string().regex(/^pk_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe publishable key (pk_test_…)'),
    undefined,
  );
  if (provider === 'stripe' && !publishableKey) {
    problems.push('STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY');
  }
  const apiBase = pick<string | undefined>('STRIPE_API_BASE', httpUrl, undefined);
  return {
    provider,
    webhookSecret,
    stripeSecretKey,
    publishableKey: publishableKey ?? 'pk_sandbox_portage',
    stripeApiBase: apiBase ? new URL(apiBase) : undefined,
    platformFeeBps: pick('PLATFORM_FEE_BPS', intIn(0, 10_000), 250),
    payoutHoldDays: pick('PAYOUT_HOLD_DAYS', intIn(0, 90), 7),
    disputeFeeCents: pick('DISPUTE_FEE_CENTS', intIn(0, 100_000), 1500),
    connectWebhookSecret:
      pick<string | undefined>(
        'STRIPE_CONNECT_WEBHOOK_SECRET',
        z.string().min(16, 'must be at least 16 characters').max(200),
        undefined,
      ) ?? webhookSecret,
  };
}
