// The payout provider the configuration names: Stripe Connect with STRIPE_SECRET_KEY, else the sandbox.
import type { PaymentsConfig } from '../../../config.ts';
import type { PayoutProvider } from '../provider.ts';
import { createSandboxPayouts } from './sandbox.ts';
import { createStripePayouts } from './stripe.ts';

export function createPayoutProvider(payments: PaymentsConfig, publicBaseUrl: string): PayoutProvider {
  if (payments.provider === 'stripe') return createStripePayouts(payments);
  return createSandboxPayouts({ publicBaseUrl });
}
