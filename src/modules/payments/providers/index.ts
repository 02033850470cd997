// The provider the configuration names: Stripe when STRIPE_SECRET_KEY is set, else the sandbox.
import type { PaymentsConfig } from '../../../config.ts';
import type { PaymentProvider } from '../provider.ts';
import { createSandboxProvider } from './sandbox.ts';
import { createStripeProvider } from './stripe.ts';

export async function createProvider(
  payments: PaymentsConfig,
  publicBaseUrl: string,
): Promise<{
  provider: PaymentProvider;
  /** Reads the events of sellers' connected accounts: signed with the Connect endpoint's own secret. */
  connect: Pick<PaymentProvider, 'name' | 'parseWebhook'>;
  sandbox?: { sign(payload: string, now: Date): string };
}> {
  if (payments.provider === 'stripe') {
    return {
      provider: createStripeProvider(payments),
      connect: createStripeProvider({ ...payments, webhookSecret: payments.connectWebhookSecret }),
    };
  }
  const sandbox = createSandboxProvider({ publicBaseUrl, webhookSecret: payments.webhookSecret });
  const connect = createSandboxProvider({ publicBaseUrl, webhookSecret: payments.connectWebhookSecret });
  return { provider: sandbox, connect, sandbox };
}
