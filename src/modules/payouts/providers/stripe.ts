// Placeholder: Stripe Connect (being written).
import type { PaymentsConfig } from '../../../config.ts';
import type { PayoutProvider } from '../provider.ts';

export function createStripePayouts(_config: PaymentsConfig): PayoutProvider {
  const no = async (): Promise<never> => {
    throw new Error('not yet');
  };
  return {
    name: 'stripe',
    createAccount: no,
    onboardingLink: no,
    retrieveAccount: no,
    transfer: no,
    reverseTransfer: no,
    submitDisputeEvidence: no,
  };
}
