// Placeholder: the sandbox payout provider (being written).
import type { PayoutProvider } from '../provider.ts';

export function createSandboxPayouts(_opts: { publicBaseUrl: string }): PayoutProvider {
  const no = async (): Promise<never> => {
    throw new Error('not yet');
  };
  return {
    name: 'sandbox',
    createAccount: no,
    onboardingLink: no,
    retrieveAccount: no,
    transfer: no,
    reverseTransfer: no,
    submitDisputeEvidence: no,
  };
}
